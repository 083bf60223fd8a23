//! Impersonation, between authentication and authorization as in
//! kube-apiserver: the `Impersonate-User`, `Impersonate-Group`
//! (repeatable), `Impersonate-Uid` and `Impersonate-Extra-<key>` headers
//! name who the request should act as. Each is checked with the chain, as
//! the requester, for the verb `impersonate`: `users`, `groups` and (for
//! `system:serviceaccount:<ns>:<name>`) `serviceaccounts` in the core
//! group; `uids` and `userextras/<key>` in `authentication.{domain}`. The
//! request then proceeds as the new user, whose groups are completed as
//! kube completes them.

use std::borrow::Cow;
use std::sync::Arc;

use http::HeaderMap;

use crate::api::error::ApiError;
use crate::request::authz::{Attributes, Authorizers, forbidden};
use crate::request::info::{RequestInfo, ResourceInfo};
use crate::request::user::{ANONYMOUS, AUTHENTICATED, UNAUTHENTICATED, UserInfo};

const USER_HEADER: &str = "impersonate-user";
const GROUP_HEADER: &str = "impersonate-group";
const UID_HEADER: &str = "impersonate-uid";
const EXTRA_PREFIX: &str = "impersonate-extra-";
const SERVICE_ACCOUNT_PREFIX: &str = "system:serviceaccount:";
/// The groups of every service account, and of those of one namespace
/// (with `:<ns>`).
const SERVICE_ACCOUNTS_GROUP: &str = "system:serviceaccounts";

/// One identity the requester asks to take on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    User(String),
    ServiceAccount { namespace: String, name: String },
    Group(String),
    Extra { key: String, value: String },
    Uid(String),
}

impl Target {
    /// What the requester must be allowed: `impersonate` on this
    /// resource, named after the target.
    fn request(&self, authentication_group: &str) -> RequestInfo {
        let (group, resource, namespace, name, subresource) = match self {
            Target::User(name) => ("", "users", "", name.as_str(), None),
            Target::ServiceAccount { namespace, name } => (
                "",
                "serviceaccounts",
                namespace.as_str(),
                name.as_str(),
                None,
            ),
            Target::Group(name) => ("", "groups", "", name.as_str(), None),
            Target::Extra { key, value } => (
                authentication_group,
                "userextras",
                "",
                value.as_str(),
                Some(key.clone()),
            ),
            Target::Uid(uid) => (authentication_group, "uids", "", uid.as_str(), None),
        };
        RequestInfo {
            verb: Cow::Borrowed("impersonate"),
            path: String::new(),
            resource: Some(ResourceInfo {
                group: group.to_string(),
                version: if group.is_empty() { "" } else { "v1" }.to_string(),
                namespace: Some(namespace.to_string()),
                resource: resource.to_string(),
                name: Some(name.to_string()),
                subresource,
                watch_path: false,
                selected_name: None,
            }),
        }
    }

    /// The target as kube prints the `ObjectReference` it made of it
    /// (Go's `%v`: kind, namespace, name, uid, apiVersion,
    /// resourceVersion, fieldPath).
    fn go_reference(&self, authentication_group: &str) -> String {
        let api_version = format!("{authentication_group}/v1");
        let (kind, namespace, name, version, field_path) = match self {
            Target::User(name) => ("User", "", name.as_str(), "", ""),
            Target::ServiceAccount { namespace, name } => {
                ("ServiceAccount", namespace.as_str(), name.as_str(), "", "")
            }
            Target::Group(name) => ("Group", "", name.as_str(), "", ""),
            Target::Extra { key, value } => (
                "UserExtra",
                "",
                value.as_str(),
                api_version.as_str(),
                key.as_str(),
            ),
            Target::Uid(uid) => ("UID", "", uid.as_str(), api_version.as_str(), ""),
        };
        format!("{{{kind} {namespace} {name}  {version}  {field_path}}}")
    }
}

/// `system:serviceaccount:<ns>:<name>` with a valid namespace and name.
fn service_account(user: &str) -> Option<(String, String)> {
    let rest = user.strip_prefix(SERVICE_ACCOUNT_PREFIX)?;
    let (namespace, name) = rest.split_once(':')?;
    let label = |s: &str| {
        !s.is_empty()
            && s.len() <= 63
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !s.starts_with('-')
            && !s.ends_with('-')
    };
    let subdomain = |s: &str| s.len() <= 253 && s.split('.').all(label);
    (label(namespace) && subdomain(name)).then(|| (namespace.to_string(), name.to_string()))
}

/// `%XX` decoded as Go's `url.PathUnescape`; the key as sent when it is
/// malformed.
pub(crate) fn unescape(key: &str) -> String {
    let bytes = key.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            let Some(byte) = hex else {
                return key.to_string();
            };
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| key.to_string())
}

fn header_text(value: &http::HeaderValue) -> String {
    String::from_utf8_lossy(value.as_bytes()).into_owned()
}

/// The targets the headers name, in kube's order (user, groups, extras,
/// uid); empty when the request impersonates no one. Groups, extras or a
/// uid without a user are refused as kube refuses them.
pub fn targets(
    headers: &HeaderMap,
    authentication_group: &str,
    uri: &str,
) -> Result<Vec<Target>, ApiError> {
    let mut targets = Vec::new();
    let user = headers
        .get(USER_HEADER)
        .map(header_text)
        .filter(|u| !u.is_empty());
    if let Some(user) = &user {
        targets.push(match service_account(user) {
            Some((namespace, name)) => Target::ServiceAccount { namespace, name },
            None => Target::User(user.clone()),
        });
    }
    targets.extend(
        headers
            .get_all(GROUP_HEADER)
            .iter()
            .map(|g| Target::Group(header_text(g))),
    );
    for (name, value) in headers {
        if let Some(key) = name.as_str().strip_prefix(EXTRA_PREFIX) {
            targets.push(Target::Extra {
                key: unescape(&key.to_ascii_lowercase()),
                value: header_text(value),
            });
        }
    }
    if let Some(uid) = headers
        .get(UID_HEADER)
        .map(header_text)
        .filter(|u| !u.is_empty())
    {
        targets.push(Target::Uid(uid));
    }
    if user.is_none() && !targets.is_empty() {
        let listed: Vec<String> = targets
            .iter()
            .map(|t| t.go_reference(authentication_group))
            .collect();
        return Err(ApiError::FilterFailed {
            uri: uri.to_string(),
            cause: format!(
                "requested [{}] without impersonating a user",
                listed.join(" ")
            ),
        });
    }
    Ok(targets)
}

/// The user the request acts as: `requester` when no impersonation header
/// is sent, else the impersonated user once the chain allowed `requester`
/// every part of it (403 naming the first refused part otherwise).
pub async fn impersonate(
    authorizers: &Authorizers,
    headers: &HeaderMap,
    uri: &str,
    api_domain: &str,
    requester: Arc<UserInfo>,
) -> Result<Arc<UserInfo>, ApiError> {
    let authentication_group = format!("authentication.{api_domain}");
    let targets = targets(headers, &authentication_group, uri)?;
    if targets.is_empty() {
        return Ok(requester);
    }
    for target in &targets {
        let info = target.request(&authentication_group);
        let attrs = Attributes {
            user: &requester,
            info: &info,
        };
        let verdict = authorizers.decide(&attrs).await;
        if !verdict.allowed {
            return Err(forbidden(&attrs, &verdict.reason));
        }
    }
    let groups_given = targets.iter().any(|t| matches!(t, Target::Group(_)));
    Ok(Arc::new(impersonated(&targets, groups_given)))
}

/// The identity the allowed targets make up.
fn impersonated(targets: &[Target], groups_given: bool) -> UserInfo {
    let mut user = UserInfo::default();
    for target in targets {
        match target {
            Target::User(name) => user.name.clone_from(name),
            Target::ServiceAccount { namespace, name } => {
                user.name = format!("{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}");
                if !groups_given {
                    // A service account's groups follow from its name.
                    user.groups = vec![
                        SERVICE_ACCOUNTS_GROUP.to_string(),
                        format!("{SERVICE_ACCOUNTS_GROUP}:{namespace}"),
                    ];
                }
            }
            Target::Group(group) => user.groups.push(group.clone()),
            Target::Extra { key, value } => {
                user.extra
                    .entry(key.clone())
                    .or_default()
                    .push(value.clone());
            }
            Target::Uid(uid) => user.uid.clone_from(uid),
        }
    }
    // Everyone impersonated is authenticated, unless named otherwise;
    // anonymous is unauthenticated.
    let (implied, unless) = if user.name == ANONYMOUS {
        (UNAUTHENTICATED, [UNAUTHENTICATED, UNAUTHENTICATED])
    } else {
        (AUTHENTICATED, [AUTHENTICATED, UNAUTHENTICATED])
    };
    if !user.groups.iter().any(|g| unless.contains(&g.as_str())) {
        user.groups.push(implied.to_string());
    }
    user
}

#[cfg(test)]
#[path = "impersonation_tests.rs"]
mod tests;
