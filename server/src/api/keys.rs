//! Storage keys: `/registry/{resource}/{namespace}/{name}` for the core group,
//! `/registry/{group}/{resource}/{namespace}/{name}` for named groups;
//! cluster-scoped kinds drop the namespace segment. The prefix is the kind's
//! `StorageBinding`, shared by every version that serves the same objects.

use std::sync::Arc;

use crate::api::kind::KindSpec;
use crate::api::registry::Registry;

/// Prefix of a collection: one namespace, or every namespace when `None`.
#[must_use]
pub fn collection_prefix(kind: &KindSpec, namespace: Option<&str>) -> Vec<u8> {
    let mut p = kind.storage.prefix.clone();
    if let Some(ns) = namespace.filter(|_| kind.namespaced) {
        p.push_str(ns);
        p.push('/');
    }
    p.into_bytes()
}

/// The key of one object.
#[must_use]
pub fn object_key(kind: &KindSpec, namespace: Option<&str>, name: &str) -> Vec<u8> {
    let mut k = collection_prefix(kind, namespace);
    k.extend_from_slice(name.as_bytes());
    k
}

/// An object of the store, found by its key.
pub struct Located {
    pub kind: Arc<KindSpec>,
    pub namespace: Option<String>,
    pub name: String,
}

impl Registry {
    /// The kind, namespace and name a storage key belongs to (the kind
    /// with the longest matching prefix), if a stored kind has it.
    #[must_use]
    pub fn locate(&self, key: &[u8]) -> Option<Located> {
        let key = std::str::from_utf8(key).ok()?;
        let kind = self
            .storage_kinds()
            .into_iter()
            .filter(|k| key.starts_with(&k.storage.prefix))
            .max_by_key(|k| k.storage.prefix.len())?;
        let rest = &key[kind.storage.prefix.len()..];
        let (namespace, name) = if kind.namespaced {
            let (ns, name) = rest.split_once('/')?;
            (Some(ns.to_string()), name)
        } else {
            (None, rest)
        };
        Some(Located {
            kind,
            namespace,
            name: name.to_string(),
        })
    }
}
