//! Token authenticators that know nothing of audiences (static tokens, and
//! JWT issuers, which check their own `aud` rules) are valid for the API
//! server's own audiences (`--api-audiences`) only, as Kubernetes'
//! audience-agnostic wrapper has it: asked for audiences, such a token is
//! recognised only when they meet the server's, and the answer names the
//! audiences they share. Asked for none, the token is recognised as is.

use std::sync::Arc;

use crate::api::error::ApiError;
use crate::request::authn::token::{Audiences, TokenAuthenticator, TokenUser};
use crate::util::maybe_async::MaybeAsync;

/// The audiences of `ours` that `wanted` also names, in `ours`' order.
#[must_use]
pub fn intersect(ours: &[String], wanted: &[String]) -> Vec<String> {
    ours.iter()
        .filter(|a| wanted.contains(a))
        .cloned()
        .collect()
}

/// An audience-agnostic authenticator, valid for the server's audiences.
pub struct ImplicitAudiences {
    implicit: Vec<String>,
    inner: Arc<dyn TokenAuthenticator>,
}

impl ImplicitAudiences {
    /// `inner`'s tokens are for `api_audiences` (the server's).
    #[must_use]
    pub fn new(
        api_audiences: Vec<String>,
        inner: Arc<dyn TokenAuthenticator>,
    ) -> ImplicitAudiences {
        ImplicitAudiences {
            implicit: api_audiences,
            inner,
        }
    }
}

impl TokenAuthenticator for ImplicitAudiences {
    fn authenticate_token<'a>(
        &'a self,
        token: &'a str,
        audiences: Audiences<'a>,
    ) -> MaybeAsync<'a, Result<Option<TokenUser>, ApiError>> {
        if audiences.is_empty() {
            return self.inner.authenticate_token(token, audiences);
        }
        let shared = intersect(&self.implicit, audiences);
        if shared.is_empty() {
            return MaybeAsync::Ready(Ok(None));
        }
        self.inner
            .authenticate_token(token, audiences)
            .map(move |answer| {
                Ok(answer?.map(|found| TokenUser {
                    audiences: shared,
                    ..found
                }))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::user::UserInfo;

    struct Everyone;

    impl TokenAuthenticator for Everyone {
        fn authenticate_token<'a>(
            &'a self,
            _token: &'a str,
            _audiences: Audiences<'a>,
        ) -> MaybeAsync<'a, Result<Option<TokenUser>, ApiError>> {
            MaybeAsync::Ready(Ok(Some(TokenUser {
                user: Arc::new(UserInfo::new("jane", &[])),
                audiences: Vec::new(),
            })))
        }
    }

    fn audiences_of(wrapper: &ImplicitAudiences, wanted: &[&str]) -> Option<Vec<String>> {
        let wanted: Vec<String> = wanted.iter().map(|s| (*s).to_string()).collect();
        match wrapper.authenticate_token("t", &wanted) {
            MaybeAsync::Ready(Ok(found)) => found.map(|f| f.audiences),
            _ => panic!("answers at once"),
        }
    }

    #[test]
    fn only_the_servers_audiences_are_recognised() {
        let api = vec![
            "https://kubernetes.default.svc".to_string(),
            "cairn".to_string(),
        ];
        let wrapper = ImplicitAudiences::new(api, Arc::new(Everyone));
        assert_eq!(audiences_of(&wrapper, &[]), Some(Vec::new()));
        assert_eq!(
            audiences_of(&wrapper, &["cairn", "other"]),
            Some(vec!["cairn".to_string()])
        );
        assert_eq!(audiences_of(&wrapper, &["vault"]), None);
        let no_api = ImplicitAudiences::new(Vec::new(), Arc::new(Everyone));
        assert_eq!(audiences_of(&no_api, &["vault"]), None);
    }
}
