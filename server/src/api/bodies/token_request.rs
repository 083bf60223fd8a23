//! `authentication.k8s.io/v1` TokenRequest bodies (POST
//! `serviceaccounts/<name>/token`): the audiences, lifetime and bound
//! object a token is asked for, defaulted and validated as Kubernetes
//! does, and the TokenRequest answered with the token.

use std::sync::LazyLock;
use std::time::SystemTime;

use serde_json::{Value, json};

use super::BodyType;
use crate::api::error::{ApiError, Cause};
use crate::api::object;
use crate::api::schema::Schema;
use crate::util::time::rfc3339;

/// The shortest lifetime a TokenRequest may ask for (10 minutes).
pub const MIN_EXPIRATION_SECONDS: i64 = 600;
/// The longest lifetime any TokenRequest may ask for (2^32 seconds).
pub const MAX_EXPIRATION_SECONDS: i64 = 1 << 32;
/// The lifetime of a TokenRequest that names none.
pub const DEFAULT_EXPIRATION_SECONDS: i64 = 3600;

/// The schema of an `authentication.k8s.io/v1` TokenRequest.
#[must_use]
pub fn schema() -> Schema {
    let bound = Schema::object([
        (
            "apiVersion",
            Schema::string().describe("API version of the referent."),
        ),
        (
            "kind",
            Schema::string().describe("Kind of the referent. Valid kinds are 'Pod' and 'Secret'."),
        ),
        ("name", Schema::string().describe("Name of the referent.")),
        ("uid", Schema::string().describe("UID of the referent.")),
    ])
    .proto_fields([("kind", 1), ("apiVersion", 2), ("name", 3), ("uid", 4)])
    .describe("BoundObjectReference is a reference to an object that a token is bound to.");
    let spec = Schema::object([
        (
            "audiences",
            Schema::array(Schema::string())
                .atomic_list()
                .describe("Audiences are the intendend audiences of the token."),
        ),
        (
            "expirationSeconds",
            Schema::integer_i64().describe(
                "ExpirationSeconds is the requested duration of validity of the request.",
            ),
        ),
        ("boundObjectRef", bound),
    ])
    .proto_fields([
        ("audiences", 1),
        ("boundObjectRef", 3),
        ("expirationSeconds", 4),
    ])
    .describe("TokenRequestSpec contains client provided parameters of a token request.");
    let status = Schema::object([
        (
            "token",
            Schema::string().describe("Token is the opaque bearer token."),
        ),
        (
            "expirationTimestamp",
            Schema::time()
                .describe("ExpirationTimestamp is the time of expiration of the returned token."),
        ),
    ])
    .proto_fields([("token", 1), ("expirationTimestamp", 2)])
    .describe("TokenRequestStatus is the result of a token request.");
    let mut schema = Schema::resource([("spec", spec), ("status", status)])
        .proto_fields([("metadata", 1), ("spec", 2), ("status", 3)])
        .describe("TokenRequest requests a token for a given service account.");
    // Kubernetes decodes a TokenRequest without metadata as well.
    schema.required.clear();
    schema
}

static SCHEMA: LazyLock<Schema> = LazyLock::new(schema);

/// The TokenRequest schema, built once (protobuf bodies are read by it).
#[must_use]
pub fn shared_schema() -> &'static Schema {
    &SCHEMA
}

/// The object a token is to be bound to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundObject {
    pub kind: String,
    pub api_version: String,
    pub name: String,
    pub uid: String,
}

/// What a TokenRequest asks for, defaulted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenRequest {
    /// The request as sent, answered back with its defaults and status.
    pub body: Value,
    pub audiences: Vec<String>,
    pub expiration_seconds: i64,
    pub bound: Option<BoundObject>,
}

fn invalid(name: &str, field: &str, value: impl std::fmt::Display, detail: &str) -> ApiError {
    ApiError::Invalid {
        kind: "TokenRequest".into(),
        group: "authentication.k8s.io".into(),
        name: name.into(),
        causes: vec![Cause::new(
            "FieldValueInvalid",
            field,
            format!("Invalid value: {value}: {detail}"),
        )],
        code: 422,
    }
}

/// The TokenRequest for service account `name` in `namespace`: the
/// audiences default to `api_audiences`, the lifetime to an hour.
pub fn decode(
    body: &Value,
    name: &str,
    namespace: &str,
    api_audiences: &[String],
    domain: &str,
) -> Result<TokenRequest, ApiError> {
    let group_version = format!("authentication.{domain}/v1");
    BodyType {
        kind: "TokenRequest",
        group: "authentication.k8s.io",
        api_versions: &["authentication.k8s.io/v1", &group_version],
        schema: &SCHEMA,
    }
    .check(body)?;
    for (field, url) in [("name", name), ("namespace", namespace)] {
        let named = object::meta_str(body, field).unwrap_or_default();
        if !named.is_empty() && named != url {
            return Err(invalid(
                name,
                &format!("metadata.{field}"),
                format!("{named:?}"),
                &format!("must match the service account {field} if specified"),
            ));
        }
    }
    let spec = &body["spec"];
    let mut audiences: Vec<String> = object::strings_at(body, "/spec/audiences");
    if audiences.is_empty() {
        audiences = api_audiences.to_vec();
    }
    let expiration_seconds = spec
        .get("expirationSeconds")
        .and_then(Value::as_i64)
        .unwrap_or(DEFAULT_EXPIRATION_SECONDS);
    if expiration_seconds < MIN_EXPIRATION_SECONDS {
        return Err(invalid(
            name,
            "spec.expirationSeconds",
            expiration_seconds,
            "may not specify a duration less than 10 minutes",
        ));
    }
    if expiration_seconds > MAX_EXPIRATION_SECONDS {
        return Err(invalid(
            name,
            "spec.expirationSeconds",
            expiration_seconds,
            "may not specify a duration larger than 2^32 seconds",
        ));
    }
    let bound = spec
        .get("boundObjectRef")
        .filter(|r| !r.is_null())
        .map(|r| BoundObject {
            kind: object::str_at(r, "/kind").to_string(),
            api_version: object::str_at(r, "/apiVersion").to_string(),
            name: object::str_at(r, "/name").to_string(),
            uid: object::str_at(r, "/uid").to_string(),
        });
    Ok(TokenRequest {
        body: body.clone(),
        audiences,
        expiration_seconds,
        bound,
    })
}

impl TokenRequest {
    /// The TokenRequest answered: as sent, with its name and namespace,
    /// the defaults applied, and the token in `status`.
    #[must_use]
    pub fn answer(
        &self,
        name: &str,
        namespace: &str,
        granted_seconds: i64,
        token: &str,
        expires: SystemTime,
    ) -> Value {
        let mut out = self.body.clone();
        out["kind"] = json!("TokenRequest");
        out["apiVersion"] = json!("authentication.k8s.io/v1");
        let meta = object::metadata_mut(&mut out);
        meta.insert("name".into(), json!(name));
        meta.insert("namespace".into(), json!(namespace));
        meta.insert(
            "creationTimestamp".into(),
            json!(rfc3339(SystemTime::now())),
        );
        out["spec"]["audiences"] = json!(self.audiences);
        out["spec"]["expirationSeconds"] = json!(granted_seconds);
        if let Some(bound) = &self.bound {
            out["spec"]["boundObjectRef"] = json!({
                "kind": bound.kind, "apiVersion": bound.api_version,
                "name": bound.name, "uid": bound.uid,
            });
        } else {
            out["spec"]["boundObjectRef"] = Value::Null;
        }
        out["status"] = json!({"token": token, "expirationTimestamp": rfc3339(expires)});
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn audiences() -> Vec<String> {
        vec!["https://kubernetes.default.svc.cluster.local".into()]
    }

    fn decoded(body: &Value) -> Result<TokenRequest, (u16, String)> {
        decode(body, "builder", "ci", &audiences(), "k8s.io").map_err(|e| (e.code(), e.to_string()))
    }

    #[test]
    fn kubectl_create_token_is_defaulted() {
        let body = json!({"kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1",
            "metadata": {"creationTimestamp": null}, "spec": {"audiences": null, "boundObjectRef": null},
            "status": {"token": "", "expirationTimestamp": null}});
        let req = decoded(&body).expect("valid");
        assert_eq!(
            (
                req.audiences.clone(),
                req.expiration_seconds,
                req.bound.clone()
            ),
            (audiences(), 3600, None)
        );
        let answer = req.answer("builder", "ci", 3600, "t", SystemTime::UNIX_EPOCH);
        assert_eq!(answer["metadata"]["name"], "builder");
        assert_eq!(answer["spec"]["audiences"], json!(audiences()));
        assert_eq!(
            answer["status"],
            json!({"token": "t", "expirationTimestamp": "1970-01-01T00:00:00Z"})
        );
    }

    #[test]
    fn lifetimes_outside_ten_minutes_to_2_to_the_32_seconds_are_invalid() {
        let asked =
            |s: i64| decoded(&json!({"spec": {"expirationSeconds": s, "audiences": ["a"]}}));
        assert_eq!(
            asked(599).err(),
            Some((422, "TokenRequest.authentication.k8s.io \"builder\" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes".into()))
        );
        assert_eq!(asked(1 << 33).err().map(|e| e.0), Some(422));
        let ok = asked(600).expect("ten minutes");
        assert_eq!(
            (ok.audiences, ok.expiration_seconds),
            (vec!["a".to_string()], 600)
        );
    }

    #[test]
    fn the_body_must_name_this_service_account_if_any() {
        let err = decoded(&json!({"metadata": {"name": "other"}, "spec": {}})).err();
        assert_eq!(
            err,
            Some((422, "TokenRequest.authentication.k8s.io \"builder\" is invalid: metadata.name: Invalid value: \"other\": must match the service account name if specified".into()))
        );
        assert_eq!(
            decoded(&json!({"kind": "Pod", "spec": {}}))
                .err()
                .map(|e| e.0),
            Some(400)
        );
        let bound = decoded(
            &json!({"spec": {"boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "p"}}}),
        )
        .expect("bound")
        .bound;
        assert_eq!(
            bound.map(|b| (b.kind, b.name, b.uid)),
            Some(("Pod".into(), "p".into(), String::new()))
        );
    }
}
