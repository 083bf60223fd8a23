//! The cache's copy of the data: every key of the cached range with its
//! versions since the window's start, so a read at any revision from
//! `oldest` to `revision` is answered exactly, as the backend would
//! answer it; older versions are dropped as the window moves on.

use std::collections::{BTreeMap, VecDeque};
use std::ops::Bound;

use bytes::Bytes;

use crate::storage::{Event, EventKind, KeyRange, KeyValue, RangeOptions, RangeResult, Revision};

/// One version of a key: its record, or its deletion, at `revision`.
#[derive(Clone, Debug)]
struct Version {
    revision: Revision,
    kv: Option<KeyValue>,
}

/// A window of the data: exact reads at every revision in
/// `oldest..=revision`.
#[derive(Debug)]
pub struct Memory {
    keys: BTreeMap<Bytes, Vec<Version>>,
    /// Every change up to here is applied.
    revision: Revision,
    /// Reads below it are not answered from memory.
    oldest: Revision,
    /// Keys that gained a version at a revision: their older versions can
    /// go once `oldest` reaches it.
    superseded: VecDeque<(Revision, Bytes)>,
}

impl Memory {
    /// The data as a full read of the range at `revision` found it.
    #[must_use]
    pub fn loaded(revision: Revision, items: Vec<KeyValue>) -> Memory {
        let keys = items
            .into_iter()
            .map(|kv| {
                let version = Version {
                    revision: kv.mod_revision,
                    kv: Some(kv.clone()),
                };
                (kv.key, vec![version])
            })
            .collect();
        Memory {
            keys,
            revision,
            oldest: revision,
            superseded: VecDeque::new(),
        }
    }

    /// The newest revision applied.
    #[must_use]
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// The oldest revision answered.
    #[must_use]
    pub fn oldest(&self) -> Revision {
        self.oldest
    }

    /// Whether a read at `at` is answered from memory.
    #[must_use]
    pub fn holds(&self, at: Revision) -> bool {
        at >= self.oldest && at <= self.revision
    }

    /// Applies a batch of watch events (in revision order, after
    /// `revision`); events at or before `revision` were applied already.
    pub fn apply(&mut self, events: &[Event]) {
        for event in events.iter().filter(|e| e.revision > self.revision) {
            let versions = self.keys.entry(event.key.clone()).or_default();
            let kv = match event.kind {
                EventKind::Put => event.kv.clone(),
                EventKind::Delete => None,
            };
            if !versions.is_empty() || kv.is_none() {
                self.superseded
                    .push_back((event.revision, event.key.clone()));
            }
            versions.push(Version {
                revision: event.revision,
                kv,
            });
        }
        if let Some(last) = events.last() {
            self.revision = self.revision.max(last.revision);
        }
    }

    /// Every change up to `revision` is applied (a progress report).
    pub fn reached(&mut self, revision: Revision) {
        self.revision = self.revision.max(revision);
    }

    /// Moves the window's start to `oldest` (never back), dropping the
    /// versions no read from there on can see.
    pub fn forget_before(&mut self, oldest: Revision) {
        self.oldest = self.oldest.max(oldest.min(self.revision));
        while self
            .superseded
            .front()
            .is_some_and(|(at, _)| *at <= self.oldest)
        {
            let Some((_, key)) = self.superseded.pop_front() else {
                break;
            };
            let Some(versions) = self.keys.get_mut(&key) else {
                continue;
            };
            // Keep the newest version a read at `oldest` sees, and later ones.
            let seen = versions
                .iter()
                .rposition(|v| v.revision <= self.oldest)
                .unwrap_or(0);
            versions.drain(..seen);
            if versions.len() == 1 && versions[0].kv.is_none() {
                self.keys.remove(&key);
            }
        }
    }

    /// The events that take the data as it is now to `newer`'s (a later
    /// full read), in revision order: a put for every key written since
    /// (with the record it replaces), and a delete at `newer`'s revision
    /// for every key gone since (when it went is not known).
    #[must_use]
    pub fn changes_to(&self, newer: &Memory) -> Vec<Event> {
        let mut events = Vec::new();
        for (key, versions) in &newer.keys {
            let Some(kv) = latest(versions) else { continue };
            let prev = self.keys.get(key).and_then(|v| latest(v));
            if prev.is_some_and(|p| p.mod_revision == kv.mod_revision) {
                continue;
            }
            events.push(Event {
                kind: EventKind::Put,
                key: key.clone(),
                revision: kv.mod_revision,
                kv: Some(kv.clone()),
                prev: prev.cloned(),
            });
        }
        for (key, versions) in &self.keys {
            let Some(old) = latest(versions) else {
                continue;
            };
            if newer.keys.get(key).and_then(|v| latest(v)).is_none() {
                events.push(Event {
                    kind: EventKind::Delete,
                    key: key.clone(),
                    revision: newer.revision,
                    kv: None,
                    prev: Some(old.clone()),
                });
            }
        }
        events.sort_by_key(|e| e.revision);
        events
    }

    /// The record of `key` at `at` (which `holds`).
    #[must_use]
    pub fn get(&self, key: &[u8], at: Revision) -> Option<KeyValue> {
        visible(self.keys.get(key)?, at).cloned()
    }

    /// A range read at `at` (which `holds`), as the backend answers one.
    #[must_use]
    pub fn range(&self, range: &KeyRange, options: &RangeOptions, at: Revision) -> RangeResult {
        let end = match range.end.is_empty() {
            true => Bound::Unbounded,
            false => Bound::Excluded(range.end.as_slice()),
        };
        let mut live = self
            .keys
            .range::<[u8], _>((Bound::Included(range.start.as_slice()), end))
            .filter_map(|(_, versions)| visible(versions, at));
        let mut result = RangeResult {
            items: Vec::new(),
            more: false,
            count: 0,
            revision: at,
        };
        if options.count_only {
            result.count = live.count() as u64;
            return result;
        }
        for kv in live.by_ref() {
            if options.limit > 0 && result.items.len() == options.limit {
                result.more = true;
                break;
            }
            result.items.push(match options.keys_only {
                true => KeyValue {
                    value: Bytes::new(),
                    ..kv.clone()
                },
                false => kv.clone(),
            });
        }
        let listed = result.items.len() as u64;
        result.count = match (result.more, options.count_total) {
            (false, _) => listed,
            (true, true) => listed + 1 + live.count() as u64,
            (true, false) => listed + 1,
        };
        result
    }

    /// How many keys are live at the newest revision.
    #[cfg(test)]
    fn live(&self) -> usize {
        self.keys
            .values()
            .filter(|v| v.last().is_some_and(|v| v.kv.is_some()))
            .count()
    }
}

/// The record a read at `at` sees among a key's versions.
/// A key's newest record, unless its newest version is a deletion.
fn latest(versions: &[Version]) -> Option<&KeyValue> {
    versions.last().and_then(|v| v.kv.as_ref())
}

fn visible(versions: &[Version], at: Revision) -> Option<&KeyValue> {
    versions
        .iter()
        .rev()
        .find(|v| v.revision <= at)
        .and_then(|v| v.kv.as_ref())
}

#[cfg(test)]
#[path = "memory_tests.rs"]
mod tests;
