//! Where a kind's objects are stored and in which form, and the conversion
//! between that form and the version a kind serves.

use std::sync::Arc;

use serde_json::Value;

use super::KindSpec;

/// Converts objects between a served version and the stored form.
pub trait Conversion: Send + Sync {
    /// The served object (already validated) as it is stored.
    fn served_to_storage(&self, served: Value) -> Value;
    /// A stored object as this version serves it.
    fn storage_to_served(&self, stored: Value) -> Value;
}

/// Where and in which form a kind's objects are stored. Several served
/// versions (a CRD's, or `events.{domain}/v1` beside core Events) share one.
#[derive(Clone)]
pub struct StorageBinding {
    /// Key prefix of the whole collection, ending in `/`.
    pub prefix: String,
    /// `apiVersion` of stored objects.
    pub api_version: String,
    /// Field conversion; `None` when only `apiVersion` differs (a CRD's
    /// conversion strategy `None`).
    pub conversion: Option<Arc<dyn Conversion>>,
}

/// The key prefix DESIGN.md gives a collection: `/registry/{resource}/` in
/// the core group, `/registry/{group}/{resource}/` in named groups.
#[must_use]
pub fn default_storage_prefix(group: &str, resource: &str) -> String {
    if group.is_empty() {
        format!("/registry/{resource}/")
    } else {
        format!("/registry/{group}/{resource}/")
    }
}

impl KindSpec {
    /// Whether stored objects are already in this version's form, so stored
    /// bytes can be served as they are.
    #[must_use]
    pub fn stores_served_form(&self) -> bool {
        self.storage.conversion.is_none() && self.is_api_version(&self.storage.api_version)
    }

    /// A served object (validated, canonical) in its stored form.
    #[must_use]
    pub fn served_to_storage(&self, served: Value) -> Value {
        if self.stores_served_form() {
            return served;
        }
        let mut stored = match &self.storage.conversion {
            Some(c) => c.served_to_storage(served),
            None => served,
        };
        if let Some(o) = stored.as_object_mut() {
            o.insert(
                "apiVersion".into(),
                Value::from(self.storage.api_version.clone()),
            );
        }
        stored
    }

    /// A stored object in this version's form.
    #[must_use]
    pub fn storage_to_served(&self, stored: Value) -> Value {
        if self.stores_served_form() {
            return stored;
        }
        let mut served = match &self.storage.conversion {
            Some(c) => c.storage_to_served(stored),
            None => stored,
        };
        if let Some(o) = served.as_object_mut() {
            o.insert("kind".into(), Value::from(self.kind.clone()));
            o.insert("apiVersion".into(), Value::from(self.api_version()));
        }
        served
    }
}
