//! What each client knows of its own objects: the last acknowledged state,
//! the effect of the one request a crash may have cut off (its "after"
//! state, pending until a restart shows whether it was applied), and every
//! write known to be durable, which the watch check looks for.

use std::collections::BTreeMap;

use serde_json::Value;

use super::kinds::Kind;

/// An object's state as the server shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum State {
    Absent,
    Present {
        rv: u64,
        content: String,
        terminating: bool,
    },
}

impl State {
    /// The state `object` (a stored object's JSON, or none) shows.
    pub fn of(kind: Kind, object: Option<&Value>) -> State {
        let Some(o) = object else {
            return State::Absent;
        };
        State::Present {
            rv: resource_version(o).unwrap_or(0),
            content: kind.content(o),
            terminating: !o["metadata"]["deletionTimestamp"].is_null(),
        }
    }

    pub fn rv(&self) -> Option<u64> {
        match self {
            State::Present { rv, .. } => Some(*rv),
            State::Absent => None,
        }
    }
}

pub fn resource_version(object: &Value) -> Option<u64> {
    object["metadata"]["resourceVersion"].as_str()?.parse().ok()
}

/// What an unanswered request would leave if it was applied (its
/// resourceVersion is unknown: only that it is newer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum After {
    Absent,
    Present { content: String, terminating: bool },
}

#[derive(Debug)]
pub struct Object {
    pub kind: Kind,
    pub state: State,
    pub pending: Option<After>,
    /// Whether it was created with a finalizer (a delete only marks it).
    pub finalizer: bool,
    /// Whether its deletion is graceful: marked, then ended by the server
    /// once the grace period is over, so a marked object may be gone.
    pub graceful: bool,
    /// Durable writes leaving it present: (resourceVersion, content).
    pub writes: Vec<(u64, String)>,
    /// Whether a durable delete removed it (a DELETED event is owed).
    pub deleted: bool,
}

impl Object {
    pub fn new(kind: Kind, finalizer: bool) -> Object {
        Object {
            kind,
            state: State::Absent,
            pending: None,
            finalizer,
            graceful: kind == Kind::Pod,
            writes: Vec::new(),
            deleted: false,
        }
    }

    /// Whether the client may still write it: present, and not waiting
    /// for the server to end its graceful deletion.
    pub fn is_writable(&self) -> bool {
        match self.state {
            State::Present { terminating, .. } => !(terminating && self.graceful),
            State::Absent => false,
        }
    }

    /// Records a durable new state (acknowledged, or found after a restart).
    pub fn settle(&mut self, state: State) {
        match &state {
            State::Present { rv, content, .. } => self.writes.push((*rv, content.clone())),
            State::Absent => self.deleted |= self.state != State::Absent,
        }
        self.state = state;
        self.pending = None;
    }

    /// Whether the server may have ended this object's graceful deletion.
    fn may_have_expired(&self) -> bool {
        let marked = |s: &State| {
            matches!(
                s,
                State::Present {
                    terminating: true,
                    ..
                }
            )
        };
        let marking = matches!(
            self.pending,
            Some(After::Present {
                terminating: true,
                ..
            })
        );
        self.graceful && (marked(&self.state) || marking)
    }

    /// Whether `seen` is what the pending request would have left.
    fn is_pending_outcome(&self, seen: &State) -> bool {
        match (&self.pending, seen) {
            (Some(After::Absent), State::Absent) => true,
            (
                Some(After::Present {
                    content,
                    terminating,
                }),
                State::Present {
                    rv,
                    content: c,
                    terminating: t,
                },
            ) => c == content && t == terminating && self.state.rv().is_none_or(|old| *rv > old),
            _ => false,
        }
    }

    /// Compares the state found after a restart with the ledger: the last
    /// acknowledged state, or the pending request's outcome. Returns the
    /// anomaly, if any; the ledger follows what was found either way.
    pub fn reconcile(&mut self, name: &str, seen: State) -> Option<String> {
        if seen == self.state {
            self.pending = None;
            return None;
        }
        if self.is_pending_outcome(&seen) || (seen == State::Absent && self.may_have_expired()) {
            self.settle(seen);
            return None;
        }
        let anomaly = format!(
            "{name} ({:?}): acknowledged {:?}, pending {:?}, found {seen:?}",
            self.kind, self.state, self.pending
        );
        self.settle(seen);
        Some(anomaly)
    }
}

/// One client's objects by name.
#[derive(Debug, Default)]
pub struct Ledger {
    pub objects: BTreeMap<String, Object>,
}

impl Ledger {
    /// Reconciles every object with the listed objects (name → object) of
    /// each kind; returns the anomalies.
    pub fn reconcile(&mut self, listed: &BTreeMap<(&'static str, String), Value>) -> Vec<String> {
        let mut anomalies = Vec::new();
        for (name, object) in &mut self.objects {
            let found = listed.get(&(object.kind.collection(), name.clone()));
            let seen = State::of(object.kind, found);
            anomalies.extend(object.reconcile(name, seen));
        }
        anomalies
    }
}
