//! `admissionregistration.{domain}/v1` MutatingWebhookConfiguration and
//! ValidatingWebhookConfiguration as data: cluster-scoped, their schemas
//! and kubectl's columns; defaults and validation in
//! `admission_webhooks_rules`. The schemas are written here rather than
//! generated: a rule's `Rule` fields are inlined in JSON but a nested
//! message in protobuf, which the generator's numbering cannot express, so
//! these kinds are served as JSON (and YAML, CBOR) only.

use std::sync::Arc;

use serde_json::Value;

use super::admission_webhooks_rules::WebhookConfigurationStrategy;
use super::rbac_role::label_selector;
use crate::api::kind::{Column, KindSpec};
use crate::api::registry::Registry;
use crate::api::schema::Schema;

fn rule_with_operations() -> Schema {
    Schema::object([
        ("operations", Schema::string_list().atomic_list()),
        ("apiGroups", Schema::string_list().atomic_list()),
        ("apiVersions", Schema::string_list().atomic_list()),
        ("resources", Schema::string_list().atomic_list()),
        ("scope", Schema::string()),
    ])
}

fn client_config() -> Schema {
    let service = Schema::object([
        ("namespace", Schema::string()),
        ("name", Schema::string()),
        ("path", Schema::string()),
        ("port", Schema::integer_i32()),
    ])
    .required(["namespace", "name"]);
    Schema::object([
        ("url", Schema::string()),
        ("service", service),
        ("caBundle", Schema::bytes()),
    ])
}

fn webhook(mutating: bool) -> Schema {
    let mut fields = vec![
        ("name", Schema::string()),
        ("clientConfig", client_config()),
        ("rules", Schema::array(rule_with_operations()).atomic_list()),
        ("failurePolicy", Schema::string()),
        ("matchPolicy", Schema::string()),
        ("namespaceSelector", label_selector()),
        ("objectSelector", label_selector()),
        ("sideEffects", Schema::string()),
        ("timeoutSeconds", Schema::integer_i32()),
        (
            "admissionReviewVersions",
            Schema::string_list().atomic_list(),
        ),
        (
            "matchConditions",
            Schema::array(
                Schema::object([("name", Schema::string()), ("expression", Schema::string())])
                    .required(["name", "expression"]),
            )
            .map_list(["name"])
            .merge_by("name"),
        ),
    ];
    if mutating {
        fields.push(("reinvocationPolicy", Schema::string()));
    }
    Schema::object(fields).required([
        "name",
        "clientConfig",
        "sideEffects",
        "admissionReviewVersions",
    ])
}

fn schema(mutating: bool, kind: &str) -> Schema {
    Schema::resource([(
        "webhooks",
        Schema::array(webhook(mutating))
            .map_list(["name"])
            .merge_by("name"),
    )])
    .describe(format!(
        "{kind} describes the configuration of and admission webhook that accept or reject and may change the object."
    ))
}

fn webhook_count(obj: &Value) -> Value {
    obj.get("webhooks")
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
        .into()
}

fn columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::computed(
            "Webhooks",
            "integer",
            0,
            webhook_count,
            "Webhooks is a list of webhooks and the affected resources and operations.",
        ),
        Column::age(),
    ]
}

/// Adds both webhook configuration kinds.
pub fn add_webhook_configurations(r: &Registry, domain: &str) {
    let group = format!("admissionregistration.{domain}");
    for (kind, resource, mutating) in [
        (
            "MutatingWebhookConfiguration",
            "mutatingwebhookconfigurations",
            true,
        ),
        (
            "ValidatingWebhookConfiguration",
            "validatingwebhookconfigurations",
            false,
        ),
    ] {
        r.add(KindSpec {
            categories: vec!["api-extensions".into()],
            strategy: Arc::new(WebhookConfigurationStrategy { mutating }),
            columns: columns(),
            ..KindSpec::new(&group, "v1", kind, resource, false, schema(mutating, kind))
        });
    }
}
