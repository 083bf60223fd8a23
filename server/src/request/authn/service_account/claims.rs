//! The claims of a service-account token, as Kubernetes writes them:
//! `iss`, `sub` (`system:serviceaccount:NS:NAME`), `aud`, `exp`, `iat`,
//! `nbf`, `jti`, and the private `kubernetes.io` claim naming the
//! namespace, the service account and the object the token is bound to.

use serde::{Deserialize, Deserializer, Serialize};

/// An object a token names: its name and uid.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectRef {
    pub name: String,
    pub uid: String,
}

/// The `kubernetes.io` claim (fields in the order Kubernetes' encoder
/// writes them).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KubernetesClaims {
    pub namespace: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<ObjectRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod: Option<ObjectRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<ObjectRef>,
    pub serviceaccount: ObjectRef,
}

/// Every claim of a token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    #[serde(deserialize_with = "one_or_many")]
    pub aud: Vec<String>,
    pub exp: i64,
    pub iat: i64,
    pub iss: String,
    #[serde(default)]
    pub jti: String,
    #[serde(rename = "kubernetes.io")]
    pub kubernetes: KubernetesClaims,
    pub nbf: i64,
    pub sub: String,
}

/// The subject of a service account's tokens (and its user name).
#[must_use]
pub fn subject(namespace: &str, name: &str) -> String {
    format!("system:serviceaccount:{namespace}:{name}")
}

/// `aud` is a list, or (RFC 7519) one string.
fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Audience {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Audience::deserialize(d)? {
        Audience::One(a) => vec![a],
        Audience::Many(a) => a,
    })
}

/// The issuer a token claims, read without checking anything: whether it
/// is a JWT of ours at all (a token of another issuer is left to others).
#[must_use]
pub fn unverified_issuer(token: &str) -> Option<String> {
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    #[derive(Deserialize)]
    struct IssuerOnly {
        iss: String,
    }
    let mut parts = token.split('.');
    let (Some(_header), Some(payload), Some(_signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    let bytes = URL_SAFE_NO_PAD.decode(payload).ok()?;
    serde_json::from_slice::<IssuerOnly>(&bytes)
        .ok()
        .map(|c| c.iss)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn claims_are_written_as_kubernetes_writes_them() {
        let claims = Claims {
            aud: vec!["https://kubernetes.default.svc.cluster.local".into()],
            exp: 1_700_003_600,
            iat: 1_700_000_000,
            iss: "https://kubernetes.default.svc.cluster.local".into(),
            jti: "0f8fad5b-d9cb-469f-a165-70867728950e".into(),
            kubernetes: KubernetesClaims {
                namespace: "default".into(),
                pod: Some(ObjectRef {
                    name: "web".into(),
                    uid: "p-uid".into(),
                }),
                serviceaccount: ObjectRef {
                    name: "default".into(),
                    uid: "sa-uid".into(),
                },
                ..KubernetesClaims::default()
            },
            nbf: 1_700_000_000,
            sub: subject("default", "default"),
        };
        let written = serde_json::to_value(&claims).expect("json");
        assert_eq!(
            written,
            json!({
                "aud": ["https://kubernetes.default.svc.cluster.local"],
                "exp": 1_700_003_600, "iat": 1_700_000_000,
                "iss": "https://kubernetes.default.svc.cluster.local",
                "jti": "0f8fad5b-d9cb-469f-a165-70867728950e",
                "kubernetes.io": {"namespace": "default", "pod": {"name": "web", "uid": "p-uid"},
                                  "serviceaccount": {"name": "default", "uid": "sa-uid"}},
                "nbf": 1_700_000_000,
                "sub": "system:serviceaccount:default:default"
            })
        );
        let mut single = written.clone();
        single["aud"] = json!("x");
        let read: Claims = serde_json::from_value(single).expect("one audience as a string");
        assert_eq!(read.aud, ["x"]);
    }

    #[test]
    fn the_issuer_is_read_only_from_a_three_part_token() {
        use base64::Engine;
        let payload =
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(br#"{"iss":"https://a"}"#);
        assert_eq!(
            unverified_issuer(&format!("h.{payload}.s")).as_deref(),
            Some("https://a")
        );
        assert_eq!(unverified_issuer(&format!("h.{payload}")), None);
        assert_eq!(unverified_issuer(&format!("h.{payload}.s.x")), None);
        assert_eq!(unverified_issuer("static-token"), None);
    }
}
