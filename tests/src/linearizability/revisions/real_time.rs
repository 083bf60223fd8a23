//! Revisions against real time: whatever finished before another call
//! began has a lower revision (a list's may equal a later one's). A delete's
//! revision is not in its answer; the log must hold a delete of its key at
//! a revision real time allows.

use super::{ChangeLog, Effect, History};

/// A call with a revision: an acknowledged write or a list of the present.
struct Timed {
    invoked: u64,
    returned: u64,
    rv: u64,
    write: bool,
    what: String,
}

fn timed(h: &History) -> Vec<Timed> {
    let mut calls = Vec::new();
    for w in &h.writes {
        if let Effect::Put { rv, .. } = &w.effect {
            calls.push(Timed {
                invoked: w.invoked,
                returned: w.returned,
                rv: *rv,
                write: true,
                what: format!("write {w:?}"),
            });
        }
    }
    for l in h.lists.iter().filter(|l| l.exact.is_none()) {
        calls.push(Timed {
            invoked: l.invoked,
            returned: l.returned,
            rv: l.rv,
            write: false,
            what: format!("list at {} [{}..{}]", l.rv, l.invoked, l.returned),
        });
    }
    calls.sort_by_key(|c| c.returned);
    calls
}

/// Whether a call at revision `then` may begin after one at `first`
/// finished: a write needs a newer revision, a list at least the same.
fn ordered(first: u64, then: u64, then_writes: bool) -> bool {
    if then_writes {
        first < then
    } else {
        first <= then
    }
}

pub(super) fn check(h: &History, log: &ChangeLog) -> Vec<String> {
    let calls = timed(h);
    let mut anomalies = Vec::new();
    for (i, a) in calls.iter().enumerate() {
        for b in calls[i + 1..].iter().filter(|b| a.returned < b.invoked) {
            if !ordered(a.rv, b.rv, b.write) {
                anomalies.push(format!(
                    "{} finished before {} began, yet its revision is not lower",
                    a.what, b.what
                ));
            }
        }
    }
    for d in h.writes.iter().filter(|w| w.effect == Effect::Delete) {
        // Newer than all that finished before it began; not newer than a
        // list, and older than a write, begun after it finished.
        let above = calls
            .iter()
            .filter(|c| c.returned < d.invoked)
            .map(|c| c.rv)
            .max()
            .unwrap_or(0);
        let at_most = calls
            .iter()
            .filter(|c| c.invoked > d.returned)
            .map(|c| if c.write { c.rv - 1 } else { c.rv })
            .min()
            .unwrap_or(u64::MAX);
        let found = log
            .range(above, at_most)
            .any(|c| c.key == d.key && c.value.is_none());
        if !found {
            anomalies.push(format!(
                "delete {d:?}: no delete of its key after revision {above} and by {at_most}"
            ));
        }
    }
    anomalies
}
