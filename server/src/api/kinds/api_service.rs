//! `apiregistration.{domain}/v1` APIService as data: the schema generated
//! from k8s-openapi, kube-aggregator's validation (the name is
//! `<version>.<group>`, priorities in range, a local APIService has no
//! TLS settings), the service port defaulted to 443, and the columns
//! `kubectl get apiservices` prints.

use std::sync::Arc;

use serde_json::{Value, json};

use super::checks::str_at;
use super::generated::resource;
use super::kind_rules::KindRules;
use crate::api::error::Cause;
use crate::api::kind::{Column, KindSpec, NameRule, Subresources};
use crate::api::meta::{is_label, is_subdomain, name_problem};
use crate::api::object;
use crate::api::registry::Registry;

/// The port an APIService's service is reached on when it names none.
pub const DEFAULT_SERVICE_PORT: u16 = 443;

const DEFINITION: &str = "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService";

/// Registers APIService in `apiregistration.{domain}`.
pub fn add_api_service(r: &Registry, domain: &str) {
    let schema = resource(DEFINITION);
    let fresh_status = Some(schema.property("status").cloned().unwrap_or_default());
    r.add(KindSpec {
        strategy: Arc::new(KindRules {
            defaults,
            checks,
            fresh_status,
            name_rule: NameRule::PathSegment,
            ..KindRules::default()
        }),
        subresources: Subresources {
            status: true,
            ..Subresources::default()
        },
        columns: columns(),
        ..KindSpec::new(
            &format!("apiregistration.{domain}"),
            "v1",
            "APIService",
            "apiservices",
            false,
            schema,
        )
    });
}

fn defaults(obj: &mut Value) {
    if let Some(service) = obj
        .pointer_mut("/spec/service")
        .and_then(Value::as_object_mut)
    {
        service.entry("port").or_insert(json!(DEFAULT_SERVICE_PORT));
    }
}

fn int_at(obj: &Value, pointer: &str) -> i64 {
    obj.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

/// kube-aggregator's `ValidateAPIService`.
fn checks(obj: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    let group = str_at(obj, "/spec/group");
    let version = str_at(obj, "/spec/version");
    let name = object::name(obj);
    let required_name = format!("{version}.{group}");
    if name_problem(name, NameRule::PathSegment).is_none() && name != required_name {
        out.push(Cause::invalid(
            "metadata.name",
            name,
            &format!("must be `spec.version+\".\"+spec.group`: {required_name:?}"),
        ));
    }
    if group.is_empty() && version != "v1" {
        out.push(Cause::new(
            "FieldValueRequired",
            "spec.group",
            "Required value: only v1 may have an empty group and it better be legacy kube",
        ));
    }
    if !group.is_empty() && !is_subdomain(group) {
        out.push(Cause::invalid(
            "spec.group",
            group,
            name_problem(group, NameRule::Subdomain)
                .unwrap_or_default()
                .as_str(),
        ));
    }
    let dns1035 = !version.is_empty()
        && is_label(version)
        && version.starts_with(|c: char| c.is_ascii_lowercase());
    if !dns1035 {
        out.push(Cause::invalid(
            "spec.version",
            version,
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        ));
    }
    let group_priority = int_at(obj, "/spec/groupPriorityMinimum");
    if group_priority <= 0 || group_priority > 20000 {
        out.push(Cause::new(
            "FieldValueInvalid",
            "spec.groupPriorityMinimum",
            format!("Invalid value: {group_priority}: must be positive and less than 20000"),
        ));
    }
    let version_priority = int_at(obj, "/spec/versionPriority");
    if version_priority <= 0 || version_priority > 1000 {
        out.push(Cause::new(
            "FieldValueInvalid",
            "spec.versionPriority",
            format!("Invalid value: {version_priority}: must be positive and less than 1000"),
        ));
    }
    let ca_bundle = str_at(obj, "/spec/caBundle");
    let insecure = obj
        .pointer("/spec/insecureSkipTLSVerify")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let Some(service) = obj.pointer("/spec/service").filter(|s| s.is_object()) else {
        if !ca_bundle.is_empty() {
            let bytes = base64_len(ca_bundle);
            out.push(Cause::invalid(
                "spec.caBundle",
                &format!("{bytes} bytes"),
                "local APIServices may not have a caBundle",
            ));
        }
        if insecure {
            out.push(Cause::new(
                "FieldValueInvalid",
                "spec.insecureSkipTLSVerify",
                "Invalid value: true: local APIServices may not have insecureSkipTLSVerify",
            ));
        }
        return out;
    };
    if str_at(service, "/namespace").is_empty() {
        out.push(Cause::required("spec.service.namespace"));
    }
    if str_at(service, "/name").is_empty() {
        out.push(Cause::required("spec.service.name"));
    }
    let port = int_at(service, "/port");
    if !(1..=65535).contains(&port) {
        out.push(Cause::new(
            "FieldValueInvalid",
            "spec.service.port",
            format!(
                "Invalid value: {port}: port is not valid: must be between 1 and 65535, inclusive"
            ),
        ));
    }
    if insecure && !ca_bundle.is_empty() {
        out.push(Cause::new(
            "FieldValueInvalid",
            "spec.insecureSkipTLSVerify",
            "Invalid value: true: may not be true if caBundle is present",
        ));
    }
    out
}

/// Decoded length of base64 `text` (the caBundle's bytes).
fn base64_len(text: &str) -> usize {
    let padding = text.bytes().rev().take_while(|b| *b == b'=').count();
    (text.len() / 4 * 3).saturating_sub(padding)
}

fn service_cell(obj: &Value) -> Value {
    match obj.pointer("/spec/service").filter(|s| s.is_object()) {
        None => "Local".into(),
        Some(s) => format!("{}/{}", str_at(s, "/namespace"), str_at(s, "/name")).into(),
    }
}

fn available_cell(obj: &Value) -> Value {
    let conditions = obj
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let Some(c) = conditions
        .iter()
        .find(|c| str_at(c, "/type") == "Available")
    else {
        return "Unknown".into();
    };
    match (str_at(c, "/status"), str_at(c, "/reason")) {
        ("True", _) => "True".into(),
        (status, "") => status.into(),
        (status, reason) => format!("{status} ({reason})").into(),
    }
}

fn columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::computed(
            "Service",
            "string",
            0,
            service_cell,
            "The reference to the service that hosts this API endpoint.",
        ),
        Column::computed(
            "Available",
            "string",
            0,
            available_cell,
            "Whether this service is available.",
        ),
        Column::age(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(obj: &Value) -> Vec<String> {
        checks(obj).into_iter().map(|c| c.field).collect()
    }

    #[test]
    fn names_priorities_and_tls_follow_kube_aggregator() {
        let good = json!({"metadata": {"name": "v1beta1.metrics.k8s.io"}, "spec": {
            "group": "metrics.k8s.io", "version": "v1beta1", "groupPriorityMinimum": 100,
            "versionPriority": 100, "insecureSkipTLSVerify": true,
            "service": {"namespace": "kube-system", "name": "metrics", "port": 443}}});
        assert!(checks(&good).is_empty(), "{:?}", checks(&good));
        let core = json!({"metadata": {"name": "v1."}, "spec": {"version": "v1",
            "groupPriorityMinimum": 18000, "versionPriority": 1}});
        assert!(checks(&core).is_empty());
        let mut wrong = good.clone();
        wrong["metadata"]["name"] = json!("metrics");
        wrong["spec"]["groupPriorityMinimum"] = json!(0);
        wrong["spec"]["caBundle"] = json!("AAAA");
        assert_eq!(
            fields(&wrong),
            [
                "metadata.name",
                "spec.groupPriorityMinimum",
                "spec.insecureSkipTLSVerify"
            ]
        );
        let local_tls = json!({"metadata": {"name": "v1.x.io"}, "spec": {"group": "x.io",
            "version": "v1", "groupPriorityMinimum": 1, "versionPriority": 1, "caBundle": "AAAA"}});
        assert_eq!(fields(&local_tls), ["spec.caBundle"]);
    }

    #[test]
    fn the_schema_carries_protobuf_numbers() {
        let schema = resource(DEFINITION);
        let spec = schema.property("spec").expect("spec");
        assert_eq!(
            spec.property("groupPriorityMinimum").and_then(|s| s.proto),
            Some(7)
        );
        let status = schema.property("status").expect("status");
        assert_eq!(status.property("conditions").and_then(|s| s.proto), Some(1));
    }

    #[test]
    fn the_service_port_defaults_to_443_and_columns_read_as_kubectl_prints() {
        let mut obj = json!({"spec": {"service": {"namespace": "a", "name": "b"}}});
        defaults(&mut obj);
        assert_eq!(obj["spec"]["service"]["port"], 443);
        assert_eq!(service_cell(&obj), "a/b");
        assert_eq!(service_cell(&json!({"spec": {}})), "Local");
        let down = json!({"status": {"conditions": [{"type": "Available", "status": "False",
            "reason": "FailedDiscoveryCheck"}]}});
        assert_eq!(available_cell(&down), "False (FailedDiscoveryCheck)");
        assert_eq!(available_cell(&json!({})), "Unknown");
    }
}
