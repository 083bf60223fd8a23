//! kube-rs (the `kube` crate) with the admin kubeconfig the server wrote:
//! the client reads it as any Rust controller would, verifies the server's
//! certificate against the cluster CA, and lists, creates, applies and
//! watches over HTTPS.

use cairn_tests::Server;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};
use serde_json::json;

#[tokio::test]
async fn kube_rs_lists_creates_applies_and_watches_with_the_admin_kubeconfig() {
    let s = Server::start_secure(&[]);
    let kubeconfig = Kubeconfig::read_from(s.admin_kubeconfig()).expect("kubeconfig");
    let config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .expect("config");
    let client = Client::try_from(config).expect("client");

    let namespaces: Api<Namespace> = Api::all(client.clone());
    let names: Vec<String> = namespaces
        .list(&ListParams::default())
        .await
        .expect("list namespaces")
        .items
        .into_iter()
        .filter_map(|n| n.metadata.name)
        .collect();
    assert!(names.contains(&"default".to_string()), "{names:?}");

    let config_maps: Api<ConfigMap> = Api::namespaced(client, "default");
    let listed = config_maps
        .list(&ListParams::default())
        .await
        .expect("list config maps");
    let from = listed
        .metadata
        .resource_version
        .expect("list resourceVersion");
    let mut events = config_maps
        .watch(&WatchParams::default().timeout(10), &from)
        .await
        .expect("watch")
        .boxed();

    let created: ConfigMap = serde_json::from_value(json!({
        "metadata": {"name": "from-kube-rs"},
        "data": {"a": "1"},
    }))
    .expect("config map");
    config_maps
        .create(&PostParams::default(), &created)
        .await
        .expect("create");
    let applied = config_maps
        .patch(
            "from-kube-rs",
            &PatchParams::apply("kube-rs-test"),
            &Patch::Apply(json!({
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "from-kube-rs"},
                "data": {"b": "2"},
            })),
        )
        .await
        .expect("server-side apply");
    let data = applied.data.expect("data");
    assert_eq!(data.get("b").map(String::as_str), Some("2"), "{data:?}");

    let mut seen = Vec::new();
    while let Some(event) = events.try_next().await.expect("watch event") {
        match event {
            WatchEvent::Added(cm) => seen.push(("ADDED", cm.metadata.name)),
            WatchEvent::Modified(cm) => seen.push(("MODIFIED", cm.metadata.name)),
            _ => {}
        }
        if seen.len() == 2 {
            break;
        }
    }
    let name = Some("from-kube-rs".to_string());
    assert_eq!(seen, [("ADDED", name.clone()), ("MODIFIED", name)]);
}
