//! Which requests are long-running: kube-apiserver's check counts the
//! verbs `watch` and `proxy` and the subresources `attach`, `exec`,
//! `proxy`, `log` and `portforward`. They hold a connection for as long as
//! the client wants, so neither the in-flight limits nor the request
//! timeout apply to them.

use crate::request::info::RequestInfo;

const LONG_RUNNING_VERBS: [&str; 2] = ["watch", "proxy"];
const LONG_RUNNING_SUBRESOURCES: [&str; 5] = ["attach", "exec", "proxy", "log", "portforward"];

#[must_use]
pub fn is_long_running(info: &RequestInfo) -> bool {
    if LONG_RUNNING_VERBS.contains(&info.verb.as_ref()) {
        return true;
    }
    info.resource
        .as_ref()
        .and_then(|r| r.subresource.as_deref())
        .is_some_and(|s| LONG_RUNNING_SUBRESOURCES.contains(&s))
}

#[cfg(test)]
mod tests {
    use http::Method;

    use super::*;

    fn long_running(method: &Method, path: &str, watch: Option<&str>) -> bool {
        is_long_running(&RequestInfo::new(method, path.into(), watch, None))
    }

    #[test]
    fn watches_and_streaming_subresources_are_long_running() {
        assert!(long_running(&Method::GET, "/api/v1/pods", Some("true")));
        assert!(long_running(
            &Method::GET,
            "/api/v1/watch/namespaces/a/pods",
            None
        ));
        assert!(long_running(
            &Method::GET,
            "/api/v1/namespaces/a/pods/p/log",
            None
        ));
        assert!(long_running(
            &Method::POST,
            "/api/v1/namespaces/a/pods/p/exec",
            None
        ));
        assert!(long_running(
            &Method::GET,
            "/api/v1/namespaces/a/pods/p/attach",
            None
        ));
        assert!(!long_running(&Method::GET, "/api/v1/pods", None));
        assert!(!long_running(
            &Method::PUT,
            "/api/v1/namespaces/a/pods/p/status",
            None
        ));
        assert!(!long_running(&Method::GET, "/healthz", None));
    }
}
