//! The plain-HTTP port's authenticator: every request on it is
//! `system:admin` in `system:masters`, whatever it presents (the port is
//! for local use only, as Kubernetes' old insecure port was).

use std::sync::Arc;

use crate::api::error::ApiError;
use crate::request::authn::{Authenticator, RequestHead};
use crate::request::user::{UserInfo, insecure_port_user};
use crate::util::maybe_async::MaybeAsync;

pub struct InsecurePort {
    /// Built once: each request shares it.
    user: Arc<UserInfo>,
}

impl InsecurePort {
    #[must_use]
    pub fn new() -> InsecurePort {
        InsecurePort {
            user: insecure_port_user(),
        }
    }
}

impl Default for InsecurePort {
    fn default() -> InsecurePort {
        InsecurePort::new()
    }
}

impl Authenticator for InsecurePort {
    fn authenticate<'a>(
        &'a self,
        _head: &'a RequestHead<'a>,
    ) -> MaybeAsync<'a, Result<Option<Arc<UserInfo>>, ApiError>> {
        MaybeAsync::Ready(Ok(Some(Arc::clone(&self.user))))
    }
}

#[cfg(test)]
mod tests {
    use http::{HeaderMap, Method};

    use super::*;
    use crate::request::user::{AUTHENTICATED, MASTERS};

    #[tokio::test]
    async fn every_request_is_the_same_admin() {
        let port = InsecurePort::new();
        let mut headers = HeaderMap::new();
        headers.insert(
            http::header::AUTHORIZATION,
            "Bearer whatever".parse().expect("header"),
        );
        let head = RequestHead {
            method: &Method::DELETE,
            path: "/api/v1/namespaces/x",
            headers: &headers,
            peer: None,
        };
        let first = port
            .authenticate(&head)
            .resolve()
            .await
            .expect("ok")
            .expect("user");
        let second = port
            .authenticate(&head)
            .resolve()
            .await
            .expect("ok")
            .expect("user");
        assert_eq!(first.name, "system:admin");
        assert_eq!(first.groups, [MASTERS, AUTHENTICATED]);
        assert!(Arc::ptr_eq(&first, &second), "built once, shared");
    }
}
