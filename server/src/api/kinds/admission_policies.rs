//! `admissionregistration.{domain}/v1` ValidatingAdmissionPolicy and
//! ValidatingAdmissionPolicyBinding as data: cluster-scoped, their schemas
//! and kubectl's columns; defaults and validation in
//! `admission_policies_rules`. Written here, like the webhook
//! configurations', and served as JSON (and YAML, CBOR) only.

use std::sync::Arc;

use serde_json::Value;

use super::admission_policies_rules::{BindingStrategy, PolicyStrategy};
use super::builtin_entry::with_status;
use super::rbac_role::label_selector;
use crate::api::kind::{Column, KindSpec};
use crate::api::registry::Registry;
use crate::api::schema::Schema;

fn named_rule() -> Schema {
    Schema::object([
        ("operations", Schema::string_list().atomic_list()),
        ("apiGroups", Schema::string_list().atomic_list()),
        ("apiVersions", Schema::string_list().atomic_list()),
        ("resources", Schema::string_list().atomic_list()),
        ("resourceNames", Schema::string_list().atomic_list()),
        ("scope", Schema::string()),
    ])
}

/// `matchConstraints` of a policy, `matchResources` of a binding.
fn match_resources() -> Schema {
    Schema::object([
        ("namespaceSelector", label_selector()),
        ("objectSelector", label_selector()),
        ("resourceRules", Schema::array(named_rule()).atomic_list()),
        (
            "excludeResourceRules",
            Schema::array(named_rule()).atomic_list(),
        ),
        ("matchPolicy", Schema::string()),
    ])
}

fn named_expressions(value_field: &str) -> Schema {
    Schema::object([("name", Schema::string()), (value_field, Schema::string())])
        .required(["name", value_field])
}

fn policy_schema() -> Schema {
    let validation = Schema::object([
        ("expression", Schema::string()),
        ("message", Schema::string()),
        ("reason", Schema::string()),
        ("messageExpression", Schema::string()),
    ])
    .required(["expression"]);
    let audit_annotation = Schema::object([
        ("key", Schema::string()),
        ("valueExpression", Schema::string()),
    ])
    .required(["key", "valueExpression"]);
    let spec = Schema::object([
        (
            "paramKind",
            Schema::object([("apiVersion", Schema::string()), ("kind", Schema::string())]),
        ),
        ("matchConstraints", match_resources()),
        ("validations", Schema::array(validation).atomic_list()),
        ("failurePolicy", Schema::string()),
        (
            "auditAnnotations",
            Schema::array(audit_annotation).atomic_list(),
        ),
        (
            "matchConditions",
            Schema::array(named_expressions("expression"))
                .map_list(["name"])
                .merge_by("name"),
        ),
        (
            "variables",
            Schema::array(named_expressions("expression")).atomic_list(),
        ),
    ]);
    let warning = Schema::object([
        ("fieldRef", Schema::string()),
        ("warning", Schema::string()),
    ])
    .required(["fieldRef", "warning"]);
    let status = Schema::object([
        ("observedGeneration", Schema::integer_i64()),
        (
            "typeChecking",
            Schema::object([("expressionWarnings", Schema::array(warning).atomic_list())]),
        ),
        (
            "conditions",
            Schema::array(Schema::condition()).map_list(["type"]),
        ),
    ]);
    Schema::resource([("spec", spec), ("status", status)]).describe(
        "ValidatingAdmissionPolicy describes the definition of an admission validation policy that accepts or rejects an object without changing it.",
    )
}

fn binding_schema() -> Schema {
    let param_ref = Schema::object([
        ("name", Schema::string()),
        ("namespace", Schema::string()),
        ("selector", label_selector()),
        ("parameterNotFoundAction", Schema::string()),
    ]);
    let spec = Schema::object([
        ("policyName", Schema::string()),
        ("paramRef", param_ref),
        ("matchResources", match_resources()),
        ("validationActions", Schema::string_list().set_list()),
    ]);
    Schema::resource([("spec", spec)]).describe(
        "ValidatingAdmissionPolicyBinding binds the ValidatingAdmissionPolicy with paramerized resources.",
    )
}

fn validation_count(obj: &Value) -> Value {
    obj.pointer("/spec/validations")
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
        .into()
}

fn param_kind(obj: &Value) -> Value {
    match obj.pointer("/spec/paramKind") {
        Some(k) => format!(
            "{}/{}",
            k.get("apiVersion").and_then(Value::as_str).unwrap_or(""),
            k.get("kind").and_then(Value::as_str).unwrap_or("")
        )
        .into(),
        None => "<unset>".into(),
    }
}

fn policy_name(obj: &Value) -> Value {
    obj.pointer("/spec/policyName").cloned().unwrap_or_default()
}

fn param_ref(obj: &Value) -> Value {
    match obj.pointer("/spec/paramRef") {
        Some(r) => {
            let text = |f: &str| r.get(f).and_then(Value::as_str).unwrap_or("");
            match (text("namespace"), text("name")) {
                (_, "") => "*/*".into(),
                ("", name) => name.into(),
                (ns, name) => format!("{ns}/{name}").into(),
            }
        }
        None => "<unset>".into(),
    }
}

/// Adds both policy kinds.
pub fn add_admission_policies(r: &Registry, domain: &str) {
    let group = format!("admissionregistration.{domain}");
    r.add(KindSpec {
        categories: vec!["api-extensions".into()],
        strategy: Arc::new(PolicyStrategy),
        subresources: with_status(),
        tracks_generation: true,
        columns: vec![
            Column::name(),
            Column::computed("Validations", "integer", 0, validation_count, "Validations"),
            Column::computed("ParamKind", "string", 0, param_kind, "ParamKind"),
            Column::age(),
        ],
        ..KindSpec::new(
            &group,
            "v1",
            "ValidatingAdmissionPolicy",
            "validatingadmissionpolicies",
            false,
            policy_schema(),
        )
    });
    r.add(KindSpec {
        categories: vec!["api-extensions".into()],
        strategy: Arc::new(BindingStrategy),
        columns: vec![
            Column::name(),
            Column::computed("PolicyName", "string", 0, policy_name, "PolicyName"),
            Column::computed("ParamRef", "string", 0, param_ref, "ParamRef"),
            Column::age(),
        ],
        ..KindSpec::new(
            &group,
            "v1",
            "ValidatingAdmissionPolicyBinding",
            "validatingadmissionpolicybindings",
            false,
            binding_schema(),
        )
    });
}
