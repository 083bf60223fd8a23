//! The chain's fallback: a request no authenticator recognised (and that
//! presented no refused credential) is `system:anonymous` in
//! `system:unauthenticated` — everywhere (`--anonymous-auth`, on by
//! default), or only on the paths an AuthenticationConfiguration's
//! `anonymous.conditions` name (compared with the request path exactly, as
//! Kubernetes does); elsewhere such a request is refused (401).

use std::sync::Arc;

use crate::api::error::ApiError;
use crate::request::authn::{Authenticator, RequestHead};
use crate::request::user::{ANONYMOUS, UNAUTHENTICATED, UserInfo};
use crate::util::maybe_async::MaybeAsync;

pub struct Anonymous {
    /// Built once: each anonymous request shares it.
    user: Arc<UserInfo>,
    /// The paths anonymous requests may use; empty: every path.
    paths: Vec<String>,
}

impl Anonymous {
    /// Anonymous requests on `paths` only (an AuthenticationConfiguration's
    /// `anonymous.conditions[*].path`); an empty list allows every path, as
    /// conditions left empty do in Kubernetes.
    #[must_use]
    pub fn new(paths: Vec<String>) -> Anonymous {
        Anonymous {
            user: Arc::new(UserInfo::new(ANONYMOUS, &[UNAUTHENTICATED])),
            paths,
        }
    }

    /// Anonymous requests on every path (`--anonymous-auth=true`).
    #[must_use]
    pub fn everywhere() -> Anonymous {
        Anonymous::new(Vec::new())
    }
}

impl Authenticator for Anonymous {
    fn authenticate<'a>(
        &'a self,
        head: &'a RequestHead<'a>,
    ) -> MaybeAsync<'a, Result<Option<Arc<UserInfo>>, ApiError>> {
        let allowed = self.paths.is_empty() || self.paths.iter().any(|p| p == head.path);
        MaybeAsync::Ready(Ok(allowed.then(|| Arc::clone(&self.user))))
    }
}

#[cfg(test)]
mod tests {
    use http::{HeaderMap, Method};

    use super::*;
    use crate::request::authn::Authenticators;

    async fn who(chain: &Authenticators, path: &str) -> Result<(String, Vec<String>), u16> {
        let headers = HeaderMap::new();
        let head = RequestHead {
            method: &Method::GET,
            path,
            headers: &headers,
            peer: None,
        };
        chain
            .authenticate(&head)
            .await
            .map(|u| (u.name.clone(), u.groups.clone()))
            .map_err(|e| e.code())
    }

    #[tokio::test]
    async fn anonymous_everywhere_or_on_some_paths() {
        let everywhere = Authenticators::new(Vec::new(), Some(Arc::new(Anonymous::everywhere())));
        let anonymous = Ok((
            "system:anonymous".to_string(),
            vec!["system:unauthenticated".to_string()],
        ));
        assert_eq!(who(&everywhere, "/api/v1/pods").await, anonymous);
        let some = Authenticators::new(
            Vec::new(),
            Some(Arc::new(Anonymous::new(vec![
                "/healthz".into(),
                "/readyz".into(),
            ]))),
        );
        assert_eq!(who(&some, "/healthz").await, anonymous);
        assert_eq!(who(&some, "/readyz").await, anonymous);
        assert_eq!(who(&some, "/healthz/etcd").await, Err(401));
        assert_eq!(who(&some, "/api").await, Err(401));
        let off = Authenticators::new(Vec::new(), None);
        assert_eq!(who(&off, "/healthz").await, Err(401));
    }
}
