//! What every watcher of one commit batch shares, per kind (served versions
//! differ): each event's selectable attributes, decoded at most once however
//! many watchers and selectors look at it, and a slot for the encodings the
//! HTTP layer derives from the batch.

use std::any::Any;
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use crate::api::index::Attributes;
use crate::api::kind::KindSpec;
use crate::storage::{Event, Events};

/// The attributes of an event's new and previous records (`None` when
/// absent or unreadable as the kind).
#[derive(Clone, Copy, Default)]
pub struct EventAttrs<'a> {
    pub new: Option<&'a Attributes>,
    pub old: Option<&'a Attributes>,
}

/// A record's attributes, decoded on first use.
type Slot = OnceLock<Option<Arc<Attributes>>>;

/// A batch's share for one kind.
pub struct KindShare {
    kind: Arc<KindSpec>,
    /// By position in the whole batch, new and previous records apart (the
    /// index reads only new ones); filled on first use.
    new: Box<[Slot]>,
    old: Box<[Slot]>,
    encodings: OnceLock<Box<dyn Any + Send + Sync>>,
}

impl KindShare {
    /// The attributes of event `i` of the batch (which is `ev`).
    pub fn attrs(&self, i: usize, ev: &Event) -> EventAttrs<'_> {
        EventAttrs {
            new: self.new_attrs(i, ev).map(Arc::as_ref),
            old: self.old[i]
                .get_or_init(|| {
                    ev.prev
                        .as_ref()
                        .and_then(|kv| Attributes::of_record(&self.kind, kv))
                })
                .as_ref()
                .map(Arc::as_ref),
        }
    }

    /// The attributes of event `i`'s new record (`ev.kv`).
    pub fn new_attrs(&self, i: usize, ev: &Event) -> Option<&Arc<Attributes>> {
        self.new[i]
            .get_or_init(|| {
                ev.kv
                    .as_ref()
                    .and_then(|kv| Attributes::of_record(&self.kind, kv))
            })
            .as_ref()
    }

    /// A value the encoder derives once per batch and kind; `None` if one of
    /// another type is there.
    pub fn encodings<T: Any + Send + Sync + Default>(&self) -> Option<&T> {
        self.encodings
            .get_or_init(|| Box::new(T::default()))
            .downcast_ref()
    }
}

/// The memo of a storage batch: one share per kind that watches it.
#[derive(Default)]
pub struct BatchShare {
    /// The first kind's, read without a lock (most batches have one).
    first: OnceLock<Arc<KindShare>>,
    others: Mutex<Vec<Arc<KindShare>>>,
}

impl BatchShare {
    /// The share of `kind` in the batch `events` views; `None` if the
    /// batch's memo holds another type (a bug elsewhere).
    #[must_use]
    pub fn of(events: &Events, kind: &Arc<KindSpec>) -> Option<Arc<KindShare>> {
        let share = events.memo(|_| BatchShare::default())?;
        let make = || {
            Arc::new(KindShare {
                kind: Arc::clone(kind),
                new: (0..events.all().len()).map(|_| OnceLock::new()).collect(),
                old: (0..events.all().len()).map(|_| OnceLock::new()).collect(),
                encodings: OnceLock::new(),
            })
        };
        let first = share.first.get_or_init(make);
        if Arc::ptr_eq(&first.kind, kind) {
            return Some(Arc::clone(first));
        }
        let mut others = share.others.lock();
        if let Some(found) = others.iter().find(|s| Arc::ptr_eq(&s.kind, kind)) {
            return Some(Arc::clone(found));
        }
        let made = make();
        others.push(Arc::clone(&made));
        Some(made)
    }
}
