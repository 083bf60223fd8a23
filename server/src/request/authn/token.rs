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
        self.ask_from(0, token, audiences, None).resolve().await
    }

    /// Asks the authenticators from `first` on, with the refusal met so
    /// far. Answers at once while they do (a static token is recognised
    /// without an allocation); the first that must wait makes the rest
    /// wait behind it.
    fn ask_from<'a>(
        &'a self,
        first: usize,
        token: &'a str,
        audiences: Audiences<'a>,
        mut refused: Option<ApiError>,
    ) -> MaybeAsync<'a, Result<Option<TokenUser>, ApiError>> {
        for (index, authenticator) in self.chain.iter().enumerate().skip(first) {
            let answer = match authenticator
                .authenticate_token(token, audiences)
                .into_ready()
            {
                Ok(answer) => answer,
                Err(waiting) => {
                    return MaybeAsync::pending(async move {
                        let refused = match waiting.resolve().await {
                            Ok(Some(user)) => return Ok(Some(user)),
                            Ok(None) => refused,
                            Err(e) => Some(e),
                        };
                        self.ask_from(index + 1, token, audiences, refused)
                            .resolve()
                            .await
                    });
                }
            };
            match answer {
                Ok(Some(user)) => return MaybeAsync::Ready(Ok(Some(user))),
                Ok(None) => {}
                Err(e) => refused = Some(e),
            }
        }
        MaybeAsync::Ready(refused.map_or(Ok(None), Err))
    }
}

/// The union is itself a token authenticator, so that one cache
/// (`token_cache::TokenCache`) can wrap it whole.
impl TokenAuthenticator for Tokens {
    fn authenticate_token<'a>(
        &'a self,
        token: &'a str,
        audiences: Audiences<'a>,
    ) -> MaybeAsync<'a, Result<Option<TokenUser>, ApiError>> {
        self.ask_from(0, token, audiences, None)
    }
}

/// The token of an `Authorization: Bearer <token>` header, as Kubernetes'
/// bearer-token authenticator reads it: the header trimmed, split at the
/// first two spaces, the scheme compared case-insensitively, the token the
/// second part. A header without a token (`Bearer`, or `Bearer  x` with its
/// extra space) carries no bearer credential at all, as in Kubernetes.
#[must_use]
pub fn bearer_token<'a>(head: &RequestHead<'a>) -> Option<&'a str> {
    let value = head
        .headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())?
        .trim();
    // Byte by byte: a char search per part was most of a token's cost.
    let (scheme, rest) = value.split_at_checked("bearer".len())?;
    let rest = rest.strip_prefix(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let end = rest.bytes().position(|b| b == b' ').unwrap_or(rest.len());
    Some(&rest[..end]).filter(|token| !token.is_empty())
}

/// The request authenticator for bearer tokens.
pub struct Bearer {
    tokens: Arc<dyn TokenAuthenticator>,
    /// The audiences a request's token must be for.
    audiences: Vec<String>,
}

impl Bearer {
    /// Asks `tokens` (the union, usually cached) about each request's
    /// bearer token, for the server's `audiences`.
    #[must_use]
    pub fn new(tokens: Arc<dyn TokenAuthenticator>, audiences: Vec<String>) -> Bearer {
        Bearer { tokens, audiences }
    }
}

/// A recognised token's user, or the refusal of a bearer token nobody
/// recognises (not an absent credential: no anonymous fallback).
fn bearer_answer(
    answer: Result<Option<TokenUser>, ApiError>,
) -> Result<Option<Arc<UserInfo>>, ApiError> {
    match answer? {
        Some(found) => Ok(Some(found.user)),
        None => Err(ApiError::Unauthorized),
    }
}

impl Authenticator for Bearer {
    fn authenticate<'a>(
        &'a self,
        head: &'a RequestHead<'a>,
    ) -> MaybeAsync<'a, Result<Option<Arc<UserInfo>>, ApiError>> {
        let Some(token) = bearer_token(head) else {
            return MaybeAsync::Ready(Ok(None));
        };
        self.tokens
            .authenticate_token(token, &self.audiences)
            .map(bearer_answer)
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

    /// Answers like `Fixed`, refusing other tokens, after a wait.
    struct Slow(&'static str, &'static str);

    impl TokenAuthenticator for Slow {
        fn authenticate_token<'a>(
            &'a self,
            token: &'a str,
            _audiences: Audiences<'a>,
        ) -> MaybeAsync<'a, Result<Option<TokenUser>, ApiError>> {
            MaybeAsync::pending(async move {
                tokio::task::yield_now().await;
                if token == self.0 {
                    Ok(Some(TokenUser {
                        user: Arc::new(UserInfo::new(self.1, &[])),
                        audiences: Vec::new(),
                    }))
                } else {
                    Err(ApiError::Unauthorized)
                }
            })
        }
    }

    #[tokio::test]
    async fn the_union_answers_at_once_until_a_member_must_wait() {
        let union = Tokens::new(vec![
            Arc::new(Fixed("a", "alice")),
            Arc::new(Slow("s", "sam")),
            Arc::new(Fixed("b", "bob")),
        ]);
        let name = |answer: Result<Option<TokenUser>, ApiError>| {
            answer.map(|found| found.map(|f| f.user.name.clone()))
        };
        // The first member knows it: no waiting, no later member asked.
        let first = union.authenticate_token("a", &[]).into_ready();
        assert!(matches!(first.map(name), Ok(Ok(Some(n))) if n == "alice"));
        // The slow member is asked second and answers after its wait.
        let waited = union.authenticate_token("s", &[]);
        assert!(matches!(waited, MaybeAsync::Pending(_)));
        assert_eq!(name(waited.resolve().await).ok(), Some(Some("sam".into())));
        // Its refusal does not hide a later member's recognition...
        let later = union.authenticate_token("b", &[]).resolve().await;
        assert_eq!(name(later).ok(), Some(Some("bob".into())));
        // ...and is the answer when nobody recognises the token.
        let nobody = union.authenticate_token("z", &[]).resolve().await;
        assert_eq!(nobody.err().map(|e| e.code()), Some(401));
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
        fn token(v: &str) -> Option<String> {
            let headers = header(v);
            bearer_token(&head_with(&headers)).map(str::to_string)
        }
        assert_eq!(token("Bearer abc"), Some("abc".into()));
        assert_eq!(token("bearer abc"), Some("abc".into()));
        assert_eq!(token("  Bearer abc  "), Some("abc".into()));
        assert_eq!(token("Basic YWxhZGRpbjpvcGVu"), None);
        // No token: no bearer credential (Kubernetes then tries the others).
        assert_eq!(token("Bearer"), None);
        assert_eq!(token("Bearer  abc"), None);
        // Kubernetes takes the second part and ignores what follows.
        assert_eq!(token("Bearer a b"), Some("a".into()));
        let none = HeaderMap::new();
        assert_eq!(bearer_token(&head_with(&none)), None);
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
        let single = Bearer::new(Arc::new(Fixed("a", "alice")), Vec::new());
        assert_eq!(who(&single, "Bearer a").await, Ok(Some("alice".into())));
        assert_eq!(who(&single, "Bearer b").await, Err(401));
    }
}
