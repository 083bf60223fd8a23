//! The front-proxy (request-header) authenticator: a request whose client
//! certificate chains to `--requestheader-client-ca-file` (with a
//! CommonName among `--requestheader-allowed-names`, when any are given)
//! is the user its headers name, as kube-apiserver's requestheader
//! authenticator has it. Asked before the client-certificate authenticator.

use std::collections::BTreeMap;
use std::sync::Arc;

use http::HeaderMap;

use crate::api::error::ApiError;
use crate::config::request_header::RequestHeaderConfig;
use crate::request::authn::x509::ClientCertificates;
use crate::request::authn::{Authenticator, RequestHead};
use crate::request::user::UserInfo;
use crate::util::maybe_async::MaybeAsync;

/// The headers the proxy names the user in, their names in lower case as
/// HTTP/2 and `HeaderMap` keep them.
#[derive(Clone, Debug, Default)]
pub struct IdentityHeaders {
    username: Vec<String>,
    uid: Vec<String>,
    group: Vec<String>,
    extra_prefix: Vec<String>,
}

/// The first non-empty value of the first of `names` that has one.
fn first_value(headers: &HeaderMap, names: &[String]) -> Option<String> {
    names.iter().find_map(|name| {
        headers
            .get(name.as_str())
            .and_then(|v| v.to_str().ok())
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    })
}

impl IdentityHeaders {
    /// The header names of each flag (any case).
    #[must_use]
    pub fn new(
        username: &[String],
        uid: &[String],
        group: &[String],
        extra_prefix: &[String],
    ) -> IdentityHeaders {
        let lower = |names: &[String]| names.iter().map(|n| n.to_ascii_lowercase()).collect();
        IdentityHeaders {
            username: lower(username),
            uid: lower(uid),
            group: lower(group),
            extra_prefix: lower(extra_prefix),
        }
    }

    /// The user the headers name; `None` without a username.
    #[must_use]
    pub fn user(&self, headers: &HeaderMap) -> Option<UserInfo> {
        let name = first_value(headers, &self.username)?;
        let groups = self
            .group
            .iter()
            .flat_map(|h| headers.get_all(h.as_str()))
            .filter_map(|v| v.to_str().ok())
            .filter(|v| !v.is_empty())
            .map(str::to_string)
            .collect();
        let mut extra: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for prefix in &self.extra_prefix {
            for (header, value) in headers {
                // Header names are lower case already.
                let Some(key) = header.as_str().strip_prefix(prefix.as_str()) else {
                    continue;
                };
                let Ok(value) = value.to_str() else { continue };
                if value.is_empty() {
                    continue;
                }
                extra
                    .entry(crate::request::impersonation::unescape(key))
                    .or_default()
                    .push(value.to_string());
            }
        }
        Some(UserInfo {
            name,
            uid: first_value(headers, &self.uid).unwrap_or_default(),
            groups,
            extra,
        })
    }

    /// Every header these name (for removal once read).
    pub fn names_in<'a>(&'a self, headers: &'a HeaderMap) -> impl Iterator<Item = String> + 'a {
        let exact = self
            .username
            .iter()
            .chain(&self.uid)
            .chain(&self.group)
            .cloned();
        let prefixed = headers
            .keys()
            .filter(|k| {
                self.extra_prefix
                    .iter()
                    .any(|p| k.as_str().starts_with(p.as_str()))
            })
            .map(|k| k.as_str().to_string());
        exact.chain(prefixed)
    }
}

/// The authenticator.
pub struct FrontProxy {
    verifier: ClientCertificates,
    allowed_names: Vec<String>,
    pub headers: IdentityHeaders,
}

impl FrontProxy {
    /// Trusts the CA of `config`; an error names an unusable certificate.
    pub fn new(config: &RequestHeaderConfig) -> Result<FrontProxy, String> {
        Ok(FrontProxy {
            verifier: ClientCertificates::new(&config.cas)
                .map_err(|e| format!("--requestheader-client-ca-file: {e}"))?,
            allowed_names: config.allowed_names.clone(),
            headers: IdentityHeaders::new(
                &config.username_headers,
                &config.uid_headers,
                &config.group_headers,
                &config.extra_headers_prefix,
            ),
        })
    }
}

impl Authenticator for FrontProxy {
    fn authenticate<'a>(
        &'a self,
        head: &'a RequestHead<'a>,
    ) -> MaybeAsync<'a, Result<Option<Arc<UserInfo>>, ApiError>> {
        let Some(peer) = head.peer else {
            return MaybeAsync::Ready(Ok(None));
        };
        MaybeAsync::Ready((|| {
            // A certificate of another CA is refused here and may still be
            // the x509 authenticator's.
            let Some(proxy) = self.verifier.subject(peer, true)? else {
                return Err(ApiError::Unauthorized);
            };
            if !self.allowed_names.is_empty() && !self.allowed_names.contains(&proxy.name) {
                tracing::debug!(cn = %proxy.name, "front proxy certificate not in --requestheader-allowed-names");
                return Err(ApiError::Unauthorized);
            }
            Ok(self.headers.user(head.headers).map(Arc::new))
        })())
    }

    /// kube-apiserver clears these only when the front proxy vouched for
    /// the request; here they go from every authenticated request, so a
    /// client authenticated otherwise cannot pass a name on either.
    fn clear_headers(&self, headers: &mut HeaderMap) {
        let names: Vec<String> = self.headers.names_in(headers).collect();
        for name in names {
            headers.remove(name.as_str());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kube_headers() -> IdentityHeaders {
        IdentityHeaders::new(
            &["X-Remote-User".into()],
            &["X-Remote-Uid".into()],
            &["X-Remote-Group".into()],
            &["X-Remote-Extra-".into()],
        )
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                http::HeaderName::try_from(*k).expect("name"),
                http::HeaderValue::try_from(*v).expect("value"),
            );
        }
        h
    }

    #[test]
    fn the_headers_name_user_uid_groups_and_extra() {
        let h = headers(&[
            ("x-remote-user", "jane"),
            ("x-remote-uid", "42"),
            ("x-remote-group", "devs"),
            ("x-remote-group", "ops"),
            ("x-remote-group", ""),
            ("x-remote-extra-scopes", "a"),
            ("x-remote-extra-scopes", "b"),
            ("x-remote-extra-example.com%2fteam", "blue"),
            ("x-remote-extra-bad%zz", "kept"),
            ("x-other", "ignored"),
        ]);
        let user = kube_headers().user(&h).expect("a user");
        assert_eq!((user.name.as_str(), user.uid.as_str()), ("jane", "42"));
        assert_eq!(user.groups, ["devs", "ops"]);
        assert_eq!(user.extra["scopes"], ["a", "b"]);
        assert_eq!(user.extra["example.com/team"], ["blue"]);
        assert_eq!(user.extra["bad%zz"], ["kept"]);
        let mut names: Vec<String> = kube_headers().names_in(&h).collect();
        names.sort();
        names.dedup();
        assert_eq!(
            names,
            [
                "x-remote-extra-bad%zz",
                "x-remote-extra-example.com%2fteam",
                "x-remote-extra-scopes",
                "x-remote-group",
                "x-remote-uid",
                "x-remote-user"
            ]
        );
    }

    #[test]
    fn the_first_named_header_with_a_value_is_the_user() {
        let both = IdentityHeaders::new(
            &["X-Remote-User".into(), "X-Forwarded-User".into()],
            &[],
            &[],
            &[],
        );
        let h = headers(&[("x-remote-user", ""), ("x-forwarded-user", "bob")]);
        assert_eq!(both.user(&h).expect("bob").name, "bob");
        assert!(both.user(&headers(&[("x-remote-group", "g")])).is_none());
        // Nothing configured: nobody is named, as in kube-apiserver.
        assert!(
            IdentityHeaders::default()
                .user(&headers(&[("x-remote-user", "jane")]))
                .is_none()
        );
    }
}
