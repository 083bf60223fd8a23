//! How kube reports a request in its metrics' labels: the verb (`LIST`,
//! `WATCH`, `APPLY`, `POST` for creates, `PUT` for updates, `DELETE` for
//! deletes of one or many), the scope and the dry-run value.

use crate::request::info::RequestInfo;

/// The apply patch media type, which kube reports as verb `APPLY`.
const APPLY_PATCH: &str = "application/apply-patch+yaml";

/// Subresources whose requests kube reports with verb `CONNECT`, whatever
/// the method.
const CONNECT_SUBRESOURCES: [&str; 5] = ["log", "exec", "portforward", "attach", "proxy"];

/// Whether kube reports `info`'s request with verb `CONNECT`.
#[must_use]
pub fn is_connect(info: &RequestInfo) -> bool {
    info.resource
        .as_ref()
        .and_then(|r| r.subresource.as_deref())
        .is_some_and(|s| CONNECT_SUBRESOURCES.contains(&s))
}

/// kube's reported verb for a resource request with `info.verb` (the
/// authorization verb) and the request's Content-Type.
#[must_use]
pub fn reported_verb(info_verb: &str, content_type: Option<&str>) -> &'static str {
    match info_verb {
        "get" => "GET",
        "list" => "LIST",
        "watch" => "WATCH",
        "create" => "POST",
        "update" => "PUT",
        "patch" if content_type.is_some_and(|c| c.trim().starts_with(APPLY_PATCH)) => "APPLY",
        "patch" => "PATCH",
        "delete" | "deletecollection" => "DELETE",
        _ => "other",
    }
}

/// Whether kube's in-flight limits count a request as mutating.
#[must_use]
pub fn is_mutating(reported_verb: &str) -> bool {
    !matches!(reported_verb, "GET" | "LIST" | "WATCH")
}

/// `resource` for a named target or a create, `namespace` within one,
/// `cluster` otherwise.
#[must_use]
pub fn scope(info: &RequestInfo) -> &'static str {
    if !info.name().is_empty() || info.verb == "create" {
        "resource"
    } else if !info.namespace().is_empty() {
        "namespace"
    } else {
        "cluster"
    }
}

/// `All` when every `dryRun` value is `All` (the one valid value), else
/// `""`; kube reports the cleaned values sorted and joined, which for
/// accepted requests is `All` or nothing.
#[must_use]
pub fn dry_run<'a>(mut values: impl Iterator<Item = &'a str>) -> &'static str {
    if values.any(|v| v == "All") {
        "All"
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use http::Method;

    use super::*;

    fn info(method: &Method, path: &str, watch: Option<&str>) -> RequestInfo {
        RequestInfo::new(method, path.into(), watch, None)
    }

    #[test]
    fn verbs_as_kube_reports_them() {
        let cases = [
            (
                Method::GET,
                "/api/v1/namespaces/d/pods/p",
                None,
                None,
                "GET",
            ),
            (Method::GET, "/api/v1/namespaces/d/pods", None, None, "LIST"),
            (Method::GET, "/api/v1/pods", Some("true"), None, "WATCH"),
            (Method::GET, "/api/v1/watch/pods", None, None, "WATCH"),
            (
                Method::POST,
                "/api/v1/namespaces/d/pods",
                None,
                None,
                "POST",
            ),
            (
                Method::PUT,
                "/api/v1/namespaces/d/pods/p",
                None,
                None,
                "PUT",
            ),
            (
                Method::PATCH,
                "/api/v1/namespaces/d/pods/p",
                None,
                Some("application/merge-patch+json"),
                "PATCH",
            ),
            (
                Method::PATCH,
                "/api/v1/namespaces/d/pods/p",
                None,
                Some("application/apply-patch+yaml"),
                "APPLY",
            ),
            (
                Method::DELETE,
                "/api/v1/namespaces/d/pods/p",
                None,
                None,
                "DELETE",
            ),
            (
                Method::DELETE,
                "/api/v1/namespaces/d/pods",
                None,
                None,
                "DELETE",
            ),
            (
                Method::OPTIONS,
                "/api/v1/namespaces/d/pods",
                None,
                None,
                "other",
            ),
        ];
        for (method, path, watch, content_type, want) in cases {
            let i = info(&method, path, watch);
            assert_eq!(
                reported_verb(&i.verb, content_type),
                want,
                "{method} {path}"
            );
        }
    }

    #[test]
    fn scopes() {
        assert_eq!(
            scope(&info(&Method::GET, "/api/v1/namespaces/d/pods/p", None)),
            "resource"
        );
        assert_eq!(
            scope(&info(&Method::POST, "/api/v1/namespaces/d/pods", None)),
            "resource"
        );
        assert_eq!(
            scope(&info(&Method::GET, "/api/v1/namespaces/d/pods", None)),
            "namespace"
        );
        assert_eq!(scope(&info(&Method::GET, "/api/v1/pods", None)), "cluster");
        assert_eq!(
            scope(&info(&Method::GET, "/api/v1/namespaces/d", None)),
            "resource"
        );
    }

    #[test]
    fn dry_run_is_all_or_nothing() {
        assert_eq!(dry_run(["All"].into_iter()), "All");
        assert_eq!(dry_run(std::iter::empty()), "");
    }
}
