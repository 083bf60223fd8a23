//! Verification of service-account tokens, as kube-apiserver does it: a
//! token of another issuer is not ours (another authenticator may know
//! it); one of ours must be signed by a verification key, be valid now
//! (a minute of clock skew allowed), name one of the asked audiences, and
//! name a ServiceAccount (and bound Pod, Secret or Node) that still exists
//! with the uid the token carries. Signature checks are remembered per
//! token, so a client that sends the same token again pays only for the
//! cheap checks.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::Validation;
use jsonwebtoken::errors::ErrorKind;
use parking_lot::Mutex;
use tokio::sync::watch;

use super::TokenIssuer;
use super::claims::{Claims, subject, unverified_issuer};
use super::live::{Live, Named};
use crate::api::error::ApiError;
use crate::api::store::Store;
use crate::request::authn::token::{Audiences, TokenAuthenticator, TokenUser};
use crate::request::user::{AUTHENTICATED, UserInfo};
use crate::util::maybe_async::MaybeAsync;

/// Clock skew allowed on `exp`, `nbf` and `iat`.
const LEEWAY_SECONDS: i64 = 60;
/// Verified signatures remembered; past this the memory starts over.
const REMEMBERED_TOKENS: usize = 8192;

pub const POD_NAME: &str = "authentication.kubernetes.io/pod-name";
pub const POD_UID: &str = "authentication.kubernetes.io/pod-uid";
pub const NODE_NAME: &str = "authentication.kubernetes.io/node-name";
pub const NODE_UID: &str = "authentication.kubernetes.io/node-uid";
pub const CREDENTIAL_ID: &str = "authentication.kubernetes.io/credential-id";

/// The token authenticator for service-account tokens.
pub struct ServiceAccountAuthenticator {
    issuer: Arc<TokenIssuer>,
    live: Live,
    /// Tokens whose signature held, by SHA-256, with their claims.
    verified: Mutex<HashMap<[u8; 32], Arc<Claims>>>,
}

impl ServiceAccountAuthenticator {
    /// Starts following ServiceAccounts, Pods, Secrets and Nodes (until
    /// `stop` flips) and verifies tokens of `issuer`'s keys against them.
    #[must_use]
    pub fn start(
        issuer: Arc<TokenIssuer>,
        store: &Store,
        stop: &watch::Receiver<bool>,
    ) -> Arc<ServiceAccountAuthenticator> {
        Arc::new(ServiceAccountAuthenticator {
            issuer,
            live: Live::start(store, stop),
            verified: Mutex::new(HashMap::new()),
        })
    }

    /// The claims of a token whose signature holds.
    fn signed_claims(&self, token: &str) -> Result<Arc<Claims>, String> {
        let digest: [u8; 32] = ring::digest::digest(&ring::digest::SHA256, token.as_bytes())
            .as_ref()
            .try_into()
            .expect("SHA-256 is 32 bytes");
        if let Some(claims) = self.verified.lock().get(&digest) {
            return Ok(Arc::clone(claims));
        }
        let header =
            jsonwebtoken::decode_header(token).map_err(|e| format!("malformed token: {e}"))?;
        let mut last = "no verification key of the token's algorithm".to_string();
        for key in self.issuer.keys().candidates(header.kid.as_deref()) {
            if key.algorithm != header.alg {
                continue;
            }
            let mut rules = Validation::new(key.algorithm);
            // Times and audiences are checked below, as Kubernetes checks them.
            rules.validate_exp = false;
            rules.validate_nbf = false;
            rules.validate_aud = false;
            rules.required_spec_claims.clear();
            match jsonwebtoken::decode::<Claims>(token, &key.decoding, &rules) {
                Ok(data) => {
                    let claims = Arc::new(data.claims);
                    let mut verified = self.verified.lock();
                    if verified.len() >= REMEMBERED_TOKENS {
                        verified.clear();
                    }
                    verified.insert(digest, Arc::clone(&claims));
                    return Ok(claims);
                }
                Err(e) if matches!(e.kind(), ErrorKind::InvalidSignature) => {
                    last = "signature does not verify with any key".into();
                }
                Err(e) => return Err(format!("invalid token: {e}")),
            }
        }
        Err(last)
    }

    /// The token's user, or why it is refused.
    async fn check(&self, token: &str, asked: Audiences<'_>) -> Result<TokenUser, String> {
        let claims = self.signed_claims(token)?;
        let now = SystemTime::now();
        let now_secs = i64::try_from(now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs())
            .unwrap_or(i64::MAX);
        if now_secs > claims.exp.saturating_add(LEEWAY_SECONDS) {
            return Err("service account token has expired".into());
        }
        if claims.nbf > now_secs.saturating_add(LEEWAY_SECONDS) {
            return Err("service account token is not valid yet".into());
        }
        if claims.iat > now_secs.saturating_add(LEEWAY_SECONDS) {
            return Err("service account token was issued in the future".into());
        }
        let audiences = self.audiences(&claims, asked)?;
        let k8s = &claims.kubernetes;
        let (ns, sa) = (k8s.namespace.as_str(), &k8s.serviceaccount);
        if ns.is_empty() || sa.name.is_empty() || sa.uid.is_empty() {
            return Err("token names no service account".into());
        }
        if claims.sub != subject(ns, &sa.name) {
            return Err("token subject does not match its service account".into());
        }
        self.live
            .check(Named::ServiceAccount, Some(ns), &sa.name, &sa.uid, now)
            .await?;
        if let Some(pod) = &k8s.pod {
            self.live
                .check(Named::Pod, Some(ns), &pod.name, &pod.uid, now)
                .await?;
        }
        if let Some(secret) = &k8s.secret {
            self.live
                .check(Named::Secret, Some(ns), &secret.name, &secret.uid, now)
                .await?;
        }
        // A pod-bound token names its pod's node for information only; a
        // token bound to the node itself lives as long as the node.
        if let (Some(node), None) = (&k8s.node, &k8s.pod) {
            self.live
                .check(Named::Node, None, &node.name, &node.uid, now)
                .await?;
        }
        Ok(TokenUser {
            user: Arc::new(user_of(&claims)),
            audiences,
        })
    }

    /// The token's audiences among those asked (`--api-audiences` when a
    /// request asks none); none in common refuses the token.
    fn audiences(&self, claims: &Claims, asked: Audiences<'_>) -> Result<Vec<String>, String> {
        let implicit = self.issuer.api_audiences();
        let asked = if asked.is_empty() { implicit } else { asked };
        let named = if claims.aud.is_empty() {
            implicit
        } else {
            claims.aud.as_slice()
        };
        let common: Vec<String> = named
            .iter()
            .filter(|a| asked.contains(a))
            .cloned()
            .collect();
        if common.is_empty() && !implicit.is_empty() {
            return Err(format!(
                "token audiences {named:?} are invalid for the target audiences {asked:?}"
            ));
        }
        Ok(common)
    }
}

/// The user a verified token stands for.
fn user_of(claims: &Claims) -> UserInfo {
    let k8s = &claims.kubernetes;
    let mut extra = BTreeMap::new();
    if let Some(pod) = &k8s.pod {
        extra.insert(POD_NAME.to_string(), vec![pod.name.clone()]);
        extra.insert(POD_UID.to_string(), vec![pod.uid.clone()]);
    }
    if let Some(node) = &k8s.node {
        extra.insert(NODE_NAME.to_string(), vec![node.name.clone()]);
        extra.insert(NODE_UID.to_string(), vec![node.uid.clone()]);
    }
    if !claims.jti.is_empty() {
        extra.insert(
            CREDENTIAL_ID.to_string(),
            vec![format!("JTI={}", claims.jti)],
        );
    }
    UserInfo {
        name: subject(&k8s.namespace, &k8s.serviceaccount.name),
        uid: k8s.serviceaccount.uid.clone(),
        groups: vec![
            "system:serviceaccounts".into(),
            format!("system:serviceaccounts:{}", k8s.namespace),
            AUTHENTICATED.into(),
        ],
        extra,
    }
}

impl TokenAuthenticator for ServiceAccountAuthenticator {
    fn authenticate_token<'a>(
        &'a self,
        token: &'a str,
        audiences: Audiences<'a>,
    ) -> MaybeAsync<'a, Result<Option<TokenUser>, ApiError>> {
        let ours = unverified_issuer(token).is_some_and(|iss| self.issuer.issuers().contains(&iss));
        if !ours {
            return MaybeAsync::Ready(Ok(None));
        }
        MaybeAsync::pending(async move {
            match self.check(token, audiences).await {
                Ok(user) => Ok(Some(user)),
                Err(why) => {
                    tracing::debug!(reason = %why, "service-account token refused");
                    Err(ApiError::Unauthorized)
                }
            }
        })
    }
}
