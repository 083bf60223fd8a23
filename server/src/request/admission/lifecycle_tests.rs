//! NamespaceLifecycle as the store runs it: 404 into a missing namespace,
//! 403 into a terminating one, immortal namespaces, and the guard that
//! keeps a create from landing after its namespace began terminating.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use super::*;
use crate::api::store::{DeleteOptions, Deleted, WriteOptions};
use crate::request::admission::fixture::Fixture;
use crate::request::admission::{Attributes, Operation, Pins, ValidatingAdmission};
use crate::request::user::UserInfo;
use crate::storage::Txn;

fn server_fixture() -> Fixture {
    Fixture::with(Vec::new(), Vec::new())
}

async fn terminate(f: &Fixture, ns: &str) {
    let deleted = f
        .store
        .delete(&f.kind("namespaces"), None, ns, &DeleteOptions::default())
        .await
        .expect("delete");
    assert!(
        matches!(deleted, Deleted::Pending(_)),
        "terminating, not gone"
    );
}

#[tokio::test]
async fn creates_into_a_missing_namespace_are_not_found() {
    let f = server_fixture();
    let opts = WriteOptions::default();
    let err = f
        .create(
            "configmaps",
            Some("nowhere"),
            Fixture::config_map("c"),
            &opts,
        )
        .await
        .expect_err("no namespace");
    assert_eq!(err.to_string(), "namespaces \"nowhere\" not found");
    assert_eq!(
        err.status()["details"],
        json!({"name": "nowhere", "kind": "namespaces"})
    );
    // Cluster-scoped kinds have no namespace to look for.
    f.create("nodes", None, json!({"metadata": {"name": "n1"}}), &opts)
        .await
        .expect("a node");
}

#[tokio::test]
async fn creates_into_a_terminating_namespace_are_forbidden() {
    let f = server_fixture();
    f.namespace("team").await;
    let opts = WriteOptions::default();
    f.create(
        "configmaps",
        Some("team"),
        Fixture::config_map("before"),
        &opts,
    )
    .await
    .expect("created while active");
    terminate(&f, "team").await;
    for dry_run in [false, true] {
        let opts = WriteOptions {
            dry_run,
            ..WriteOptions::default()
        };
        let err = f
            .create(
                "configmaps",
                Some("team"),
                Fixture::config_map("after"),
                &opts,
            )
            .await
            .expect_err("terminating");
        assert_eq!(err.code(), 403);
        assert_eq!(
            err.to_string(),
            "configmaps \"after\" is forbidden: unable to create new content in namespace team because it is being terminated"
        );
        assert_eq!(
            err.status()["details"],
            json!({"name": "after", "kind": "configmaps", "causes": [{
                "reason": "NamespaceTerminating",
                "message": "namespace team is being terminated",
                "field": "metadata.namespace"
            }]})
        );
    }
    // What is there may still change and go.
    let cm = f.kind("configmaps");
    let gone = f
        .store
        .delete(&cm, Some("team"), "before", &DeleteOptions::default())
        .await
        .expect("content deleted");
    assert!(matches!(gone, Deleted::Removed(_)));
}

#[tokio::test]
async fn immortal_namespaces_are_never_deleted() {
    let f = server_fixture();
    crate::controllers::namespace::bootstrap(&f.store)
        .await
        .expect("bootstrap");
    let namespaces = f.kind("namespaces");
    let jane = DeleteOptions {
        user: Some(Arc::new(UserInfo::new("jane", &[]))),
        ..DeleteOptions::default()
    };
    let dry = DeleteOptions {
        dry_run: true,
        ..DeleteOptions::default()
    };
    // In-process deletes (the garbage collector's) are admitted too.
    for name in ["default", "kube-system", "kube-public"] {
        for opts in [&jane, &dry, &DeleteOptions::default()] {
            let err = f
                .store
                .delete(&namespaces, None, name, opts)
                .await
                .expect_err("immortal");
            assert_eq!(
                err.to_string(),
                format!("namespaces \"{name}\" is forbidden: this namespace may not be deleted")
            );
            assert_eq!(
                err.status()["details"],
                json!({"name": name, "kind": "namespaces"})
            );
        }
    }
    f.namespace("mortal").await;
    terminate(&f, "mortal").await;
}

#[tokio::test]
async fn an_admitted_create_pins_its_namespace_and_nothing_else_is_read() {
    let f = server_fixture();
    f.namespace("team").await;
    let lifecycle = NamespaceLifecycle::new(Arc::clone(&f.store.storage), f.kind("namespaces"));
    let cm = f.kind("configmaps");
    let opts = WriteOptions::default();
    let mut pins = Pins::default();
    let attrs = Attributes::create(&cm, Some("team"), "c", &opts);
    lifecycle
        .validate(&attrs, None, &mut pins)
        .resolve()
        .await
        .expect("allowed");
    assert_eq!(pins.len(), 1);
    assert!(!lifecycle.handles(Operation::Update));
    let mut pins = Pins::default();
    let nodes = f.kind("nodes");
    let attrs = Attributes::create(&nodes, None, "n", &opts);
    lifecycle
        .validate(&attrs, None, &mut pins)
        .resolve()
        .await
        .expect("allowed");
    assert!(pins.is_empty());
}

/// Marks a namespace terminating straight in storage the first time it
/// validates a ConfigMap's create — as a DELETE of the namespace landing between
/// NamespaceLifecycle's decision and the create's commit.
struct ConcurrentDelete {
    storage: Arc<dyn crate::storage::Storage>,
    key: Vec<u8>,
    calls: AtomicUsize,
}

impl ValidatingAdmission for ConcurrentDelete {
    fn name(&self) -> &'static str {
        "ConcurrentDelete"
    }
    fn handles(&self, operation: Operation) -> bool {
        operation == Operation::Create
    }
    fn validate<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        _object: Option<&'a Value>,
        _pins: &'a mut Pins,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        if attrs.kind.resource != "configmaps" || self.calls.fetch_add(1, Ordering::SeqCst) > 0 {
            return MaybeAsync::Ready(Ok(()));
        }
        MaybeAsync::pending(async move {
            let kv = self
                .storage
                .get(&self.key, None)
                .await
                .expect("read")
                .kv
                .expect("namespace");
            let mut ns: Value = serde_json::from_slice(&kv.value).expect("json");
            ns["metadata"]["deletionTimestamp"] = json!("2024-05-01T10:00:00Z");
            ns["status"]["phase"] = json!("Terminating");
            let bytes = serde_json::to_vec(&ns).expect("json");
            self.storage
                .commit(Txn::new().put(self.key.clone(), bytes))
                .await
                .expect("terminating");
            Ok(())
        })
    }
}

#[tokio::test]
async fn a_namespace_terminating_before_the_commit_refuses_the_create() {
    let mut interloper = None;
    let f = Fixture::build(|storage, registry| {
        let namespaces = registry.lookup("", "v1", "namespaces").expect("kind");
        let racer = Arc::new(ConcurrentDelete {
            storage: Arc::clone(storage),
            key: crate::api::keys::object_key(&namespaces, None, "team"),
            calls: AtomicUsize::new(0),
        });
        interloper = Some(Arc::clone(&racer));
        crate::app_admission::admission_chain(
            storage,
            registry,
            None,
            "k8s.io",
            &Default::default(),
            None,
        )
        .followed_by(Vec::new(), vec![racer])
    });
    f.namespace("team").await;
    let err = f
        .create(
            "configmaps",
            Some("team"),
            Fixture::config_map("late"),
            &WriteOptions::default(),
        )
        .await
        .expect_err("the namespace began terminating first");
    assert_eq!(err.code(), 403);
    assert_eq!(
        err.status()["details"]["causes"][0]["reason"],
        "NamespaceTerminating"
    );
    // Admitted twice: allowed, the commit's guard failed, then refused.
    let racer = interloper.expect("built");
    assert_eq!(racer.calls.load(Ordering::SeqCst), 1);
    let cm = f.kind("configmaps");
    let key = crate::api::keys::object_key(&cm, Some("team"), "late");
    assert!(
        f.store
            .storage
            .get(&key, None)
            .await
            .expect("read")
            .kv
            .is_none()
    );
}
