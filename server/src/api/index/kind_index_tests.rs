//! A list index over the watch cache (the etcd stack): the cache's watches
//! cannot vouch for their progress, so a list has the cache catch up with
//! the revision it must reach, and the index then answers through it.

use std::time::Duration;

use serde_json::json;

use super::*;
use crate::api::kinds;
use crate::config::{Config, Flags};
use crate::storage::cache::WatchCache;
use crate::storage::embedded::Embedded;
use crate::storage::{Txn, prefix_end};

fn configmaps() -> Arc<KindSpec> {
    let config = Config::from(<Flags as clap::Parser>::parse_from(["cairn-apiserver"]));
    kinds::builtin(&config)
        .lookup("", "v1", "configmaps")
        .expect("kind")
}

fn app() -> Family {
    Family::Label("app".into())
}

async fn put(storage: &dyn Storage, prefix: &[u8], name: &str, app: &str) -> Revision {
    let obj = json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "ns", "labels": {"app": app}},
    });
    let mut key = prefix.to_vec();
    key.extend_from_slice(format!("ns/{name}").as_bytes());
    let value = serde_json::to_vec(&obj).expect("json");
    storage
        .commit(Txn::new().put(key, value))
        .await
        .expect("commit")
        .revision
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_index_over_the_cache_answers_once_the_cache_has_caught_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    let backend: Arc<dyn Storage> = Arc::new(Embedded::open(dir.path()).expect("open"));
    let cache = WatchCache::start(backend, KeyRange::prefix(b"/registry/"));
    assert!(cache.loaded(Duration::from_secs(30)).await, "loaded");
    let storage: Arc<dyn Storage> = cache;
    let kind = configmaps();
    let prefix = keys::collection_prefix(&kind, None);
    put(storage.as_ref(), &prefix, "a", "web").await;
    let index = KindIndex::build(&storage, &kind, &app())
        .await
        .expect("built");
    put(storage.as_ref(), &prefix, "b", "web").await;
    let written = put(storage.as_ref(), &prefix, "c", "db").await;

    let synced = index.sync().expect("following");
    assert!(!synced.vouched, "a cache's watch cannot vouch");
    assert!(
        storage.catch_up(written).await,
        "the cache reaches the write"
    );
    let synced = index.sync().expect("following");
    assert!(synced.through >= written, "{synced:?} covers {written:?}");
    let web = (app(), vec!["web".into()]);
    let keys = index
        .candidates(&prefix, &prefix_end(&prefix), synced.through, &web)
        .expect("the index answers");
    let names: Vec<String> = keys
        .iter()
        .map(|k| String::from_utf8_lossy(&k[prefix.len()..]).into_owned())
        .collect();
    assert_eq!(names, ["ns/a", "ns/b"], "only the keys filed under app=web");
}
