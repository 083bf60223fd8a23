//! Every request passes the pipeline before anything answers it: a server
//! whose authenticator knows one token and whose authorizer allows one
//! path refuses health, discovery, OpenAPI, `/version` and resources alike.

use std::sync::{Arc, Mutex};

use super::*;
use crate::http::test_server::{self, TestServer};
use crate::request::Pipeline;
use crate::request::authn::{Authenticator, Authenticators};
use crate::request::authz::{self, Authorizer, Authorizers, Decision};
use crate::request::user::UserInfo;
use crate::util::maybe_async::MaybeAsync;

/// `Authorization: Bearer good` is jane; other tokens are refused.
struct OneToken;

impl Authenticator for OneToken {
    fn authenticate<'a>(
        &'a self,
        head: &'a RequestHead<'a>,
    ) -> MaybeAsync<'a, Result<Option<Arc<UserInfo>>, ApiError>> {
        let token = head
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        MaybeAsync::Ready(match token {
            None => Ok(None),
            Some("good") => Ok(Some(Arc::new(UserInfo::new("jane", &["devs"])))),
            Some(_) => Err(ApiError::BadRequest("unknown token".into())),
        })
    }
}

/// Allows `get /livez` only; records every verb and path it is asked.
struct LivezOnly(Arc<Mutex<Vec<String>>>);

impl Authorizer for LivezOnly {
    fn authorize<'a>(
        &'a self,
        attrs: &'a authz::Attributes<'a>,
    ) -> MaybeAsync<'a, Result<Decision, ApiError>> {
        let info = attrs.info;
        self.0.lock().expect("lock").push(format!(
            "{} {} {}",
            info.verb,
            info.path,
            info.is_resource_request()
        ));
        MaybeAsync::Ready(Ok(match (info.verb.as_ref(), info.path.as_str()) {
            ("get", "/livez") => Decision::Allow,
            _ => Decision::NoOpinion(String::new()),
        }))
    }
}

type Server = TestServer;

async fn start(pipeline: Pipeline) -> Server {
    test_server::start(&[], |_| pipeline).await
}

/// Status code and body of one GET.
async fn get(server: &Server, path: &str, headers: &[&str]) -> (u16, String) {
    server.exchange("GET", path, headers, "").await
}

fn message(body: &str) -> String {
    let status: serde_json::Value = serde_json::from_str(body).expect("a Status");
    status["message"].as_str().unwrap_or_default().to_string()
}

#[tokio::test]
async fn health_discovery_and_resources_pass_a_custom_pipeline() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let server = start(Pipeline {
        authenticators: Authenticators::new(vec![Arc::new(OneToken)], None),
        authorizers: Arc::new(Authorizers::new(vec![Arc::new(LivezOnly(Arc::clone(
            &asked,
        )))])),
    })
    .await;
    let jane = ["Authorization: Bearer good"];

    for path in ["/healthz", "/livez", "/api", "/version"] {
        let (code, body) = get(&server, path, &[]).await;
        assert_eq!(
            (code, message(&body).as_str()),
            (401, "Unauthorized"),
            "{path}"
        );
        let (code, _) = get(&server, path, &["Authorization: Bearer forged"]).await;
        assert_eq!(code, 401, "{path}");
    }
    assert!(
        asked.lock().expect("lock").is_empty(),
        "authorization follows authentication"
    );

    let (code, body) = get(&server, "/livez", &jane).await;
    assert_eq!((code, body.as_str()), (200, "ok"));
    for path in [
        "/healthz",
        "/readyz?verbose",
        "/api",
        "/apis",
        "/api/v1",
        "/version",
        "/openapi/v2",
        "/openapi/v3",
        "/metrics",
    ] {
        let (code, body) = get(&server, path, &jane).await;
        let bare = path.split('?').next().unwrap_or_default();
        assert_eq!(
            (code, message(&body)),
            (
                403,
                format!("forbidden: User \"jane\" cannot get path \"{bare}\"")
            ),
            "{path}"
        );
    }
    let aggregated = "Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
    let (code, _) = get(&server, "/apis", &[jane[0], aggregated]).await;
    assert_eq!(code, 403);
    let (code, body) = get(
        &server,
        "/api/v1/namespaces/default/configmaps?watch=1",
        &jane,
    )
    .await;
    assert_eq!(
        (code, message(&body).as_str()),
        (
            403,
            "configmaps is forbidden: User \"jane\" cannot watch resource \"configmaps\" in API group \"\" in the namespace \"default\""
        )
    );
    let asked = asked.lock().expect("lock").clone();
    assert_eq!(asked[0], "get /livez false");
    assert_eq!(asked[1], "get /healthz false");
    assert_eq!(
        asked.last().map(String::as_str),
        Some("watch /api/v1/namespaces/default/configmaps true")
    );
    let _ = server.stop.send(true);
}

#[tokio::test]
async fn the_insecure_port_pipeline_serves_everything() {
    let server = start(Pipeline::insecure_port()).await;
    for (path, code) in [
        ("/healthz", 200),
        ("/version", 200),
        ("/api", 200),
        ("/nope", 404),
    ] {
        assert_eq!(get(&server, path, &[]).await.0, code, "{path}");
    }
    let (code, body) = get(&server, "/api/v1/namespaces", &[]).await;
    assert_eq!((code, body.contains("\"NamespaceList\"")), (200, true));
    let _ = server.stop.send(true);
}
