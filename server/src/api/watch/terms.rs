//! The index terms a filtered watcher is found by: one attribute and the
//! values it must have (a name, a field `=`, a label `=`/`in`, a
//! namespace), so an event reaches only the watchers its attributes can
//! match, as etcd finds key watchers in a map. A watcher with no such term
//! is tested against every event (its selector reads shared attributes).

use std::collections::HashMap;

use crate::api::index::{Attributes, Family, Term, exact_term};
use crate::api::kind::KindSpec;
use crate::api::watch::selection::Selection;

/// The most selective term of a watcher (see [`exact_term`]); `name` and
/// `namespace` are the request path's.
#[must_use]
pub fn index_term(
    selection: &Selection,
    namespace: Option<&str>,
    name: Option<&str>,
) -> Option<Term> {
    exact_term(
        selection.label.as_ref(),
        selection.field.as_ref(),
        namespace,
        name,
    )
}

/// Watchers by the values of their index terms, plus those tested against
/// every event.
#[derive(Default)]
pub struct TermIndex {
    by_family: HashMap<Family, HashMap<Box<str>, Vec<usize>>>,
    everywhere: Vec<usize>,
}

impl TermIndex {
    /// Files watcher `id` under `term` (or under every event without one).
    pub fn insert(&mut self, id: usize, term: Option<&Term>) {
        let Some((family, values)) = term else {
            self.everywhere.push(id);
            return;
        };
        let by_value = self.by_family.entry(family.clone()).or_default();
        for v in values {
            by_value.entry(v.clone()).or_default().push(id);
        }
    }

    /// Removes watcher `id` filed under `term`.
    pub fn remove(&mut self, id: usize, term: Option<&Term>) {
        let Some((family, values)) = term else {
            self.everywhere.retain(|&w| w != id);
            return;
        };
        let Some(by_value) = self.by_family.get_mut(family) else {
            return;
        };
        for v in values {
            if let Some(ids) = by_value.get_mut(v) {
                ids.retain(|&w| w != id);
                if ids.is_empty() {
                    by_value.remove(v);
                }
            }
        }
        if by_value.is_empty() {
            self.by_family.remove(family);
        }
    }

    /// Every watcher an object with `new` or `old` attributes may concern,
    /// into `out` (possibly with repeats).
    pub fn candidates(
        &self,
        kind: &KindSpec,
        new: Option<&Attributes>,
        old: Option<&Attributes>,
        out: &mut Vec<usize>,
    ) {
        out.extend_from_slice(&self.everywhere);
        for (family, by_value) in &self.by_family {
            for attrs in [new, old].into_iter().flatten() {
                if let Some(ids) = family.value(kind, attrs).and_then(|v| by_value.get(v)) {
                    out.extend_from_slice(ids);
                }
            }
        }
    }
}
