//! kube-apiserver's rules for AuthorizationConfiguration, in its order and
//! wording. As in Kubernetes, a webhook's own fields are reported under the
//! authorizer's path (`authorizers[0].timeout`), not under `webhook`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::decode::{RawAuthorizer, RawConfig, RawWebhook, SignedDuration};
use super::{
    AuthorizationConfig, AuthorizerConfig, AuthorizerKind, Connection, FailurePolicy,
    ReviewVersion, WebhookConfig,
};
use crate::api::cel::{Evident, Expression};
use crate::api::kind::NameRule;
use crate::api::meta::name_problem;
use crate::api::schema::FieldError;

/// The types this server provides, as the supported values are listed.
const TYPES: [&str; 4] = ["AlwaysAllow", "AlwaysDeny", "RBAC", "Webhook"];
/// The longest a webhook may be given to answer.
const MAX_TIMEOUT: Duration = Duration::from_secs(30);
/// Most match conditions one webhook may have.
const MAX_MATCH_CONDITIONS: usize = 64;
/// The variable match conditions see: the v1 SubjectAccessReview spec.
pub const REQUEST_VARIABLE: &str = "request";
/// The fields of that spec, which Kubernetes' typed compiler knows.
const REQUEST_FIELDS: [&str; 6] = [
    "resourceAttributes",
    "nonResourceAttributes",
    "user",
    "groups",
    "extra",
    "uid",
];

fn quoted(values: &[&str]) -> Vec<Value> {
    values.iter().map(|v| Value::from(*v)).collect()
}

pub fn validate(raw: RawConfig, errors: &mut Vec<FieldError>) -> AuthorizationConfig {
    if raw.authorizers.is_empty() {
        errors.push(FieldError::required(
            "authorizers",
            "at least one authorization mode must be defined",
        ));
    }
    let mut authorizers = Vec::new();
    let mut seen_types: Vec<String> = Vec::new();
    let mut seen_names: Vec<String> = Vec::new();
    for (i, entry) in raw.authorizers.into_iter().enumerate() {
        let at = format!("authorizers[{i}]");
        if let Some(built) = authorizer(entry, &at, &mut seen_types, &mut seen_names, errors) {
            authorizers.push(built);
        }
    }
    AuthorizationConfig { authorizers }
}

fn authorizer(
    entry: RawAuthorizer,
    at: &str,
    seen_types: &mut Vec<String>,
    seen_names: &mut Vec<String>,
    errors: &mut Vec<FieldError>,
) -> Option<AuthorizerConfig> {
    let type_at = format!("{at}.type");
    let type_name = entry.type_name.as_str();
    if type_name.is_empty() {
        errors.push(FieldError::required(type_at, ""));
        return None;
    }
    if !TYPES.contains(&type_name) {
        errors.push(FieldError::not_supported(
            type_at,
            Value::from(type_name),
            &quoted(&TYPES),
        ));
        return None;
    }
    if type_name != "Webhook" && seen_types.iter().any(|t| t == type_name) {
        errors.push(FieldError::duplicate(type_at, Value::from(type_name)));
        return None;
    }
    seen_types.push(type_name.to_owned());

    let before = errors.len();
    let name_at = format!("{at}.name");
    if entry.name.is_empty() {
        errors.push(FieldError::required(name_at, ""));
    } else if seen_names.contains(&entry.name) {
        errors.push(FieldError::duplicate(
            name_at,
            Value::from(entry.name.as_str()),
        ));
    } else if let Some(problem) = name_problem(&entry.name, NameRule::Label) {
        errors.push(FieldError::invalid(
            name_at,
            Value::from(entry.name.as_str()),
            format!("authorizer name is invalid: {problem}"),
        ));
    }
    seen_names.push(entry.name.clone());

    let kind = match (type_name, entry.webhook) {
        ("Webhook", None) => {
            errors.push(FieldError::required(
                format!("{at}.webhook"),
                "required when type=Webhook",
            ));
            return None;
        }
        ("Webhook", Some(raw)) => {
            webhook(raw, &entry.name, at, errors).map(AuthorizerKind::Webhook)
        }
        (_, Some(_)) => {
            errors.push(FieldError::invalid(
                format!("{at}.webhook"),
                Value::from("non-null"),
                "may only be specified when type=Webhook",
            ));
            None
        }
        ("RBAC", None) => Some(AuthorizerKind::Rbac),
        ("AlwaysAllow", None) => Some(AuthorizerKind::AlwaysAllow),
        (_, None) => Some(AuthorizerKind::AlwaysDeny),
    };
    if errors.len() > before {
        return None;
    }
    kind.map(|kind| AuthorizerConfig {
        name: entry.name,
        kind,
    })
}

fn webhook(
    raw: RawWebhook,
    name: &str,
    at: &str,
    errors: &mut Vec<FieldError>,
) -> Option<Arc<WebhookConfig>> {
    let before = errors.len();
    let timeout_at = format!("{at}.timeout");
    if raw.timeout.magnitude.is_zero() {
        errors.push(FieldError::required(timeout_at, ""));
    } else if raw.timeout.negative || raw.timeout.magnitude > MAX_TIMEOUT {
        errors.push(FieldError::invalid(
            timeout_at,
            Value::from(raw.timeout.go_string()),
            "must be > 0s and <= 30s",
        ));
    }
    ttl(raw.authorized_ttl, &format!("{at}.authorizedTTL"), errors);
    ttl(
        raw.unauthorized_ttl,
        &format!("{at}.unauthorizedTTL"),
        errors,
    );

    let version_at = format!("{at}.subjectAccessReviewVersion");
    let review_version = ReviewVersion::parse(&raw.sar_version);
    if raw.sar_version.is_empty() {
        errors.push(FieldError::required(version_at, ""));
    } else if review_version.is_none() {
        errors.push(FieldError::not_supported(
            version_at,
            Value::from(raw.sar_version.as_str()),
            &quoted(&["v1", "v1beta1"]),
        ));
    }

    let condition_version_at = format!("{at}.matchConditionSubjectAccessReviewVersion");
    match raw.match_condition_sar_version.as_str() {
        "" if !raw.match_conditions.is_empty() => errors.push(FieldError::required(
            condition_version_at,
            "required if match conditions are specified",
        )),
        "" | "v1" => {}
        other => errors.push(FieldError::not_supported(
            condition_version_at,
            Value::from(other),
            &quoted(&["v1"]),
        )),
    }

    let policy_at = format!("{at}.failurePolicy");
    let failure_policy = match raw.failure_policy.as_str() {
        "NoOpinion" => Some(FailurePolicy::NoOpinion),
        "Deny" => Some(FailurePolicy::Deny),
        "" => {
            errors.push(FieldError::required(policy_at, ""));
            None
        }
        other => {
            errors.push(FieldError::not_supported(
                policy_at,
                Value::from(other),
                &quoted(&["NoOpinion", "Deny"]),
            ));
            None
        }
    };

    let connection = connection(&raw, at, errors);
    let match_conditions = match_conditions(&raw.match_conditions, at, errors);
    if errors.len() > before {
        return None;
    }
    Some(Arc::new(WebhookConfig {
        name: name.to_owned(),
        timeout: raw.timeout.magnitude,
        authorized_ttl: raw.cache_authorized.then_some(raw.authorized_ttl.magnitude),
        unauthorized_ttl: raw
            .cache_unauthorized
            .then_some(raw.unauthorized_ttl.magnitude),
        review_version: review_version?,
        failure_policy: failure_policy?,
        connection: connection?,
        match_conditions,
    }))
}

/// A cache lifetime: written as zero is missing, negative is invalid.
fn ttl(value: SignedDuration, at: &str, errors: &mut Vec<FieldError>) {
    if value.magnitude.is_zero() {
        errors.push(FieldError::required(at, ""));
    } else if value.negative {
        errors.push(FieldError::invalid(
            at,
            Value::from(value.go_string()),
            "must be > 0s",
        ));
    }
}

fn connection(raw: &RawWebhook, at: &str, errors: &mut Vec<FieldError>) -> Option<Connection> {
    let file_at = format!("{at}.connectionInfo.kubeConfigFile");
    match raw.connection_type.as_str() {
        "" => {
            errors.push(FieldError::required(
                format!("{at}.connectionInfo.type"),
                "",
            ));
            None
        }
        "InClusterConfig" => {
            if let Some(file) = &raw.kube_config_file {
                errors.push(FieldError::invalid(
                    file_at,
                    Value::from(file.as_str()),
                    "can only be set when type=KubeConfigFile",
                ));
                return None;
            }
            Some(Connection::InCluster)
        }
        "KubeConfigFile" => {
            let file = raw.kube_config_file.as_deref().unwrap_or_default();
            if file.is_empty() {
                errors.push(FieldError::required(file_at, ""));
                return None;
            }
            let problem = if Path::new(file).is_absolute() {
                match std::fs::metadata(file) {
                    Err(e) => Some(format!("error loading file: stat {file}: {}", os_error(&e))),
                    Ok(meta) if !meta.is_file() => Some("must be a regular file".to_owned()),
                    Ok(_) => None,
                }
            } else {
                Some("must be an absolute path".to_owned())
            };
            match problem {
                Some(detail) => {
                    errors.push(FieldError::invalid(file_at, Value::from(file), detail));
                    None
                }
                None => Some(Connection::KubeConfigFile(PathBuf::from(file))),
            }
        }
        other => {
            errors.push(FieldError::not_supported(
                format!("{at}.connectionInfo.type"),
                Value::from(other),
                &quoted(&["InClusterConfig", "KubeConfigFile"]),
            ));
            None
        }
    }
}

/// Go's wording of the common file errors.
fn os_error(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

fn match_conditions(sources: &[String], at: &str, errors: &mut Vec<FieldError>) -> Vec<Expression> {
    if sources.len() > MAX_MATCH_CONDITIONS {
        errors.push(FieldError::too_many(
            format!("{at}.matchConditions"),
            sources.len() as u64,
            MAX_MATCH_CONDITIONS as u64,
        ));
        return Vec::new();
    }
    let mut compiled = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (i, source) in sources.iter().enumerate() {
        let here = format!("{at}.matchConditions[{i}].expression");
        if source.trim().is_empty() {
            errors.push(FieldError::required(here, ""));
            continue;
        }
        if seen.contains(&source.as_str()) {
            errors.push(FieldError::duplicate(here, Value::from(source.as_str())));
            continue;
        }
        seen.push(source);
        match Expression::compile(source, &[REQUEST_VARIABLE]) {
            Ok(e) if e.evident_type().is_some_and(|t| t != Evident::Bool) => {
                errors.push(FieldError::invalid(
                    here,
                    Value::from(source.as_str()),
                    "must evaluate to bool",
                ));
            }
            Ok(e) => match e
                .selected_fields(REQUEST_VARIABLE)
                .into_iter()
                .find(|f| !REQUEST_FIELDS.contains(&f.as_str()))
            {
                Some(unknown) => errors.push(FieldError::invalid(
                    here,
                    Value::from(source.as_str()),
                    format!("compilation failed: ERROR: <input>:1:1: undefined field '{unknown}'"),
                )),
                None => compiled.push(e),
            },
            Err(detail) => errors.push(FieldError::invalid(
                here,
                Value::from(source.as_str()),
                format!("compilation failed: {detail}"),
            )),
        }
    }
    compiled
}
