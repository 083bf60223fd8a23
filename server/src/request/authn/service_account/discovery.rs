//! The issuer's discovery documents, as kube-apiserver serves them:
//! `/.well-known/openid-configuration` (issuer, `jwks_uri`, the signing
//! algorithms of the verification keys) and `/openid/v1/jwks` (every
//! verification key as a JSON Web Key). Served only when the issuer is an
//! `https` URL, as Kubernetes does.

use serde_json::{Value, json};

use super::TokenIssuer;

pub const OPENID_CONFIGURATION_PATH: &str = "/.well-known/openid-configuration";
pub const JWKS_PATH: &str = "/openid/v1/jwks";
pub const OPENID_CONFIGURATION_CONTENT_TYPE: &str = "application/json";
pub const JWKS_CONTENT_TYPE: &str = "application/jwk-set+json";
/// Both documents may be cached for an hour by anyone.
pub const CACHE_CONTROL: &str = "public, max-age=3600";

impl TokenIssuer {
    /// Whether the discovery documents are served (the issuer is an
    /// `https` URL).
    #[must_use]
    pub fn serves_discovery(&self) -> bool {
        self.issuers[0].starts_with("https://")
    }

    /// `/.well-known/openid-configuration`; `external_address` is the
    /// `host:port` clients reach this server at, for the default `jwks_uri`.
    #[must_use]
    pub fn openid_configuration(&self, external_address: &str) -> Value {
        let jwks_uri = self
            .jwks_uri
            .clone()
            .unwrap_or_else(|| format!("https://{external_address}{JWKS_PATH}"));
        let mut algorithms: Vec<&str> = self
            .keys
            .verifying
            .iter()
            .filter_map(|k| k.jwk["alg"].as_str())
            .collect();
        algorithms.sort_unstable();
        algorithms.dedup();
        json!({
            "issuer": self.issuers[0],
            "jwks_uri": jwks_uri,
            "response_types_supported": ["id_token"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": algorithms,
        })
    }

    /// `/openid/v1/jwks`
    #[must_use]
    pub fn jwks(&self) -> Value {
        let keys: Vec<&Value> = self.keys.verifying.iter().map(|k| &k.jwk).collect();
        json!({ "keys": keys })
    }
}
