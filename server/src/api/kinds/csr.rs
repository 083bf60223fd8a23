//! `certificates.{domain}/v1` CertificateSigningRequest as data: the schema
//! generated from k8s-openapi, the strategy of Kubernetes' CSR registry
//! (the requester recorded in the spec, a fresh status on create, the spec
//! fixed afterwards), the `/status` and `/approval` subresources, and the
//! columns `kubectl get csr` prints.

use std::sync::Arc;

use serde_json::{Value, json};

use super::checks::{items_at, object_field, str_at};
use super::csr_rules;
use super::generated::resource;
use crate::api::cel::Requester;
use crate::api::error::Cause;
use crate::api::kind::{Column, KindSpec, NameRule, Strategy, Subresources};
use crate::api::registry::Registry;
use crate::api::table::human_duration::human;
use crate::request::user::{UserInfo, api_server};

const DEFINITION: &str = "io.k8s.api.certificates.v1.CertificateSigningRequest";

/// Registers CertificateSigningRequest in `certificates.{domain}`.
pub fn add_csr(r: &Registry, domain: &str) {
    r.add(KindSpec {
        short_names: vec!["csr".into()],
        strategy: Arc::new(CsrStrategy),
        subresources: Subresources {
            status: true,
            approval: true,
            ..Subresources::default()
        },
        columns: columns(),
        ..KindSpec::new(
            &format!("certificates.{domain}"),
            "v1",
            "CertificateSigningRequest",
            "certificatesigningrequests",
            false,
            resource(DEFINITION),
        )
    });
}

/// Kubernetes' `csrStrategy`.
pub struct CsrStrategy;

impl Strategy for CsrStrategy {
    fn prepare_for_create_by(&self, obj: &mut Value, requester: &Requester<'_>) {
        let user: &UserInfo = match requester.user {
            Some(user) => user,
            None => api_server(),
        };
        let spec = object_field(obj, "spec");
        for field in ["username", "uid", "groups", "extra"] {
            spec.remove(field);
        }
        if !user.name.is_empty() {
            spec.insert("username".into(), json!(user.name));
        }
        if !user.uid.is_empty() {
            spec.insert("uid".into(), json!(user.uid));
        }
        if !user.groups.is_empty() {
            spec.insert("groups".into(), json!(user.groups));
        }
        if !user.extra.is_empty() {
            spec.insert("extra".into(), json!(user.extra));
        }
        if let Some(map) = obj.as_object_mut() {
            map.insert("status".into(), json!({}));
        }
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        csr_rules::checks(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<Cause> {
        let mut out = csr_rules::checks(new);
        out.extend(csr_rules::update_checks(new, old));
        out
    }

    fn name_rule(&self) -> NameRule {
        NameRule::Subdomain
    }
}

/// kubectl's CONDITION: the decision, then `Failed` and `Issued`.
fn condition_cell(obj: &Value) -> Value {
    let has = |kind: &str| {
        items_at(obj, "/status/conditions")
            .iter()
            .any(|c| str_at(c, "/type") == kind)
    };
    let mut status = if has("Denied") {
        "Denied".to_string()
    } else if has("Approved") {
        "Approved".to_string()
    } else {
        "Pending".to_string()
    };
    if has("Failed") {
        status.push_str(",Failed");
    }
    if !str_at(obj, "/status/certificate").is_empty() {
        status.push_str(",Issued");
    }
    status.into()
}

fn duration_cell(obj: &Value) -> Value {
    match obj
        .pointer("/spec/expirationSeconds")
        .and_then(Value::as_i64)
    {
        Some(seconds) => human(seconds).into(),
        None => "<none>".into(),
    }
}

fn columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::age(),
        Column::new(
            "SignerName",
            "string",
            0,
            ".spec.signerName",
            "Name of the signer expected to sign the certificate.",
        ),
        Column::new(
            "Requestor",
            "string",
            0,
            ".spec.username",
            "Name of the user who made the request.",
        ),
        Column::computed(
            "RequestedDuration",
            "string",
            0,
            duration_cell,
            "Duration of the certificate the request asks for.",
        ),
        Column::computed(
            "Condition",
            "string",
            0,
            condition_cell,
            "The request's approval and issuance state.",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_condition_column_reads_as_kubectl_prints_it() {
        assert_eq!(condition_cell(&json!({})), "Pending");
        let issued = json!({"status": {"conditions": [{"type": "Approved", "status": "True"}],
            "certificate": "LS0t"}});
        assert_eq!(condition_cell(&issued), "Approved,Issued");
        let failed = json!({"status": {"conditions": [{"type": "Approved"}, {"type": "Failed"}]}});
        assert_eq!(condition_cell(&failed), "Approved,Failed");
        assert_eq!(
            duration_cell(&json!({"spec": {"expirationSeconds": 3600}})),
            "60m"
        );
        assert_eq!(duration_cell(&json!({"spec": {}})), "<none>");
    }
}
