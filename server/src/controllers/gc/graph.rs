//! The garbage collector's view of the store: which objects have owners
//! (by owner uid), which owners are terminating with a propagation
//! finalizer, and when graceful deletions end. Fed from raw stored bytes;
//! a value is parsed only when it can matter (it mentions ownerReferences
//! or deletionTimestamp, or its key is already known), so ordinary writes
//! cost two byte searches.

use std::collections::{HashMap, HashSet};
use std::time::SystemTime;

use bytes::Bytes;
use serde::Deserialize;

use crate::api::store::delete::{FOREGROUND_FINALIZER, ORPHAN_FINALIZER};
use crate::util::time;

/// The metadata fields the collector reads.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Meta {
    #[serde(default)]
    uid: String,
    #[serde(default)]
    owner_references: Vec<OwnerUid>,
    #[serde(default)]
    deletion_timestamp: Option<String>,
    #[serde(default)]
    deletion_grace_period_seconds: Option<i64>,
    #[serde(default)]
    finalizers: Vec<String>,
}

#[derive(Deserialize)]
struct OwnerUid {
    #[serde(default)]
    uid: String,
}

#[derive(Deserialize)]
struct Head {
    #[serde(default)]
    metadata: Meta,
}

fn parse(value: &[u8]) -> Option<Meta> {
    serde_json::from_slice::<Head>(value)
        .ok()
        .map(|h| h.metadata)
}

fn mentions(haystack: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(haystack, needle).is_some()
}

/// What a change asks the collector to do.
#[derive(Default)]
pub struct Work {
    /// Objects to look at again (owners or dependents).
    pub keys: Vec<Bytes>,
    /// Graceful deletions ending at a time.
    pub deadlines: Vec<(SystemTime, Bytes)>,
}

/// Owner/dependent relations and terminating owners, by key and uid.
#[derive(Default)]
pub struct Graph {
    /// Objects with ownerReferences → the uids of their owners.
    owners_of: HashMap<Bytes, Vec<String>>,
    /// Owner uid → keys of objects that name it.
    dependents_of: HashMap<String, HashSet<Bytes>>,
    /// Terminating objects with a propagation finalizer: uid → key.
    deleting: HashMap<String, Bytes>,
    deleting_uid_of: HashMap<Bytes, String>,
}

impl Graph {
    /// Keys of the objects that name `uid` as an owner.
    #[must_use]
    pub fn dependents(&self, uid: &str) -> Vec<Bytes> {
        self.dependents_of
            .get(uid)
            .map(|d| d.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Whether some object names `uid` as an owner.
    #[must_use]
    pub fn has_dependents(&self, uid: &str) -> bool {
        self.dependents_of.get(uid).is_some_and(|d| !d.is_empty())
    }

    /// A key's value was written.
    pub fn put(&mut self, key: &Bytes, value: &[u8], work: &mut Work) {
        let known = self.owners_of.contains_key(key) || self.deleting_uid_of.contains_key(key);
        if !known
            && !mentions(value, b"\"ownerReferences\"")
            && !mentions(value, b"\"deletionTimestamp\"")
        {
            return;
        }
        // Kept as long as the object: a copy, not a slice of a log segment.
        let key = &Bytes::copy_from_slice(key);
        let meta = parse(value).unwrap_or_default();
        self.forget_dependent(key, work);
        self.forget_deleting(key);
        let owners: Vec<String> = meta
            .owner_references
            .into_iter()
            .map(|o| o.uid)
            .filter(|u| !u.is_empty())
            .collect();
        if !owners.is_empty() {
            for uid in &owners {
                self.dependents_of
                    .entry(uid.clone())
                    .or_default()
                    .insert(key.clone());
                if let Some(owner) = self.deleting.get(uid) {
                    work.keys.push(owner.clone());
                }
            }
            self.owners_of.insert(key.clone(), owners);
            work.keys.push(key.clone());
        }
        let Some(at) = meta.deletion_timestamp.as_deref() else {
            return;
        };
        let propagating = meta
            .finalizers
            .iter()
            .any(|f| f == ORPHAN_FINALIZER || f == FOREGROUND_FINALIZER);
        if propagating && !meta.uid.is_empty() {
            self.deleting.insert(meta.uid.clone(), key.clone());
            self.deleting_uid_of.insert(key.clone(), meta.uid);
            work.keys.push(key.clone());
        }
        if meta.deletion_grace_period_seconds.is_some_and(|g| g > 0)
            && let Some(deadline) = time::parse_rfc3339(at)
        {
            work.deadlines.push((deadline, key.clone()));
        }
    }

    /// A key was deleted; `prev` is its last value when known.
    pub fn delete(&mut self, key: &Bytes, prev: Option<&[u8]>, work: &mut Work) {
        self.forget_dependent(key, work);
        self.forget_deleting(key);
        if self.dependents_of.is_empty() {
            return;
        }
        // Only now is the removed object's uid worth a parse.
        if let Some(uid) = prev.and_then(parse).map(|m| m.uid)
            && let Some(dependents) = self.dependents_of.get(&uid)
        {
            work.keys.extend(dependents.iter().cloned());
        }
    }

    fn forget_dependent(&mut self, key: &Bytes, work: &mut Work) {
        let Some(owners) = self.owners_of.remove(key) else {
            return;
        };
        for uid in owners {
            if let Some(set) = self.dependents_of.get_mut(&uid) {
                set.remove(key);
                if set.is_empty() {
                    self.dependents_of.remove(&uid);
                }
            }
            // A foreground owner may have been waiting for this one.
            if let Some(owner) = self.deleting.get(&uid) {
                work.keys.push(owner.clone());
            }
        }
    }

    fn forget_deleting(&mut self, key: &Bytes) {
        if let Some(uid) = self.deleting_uid_of.remove(key) {
            self.deleting.remove(&uid);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> Bytes {
        Bytes::from(s.to_string())
    }

    #[test]
    fn plain_objects_are_not_tracked() {
        let mut g = Graph::default();
        let mut w = Work::default();
        g.put(&key("/registry/a"), br#"{"metadata":{"uid":"1"}}"#, &mut w);
        assert!(w.keys.is_empty());
        assert!(g.owners_of.is_empty());
    }

    #[test]
    fn dependents_and_deleting_owners_are_tracked() {
        let mut g = Graph::default();
        let mut w = Work::default();
        let dep = br#"{"metadata":{"uid":"d","ownerReferences":[{"uid":"o"}]}}"#;
        g.put(&key("/registry/d"), dep, &mut w);
        assert_eq!(w.keys, vec![key("/registry/d")]);
        assert_eq!(g.dependents("o"), vec![key("/registry/d")]);

        let mut w = Work::default();
        let owner = br#"{"metadata":{"uid":"o","deletionTimestamp":"2024-05-01T10:00:00Z","finalizers":["foregroundDeletion"]}}"#;
        g.put(&key("/registry/o"), owner, &mut w);
        assert_eq!(w.keys, vec![key("/registry/o")]);

        // The dependent goes: its foreground owner is looked at again.
        let mut w = Work::default();
        g.delete(&key("/registry/d"), Some(dep), &mut w);
        assert_eq!(w.keys, vec![key("/registry/o")]);
        assert!(!g.has_dependents("o"));
    }

    #[test]
    fn removing_an_owner_wakes_its_dependents() {
        let mut g = Graph::default();
        let mut w = Work::default();
        g.put(
            &key("/registry/d"),
            br#"{"metadata":{"ownerReferences":[{"uid":"o"}]}}"#,
            &mut w,
        );
        let mut w = Work::default();
        g.delete(
            &key("/registry/o"),
            Some(br#"{"metadata":{"uid":"o"}}"#),
            &mut w,
        );
        assert_eq!(w.keys, vec![key("/registry/d")]);
    }

    #[test]
    fn graceful_deletions_are_scheduled() {
        let mut g = Graph::default();
        let mut w = Work::default();
        g.put(
            &key("/registry/p"),
            br#"{"metadata":{"deletionTimestamp":"2024-05-01T10:00:30Z","deletionGracePeriodSeconds":30}}"#,
            &mut w,
        );
        assert_eq!(
            w.deadlines,
            vec![(
                time::parse_rfc3339("2024-05-01T10:00:30Z").expect("time"),
                key("/registry/p")
            )]
        );
    }
}
