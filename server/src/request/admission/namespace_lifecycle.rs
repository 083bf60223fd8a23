//! NamespaceLifecycle: nothing is created in a namespace that does not
//! exist (404) or is being terminated (403, cause `NamespaceTerminating`),
//! and `default`, `kube-system` and `kube-public` are never deleted.
//!
//! Kubernetes runs it in the mutating phase from a namespace cache; here it
//! validates, last before the commit, reading the namespace as storage
//! recently knew it (a watch cache's copy in front of etcd, else the
//! latest) and pinning the revision it read. The commit is guarded on that pin, so
//! a namespace that starts terminating between this decision and the write
//! fails the commit, and the store admits the create again — now refused.
//! A copy read a moment late fails the commit the same way, and the next
//! read finds the change.
//! No object is ever created after its namespace began terminating, which
//! the namespace controller's final sweep relies on. Running after the
//! kind's validation keeps the answer order clients saw before (an invalid
//! object is 422 wherever it was sent).

use std::sync::Arc;

use serde_json::Value;

use crate::api::error::{ApiError, Cause};
use crate::api::kind::KindSpec;
use crate::api::kinds::namespace_strategy::IMMORTAL;
use crate::api::store::storage_error;
use crate::api::{keys, object};
use crate::request::admission::{Attributes, Operation, Pins, ValidatingAdmission};
use crate::storage::{GetResult, Storage, StorageError};
use crate::util::maybe_async::MaybeAsync;

pub struct NamespaceLifecycle {
    storage: Arc<dyn Storage>,
    /// The built-in namespaces kind (its storage keys, its 404).
    namespaces: Arc<KindSpec>,
}

impl NamespaceLifecycle {
    #[must_use]
    pub fn new(storage: Arc<dyn Storage>, namespaces: Arc<KindSpec>) -> NamespaceLifecycle {
        NamespaceLifecycle {
            storage,
            namespaces,
        }
    }

    fn is_namespaces(&self, kind: &KindSpec) -> bool {
        kind.group == self.namespaces.group && kind.resource == self.namespaces.resource
    }

    /// A create into `ns`: allowed (pinning the namespace) or refused. The
    /// embedded store answers at once, so this waits only on a networked one.
    fn admit_create<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        ns: &'a str,
        pins: &'a mut Pins,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        let key = keys::object_key(&self.namespaces, None, ns);
        match self.storage.get_recent(&key).into_ready() {
            Ok(read) => MaybeAsync::Ready(self.decide(attrs, ns, key, read, pins)),
            Err(later) => MaybeAsync::pending(async move {
                let read = later.await;
                self.decide(attrs, ns, key, read, pins)
            }),
        }
    }

    /// What the namespace as read says of the create.
    fn decide(
        &self,
        attrs: &Attributes<'_>,
        ns: &str,
        key: Vec<u8>,
        read: Result<GetResult, StorageError>,
        pins: &mut Pins,
    ) -> Result<(), ApiError> {
        let Some(kv) = read.map_err(storage_error)?.kv else {
            return Err(self.namespaces.not_found(ns));
        };
        if object::stored_is_terminating(&kv.value).map_err(|e| {
            ApiError::Internal(format!("namespace {ns} is stored as invalid JSON: {e}"))
        })? {
            let kind = attrs.kind;
            return Err(ApiError::Forbidden {
                group: kind.group.clone(),
                resource: kind.qualified_resource(),
                name: attrs.name.into(),
                reason: format!(
                    "unable to create new content in namespace {ns} because it is being terminated"
                ),
                causes: vec![Cause::new(
                    "NamespaceTerminating",
                    "metadata.namespace",
                    format!("namespace {ns} is being terminated"),
                )],
            });
        }
        pins.pin(key, kv.mod_revision);
        Ok(())
    }
}

impl ValidatingAdmission for NamespaceLifecycle {
    fn name(&self) -> &'static str {
        "NamespaceLifecycle"
    }

    fn handles(&self, operation: Operation) -> bool {
        matches!(operation, Operation::Create | Operation::Delete)
    }

    fn validate<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        _object: Option<&'a Value>,
        pins: &'a mut Pins,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        match (attrs.operation, attrs.namespace) {
            (Operation::Delete, _)
                if self.is_namespaces(attrs.kind) && IMMORTAL.contains(&attrs.name) =>
            {
                MaybeAsync::Ready(Err(ApiError::Forbidden {
                    group: String::new(),
                    resource: "namespaces".into(),
                    name: attrs.name.into(),
                    reason: "this namespace may not be deleted".into(),
                    causes: Vec::new(),
                }))
            }
            (Operation::Create, Some(ns)) if attrs.kind.namespaced => {
                self.admit_create(attrs, ns, pins)
            }
            _ => MaybeAsync::Ready(Ok(())),
        }
    }
}

#[cfg(test)]
#[path = "lifecycle_tests.rs"]
mod tests;
