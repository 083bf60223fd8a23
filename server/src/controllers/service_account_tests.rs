//! The `default` ServiceAccount appears in every namespace, comes back
//! when deleted, and is not made in a terminating namespace.

use std::sync::Arc;

use serde_json::json;

use super::run;
use crate::request::authn::service_account::fixture::{Fixture, eventually, start};

async fn has_default(f: &Fixture, ns: &str) -> bool {
    let kind = f
        .state
        .store
        .registry
        .lookup("", "v1", "serviceaccounts")
        .expect("kind");
    f.state
        .store
        .get(&kind, Some(ns), "default", None)
        .await
        .is_ok()
}

#[tokio::test]
async fn every_active_namespace_gets_a_default_service_account_back_when_deleted() {
    let f = start(&[]).await;
    f.create("namespaces", None, json!({"metadata": {"name": "team"}}))
        .await;
    f.create("namespaces", None, json!({"metadata": {"name": "old"}}))
        .await;
    tokio::spawn(run(Arc::clone(&f.state)));
    eventually("default service accounts in team and old", || async {
        has_default(&f, "team").await && has_default(&f, "old").await
    })
    .await;
    // A namespace being deleted (it keeps its finalizer: no namespace
    // controller runs here) loses its service account for good.
    let namespaces = f
        .state
        .store
        .registry
        .lookup("", "v1", "namespaces")
        .expect("kind");
    f.state
        .store
        .delete(&namespaces, None, "old", &Default::default())
        .await
        .expect("terminating");
    f.delete("serviceaccounts", Some("old"), "default").await;
    // Once team's deletion is seen and repaired, old's (earlier) deletion
    // was seen too, by the same informer.
    f.delete("serviceaccounts", Some("team"), "default").await;
    eventually("team's default service account is back", || {
        has_default(&f, "team")
    })
    .await;
    assert!(!has_default(&f, "old").await);

    f.create("namespaces", None, json!({"metadata": {"name": "later"}}))
        .await;
    eventually("a new namespace gets one", || has_default(&f, "later")).await;
}
