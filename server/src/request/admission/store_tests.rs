//! Admission inside the store's write paths: which operation each verb
//! is, who it is for, and the order mutating admission → the kind's
//! validation → validating admission.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::*;
use crate::api::patch::PatchType;
use crate::api::store::{DeleteOptions, Subresource, WriteOptions};
use crate::request::admission::fixture::Fixture;

type Log = Arc<Mutex<Vec<String>>>;

/// Records every call; its mutation sets `data.admitted` (or, told to,
/// an invalid `metadata.name`).
struct Recorder {
    log: Log,
    spoil: bool,
}

fn line(phase: &str, attrs: &Attributes<'_>, object: Option<&Value>) -> String {
    let uid = object
        .and_then(|o| o.pointer("/metadata/uid"))
        .is_some_and(|u| u.as_str().is_some_and(|u| !u.is_empty()));
    let admitted = object.and_then(|o| o.pointer("/data/admitted")).is_some();
    format!(
        "{phase} {} {}{} {} by {} old={} uid={uid} admitted={admitted} dry={}",
        attrs.operation.as_str(),
        attrs.kind.resource,
        attrs
            .subresource
            .map(|s| format!("/{s}"))
            .unwrap_or_default(),
        attrs.name,
        attrs.user.name,
        attrs.old_object.is_some(),
        attrs.dry_run(),
    )
}

impl MutatingAdmission for Recorder {
    fn name(&self) -> &'static str {
        "Recorder"
    }
    fn handles(&self, _operation: Operation) -> bool {
        true
    }
    fn admit<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        object: Option<&'a mut Value>,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        let entry = line("admit", attrs, object.as_deref());
        self.log.lock().expect("lock").push(entry);
        if let Some(obj) = object.filter(|_| attrs.kind.resource == "configmaps") {
            obj["data"]["admitted"] = json!("yes");
            if self.spoil {
                obj["metadata"]["name"] = json!("Not A Name");
            }
        }
        MaybeAsync::Ready(Ok(()))
    }
}

impl ValidatingAdmission for Recorder {
    fn name(&self) -> &'static str {
        "Recorder"
    }
    fn handles(&self, _operation: Operation) -> bool {
        true
    }
    fn validate<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        object: Option<&'a Value>,
        _pins: &'a mut Pins,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        let entry = line("validate", attrs, object);
        self.log.lock().expect("lock").push(entry);
        MaybeAsync::Ready(Ok(()))
    }
}

fn recorded(spoil: bool) -> (Fixture, Log) {
    let log: Log = Arc::new(Mutex::new(Vec::new()));
    let recorder = Arc::new(Recorder {
        log: Arc::clone(&log),
        spoil,
    });
    let f = Fixture::with(vec![recorder.clone()], vec![recorder]);
    (f, log)
}

fn taken(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().expect("lock"))
}

fn as_jane(dry_run: bool) -> WriteOptions {
    WriteOptions {
        dry_run,
        user: Some(Arc::new(crate::request::user::UserInfo::new("jane", &[]))),
        ..WriteOptions::default()
    }
}

#[tokio::test]
async fn creates_are_mutated_then_validated_by_the_kind_then_by_admission() {
    let (f, log) = recorded(false);
    f.namespace("team").await;
    taken(&log);
    let created = f
        .create(
            "configmaps",
            Some("team"),
            Fixture::config_map("c"),
            &as_jane(false),
        )
        .await
        .expect("created");
    assert_eq!(created["data"]["admitted"], "yes", "the mutation is stored");
    assert_eq!(
        taken(&log),
        [
            "admit CREATE configmaps c by jane old=false uid=false admitted=false dry=false",
            "validate CREATE configmaps c by jane old=false uid=true admitted=true dry=false",
        ]
    );
    f.create(
        "configmaps",
        Some("team"),
        Fixture::config_map("d"),
        &as_jane(true),
    )
    .await
    .expect("dry run");
    assert!(taken(&log).iter().all(|l| l.ends_with("dry=true")));

    let (f, log) = recorded(true);
    f.namespace("team").await;
    taken(&log);
    let err = f
        .create(
            "configmaps",
            Some("team"),
            Fixture::config_map("c"),
            &as_jane(false),
        )
        .await
        .expect_err("the mutation is validated");
    assert_eq!(err.code(), 422);
    assert_eq!(taken(&log).len(), 1, "validating admission never saw it");
}

#[tokio::test]
async fn updates_patches_and_subresources_are_updates_of_the_stored_object() {
    let (f, log) = recorded(false);
    f.namespace("team").await;
    let cm = f.kind("configmaps");
    f.create(
        "configmaps",
        Some("team"),
        Fixture::config_map("c"),
        &as_jane(false),
    )
    .await
    .expect("created");
    taken(&log);
    f.store
        .patch(
            &cm,
            Some("team"),
            "c",
            PatchType::Merge,
            br#"{"data":{"k":"w"}}"#,
            &as_jane(false),
        )
        .await
        .expect("patched");
    assert_eq!(
        taken(&log),
        [
            "admit UPDATE configmaps c by jane old=true uid=true admitted=true dry=false",
            "validate UPDATE configmaps c by jane old=true uid=true admitted=true dry=false",
        ]
    );
    let ns = f.kind("namespaces");
    f.store
        .system_edit(&ns, None, "team", Some(Subresource::Status), |o| {
            o["status"]["conditions"] = json!([]);
        })
        .await
        .expect("status written");
    assert_eq!(
        taken(&log),
        [
            "admit UPDATE namespaces/status team by system:apiserver old=true uid=true admitted=false dry=false",
            "validate UPDATE namespaces/status team by system:apiserver old=true uid=true admitted=false dry=false",
        ]
    );
}

#[tokio::test]
async fn apply_creates_then_updates() {
    let (f, log) = recorded(false);
    f.namespace("team").await;
    let cm = f.kind("configmaps");
    taken(&log);
    let opts = WriteOptions {
        field_manager: Some("me".into()),
        ..as_jane(false)
    };
    let config = || crate::api::decode::Decoded {
        value: Fixture::config_map("c"),
        duplicates: Vec::new(),
    };
    f.store
        .apply(&cm, Some("team"), "c", config(), &opts, false)
        .await
        .expect("applied");
    f.store
        .apply(&cm, Some("team"), "c", config(), &opts, false)
        .await
        .expect("applied again");
    let ops: Vec<String> = taken(&log)
        .iter()
        .map(|l| l.split(' ').take(2).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        ops,
        [
            "admit CREATE",
            "validate CREATE",
            "admit UPDATE",
            "validate UPDATE"
        ]
    );
}

#[tokio::test]
async fn deletes_are_admitted_without_then_with_the_stored_object() {
    let (f, log) = recorded(false);
    f.namespace("team").await;
    let cm = f.kind("configmaps");
    f.create(
        "configmaps",
        Some("team"),
        Fixture::config_map("c"),
        &as_jane(false),
    )
    .await
    .expect("created");
    taken(&log);
    let opts = DeleteOptions {
        user: Some(Arc::new(crate::request::user::UserInfo::new("jane", &[]))),
        ..DeleteOptions::default()
    };
    f.store
        .delete(&cm, Some("team"), "c", &opts)
        .await
        .expect("deleted");
    assert_eq!(
        taken(&log),
        [
            "admit DELETE configmaps c by jane old=false uid=false admitted=false dry=false",
            "validate DELETE configmaps c by jane old=true uid=false admitted=false dry=false",
        ]
    );
}
