//! Bearer tokens: one seam for every kind of token (static token file,
//! service-account JWTs, JWT issuers). `Authorization: Bearer <token>` is
//! read once; the token authenticators are asked in order, and the first
//! that recognises the token answers. TokenReview asks the same union.

use std::sync::Arc;

use http::header::AUTHORIZATION;

use crate::api::error::ApiError;
use crate::request::authn::{Authenticator, RequestHead};
use crate::request::user::UserInfo;
use crate::util::maybe_async::MaybeAsync;

/// A token that was recognised: who it is, and the audiences it was
/// checked against (what TokenReview reports).
#[derive(Clone, Debug)]
pub struct TokenUser {
    pub user: Arc<UserInfo>,
    /// The audiences the token is valid for among those asked; empty when
    /// the authenticator has no notion of audience.
    pub audiences: Vec<String>,
}

/// The audiences a token must be for (the server's `--api-audiences` for
/// requests; a TokenReview's `spec.audiences` when it names some).
pub type Audiences<'a> = &'a [String];

/// One way of recognising a token.
pub trait TokenAuthenticator: Send + Sync {
    /// `Ok(None)` when the token is not of this kind (another authenticator
    /// may know it); an error when it is of this kind and does not hold.
    fn authenticate_token<'a>(
        &'a self,
        token: &'a str,
        audiences: Audiences<'a>,
    ) -> MaybeAsync<'a, Result<Option<TokenUser>, ApiError>>;
}

/// The token authenticators in the order they are asked.
pub struct Tokens {
    chain: Vec<Arc<dyn TokenAuthenticator>>,
}

impl Tokens {
    #[must_use]
    pub fn new(chain: Vec<Arc<dyn TokenAuthenticator>>) -> Tokens {
        Tokens { chain }
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.chain.is_empty()
    }

    /// The first authenticator that recognises `token`; `Ok(None)` when
    /// none does, an error when one refused it and none recognised it.
    pub async fn authenticate(
        &self,
        token: &str,
        audiences: Audiences<'_>,
    ) -> Result<Option<TokenUser>, ApiError> {
        let mut refused = None;
        for authenticator in &self.chain {
            match authenticator
                .authenticate_token(token, audiences)
                .resolve()
                .await
            {
                Ok(Some(user)) => return Ok(Some(user)),
                Ok(None) => {}
                Err(e) => refused = Some(e),
            }
        }
        refused.map_or(Ok(None), Err)
    }
}

/// The token of an `Authorization: Bearer <token>` header, as Kubernetes
/// reads it: the scheme case-insensitively, one space, a non-empty token.
/// `Ok(None)` without such a header; an error for a bearer header whose
/// token is empty.
pub fn bearer_token<'a>(head: &RequestHead<'a>) -> Result<Option<&'a str>, ApiError> {
    let Some(value) = head
        .headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    else {
        return Ok(None);
    };
    let mut parts = value.trim().splitn(3, ' ');
    let scheme = parts.next().unwrap_or("");
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Ok(None);
    }
    match (parts.next(), parts.next()) {
        (Some(token), None) if !token.is_empty() => Ok(Some(token)),
        _ => Err(ApiError::Unauthorized),
    }
}

/// The request authenticator for bearer tokens.
pub struct Bearer {
    tokens: Arc<Tokens>,
    /// The audiences a request's token must be for.
    audiences: Vec<String>,
}

impl Bearer {
    #[must_use]
    pub fn new(tokens: Arc<Tokens>, audiences: Vec<String>) -> Bearer {
        Bearer { tokens, audiences }
    }
}

impl Authenticator for Bearer {
    fn authenticate<'a>(
        &'a self,
        head: &'a RequestHead<'a>,
    ) -> MaybeAsync<'a, Result<Option<Arc<UserInfo>>, ApiError>> {
        let token = match bearer_token(head) {
            Ok(Some(token)) => token,
            Ok(None) => return MaybeAsync::Ready(Ok(None)),
            Err(e) => return MaybeAsync::Ready(Err(e)),
        };
        MaybeAsync::pending(async move {
            match self.tokens.authenticate(token, &self.audiences).await? {
                Some(found) => Ok(Some(found.user)),
                // A bearer token nobody recognises is a refused credential,
                // not an absent one: no anonymous fallback.
                None => Err(ApiError::Unauthorized),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use http::{HeaderMap, Method};

    use super::*;

    struct Fixed(&'static str, &'static str);

    impl TokenAuthenticator for Fixed {
        fn authenticate_token<'a>(
            &'a self,
            token: &'a str,
            _audiences: Audiences<'a>,
        ) -> MaybeAsync<'a, Result<Option<TokenUser>, ApiError>> {
            MaybeAsync::Ready(Ok((token == self.0).then(|| TokenUser {
                user: Arc::new(UserInfo::new(self.1, &[])),
                audiences: Vec::new(),
            })))
        }
    }

    fn head_with(headers: &HeaderMap) -> RequestHead<'_> {
        RequestHead {
            method: &Method::GET,
            path: "/api",
            headers,
            peer: None,
        }
    }

    fn header(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, value.parse().expect("header"));
        headers
    }

    #[test]
    fn bearer_tokens_are_read_as_kubernetes_reads_them() {
        fn token(v: &str) -> Result<Option<String>, u16> {
            let headers = header(v);
            bearer_token(&head_with(&headers))
                .map(|t| t.map(str::to_string))
                .map_err(|e| e.code())
        }
        assert_eq!(token("Bearer abc"), Ok(Some("abc".into())));
        assert_eq!(token("bearer abc"), Ok(Some("abc".into())));
        assert_eq!(token("Basic YWxhZGRpbjpvcGVu"), Ok(None));
        assert_eq!(token("Bearer"), Err(401));
        assert_eq!(token("Bearer a b"), Err(401));
        let none = HeaderMap::new();
        assert!(matches!(bearer_token(&head_with(&none)), Ok(None)));
    }

    #[tokio::test]
    async fn an_unrecognised_bearer_token_is_refused() {
        let tokens = Arc::new(Tokens::new(vec![
            Arc::new(Fixed("a", "alice")),
            Arc::new(Fixed("b", "bob")),
        ]));
        let bearer = Bearer::new(tokens, Vec::new());
        async fn who(bearer: &Bearer, v: &str) -> Result<Option<String>, u16> {
            let headers = header(v);
            bearer
                .authenticate(&head_with(&headers))
                .resolve()
                .await
                .map(|u| u.map(|u| u.name.clone()))
                .map_err(|e| e.code())
        }
        assert_eq!(who(&bearer, "Bearer b").await, Ok(Some("bob".into())));
        assert_eq!(who(&bearer, "Bearer c").await, Err(401));
        assert_eq!(who(&bearer, "Basic x").await, Ok(None));
    }
}
