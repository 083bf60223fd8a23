//! Secret rules: `type` defaults to `Opaque` and never changes; `stringData`
//! is folded into `data` on every write and never stored; keys follow the
//! ConfigMap key rule; each well-known type requires its keys; data is
//! frozen once `immutable`.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use super::checks::{causes, object_at, object_field, str_at};
use super::data_keys::{self, MAX_TOTAL_BYTES};
use crate::api::error::Cause;
use crate::api::kind::Strategy;
use crate::api::schema::FieldError;

pub struct SecretStrategy;

pub const OPAQUE: &str = "Opaque";
const SERVICE_ACCOUNT_TOKEN: &str = "kubernetes.io/service-account-token";
const SERVICE_ACCOUNT_NAME_ANNOTATION: &str = "kubernetes.io/service-account.name";
const DOCKERCFG: &str = "kubernetes.io/dockercfg";
const DOCKER_CONFIG_JSON: &str = "kubernetes.io/dockerconfigjson";
const BASIC_AUTH: &str = "kubernetes.io/basic-auth";
const SSH_AUTH: &str = "kubernetes.io/ssh-auth";
const TLS: &str = "kubernetes.io/tls";

/// Moves `stringData` into `data` (base64 encoded, winning over `data`
/// entries of the same key) and defaults `type`, as Kubernetes' decoding does.
fn normalize(secret: &mut Value) {
    let string_data = secret.as_object_mut().and_then(|o| o.remove("stringData"));
    if let Some(Value::Object(entries)) = string_data
        && !entries.is_empty()
    {
        let data = object_field(secret, "data");
        for (key, value) in entries {
            let plain = value.as_str().unwrap_or_default();
            data.insert(key, Value::from(STANDARD.encode(plain)));
        }
    }
    if str_at(secret, "/type").is_empty()
        && let Some(o) = secret.as_object_mut()
    {
        o.insert("type".into(), Value::from(OPAQUE));
    }
}

/// The decoded bytes of `data[key]`, if present.
fn data_entry(secret: &Value, key: &str) -> Option<Vec<u8>> {
    let encoded = object_at(secret, "/data")?
        .get(key)?
        .as_str()
        .unwrap_or_default();
    Some(
        STANDARD
            .decode(encoded.replace(['\r', '\n'], ""))
            .unwrap_or_default(),
    )
}

/// Go's `json.Unmarshal` into a map: an object (or null) is fine.
fn json_object_problem(bytes: &[u8]) -> Option<String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Some("unexpected end of JSON input".into());
    }
    match serde_json::from_slice::<Value>(bytes) {
        Err(e) => Some(e.to_string()),
        Ok(Value::Object(_) | Value::Null) => None,
        Ok(other) => {
            let type_name = match other {
                Value::Array(_) => "array",
                Value::String(_) => "string",
                Value::Number(_) => "number",
                _ => "bool",
            };
            Some(format!(
                "json: cannot unmarshal {type_name} into Go value of type map[string]interface {{}}"
            ))
        }
    }
}

fn required_data(key: &str) -> FieldError {
    FieldError::required(format!("data[{key}]"), "")
}

fn docker_config_errors(secret: &Value, key: &str, errors: &mut Vec<FieldError>) {
    match data_entry(secret, key) {
        None => errors.push(required_data(key)),
        Some(bytes) => {
            if let Some(problem) = json_object_problem(&bytes) {
                errors.push(FieldError::invalid(
                    format!("data[{key}]"),
                    Value::from("<secret contents redacted>"),
                    problem,
                ));
            }
        }
    }
}

/// The keys each well-known secret type requires.
fn type_errors(secret: &Value, errors: &mut Vec<FieldError>) {
    match str_at(secret, "/type") {
        SERVICE_ACCOUNT_TOKEN => {
            let annotations = object_at(secret, "/metadata/annotations");
            let name = annotations
                .and_then(|a| a.get(SERVICE_ACCOUNT_NAME_ANNOTATION))
                .and_then(Value::as_str)
                .unwrap_or_default();
            if name.is_empty() {
                errors.push(FieldError::required(
                    format!("metadata.annotations[{SERVICE_ACCOUNT_NAME_ANNOTATION}]"),
                    "",
                ));
            }
        }
        DOCKERCFG => docker_config_errors(secret, ".dockercfg", errors),
        DOCKER_CONFIG_JSON => docker_config_errors(secret, ".dockerconfigjson", errors),
        // Either may be empty, but one of them must be there.
        BASIC_AUTH
            if data_entry(secret, "username").is_none()
                && data_entry(secret, "password").is_none() =>
        {
            errors.push(required_data("username"));
            errors.push(required_data("password"));
        }
        SSH_AUTH if data_entry(secret, "ssh-privatekey").is_none_or(|k| k.is_empty()) => {
            errors.push(required_data("ssh-privatekey"));
        }
        TLS => {
            for key in ["tls.crt", "tls.key"] {
                if data_entry(secret, key).is_none() {
                    errors.push(required_data(key));
                }
            }
        }
        _ => {}
    }
}

fn content_errors(secret: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    data_keys::check_keys(secret, "data", &mut errors);
    if data_keys::value_bytes(object_at(secret, "/data"), true) > MAX_TOTAL_BYTES {
        errors.push(data_keys::too_long("data"));
    }
    type_errors(secret, &mut errors);
    errors
}

impl Strategy for SecretStrategy {
    fn prepare_for_create(&self, obj: &mut Value) {
        normalize(obj);
    }

    fn prepare_for_update(&self, new: &mut Value, _old: &Value) {
        normalize(new);
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        causes(&content_errors(obj))
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<Cause> {
        let mut errors = Vec::new();
        let (new_type, old_type) = (str_at(new, "/type"), str_at(old, "/type"));
        if new_type != old_type {
            errors.push(FieldError::invalid(
                "type",
                Value::from(new_type),
                "field is immutable",
            ));
        }
        data_keys::check_frozen(new, old, &["data"], &mut errors);
        errors.extend(content_errors(new));
        causes(&errors)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::api::kinds::cause_lines as lines;

    fn created(mut secret: Value) -> Value {
        SecretStrategy.prepare_for_create(&mut secret);
        secret
    }

    #[test]
    fn string_data_is_folded_into_data_and_dropped() {
        let secret = created(json!({
            "metadata": {"name": "s"},
            "data": {"user": "b2xk", "keep": "a2VlcA=="},
            "stringData": {"user": "admin", "pass": "s3cr3t"}
        }));
        assert_eq!(
            secret,
            json!({
                "metadata": {"name": "s"},
                "data": {"user": "YWRtaW4=", "keep": "a2VlcA==", "pass": "czNjcjN0"},
                "type": "Opaque"
            })
        );
        let mut update =
            json!({"metadata": {"name": "s"}, "type": "Opaque", "stringData": {"x": "y"}});
        SecretStrategy.prepare_for_update(&mut update, &secret);
        assert_eq!(update["data"], json!({"x": "eQ=="}));
        assert!(update.get("stringData").is_none());
    }

    #[test]
    fn type_defaults_to_opaque_and_is_immutable() {
        assert_eq!(created(json!({"type": ""}))["type"], "Opaque");
        assert_eq!(created(json!({"type": TLS, "data": {}}))["type"], TLS);
        let old = created(json!({"metadata": {"name": "s"}}));
        let mut new = json!({"metadata": {"name": "s"}, "type": "kubernetes.io/basic-auth", "data": {"username": ""}});
        SecretStrategy.prepare_for_update(&mut new, &old);
        assert_eq!(
            lines(&SecretStrategy.validate_update(&new, &old)),
            ["type: Invalid value: \"kubernetes.io/basic-auth\": field is immutable"]
        );
        let mut untyped = json!({"metadata": {"name": "s"}});
        SecretStrategy.prepare_for_update(&mut untyped, &old);
        assert!(SecretStrategy.validate_update(&untyped, &old).is_empty());
    }

    #[test]
    fn immutable_secrets_keep_their_data_even_through_string_data() {
        let old = created(json!({"immutable": true, "data": {"a": "MQ=="}}));
        let mut same = old.clone();
        SecretStrategy.prepare_for_update(&mut same, &old);
        assert!(SecretStrategy.validate_update(&same, &old).is_empty());
        let mut changed = old.clone();
        changed["stringData"] = json!({"a": "2"});
        SecretStrategy.prepare_for_update(&mut changed, &old);
        assert_eq!(
            lines(&SecretStrategy.validate_update(&changed, &old)),
            ["data: Forbidden: field is immutable when `immutable` is set"]
        );
    }

    #[test]
    fn keys_are_checked_like_configmap_keys() {
        let secret = created(json!({"stringData": {"bad key": "v"}}));
        let causes = lines(&SecretStrategy.validate(&secret));
        assert_eq!(causes.len(), 1);
        assert!(
            causes[0].starts_with("data[bad key]: Invalid value: \"bad key\": a valid config key")
        );
    }

    #[test]
    fn well_known_types_require_their_keys() {
        let cases = [
            (
                json!({"type": SERVICE_ACCOUNT_TOKEN}),
                vec!["metadata.annotations[kubernetes.io/service-account.name]: Required value"],
            ),
            (
                json!({"type": DOCKER_CONFIG_JSON}),
                vec!["data[.dockerconfigjson]: Required value"],
            ),
            (
                json!({"type": DOCKERCFG}),
                vec!["data[.dockercfg]: Required value"],
            ),
            (
                json!({"type": BASIC_AUTH}),
                vec![
                    "data[username]: Required value",
                    "data[password]: Required value",
                ],
            ),
            (
                json!({"type": SSH_AUTH, "stringData": {"ssh-privatekey": ""}}),
                vec!["data[ssh-privatekey]: Required value"],
            ),
            (
                json!({"type": TLS, "stringData": {"tls.key": "k"}}),
                vec!["data[tls.crt]: Required value"],
            ),
            (json!({"type": "example.com/custom"}), vec![]),
        ];
        for (secret, expected) in cases {
            let secret = created(secret);
            assert_eq!(
                lines(&SecretStrategy.validate(&secret)),
                expected,
                "{secret}"
            );
        }
        let satisfied = [
            json!({"type": SERVICE_ACCOUNT_TOKEN, "metadata": {"annotations": {"kubernetes.io/service-account.name": "default"}}}),
            json!({"type": DOCKER_CONFIG_JSON, "stringData": {".dockerconfigjson": "{\"auths\":{}}"}}),
            json!({"type": BASIC_AUTH, "stringData": {"password": ""}}),
            json!({"type": SSH_AUTH, "stringData": {"ssh-privatekey": "k"}}),
            json!({"type": TLS, "stringData": {"tls.crt": "c", "tls.key": "k"}}),
        ];
        for secret in satisfied {
            let secret = created(secret);
            assert_eq!(
                lines(&SecretStrategy.validate(&secret)),
                Vec::<String>::new(),
                "{secret}"
            );
        }
    }

    #[test]
    fn docker_configs_must_be_json_objects() {
        let secret = created(
            json!({"type": DOCKER_CONFIG_JSON, "stringData": {".dockerconfigjson": "[1]"}}),
        );
        assert_eq!(
            lines(&SecretStrategy.validate(&secret)),
            [
                "data[.dockerconfigjson]: Invalid value: \"<secret contents redacted>\": json: cannot unmarshal array into Go value of type map[string]interface {}"
            ]
        );
        let broken =
            created(json!({"type": DOCKER_CONFIG_JSON, "stringData": {".dockerconfigjson": "{"}}));
        assert_eq!(SecretStrategy.validate(&broken).len(), 1);
    }
}
