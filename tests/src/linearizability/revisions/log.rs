//! The change log: every change any watch delivered or any acknowledged
//! write reported, by revision, with disagreements between them reported.

use std::collections::BTreeMap;

use super::{Effect, History};

/// One change of one key at one revision: its new content, or none when
/// deleted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub rv: u64,
    pub key: String,
    pub value: Option<String>,
}

/// Changes by (revision, key).
#[derive(Debug, Default)]
pub struct ChangeLog {
    changes: BTreeMap<(u64, String), Option<String>>,
}

impl ChangeLog {
    /// Merges the watches' events and the acknowledged writes; two sources
    /// saying different things of one key at one revision is an anomaly.
    #[must_use]
    pub fn merge(h: &History) -> (ChangeLog, Vec<String>) {
        let mut log = ChangeLog::default();
        let mut anomalies = Vec::new();
        let mut add = |c: &Change, source: &str| {
            let slot = (c.rv, c.key.clone());
            match log.changes.get(&slot) {
                Some(v) if *v != c.value => anomalies.push(format!(
                    "{source} says {c:?}, another source says {:?} at that revision",
                    v
                )),
                Some(_) => {}
                None => {
                    log.changes.insert(slot, c.value.clone());
                }
            }
        };
        for w in &h.writes {
            if let Effect::Put { rv, content } = &w.effect {
                let c = Change {
                    rv: *rv,
                    key: w.key.clone(),
                    value: Some(content.clone()),
                };
                add(&c, "an acknowledged write");
            }
        }
        for w in &h.watches {
            for e in &w.events {
                add(e, &format!("watch {}", w.name));
            }
        }
        (log, anomalies)
    }

    pub fn changes(&self) -> impl Iterator<Item = Change> + '_ {
        self.changes.iter().map(|((rv, key), value)| Change {
            rv: *rv,
            key: key.clone(),
            value: value.clone(),
        })
    }

    /// The changes after `from` up to and including `through`.
    pub fn range(&self, from: u64, through: u64) -> impl Iterator<Item = Change> + '_ {
        self.changes()
            .filter(move |c| c.rv > from && c.rv <= through)
    }

    /// Each present key's (resourceVersion, content) after every change up
    /// to `rv`.
    #[must_use]
    pub fn state_at(&self, rv: u64) -> BTreeMap<String, (u64, String)> {
        let mut state = BTreeMap::new();
        for c in self.changes().take_while(|c| c.rv <= rv) {
            match c.value {
                Some(v) => {
                    state.insert(c.key, (c.rv, v));
                }
                None => {
                    state.remove(&c.key);
                }
            }
        }
        state
    }
}
