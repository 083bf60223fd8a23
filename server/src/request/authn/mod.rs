//! Authentication: who is asking. A chain of authenticators, each looking
//! for its own kind of credential (client certificate, bearer token, front
//! proxy headers); the first to recognise the caller wins. A request none
//! recognises gets the fallback's identity (anonymous, when enabled) unless
//! a credential was presented and refused: then, as without a fallback, 401.
//! Users the chain recognises join `system:authenticated`, as Kubernetes'
//! authenticated-group adder has it; the fallback's users do not.

pub mod anonymous;
pub mod audiences;
mod csv;
pub mod front_proxy;
pub mod insecure;
pub mod jwt;
pub mod review;
pub mod service_account;
pub mod setup;
pub mod token;
pub mod token_cache;
pub mod token_file;
pub mod x509;

use std::sync::Arc;

use http::{HeaderMap, Method};

use crate::api::error::ApiError;
use crate::request::user::{UserInfo, with_authenticated_group};
use crate::util::maybe_async::MaybeAsync;

/// What authenticators may look at: the request before its body.
pub struct RequestHead<'a> {
    pub method: &'a Method,
    pub path: &'a str,
    pub headers: &'a HeaderMap,
    /// The TLS client's certificates, when it sent any.
    pub peer: Option<&'a x509::PeerCertificates>,
}

/// One way of recognising a caller.
pub trait Authenticator: Send + Sync {
    /// `Ok(None)` when the request carries no credential of this kind;
    /// an error when it carries one that does not hold.
    fn authenticate<'a>(
        &'a self,
        head: &'a RequestHead<'a>,
    ) -> MaybeAsync<'a, Result<Option<Arc<UserInfo>>, ApiError>>;

    /// Removes from an authenticated request the headers this
    /// authenticator reads identities from, so nothing after authentication
    /// (the proxy verb, say) passes them on.
    fn clear_headers(&self, _headers: &mut http::HeaderMap) {}
}

/// The authenticators in the order they are asked, and the fallback.
pub struct Authenticators {
    chain: Vec<Arc<dyn Authenticator>>,
    fallback: Option<Arc<dyn Authenticator>>,
}

impl Authenticators {
    #[must_use]
    pub fn new(
        chain: Vec<Arc<dyn Authenticator>>,
        fallback: Option<Arc<dyn Authenticator>>,
    ) -> Authenticators {
        Authenticators { chain, fallback }
    }

    /// Every authenticator's `clear_headers`.
    pub fn clear_headers(&self, headers: &mut http::HeaderMap) {
        for authenticator in self.chain.iter().chain(&self.fallback) {
            authenticator.clear_headers(headers);
        }
    }

    /// The caller, or 401.
    pub async fn authenticate(&self, head: &RequestHead<'_>) -> Result<Arc<UserInfo>, ApiError> {
        let mut refused = false;
        for authenticator in &self.chain {
            match authenticator.authenticate(head).resolve().await {
                Ok(Some(user)) => return Ok(with_authenticated_group(user)),
                Ok(None) => {}
                // The reason is for the log only: a client learns nothing
                // about which credential failed or why.
                Err(e) => {
                    tracing::debug!(path = head.path, error = %e, "authentication failed");
                    refused = true;
                }
            }
        }
        if let Some(fallback) = self.fallback.as_ref().filter(|_| !refused)
            && let Some(user) = fallback.authenticate(head).resolve().await?
        {
            return Ok(user);
        }
        Err(ApiError::Unauthorized)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recognises `Authorization: Bearer <token>` for one token, refuses
    /// other bearer tokens, and ignores requests without one.
    struct Token(&'static str, &'static str);

    impl Authenticator for Token {
        fn authenticate<'a>(
            &'a self,
            head: &'a RequestHead<'a>,
        ) -> MaybeAsync<'a, Result<Option<Arc<UserInfo>>, ApiError>> {
            let presented = head
                .headers
                .get(http::header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "));
            MaybeAsync::Ready(match presented {
                None => Ok(None),
                Some(t) if t == self.0 => Ok(Some(Arc::new(UserInfo::new(self.1, &[])))),
                Some(_) => Err(ApiError::BadRequest("unknown token".into())),
            })
        }
    }

    /// Everyone, waiting a moment first (as a remote check would).
    struct Anonymous;

    impl Authenticator for Anonymous {
        fn authenticate<'a>(
            &'a self,
            _head: &'a RequestHead<'a>,
        ) -> MaybeAsync<'a, Result<Option<Arc<UserInfo>>, ApiError>> {
            MaybeAsync::pending(async {
                tokio::task::yield_now().await;
                Ok(Some(Arc::new(UserInfo::new(
                    "system:anonymous",
                    &["system:unauthenticated"],
                ))))
            })
        }
    }

    async fn who(chain: &Authenticators, token: Option<&str>) -> Result<String, u16> {
        let mut headers = HeaderMap::new();
        if let Some(t) = token {
            headers.insert(
                http::header::AUTHORIZATION,
                format!("Bearer {t}").parse().expect("header"),
            );
        }
        let head = RequestHead {
            method: &Method::GET,
            path: "/healthz",
            headers: &headers,
            peer: None,
        };
        chain
            .authenticate(&head)
            .await
            .map(|u| u.name.clone())
            .map_err(|e| e.code())
    }

    #[tokio::test]
    async fn the_first_authenticator_that_knows_the_caller_wins() {
        let both = Authenticators::new(
            vec![Arc::new(Token("a", "alice")), Arc::new(Token("b", "bob"))],
            None,
        );
        assert_eq!(who(&both, Some("a")).await, Ok("alice".into()));
        // The first refuses "b", the second knows it.
        assert_eq!(who(&both, Some("b")).await, Ok("bob".into()));
        assert_eq!(who(&both, Some("c")).await, Err(401));
        assert_eq!(who(&both, None).await, Err(401));
        let shadowed = Authenticators::new(
            vec![Arc::new(Token("a", "alice")), Arc::new(Token("a", "eve"))],
            None,
        );
        assert_eq!(who(&shadowed, Some("a")).await, Ok("alice".into()));
    }

    #[tokio::test]
    async fn the_chain_adds_system_authenticated_and_the_fallback_does_not() {
        let chain = Authenticators::new(
            vec![Arc::new(Token("a", "alice"))],
            Some(Arc::new(Anonymous)),
        );
        let groups = |token: Option<&'static str>| {
            let chain = &chain;
            async move {
                let mut headers = HeaderMap::new();
                if let Some(t) = token {
                    let value = format!("Bearer {t}").parse().expect("header");
                    headers.insert(http::header::AUTHORIZATION, value);
                }
                let head = RequestHead {
                    method: &Method::GET,
                    path: "/api",
                    headers: &headers,
                    peer: None,
                };
                chain
                    .authenticate(&head)
                    .await
                    .expect("a user")
                    .groups
                    .clone()
            }
        };
        assert_eq!(groups(Some("a")).await, ["system:authenticated"]);
        assert_eq!(groups(None).await, ["system:unauthenticated"]);
    }

    #[tokio::test]
    async fn the_fallback_takes_only_requests_without_a_refused_credential() {
        let chain = Authenticators::new(
            vec![Arc::new(Token("a", "alice"))],
            Some(Arc::new(Anonymous)),
        );
        assert_eq!(who(&chain, Some("a")).await, Ok("alice".into()));
        assert_eq!(who(&chain, None).await, Ok("system:anonymous".into()));
        assert_eq!(who(&chain, Some("forged")).await, Err(401));
        let status = ApiError::Unauthorized.status();
        assert_eq!(
            (
                status["message"].as_str(),
                status["reason"].as_str(),
                status["code"].as_u64()
            ),
            (Some("Unauthorized"), Some("Unauthorized"), Some(401))
        );
    }
}
