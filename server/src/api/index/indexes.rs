//! The list indexes of a store, one per kind listed with selectors, built
//! on first use (a first list by a family waits for it to be filed; later
//! ones do not) and replaced when their watch ends or their kind is
//! replaced.

use std::sync::Arc;

use parking_lot::Mutex;
use tokio::sync::OnceCell;

use crate::api::index::{Family, KindIndex};
use crate::api::kind::KindSpec;
use crate::storage::Storage;

struct Slot {
    kind: Arc<KindSpec>,
    index: OnceCell<Arc<KindIndex>>,
}

#[derive(Default)]
pub struct KindIndexes {
    slots: Mutex<Vec<Arc<Slot>>>,
}

impl KindIndexes {
    /// The index of `kind`, filing `family`; `None` when it cannot be
    /// loaded now or cannot index the family (the list then reads storage
    /// as it would without one).
    pub async fn of(
        &self,
        storage: &Arc<dyn Storage>,
        kind: &Arc<KindSpec>,
        family: &Family,
    ) -> Option<Arc<KindIndex>> {
        let slot = {
            let mut slots = self.slots.lock();
            // A kind that was replaced (a CRD changed) is served by a new spec.
            slots.retain(|s| {
                Arc::strong_count(&s.kind) > 1 && s.index.get().is_none_or(|i| i.live())
            });
            match slots.iter().find(|s| Arc::ptr_eq(&s.kind, kind)) {
                Some(s) => Arc::clone(s),
                None => {
                    let s = Arc::new(Slot {
                        kind: Arc::clone(kind),
                        index: OnceCell::new(),
                    });
                    slots.push(Arc::clone(&s));
                    s
                }
            }
        };
        let built = slot
            .index
            .get_or_try_init(|| KindIndex::build(storage, kind, family))
            .await;
        match built {
            Ok(index) => index
                .index_by(storage, family)
                .await
                .then(|| Arc::clone(index)),
            Err(e) => {
                tracing::debug!(kind = %kind.resource, error = %e, "a list index could not be loaded");
                None
            }
        }
    }
}
