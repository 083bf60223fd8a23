//! One issuer's signing keys: OIDC discovery (`<url>/.well-known/openid-configuration`
//! or the configured `discoveryURL`), then the JWKS it names. Fetched in the
//! background at start (retrying with backoff until it works) and again
//! when a token names a key id not in the set, at most once per
//! `MIN_REFETCH` (a caller wanting a refetch sooner waits for its turn;
//! callers that asked while a fetch was under way take its result).

use std::str::FromStr;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey};
use parking_lot::RwLock;
use serde_json::Value;

use super::fetch::Fetcher;

/// Fewest seconds between two fetches of one issuer's keys.
const MIN_REFETCH: Duration = Duration::from_secs(1);
/// Longest wait between two attempts of the first fetch.
const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// A verification key and what it may verify.
#[derive(Clone)]
pub struct Key {
    pub kid: Option<String>,
    /// The JWK's `alg`, when it names one.
    pub alg: Option<Algorithm>,
    pub key: DecodingKey,
}

pub struct KeySet {
    issuer: String,
    discovery_url: String,
    fetcher: Fetcher,
    keys: RwLock<Arc<Vec<Key>>>,
    /// When keys were last fetched; held while fetching, so that callers
    /// wanting fresh keys share one fetch.
    last_fetch: tokio::sync::Mutex<Option<Instant>>,
}

impl KeySet {
    /// A key set for `issuer`, not fetched yet.
    pub fn new(
        issuer: &str,
        discovery_url: Option<&str>,
        ca_pem: Option<&str>,
    ) -> Result<Arc<KeySet>, String> {
        let discovery_url = discovery_url.map_or_else(
            || {
                format!(
                    "{}/.well-known/openid-configuration",
                    issuer.trim_end_matches('/')
                )
            },
            str::to_owned,
        );
        Ok(Arc::new(KeySet {
            issuer: issuer.to_owned(),
            discovery_url,
            fetcher: Fetcher::new(ca_pem)?,
            keys: RwLock::new(Arc::new(Vec::new())),
            last_fetch: tokio::sync::Mutex::new(None),
        }))
    }

    /// Fetches in the background until the first fetch succeeds; stops
    /// when the key set is dropped.
    pub fn start(self: &Arc<Self>) {
        let weak: Weak<KeySet> = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut backoff = Duration::from_millis(250);
            loop {
                let Some(set) = weak.upgrade() else { return };
                match set.refetch().await {
                    Ok(()) => return,
                    Err(e) => {
                        tracing::info!(issuer = %set.issuer, error = %e, "JWT issuer keys not fetched yet; retrying");
                    }
                }
                drop(set);
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        });
    }

    /// The current keys.
    pub fn current(&self) -> Arc<Vec<Key>> {
        Arc::clone(&self.keys.read())
    }

    /// Keys that may verify a token naming `kid`: refetched first when the
    /// set has none by that id (or none at all).
    pub async fn for_kid(&self, kid: Option<&str>) -> Arc<Vec<Key>> {
        let keys = self.current();
        if has_kid(&keys, kid) {
            return keys;
        }
        let asked = Instant::now();
        let mut last = self.last_fetch.lock().await;
        // A fetch that ended after this caller asked is as fresh as one it
        // would make: callers queued behind one fetch share it.
        let keys = self.current();
        if has_kid(&keys, kid) || last.is_some_and(|at| at > asked) {
            return keys;
        }
        if let Some(at) = *last {
            let since = at.elapsed();
            if since < MIN_REFETCH {
                tokio::time::sleep(MIN_REFETCH - since).await;
            }
        }
        match self.fetch().await {
            Ok(fresh) => *self.keys.write() = Arc::new(fresh),
            Err(e) => {
                tracing::info!(issuer = %self.issuer, error = %e, "refetching JWT issuer keys failed")
            }
        }
        *last = Some(Instant::now());
        self.current()
    }

    async fn refetch(&self) -> Result<(), String> {
        let mut last = self.last_fetch.lock().await;
        let result = self.fetch().await;
        *last = Some(Instant::now());
        let fresh = result?;
        tracing::info!(issuer = %self.issuer, keys = fresh.len(), "JWT issuer keys fetched");
        *self.keys.write() = Arc::new(fresh);
        Ok(())
    }

    /// Discovery, then the JWKS.
    async fn fetch(&self) -> Result<Vec<Key>, String> {
        let discovery = self.fetcher.get_json(&self.discovery_url).await?;
        let issuer = discovery
            .get("issuer")
            .and_then(Value::as_str)
            .unwrap_or("");
        if issuer != self.issuer {
            return Err(format!(
                "oidc: issuer did not match the issuer returned by provider, expected {:?} got {issuer:?}",
                self.issuer
            ));
        }
        let jwks_uri = discovery
            .get("jwks_uri")
            .and_then(Value::as_str)
            .ok_or("oidc: discovery document has no jwks_uri")?;
        let jwks = self.fetcher.get_json(jwks_uri).await?;
        let keys: Vec<Key> = jwks
            .get("keys")
            .and_then(Value::as_array)
            .map(|keys| keys.iter().filter_map(key).collect())
            .unwrap_or_default();
        if keys.is_empty() {
            return Err(format!("{jwks_uri}: no usable signing key"));
        }
        Ok(keys)
    }
}

fn has_kid(keys: &[Key], kid: Option<&str>) -> bool {
    match kid {
        Some(kid) => keys.iter().any(|k| k.kid.as_deref() == Some(kid)),
        None => !keys.is_empty(),
    }
}

/// A JWK usable for signatures; others (encryption keys, unknown types,
/// symmetric keys) are skipped.
fn key(raw: &Value) -> Option<Key> {
    if raw
        .get("use")
        .and_then(Value::as_str)
        .is_some_and(|u| u != "sig")
    {
        return None;
    }
    if raw.get("kty").and_then(Value::as_str) == Some("oct") {
        return None;
    }
    let jwk: Jwk = serde_json::from_value(raw.clone()).ok()?;
    let key = DecodingKey::from_jwk(&jwk).ok()?;
    let alg = match raw.get("alg").and_then(Value::as_str) {
        Some(a) => Some(Algorithm::from_str(a).ok()?),
        None => None,
    };
    Some(Key {
        kid: raw.get("kid").and_then(Value::as_str).map(str::to_owned),
        alg,
        key,
    })
}
