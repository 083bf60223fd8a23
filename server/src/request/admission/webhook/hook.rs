//! One webhook of a stored Mutating- or ValidatingWebhookConfiguration,
//! compiled once when the informer sees the configuration: its rules, its
//! policies and where it lives (`url`, or a Service, reached at one of its
//! endpoints under the name `<name>.<namespace>.svc`), trusting `caBundle`.
//! Its client is made at the first call, with the credentials the plugin's
//! kubeconfig gives its host.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use super::credentials::Credentials;
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
    /// The configuration that holds it (named in audit annotations).
    pub configuration: String,
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
    /// Where the webhook lives, or why its clientConfig is unusable
    /// (reported per call).
    pub endpoint: Result<Endpoint, String>,
    /// The client, made at the first call.
    client: OnceLock<Result<Arc<Client>, String>>,
    /// `matchConditions`: every one must hold for the webhook to be called.
    pub match_conditions: Vec<Expression>,
    /// `matchPolicy: Equivalent` (the default): rules may match the write
    /// through another version of the same resource.
    pub equivalent: bool,
}

/// A webhook's address.
pub struct Endpoint {
    /// The URL reviews are POSTed to, and the server's CA.
    pub settings: Settings,
    /// `host:port` as kube looks up the kubeconfig user for it.
    pub host_port: String,
    /// The Service fronting the webhook, resolved at each call.
    pub service: Option<ServiceRef>,
}

/// `clientConfig.service`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceRef {
    pub namespace: String,
    pub name: String,
    pub port: u16,
}

impl Hook {
    /// The webhook's client, with the credentials `credentials` give it.
    pub fn client(&self, credentials: Option<&Credentials>) -> Result<Arc<Client>, String> {
        self.client
            .get_or_init(|| {
                let endpoint = self.endpoint.as_ref().map_err(Clone::clone)?;
                let mut settings = endpoint.settings.clone();
                if let Some(credentials) = credentials {
                    credentials.apply(&endpoint.host_port, &mut settings)?;
                }
                Client::new(&settings).map(|c| Arc::new(c.with_timeout_query()))
            })
            .clone()
    }
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
    let configuration = crate::api::object::name(&obj);
    let hooks = obj
        .get("webhooks")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|h| {
                    let mut hook = compile(h);
                    hook.configuration = configuration.to_string();
                    Arc::new(hook)
                })
                .collect()
        })
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
        configuration: String::new(),
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
        endpoint: endpoint(hook.get("clientConfig").unwrap_or(&Value::Null)),
        client: OnceLock::new(),
        equivalent: text(hook, "matchPolicy") != "Exact",
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
fn endpoint(config: &Value) -> Result<Endpoint, String> {
    let (server, service) = match (
        config.get("url").and_then(Value::as_str),
        config.get("service"),
    ) {
        (Some(url), _) => (url.to_string(), None),
        (None, Some(service)) => {
            let port = service
                .get("port")
                .and_then(Value::as_u64)
                .and_then(|p| u16::try_from(p).ok())
                .unwrap_or(443);
            let service = ServiceRef {
                namespace: text(service, "namespace").into(),
                name: text(service, "name").into(),
                port,
            };
            let path = text(config.get("service").unwrap_or(&Value::Null), "path");
            let url = format!(
                "https://{}.{}.svc:{port}{path}",
                service.name, service.namespace
            );
            (url, Some(service))
        }
        (None, None) => return Err("the webhook has no url or service".into()),
    };
    let target = crate::util::url::UrlTarget::parse(&server)?;
    let host = if target.host.contains(':') {
        format!("[{}]", target.host)
    } else {
        target.host.clone()
    };
    let ca_pem = match config.get("caBundle").and_then(Value::as_str) {
        Some(b64) if !b64.is_empty() => Some(
            STANDARD
                .decode(b64)
                .map_err(|_| "caBundle is not base64".to_string())?,
        ),
        _ => None,
    };
    Ok(Endpoint {
        settings: Settings {
            server,
            ca_pem,
            ..Settings::default()
        },
        host_port: format!("{host}:{}", target.port),
        service,
    })
}
