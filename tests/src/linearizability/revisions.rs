//! Lists and watches checked against a history by revision: the store's
//! revisions totally order its changes, so the changes every watch delivered
//! and every acknowledged write, merged by revision, make one change log.
//! Against it, each watch stream must deliver every change in its range, in
//! order, once; each list at revision R must show exactly the state after
//! the changes up to R; and revisions must respect real time (a write or
//! list that finished before another began has the lower revision).

mod log;
mod real_time;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

pub use log::{Change, ChangeLog};

/// A write call on one key, with its invocation and response instants.
#[derive(Clone, Debug)]
pub struct Write {
    pub invoked: u64,
    pub returned: u64,
    pub key: String,
    pub effect: Effect,
}

/// What a write did, as its answer says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Acknowledged: the key holds `content` at revision `rv`.
    Put { rv: u64, content: String },
    /// Acknowledged delete (its revision is not in the answer).
    Delete,
    /// Refused (404, 409): no effect.
    Refused,
    /// No answer: `content` (none for a delete) may or may not be stored.
    Unknown { content: Option<String> },
}

/// A list call: the revision it answered at, and the items (key →
/// (resourceVersion, content)).
#[derive(Clone, Debug)]
pub struct List {
    pub invoked: u64,
    pub returned: u64,
    /// The revision asked for with `resourceVersionMatch=Exact`, if any
    /// (such a list is a read of the past: real time does not order it).
    pub exact: Option<u64>,
    pub rv: u64,
    pub items: BTreeMap<String, (u64, String)>,
}

/// One watch stream: started after revision `from`, known to have read
/// through revision `through` (a marker written last and seen).
#[derive(Clone, Debug)]
pub struct Watch {
    pub name: String,
    pub from: u64,
    pub through: u64,
    pub events: Vec<Change>,
}

/// Everything recorded.
#[derive(Clone, Debug, Default)]
pub struct History {
    pub writes: Vec<Write>,
    pub lists: Vec<List>,
    pub watches: Vec<Watch>,
}

/// Checks a history; returns every anomaly found (empty when consistent).
#[must_use]
pub fn check(h: &History) -> Vec<String> {
    let (log, mut anomalies) = ChangeLog::merge(h);
    anomalies.extend(invented_contents(h, &log));
    for w in &h.watches {
        anomalies.extend(check_watch(w, &log));
    }
    for l in &h.lists {
        anomalies.extend(check_list(l, &log));
    }
    anomalies.extend(real_time::check(h, &log));
    anomalies
}

/// A change whose content no write (acknowledged or unanswered) carried.
fn invented_contents(h: &History, log: &ChangeLog) -> Vec<String> {
    let written: BTreeSet<&str> = h
        .writes
        .iter()
        .filter_map(|w| match &w.effect {
            Effect::Put { content, .. }
            | Effect::Unknown {
                content: Some(content),
            } => Some(content.as_str()),
            _ => None,
        })
        .collect();
    log.changes()
        .filter(|c| c.value.as_deref().is_some_and(|v| !written.contains(v)))
        .map(|c| format!("change {c:?}: no write carried this content"))
        .collect()
}

/// Order, duplicates and gaps of one stream against the log.
fn check_watch(w: &Watch, log: &ChangeLog) -> Vec<String> {
    let mut anomalies = Vec::new();
    let mut delivered = BTreeSet::new();
    for pair in w.events.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        // One transaction may change several keys at one revision.
        if b.rv < a.rv || (b.rv == a.rv && b.key <= a.key) {
            anomalies.push(format!("watch {}: {b:?} after {a:?}", w.name));
        }
    }
    for e in &w.events {
        if e.rv <= w.from {
            anomalies.push(format!(
                "watch {} from {}: delivered {e:?}, not newer",
                w.name, w.from
            ));
        }
        if !delivered.insert((e.rv, e.key.as_str())) {
            anomalies.push(format!("watch {}: {e:?} delivered twice", w.name));
        }
    }
    for c in log.range(w.from, w.through) {
        if !delivered.contains(&(c.rv, c.key.as_str())) {
            anomalies.push(format!(
                "watch {} ({}..={}): {c:?} never delivered",
                w.name, w.from, w.through
            ));
        }
    }
    anomalies
}

/// A list shows exactly the state after every change up to its revision.
fn check_list(l: &List, log: &ChangeLog) -> Vec<String> {
    let mut anomalies = Vec::new();
    if let Some(asked) = l.exact
        && asked != l.rv
    {
        anomalies.push(format!("list at exactly {asked} answered at {}", l.rv));
    }
    let expected = log.state_at(l.rv);
    if expected != l.items {
        anomalies.push(format!(
            "list at {} shows {:?}; the changes up to it leave {expected:?}",
            l.rv, l.items
        ));
    }
    anomalies
}
