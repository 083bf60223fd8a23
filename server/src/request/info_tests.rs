//! RequestInfo: targets and verbs of every path shape and method.

use http::Method;

use super::*;

fn info(method: Method, path: &str) -> RequestInfo {
    RequestInfo::new(&method, path.to_string(), None, None)
}

fn target(path: &str) -> ResourceInfo {
    info(Method::GET, path)
        .resource
        .unwrap_or_else(|| panic!("{path} is not a resource request"))
}

fn verb(method: Method, path: &str, watch: Option<&str>) -> String {
    RequestInfo::new(&method, path.to_string(), watch, None)
        .verb
        .into_owned()
}

#[test]
fn resource_paths_name_their_target() {
    let r = target("/api/v1/namespaces/default/events/e1");
    assert_eq!(
        (
            r.group.as_str(),
            r.version.as_str(),
            r.namespace.as_deref(),
            r.resource.as_str(),
            r.name.as_deref(),
            r.subresource.as_deref()
        ),
        ("", "v1", Some("default"), "events", Some("e1"), None)
    );
    let r = target("/api/v1/events");
    assert_eq!(
        (r.namespace, r.resource.as_str(), r.name),
        (None, "events", None)
    );
    let r = target("/api/v1/namespaces/kube-system");
    assert_eq!(
        (r.namespace, r.resource.as_str(), r.name.as_deref()),
        (None, "namespaces", Some("kube-system"))
    );
    let r = target("/api/v1/namespaces/foo/finalize");
    assert_eq!(
        (
            r.resource.as_str(),
            r.name.as_deref(),
            r.subresource.as_deref()
        ),
        ("namespaces", Some("foo"), Some("finalize"))
    );
    let r = target("/api/v1/namespaces/ns/pods/p/status");
    assert_eq!(
        (r.namespace.as_deref(), r.subresource.as_deref()),
        (Some("ns"), Some("status"))
    );
    let r = target("/api/v1/watch/namespaces/ns/events/x");
    assert!(r.watch_path && r.name.as_deref() == Some("x"));
    let r = target("/apis/events.k8s.io/v1/namespaces/ns/events/");
    assert_eq!(
        (r.group.as_str(), r.version.as_str(), r.resource.as_str()),
        ("events.k8s.io", "v1", "events")
    );
}

#[test]
fn other_paths_are_non_resource_requests() {
    for path in [
        "/",
        "/healthz",
        "/readyz/poststarthook/bootstrap",
        "/version",
        "/api",
        "/api/v1",
        "/apis",
        "/apis/events.k8s.io",
        "/apis/events.k8s.io/v1",
        "/openapi/v3/api/v1",
        "/metrics",
        "/api/v1/watch",
        "/api/v1/a/b/c/d",
        "/api/v1/namespaces/ns//e",
        "/api/v1/namespaces/ns/pods/p/exec/extra/more",
    ] {
        let i = info(Method::GET, path);
        assert!(!i.is_resource_request(), "{path}");
        assert_eq!(
            (i.verb.as_ref(), i.path.as_str(), i.namespace(), i.name()),
            ("get", path, "", "")
        );
    }
}

#[test]
fn non_resource_verbs_are_the_method_in_lower_case() {
    for (method, want) in [
        (Method::GET, "get"),
        (Method::HEAD, "head"),
        (Method::POST, "post"),
        (Method::PUT, "put"),
        (Method::PATCH, "patch"),
        (Method::DELETE, "delete"),
        (Method::OPTIONS, "options"),
    ] {
        assert_eq!(verb(method, "/healthz", None), want);
    }
}

#[test]
fn resource_verbs_follow_method_name_and_watch() {
    let one = "/api/v1/namespaces/ns/events/e";
    let all = "/api/v1/namespaces/ns/events";
    for (method, path, watch, want) in [
        (Method::GET, one, None, "get"),
        (Method::HEAD, one, None, "get"),
        (Method::GET, all, None, "list"),
        (Method::GET, "/api/v1/events", None, "list"),
        (Method::GET, all, Some("true"), "watch"),
        (Method::GET, all, Some(""), "watch"),
        (Method::GET, all, Some("1"), "watch"),
        (Method::GET, all, Some("false"), "list"),
        (Method::GET, all, Some("False"), "list"),
        (Method::GET, all, Some("0"), "list"),
        (Method::GET, one, Some("true"), "watch"),
        (
            Method::GET,
            "/api/v1/watch/namespaces/ns/events",
            None,
            "watch",
        ),
        (
            Method::GET,
            "/api/v1/watch/namespaces/ns/events/e",
            None,
            "watch",
        ),
        (Method::GET, "/api/v1/watch/events", Some("false"), "watch"),
        (Method::POST, all, None, "create"),
        (
            Method::POST,
            "/api/v1/namespaces/ns/pods/p/eviction",
            None,
            "create",
        ),
        (Method::PUT, one, None, "update"),
        (
            Method::PUT,
            "/api/v1/namespaces/ns/finalize",
            None,
            "update",
        ),
        (Method::PATCH, one, None, "patch"),
        (
            Method::PATCH,
            "/api/v1/namespaces/ns/pods/p/status",
            None,
            "patch",
        ),
        (Method::DELETE, one, None, "delete"),
        (Method::DELETE, all, None, "deletecollection"),
        (Method::DELETE, "/api/v1/pods", None, "deletecollection"),
        (Method::OPTIONS, one, None, ""),
    ] {
        assert_eq!(
            verb(method.clone(), path, watch),
            want,
            "{method} {path} {watch:?}"
        );
    }
}

#[test]
fn namespace_requests_are_scoped_to_their_namespace() {
    for path in [
        "/api/v1/namespaces/team",
        "/api/v1/namespaces/team/status",
        "/api/v1/namespaces/team/finalize",
        "/api/v1/watch/namespaces/team",
        "/api/v1/namespaces/team/configmaps/c",
    ] {
        assert_eq!(info(Method::GET, path).namespace(), "team", "{path}");
    }
    assert_eq!(info(Method::GET, "/api/v1/namespaces").namespace(), "");
    assert_eq!(info(Method::GET, "/api/v1/nodes/n1").namespace(), "");
}

#[test]
fn a_field_selector_on_the_name_names_a_list_or_watch() {
    let get = |path: &str, watch: Option<&str>, selector: &str| {
        RequestInfo::new(&Method::GET, path.to_string(), watch, Some(selector))
    };
    let all = "/api/v1/namespaces/ns/pods";
    let i = get(all, None, "metadata.name=web");
    assert_eq!((i.verb.as_ref(), i.name()), ("list", "web"));
    assert_eq!(i.resource.as_ref().and_then(|r| r.name.as_deref()), None);
    assert_eq!(
        get(all, Some("true"), "metadata.name==web,spec.nodeName=n").name(),
        "web"
    );
    assert_eq!(get(all, None, "metadata.name!=web").name(), "");
    assert_eq!(get(all, None, "metadata.name=a/b").name(), "");
    assert_eq!(get(all, None, "metadata.name=..").name(), "");
    assert_eq!(get(all, None, "spec.nodeName=n").name(), "");
    assert_eq!(get(all, None, "not a selector").name(), "");
    let named = get("/api/v1/namespaces/ns/pods/p", None, "metadata.name=other");
    assert_eq!(named.name(), "p");
    let delete = RequestInfo::new(&Method::DELETE, all.into(), None, Some("metadata.name=web"));
    assert_eq!(
        (delete.verb.as_ref(), delete.name()),
        ("deletecollection", "")
    );
}

#[test]
fn proxy_paths_stop_at_the_proxy_subresource() {
    let t = target("/api/v1/namespaces/default/services/web:80/proxy/a/b/c/d");
    assert_eq!(t.resource, "services");
    assert_eq!(t.name.as_deref(), Some("web:80"));
    assert_eq!(t.subresource.as_deref(), Some("proxy"));
    assert_eq!(t.namespace.as_deref(), Some("default"));
    let node = target("/api/v1/nodes/n1/proxy/metrics/cadvisor/more/and/more");
    assert_eq!(node.name.as_deref(), Some("n1"));
    assert_eq!(node.subresource.as_deref(), Some("proxy"));
    let other = info(Method::GET, "/api/v1/namespaces/a/pods/p/log/x/y/z/w");
    assert!(other.resource.is_none());
}

#[test]
fn proxy_verbs_are_the_method_alone() {
    let path = "/api/v1/namespaces/a/pods/p/proxy/x";
    assert_eq!(verb(Method::GET, path, Some("true")), "get");
    assert_eq!(verb(Method::HEAD, path, None), "get");
    assert_eq!(verb(Method::POST, path, None), "create");
    assert_eq!(verb(Method::PUT, path, None), "update");
    assert_eq!(verb(Method::PATCH, path, None), "patch");
    assert_eq!(verb(Method::DELETE, path, None), "delete");
    assert_eq!(verb(Method::OPTIONS, path, None), "");
}
