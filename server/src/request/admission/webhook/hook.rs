//! One webhook of a stored Mutating- or ValidatingWebhookConfiguration,
//! compiled once when the informer sees the configuration: its rules, its
//! policies and a client for its endpoint (`url`, or a Service's
//! `https://<name>.<namespace>.svc:<port><path>`), trusting `caBundle`.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use crate::api::cel::Expression;
use crate::request::authz::webhook::client::Client;
use crate::request::authz::webhook::kubeconfig::Settings;
use crate::storage::KeyValue;

/// One rule: what requests a webhook is called for.
#[derive(Debug, Default)]
pub struct Rule {
    pub operations: Vec<String>,
    pub groups: Vec<String>,
    pub versions: Vec<String>,
    /// `resource` or `resource/subresource`, either part possibly `*`.
    pub resources: Vec<String>,
    pub scope: String,
}

/// A compiled webhook.
pub struct Hook {
    pub name: String,
    pub rules: Vec<Rule>,
    /// `failurePolicy: Ignore`: a failed call lets the request through.
    pub ignore_failures: bool,
    pub namespace_selector: Value,
    pub object_selector: Value,
    /// `sideEffects` is None or NoneOnDryRun (dry runs may call it).
    pub dry_run_safe: bool,
    pub timeout: Duration,
    /// The AdmissionReview version sent: v1 when accepted, else v1beta1.
    pub review_version: &'static str,
    /// `reinvocationPolicy: IfNeeded`.
    pub reinvoke: bool,
    /// The client, or why none could be made (reported per call).
    pub client: Result<Arc<Client>, String>,
    /// `matchConditions`: every one must hold for the webhook to be called.
    pub match_conditions: Vec<Expression>,
}

/// The variables a webhook's match conditions see.
pub const CONDITION_VARIABLES: [&str; 3] = ["object", "oldObject", "request"];

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

fn text<'a>(v: &'a Value, field: &str) -> &'a str {
    v.get(field).and_then(Value::as_str).unwrap_or_default()
}

/// The webhooks of a stored configuration (the informer's projection).
pub fn project(kv: &KeyValue) -> Option<Arc<Vec<Arc<Hook>>>> {
    let obj: Value = serde_json::from_slice(&kv.value).ok()?;
    let hooks = obj
        .get("webhooks")
        .and_then(Value::as_array)
        .map(|list| list.iter().map(|h| Arc::new(compile(h))).collect())
        .unwrap_or_default();
    Some(Arc::new(hooks))
}

/// A webhook as stored (defaulted and validated on write).
pub fn compile(hook: &Value) -> Hook {
    let rules = hook
        .get("rules")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|r| Rule {
            operations: strings(r.get("operations")),
            groups: strings(r.get("apiGroups")),
            versions: strings(r.get("apiVersions")),
            resources: strings(r.get("resources")),
            scope: match text(r, "scope") {
                "" => "*".into(),
                s => s.into(),
            },
        })
        .collect();
    let versions = strings(hook.get("admissionReviewVersions"));
    let review_version = if versions.iter().any(|v| v == "v1") {
        "v1"
    } else {
        "v1beta1"
    };
    let timeout = hook
        .get("timeoutSeconds")
        .and_then(Value::as_u64)
        .unwrap_or(10)
        .clamp(1, 30);
    Hook {
        name: text(hook, "name").into(),
        rules,
        ignore_failures: text(hook, "failurePolicy") == "Ignore",
        namespace_selector: hook
            .get("namespaceSelector")
            .cloned()
            .unwrap_or(Value::Null),
        object_selector: hook.get("objectSelector").cloned().unwrap_or(Value::Null),
        dry_run_safe: matches!(text(hook, "sideEffects"), "None" | "NoneOnDryRun"),
        timeout: Duration::from_secs(timeout),
        review_version,
        reinvoke: text(hook, "reinvocationPolicy") == "IfNeeded",
        client: client(hook.get("clientConfig").unwrap_or(&Value::Null)).map(Arc::new),
        match_conditions: hook
            .get("matchConditions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| c.get("expression").and_then(Value::as_str))
            .filter_map(|e| Expression::compile(e, &CONDITION_VARIABLES).ok())
            .collect(),
    }
}

/// The endpoint a client config names.
fn client(config: &Value) -> Result<Client, String> {
    let server = match (
        config.get("url").and_then(Value::as_str),
        config.get("service"),
    ) {
        (Some(url), _) => url.to_string(),
        (None, Some(service)) => {
            let port = service.get("port").and_then(Value::as_u64).unwrap_or(443);
            format!(
                "https://{}.{}.svc:{port}{}",
                text(service, "name"),
                text(service, "namespace"),
                text(service, "path")
            )
        }
        (None, None) => return Err("the webhook has no url or service".into()),
    };
    let ca_pem = match config.get("caBundle").and_then(Value::as_str) {
        Some(b64) if !b64.is_empty() => Some(
            STANDARD
                .decode(b64)
                .map_err(|_| "caBundle is not base64".to_string())?,
        ),
        _ => None,
    };
    Client::new(&Settings {
        server,
        ca_pem,
        ..Settings::default()
    })
}
