//! What a request addresses and does, in Kubernetes' terms (its
//! `RequestInfo`): built once per request from method, path and query,
//! before anything else. Authorization, admission and audit read it; the
//! router dispatches on it.

use std::borrow::Cow;

use http::Method;

use crate::api::selectors::FieldSelector;

/// A resource request's target, as its path names it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceInfo {
    pub group: String,
    pub version: String,
    /// The namespace segment of a namespaced path (`namespaces/{ns}/...`).
    pub namespace: Option<String>,
    pub resource: String,
    pub name: Option<String>,
    pub subresource: Option<String>,
    /// Reached through a `/watch/` path.
    pub watch_path: bool,
    /// For list and watch: the name a `metadata.name=` field selector pins,
    /// which Kubernetes authorizes as a request on that one name.
    pub selected_name: Option<String>,
}

/// One request, as the pipeline sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestInfo {
    /// Kubernetes' verb: for resource requests get, list, watch, create,
    /// update, patch, delete, deletecollection (`""` for other methods);
    /// for other paths the method in lower case.
    /// Any string when built for an access review (`use`, `escalate`).
    pub verb: Cow<'static, str>,
    pub path: String,
    /// `None` for a non-resource request (health, discovery, OpenAPI,
    /// `/version`, unknown paths).
    pub resource: Option<ResourceInfo>,
}

/// Namespace subresources, addressed as `namespaces/{name}/{sub}`.
const NAMESPACE_SUBRESOURCES: [&str; 2] = ["status", "finalize"];

/// Path segments after the group version: `watch`, `namespaces/{ns}`, and
/// resource/name/subresource at most.
const MAX_SEGMENTS: usize = 6;

/// The subresource that forwards to what the object names (spec 4.2).
pub const PROXY: &str = "proxy";

impl RequestInfo {
    /// Reads a request's method, path and the query parameters that change
    /// its verb (`watch`) or name (`fieldSelector`).
    #[must_use]
    pub fn new(
        method: &Method,
        path: String,
        watch: Option<&str>,
        field_selector: Option<&str>,
    ) -> RequestInfo {
        let Some(mut target) = resource_target(&path) else {
            return RequestInfo {
                verb: Cow::Borrowed(non_resource_verb(method)),
                path,
                resource: None,
            };
        };
        let verb = resource_verb(method, &target, watch);
        if matches!(verb, "list" | "watch") && target.name.is_none() {
            target.selected_name = field_selector.and_then(selected_name);
        }
        RequestInfo {
            verb: Cow::Borrowed(verb),
            path,
            resource: Some(target),
        }
    }

    /// A resource request not made over HTTP (escalation and create
    /// checks): `verb` on `resource` in `group`, in `namespace` (`""`:
    /// cluster scope), on `name` (`""`: none).
    #[must_use]
    pub fn resource_request(
        verb: impl Into<Cow<'static, str>>,
        group: &str,
        resource: &str,
        namespace: &str,
        name: &str,
    ) -> RequestInfo {
        RequestInfo {
            verb: verb.into(),
            path: String::new(),
            resource: Some(ResourceInfo {
                group: group.to_string(),
                version: "v1".into(),
                namespace: (!namespace.is_empty()).then(|| namespace.to_string()),
                resource: resource.to_string(),
                name: (!name.is_empty()).then(|| name.to_string()),
                ..ResourceInfo::default()
            }),
        }
    }

    #[must_use]
    pub fn is_resource_request(&self) -> bool {
        self.resource.is_some()
    }

    /// The namespace as Kubernetes authorizes it: the path's, or the one a
    /// `namespaces/{name}` request addresses; `""` for none.
    #[must_use]
    pub fn namespace(&self) -> &str {
        let Some(r) = &self.resource else { return "" };
        match (&r.namespace, r.resource.as_str()) {
            (Some(ns), _) => ns,
            (None, "namespaces") => r.name.as_deref().unwrap_or_default(),
            (None, _) => "",
        }
    }

    /// The name as Kubernetes authorizes it: the path's, or the one a field
    /// selector pins for list and watch; `""` for none.
    #[must_use]
    pub fn name(&self) -> &str {
        let Some(r) = &self.resource else { return "" };
        r.name
            .as_deref()
            .or(r.selected_name.as_deref())
            .unwrap_or_default()
    }
}

/// The resource a path under `/api/{version}/` or `/apis/{group}/{version}/`
/// addresses; `None` for any other path, including malformed ones below a
/// group version (those are authorized as paths, then not found).
fn resource_target(path: &str) -> Option<ResourceInfo> {
    let mut segs = path.trim_end_matches('/').split('/').skip(1);
    let group = match segs.next()? {
        "api" => "",
        "apis" => segs.next()?,
        _ => return None,
    };
    let version = segs.next()?;
    let mut rest = [""; MAX_SEGMENTS];
    let mut len = 0;
    let mut more = false;
    for s in segs {
        let Some(slot) = rest.get_mut(len) else {
            more = true;
            break;
        };
        *slot = s;
        len += 1;
    }
    let mut rest = &rest[..len];
    if rest.is_empty() {
        return None;
    }
    let mut watch_path = false;
    if rest[0] == "watch" {
        watch_path = true;
        rest = &rest[1..];
    }
    let mut namespace = None;
    let namespaced_collection = rest.len() >= 3
        && rest[0] == "namespaces"
        && !(group.is_empty() && rest.len() == 3 && NAMESPACE_SUBRESOURCES.contains(&rest[2]));
    if namespaced_collection {
        namespace = Some(rest[1].to_string());
        rest = &rest[2..];
    }
    // `{resource}/{name}/proxy/{path...}`: the path past `proxy` is the
    // target's, not part of the request's address.
    if rest.len() > 3 && rest[2] == PROXY {
        rest = &rest[..3];
    } else if more {
        return None;
    }
    if rest.is_empty() || rest.len() > 3 || rest.iter().any(|s| s.is_empty()) {
        return None;
    }
    Some(ResourceInfo {
        group: group.into(),
        version: version.into(),
        namespace,
        resource: rest[0].into(),
        name: rest.get(1).map(|s| (*s).to_string()),
        subresource: rest.get(2).map(|s| (*s).to_string()),
        watch_path,
        selected_name: None,
    })
}

/// `watch` as Kubernetes reads it for the verb: present and not false.
fn watch_param(value: Option<&str>) -> bool {
    value.is_some_and(|v| !(v == "0" || v.eq_ignore_ascii_case("false")))
}

/// The verb of a resource request. A named GET with `watch=true` is served
/// as a watch here, so it is authorized as one (Kubernetes serves it as a
/// get).
fn resource_verb(method: &Method, target: &ResourceInfo, watch: Option<&str>) -> &'static str {
    if target.watch_path {
        return "watch";
    }
    if target.subresource.as_deref() == Some(PROXY) {
        // Kubernetes maps the method alone: `watch` belongs to the target.
        return match *method {
            Method::GET | Method::HEAD => "get",
            Method::POST => "create",
            Method::PUT => "update",
            Method::PATCH => "patch",
            Method::DELETE => "delete",
            _ => "",
        };
    }
    let named = target.name.is_some();
    match *method {
        Method::GET | Method::HEAD if watch_param(watch) => "watch",
        Method::GET | Method::HEAD if named => "get",
        Method::GET | Method::HEAD => "list",
        Method::POST => "create",
        Method::PUT => "update",
        Method::PATCH => "patch",
        Method::DELETE if named => "delete",
        Method::DELETE => "deletecollection",
        _ => "",
    }
}

fn non_resource_verb(method: &Method) -> &'static str {
    match *method {
        Method::GET => "get",
        Method::HEAD => "head",
        Method::POST => "post",
        Method::PUT => "put",
        Method::PATCH => "patch",
        Method::DELETE => "delete",
        Method::OPTIONS => "options",
        Method::CONNECT => "connect",
        Method::TRACE => "trace",
        _ => "",
    }
}

/// The name a `metadata.name=` (or `==`) term pins, if it could be a name
/// in a path.
fn selected_name(selector: &str) -> Option<String> {
    let parsed = FieldSelector::parse(selector).ok()?;
    let name = parsed.requires_exact_match("metadata.name")?;
    let valid = !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '%']);
    valid.then(|| name.to_string())
}

#[cfg(test)]
#[path = "info_tests.rs"]
mod tests;
