//! The validation Kubernetes applies before a CustomResourceDefinition is
//! stored: its name, group, scope and names, conversion, one storage
//! version, served versions, a structural `openAPIV3Schema` for each, and
//! printer columns.

use serde_json::Value;

use crate::api::error::Cause;
use crate::api::kind::NameRule;
use crate::api::meta::{is_subdomain, name_problem};
use crate::api::object::str_at;
use crate::api::schema::Schema;

/// Kubernetes' CRD validation (the parts cairn serves).
pub(super) fn validate_crd(obj: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let group = str_at(obj, "/spec/group");
    let plural = str_at(obj, "/spec/names/plural");
    let name = str_at(obj, "/metadata/name");
    if name != format!("{plural}.{group}") {
        causes.push(Cause::invalid(
            "metadata.name",
            name,
            "must be spec.names.plural+\".\"+spec.group",
        ));
    }
    if group.is_empty() {
        causes.push(Cause::required("spec.group"));
    } else if !group.contains('.') {
        causes.push(Cause::invalid(
            "spec.group",
            group,
            "should be a domain with at least one dot",
        ));
    } else if !is_subdomain(group) {
        causes.push(Cause::invalid(
            "spec.group",
            group,
            &name_problem(group, NameRule::Subdomain).unwrap_or_default(),
        ));
    }
    match str_at(obj, "/spec/scope") {
        "Namespaced" | "Cluster" => {}
        other => causes.push(Cause::new(
            "FieldValueNotSupported",
            "spec.scope",
            format!("Unsupported value: {other:?}: supported values: \"Cluster\", \"Namespaced\""),
        )),
    }
    for (field, required) in [
        ("plural", true),
        ("singular", false),
        ("kind", true),
        ("listKind", false),
    ] {
        let value = str_at(obj, &format!("/spec/names/{field}"));
        let path = format!("spec.names.{field}");
        if value.is_empty() {
            if required {
                causes.push(Cause::required(path));
            }
            continue;
        }
        let problem = match field {
            "plural" | "singular" => name_problem(value, NameRule::Label),
            _ => (!value.chars().all(|c| c.is_ascii_alphanumeric())
                || value.chars().next().is_some_and(|c| c.is_ascii_digit()))
            .then(|| {
                "may have mixed case, but should otherwise match: ^[a-zA-Z][a-z0-9A-Z]*$".into()
            }),
        };
        if let Some(p) = problem {
            causes.push(Cause::invalid(path, value, &p));
        }
    }
    if let Some(shorts) = obj
        .pointer("/spec/names/shortNames")
        .and_then(Value::as_array)
    {
        for (i, s) in shorts.iter().enumerate() {
            let s = s.as_str().unwrap_or_default();
            if let Some(p) = name_problem(s, NameRule::Label) {
                causes.push(Cause::invalid(format!("spec.names.shortNames[{i}]"), s, &p));
            }
        }
    }
    match str_at(obj, "/spec/conversion/strategy") {
        "" | "None" => {}
        "Webhook" => causes.push(Cause::invalid(
            "spec.conversion.strategy",
            "Webhook",
            "conversion webhooks are not supported by this server; use None",
        )),
        other => causes.push(Cause::new(
            "FieldValueNotSupported",
            "spec.conversion.strategy",
            format!("Unsupported value: {other:?}: supported values: \"None\", \"Webhook\""),
        )),
    }
    if obj.pointer("/spec/preserveUnknownFields") == Some(&Value::Bool(true)) {
        causes.push(Cause::invalid(
            "spec.preserveUnknownFields",
            "true",
            "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
        ));
    }
    causes.extend(validate_versions(obj));
    causes
}

fn validate_versions(obj: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let versions = obj
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if versions.is_empty() {
        causes.push(Cause::invalid(
            "spec.versions",
            "null",
            "must have exactly one version marked as storage version",
        ));
        return causes;
    }
    let storage = versions
        .iter()
        .filter(|v| v.get("storage").and_then(Value::as_bool) == Some(true))
        .count();
    if storage != 1 {
        causes.push(Cause::invalid(
            "spec.versions",
            "",
            "must have exactly one version marked as storage version",
        ));
    }
    if !versions
        .iter()
        .any(|v| v.get("served").and_then(Value::as_bool) == Some(true))
    {
        causes.push(Cause::invalid(
            "spec.versions",
            "",
            "must have at least one served version",
        ));
    }
    let mut seen = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        let at = format!("spec.versions[{i}]");
        let name = v.get("name").and_then(Value::as_str).unwrap_or_default();
        if let Some(p) = name_problem(name, NameRule::Label) {
            causes.push(Cause::invalid(format!("{at}.name"), name, &p));
        }
        if seen.contains(&name) {
            causes.push(Cause::new(
                "FieldValueDuplicate",
                format!("{at}.name"),
                format!("Duplicate value: {name:?}"),
            ));
        }
        seen.push(name);
        match v.pointer("/schema/openAPIV3Schema") {
            None | Some(Value::Null) => causes.push(
                Cause::required(format!("{at}.schema.openAPIV3Schema"))
                    .with_message("Required value: schemas are required"),
            ),
            Some(doc) => {
                if let Err(errors) = Schema::from_openapi(doc) {
                    for e in errors {
                        let e = e.prefixed(&format!("{at}.schema.openAPIV3Schema"));
                        causes.push(Cause::new(e.reason(), e.field.clone(), e.body()));
                    }
                }
            }
        }
        if let Some(cols) = v.get("additionalPrinterColumns").and_then(Value::as_array) {
            for (j, c) in cols.iter().enumerate() {
                let ty = c.get("type").and_then(Value::as_str).unwrap_or_default();
                if !["integer", "number", "string", "boolean", "date"].contains(&ty) {
                    causes.push(Cause::new(
                        "FieldValueNotSupported",
                        format!("{at}.additionalPrinterColumns[{j}].type"),
                        format!("Unsupported value: {ty:?}: supported values: \"boolean\", \"date\", \"integer\", \"number\", \"string\""),
                    ));
                }
                let path = c
                    .get("jsonPath")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                // As Kubernetes: a path starting with `.`, in the JSONPath
                // kubectl evaluates (array notation and filters included).
                let problem = if !path.starts_with('.') {
                    Some("must be a simple json path starting with .".to_string())
                } else {
                    crate::api::table::jsonpath::JsonPath::parse(path).err()
                };
                if let Some(problem) = problem {
                    causes.push(Cause::invalid(
                        format!("{at}.additionalPrinterColumns[{j}].jsonPath"),
                        path,
                        &problem,
                    ));
                }
            }
        }
    }
    causes
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::api::kind::Strategy;
    use crate::api::kinds::crd::CrdStrategy;

    fn crd() -> Value {
        json!({
            "metadata": {"name": "crontabs.stable.example.com"},
            "spec": {
                "group": "stable.example.com",
                "names": {"plural": "crontabs", "kind": "CronTab", "shortNames": ["ct"]},
                "scope": "Namespaced",
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {"cronSpec": {"type": "string"}}}}}}}]
            }
        })
    }

    fn fields(obj: &Value) -> Vec<String> {
        validate_crd(obj).into_iter().map(|c| c.field).collect()
    }

    #[test]
    fn a_valid_crd_passes_and_gets_defaults() {
        let mut c = crd();
        CrdStrategy {
            finalizer: String::new(),
        }
        .prepare_for_create(&mut c);
        assert!(fields(&c).is_empty(), "{:?}", validate_crd(&c));
        assert_eq!(c.pointer("/spec/names/singular"), Some(&json!("crontab")));
        assert_eq!(
            c.pointer("/spec/names/listKind"),
            Some(&json!("CronTabList"))
        );
        assert_eq!(c.pointer("/spec/conversion/strategy"), Some(&json!("None")));
    }

    #[test]
    fn invalid_crds_name_each_problem() {
        let mut c = crd();
        c["metadata"]["name"] = json!("wrong.example.com");
        c["spec"]["scope"] = json!("Global");
        c["spec"]["versions"][0]["storage"] = json!(false);
        c["spec"]["versions"][0]["schema"] = json!({});
        let f = fields(&c);
        for want in [
            "metadata.name",
            "spec.scope",
            "spec.versions",
            "spec.versions[0].schema.openAPIV3Schema",
        ] {
            assert!(f.iter().any(|x| x == want), "{want} in {f:?}");
        }
        let mut c = crd();
        c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
            ["x"] = json!({"description": "no type"});
        let f = fields(&c);
        assert!(
            f.iter().any(|x| x.starts_with(
                "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[x]"
            )),
            "{f:?}"
        );
        let mut c = crd();
        c["spec"]["group"] = json!("nodot");
        c["metadata"]["name"] = json!("crontabs.nodot");
        assert_eq!(fields(&c), vec!["spec.group"]);
    }
}
