//! The record of requested deprecated APIs through a whole in-process
//! server: a request to a deprecated version is recorded with its labels,
//! once however often it is made; requests to other versions are not.

use std::sync::{Arc, Mutex};

use crate::api::deprecation::RequestedApi;
use crate::api::registry::Registry;
use crate::http::test_server;
use crate::request::Pipeline;
use crate::request::authn::setup;

const REVIEW: &str = r#"{"apiVersion":"authentication.k8s.io/VERSION","kind":"SelfSubjectReview"}"#;

#[tokio::test]
async fn requests_to_deprecated_versions_are_recorded_once_each() {
    let registry: Arc<Mutex<Option<Arc<Registry>>>> = Arc::default();
    let kept = Arc::clone(&registry);
    let server = test_server::start(
        &[
            "--api-domain",
            "k8s.io",
            "--runtime-config",
            "authentication.k8s.io/v1beta1=true",
        ],
        move |r| {
            setup::register_reviews(
                r,
                "k8s.io",
                setup::cached_tokens(None, Vec::new()),
                Vec::new(),
            );
            *kept.lock().expect("lock") = Some(Arc::clone(r));
            Pipeline::insecure_port()
        },
    )
    .await;
    let registry = registry.lock().expect("lock").clone().expect("registry");
    let path = |v: &str| format!("/apis/authentication.k8s.io/{v}/selfsubjectreviews");
    let json = ["Content-Type: application/json"];
    let (code, _) = server
        .exchange("POST", &path("v1"), &json, &REVIEW.replace("VERSION", "v1"))
        .await;
    assert_eq!(code, 201);
    assert!(registry.requested_deprecated.snapshot().is_empty());
    for _ in 0..2 {
        let body = REVIEW.replace("VERSION", "v1beta1");
        let (code, _) = server
            .exchange("POST", &path("v1beta1"), &json, &body)
            .await;
        assert_eq!(code, 201);
    }
    assert_eq!(
        registry.requested_deprecated.snapshot(),
        [RequestedApi {
            group: "authentication.k8s.io".into(),
            version: "v1beta1".into(),
            resource: "selfsubjectreviews".into(),
            subresource: String::new(),
            removed_release: "1.33".into(),
        }]
    );
    let _ = server.stop.send(true);
}
