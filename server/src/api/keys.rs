//! Storage keys: `/registry/{resource}/{namespace}/{name}` for the core group,
//! `/registry/{group}/{resource}/{namespace}/{name}` for named groups;
//! cluster-scoped kinds drop the namespace segment. The prefix is the kind's
//! `StorageBinding`, shared by every version that serves the same objects.

use crate::api::kind::KindSpec;

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
