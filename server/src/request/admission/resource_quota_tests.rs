//! ResourceQuota admission inside the store's writes: usage published in
//! the write's own commit, refusals in kube's words, dry runs counting
//! nothing.

use serde_json::{Value, json};

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::store::WriteOptions;
use crate::request::admission::fixture::Fixture;

async fn fixture_with_quota(hard: Value) -> Fixture {
    let f = Fixture::with(Vec::new(), Vec::new());
    f.namespace("team").await;
    f.create(
        "resourcequotas",
        Some("team"),
        json!({"metadata": {"name": "q"}, "spec": {"hard": hard}}),
        &WriteOptions::default(),
    )
    .await
    .expect("quota created");
    f
}

async fn used(f: &Fixture) -> Value {
    let kind = f.kind("resourcequotas");
    let quota = f
        .store
        .get(&kind, Some("team"), "q", None)
        .await
        .expect("quota");
    quota["status"]["used"].clone()
}

fn refusal(result: Result<Value, ApiError>) -> String {
    match result {
        Err(e @ ApiError::Forbidden { .. }) => e.to_string(),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn creates_count_in_their_commit_and_stop_at_the_limit() {
    let f = fixture_with_quota(json!({"configmaps": "2", "count/secrets": "5"})).await;
    let opts = WriteOptions::default();
    f.create("configmaps", Some("team"), Fixture::config_map("a"), &opts)
        .await
        .expect("first map");
    assert_eq!(
        used(&f).await,
        json!({"configmaps": "1", "count/secrets": "0"})
    );
    let dry = WriteOptions {
        dry_run: true,
        ..WriteOptions::default()
    };
    f.create("configmaps", Some("team"), Fixture::config_map("dry"), &dry)
        .await
        .expect("a dry run is admitted");
    assert_eq!(
        used(&f).await["configmaps"],
        "1",
        "a dry run counts nothing"
    );
    f.create("configmaps", Some("team"), Fixture::config_map("b"), &opts)
        .await
        .expect("second map");
    let third = f
        .create("configmaps", Some("team"), Fixture::config_map("c"), &opts)
        .await;
    assert_eq!(
        refusal(third),
        "configmaps \"c\" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=2, limited: configmaps=2"
    );
    assert_eq!(used(&f).await["configmaps"], "2");
    f.create("configmaps", Some("other"), Fixture::config_map("c"), &opts)
        .await
        .expect_err("no namespace 'other'");
}

#[tokio::test]
async fn pods_state_what_quota_limits_and_fit_under_it() {
    let f =
        fixture_with_quota(json!({"requests.cpu": "1", "limits.memory": "1Gi", "pods": "5"})).await;
    let opts = WriteOptions::default();
    f.create(
        "serviceaccounts",
        Some("team"),
        json!({"metadata": {"name": "default"}}),
        &opts,
    )
    .await
    .expect("default account");
    let pod = |name: &str, resources: Value| {
        json!({"metadata": {"name": name}, "spec": {"automountServiceAccountToken": false,
            "containers": [{"name": "app", "image": "nginx", "resources": resources}]}})
    };
    let bare = f
        .create("pods", Some("team"), pod("bare", json!({})), &opts)
        .await;
    assert_eq!(
        refusal(bare),
        "pods \"bare\" is forbidden: failed quota: q: must specify limits.memory for: app; requests.cpu for: app"
    );
    let sized = json!({"requests": {"cpu": "600m"}, "limits": {"memory": "512Mi"}});
    f.create("pods", Some("team"), pod("one", sized.clone()), &opts)
        .await
        .expect("first pod fits");
    assert_eq!(
        used(&f).await,
        json!({"limits.memory": "512Mi", "pods": "1", "requests.cpu": "600m"})
    );
    let two = f
        .create("pods", Some("team"), pod("two", sized), &opts)
        .await;
    assert_eq!(
        refusal(two),
        "pods \"two\" is forbidden: exceeded quota: q, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1"
    );
}

#[tokio::test]
async fn claims_may_grow_only_within_quota() {
    let f = fixture_with_quota(json!({"requests.storage": "3Gi"})).await;
    let opts = WriteOptions::default();
    let claim = |size: &str| {
        json!({"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": size}}}})
    };
    let created = f
        .create("persistentvolumeclaims", Some("team"), claim("1Gi"), &opts)
        .await
        .expect("claim fits");
    assert_eq!(used(&f).await, json!({"requests.storage": "1Gi"}));
    let kind = f.kind("persistentvolumeclaims");
    let mut bigger = created.clone();
    bigger["spec"]["resources"]["requests"]["storage"] = json!("5Gi");
    let grown = f
        .store
        .update(
            &kind,
            Some("team"),
            "data",
            Decoded {
                value: bigger,
                duplicates: Vec::new(),
            },
            &opts,
        )
        .await
        .map(|o| o.object);
    assert_eq!(
        refusal(grown),
        "persistentvolumeclaims \"data\" is forbidden: exceeded quota: q, requested: requests.storage=4Gi, used: requests.storage=1Gi, limited: requests.storage=3Gi"
    );
}
