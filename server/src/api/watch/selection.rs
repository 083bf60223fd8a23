//! What one filtered watcher selects: its key range (collection, namespace
//! or one object) and its label, field and shard selectors, tested against
//! the shared attributes of each event — never by parsing the object again.

use crate::api::index::Attributes;
use crate::api::kind::KindSpec;
use crate::api::selectors::{FieldSelector, LabelSelector, ShardSelector};
use crate::api::watch::share::KindShare;
use crate::api::watch::translate::{EventType, decide};
use crate::storage::{Event, KeyRange};

/// A filtered watcher's selection.
pub struct Selection {
    pub range: KeyRange,
    pub label: Option<LabelSelector>,
    pub field: Option<FieldSelector>,
    pub shard: Option<ShardSelector>,
}

impl Selection {
    /// Whether an object with these attributes is selected (an unreadable
    /// one never is).
    #[must_use]
    pub fn selects(&self, kind: &KindSpec, attrs: Option<&Attributes>) -> bool {
        attrs.is_some_and(|a| {
            a.matches(
                kind,
                self.label.as_ref(),
                self.field.as_ref(),
                self.shard.as_ref(),
            )
        })
    }

    /// The type of the event this watcher is sent for event `i` (`ev`) of
    /// a batch, if any.
    #[must_use]
    pub fn pick(
        &self,
        kind: &KindSpec,
        share: &KindShare,
        i: usize,
        ev: &Event,
    ) -> Option<EventType> {
        if !self.range.contains(&ev.key) {
            return None;
        }
        let attrs = share.attrs(i, ev);
        decide(
            ev,
            self.selects(kind, attrs.new),
            self.selects(kind, attrs.old),
            true,
        )
    }
}
