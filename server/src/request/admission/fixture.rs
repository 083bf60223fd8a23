//! A store on a fresh data directory with a chosen admission chain, for
//! the tests of admission inside the store's write paths.

use std::sync::Arc;

use clap::Parser;
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::kinds;
use crate::api::store::{Store, WriteOptions};
use crate::config::{Config, Flags};
use crate::request::admission::{Chain, MutatingAdmission, ValidatingAdmission};
use crate::storage::Storage;
use crate::storage::embedded::Embedded;

pub struct Fixture {
    pub store: Store,
    /// Kept so the data directory outlives the store.
    _dir: TempDir,
}

impl Fixture {
    /// A store whose chain is the server's own, then `validating`.
    pub fn with(
        mutating: Vec<Arc<dyn MutatingAdmission>>,
        validating: Vec<Arc<dyn ValidatingAdmission>>,
    ) -> Fixture {
        Fixture::build(|storage, registry| {
            let lifecycle = crate::app_admission::admission_chain(
                storage,
                registry,
                None,
                "k8s.io",
                &Default::default(),
                None,
            );
            lifecycle.followed_by(mutating, validating)
        })
    }

    /// A store with exactly `chain`.
    pub fn build(
        chain: impl FnOnce(&Arc<dyn Storage>, &Arc<crate::api::registry::Registry>) -> Chain,
    ) -> Fixture {
        let dir = tempfile::tempdir().expect("tempdir");
        let storage: Arc<dyn Storage> =
            Arc::new(Embedded::open(dir.path()).expect("open the store"));
        let config = Config::from(Flags::parse_from(["cairn-apiserver"]));
        let registry = Arc::new(kinds::builtin(&config));
        let chain = Arc::new(chain(&storage, &registry));
        Fixture {
            store: Store::new(storage, registry, chain),
            _dir: dir,
        }
    }

    pub fn kind(&self, resource: &str) -> Arc<KindSpec> {
        self.store
            .registry
            .lookup("", "v1", resource)
            .expect("a built-in kind")
    }

    pub async fn create(
        &self,
        resource: &str,
        ns: Option<&str>,
        obj: Value,
        opts: &WriteOptions,
    ) -> Result<Value, ApiError> {
        let decoded = Decoded {
            value: obj,
            duplicates: Vec::new(),
        };
        let kind = self.kind(resource);
        Ok(self.store.create(&kind, ns, decoded, opts).await?.object)
    }

    pub async fn namespace(&self, name: &str) {
        self.create(
            "namespaces",
            None,
            json!({"metadata": {"name": name}}),
            &WriteOptions::default(),
        )
        .await
        .expect("namespace created");
    }

    /// A ConfigMap body named `name`.
    pub fn config_map(name: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}})
    }
}

impl Chain {
    /// This chain with more plugins after its own, in each phase.
    #[must_use]
    pub fn followed_by(
        mut self,
        mutating: Vec<Arc<dyn MutatingAdmission>>,
        validating: Vec<Arc<dyn ValidatingAdmission>>,
    ) -> Chain {
        self.mutating.extend(mutating);
        self.validating.extend(validating);
        self
    }
}
