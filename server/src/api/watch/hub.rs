//! One storage watch per kind shared by all its filtered watchers: each
//! commit batch is decoded once (the batch's shared attributes) and handed
//! only to the watchers its attributes can match, found through the
//! `TermIndex`. Recent batches are kept so a watcher starting a little in
//! the past joins without its own storage watch; one starting before them
//! gets its own (see `feed`).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Weak};
use std::task::{Poll, Waker};

use parking_lot::Mutex;
use tokio::sync::Notify;

use crate::api::index::Term;
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::watch::feed::Delivery;
use crate::api::watch::selection::Selection;
use crate::api::watch::share::{BatchShare, KindShare};
use crate::api::watch::terms::TermIndex;
use crate::api::watch::translate::EventType;
use crate::storage::{Events, KeyRange, Revision, Storage, StorageError, Watch};

/// How many recent events a hub keeps for watchers joining in the past.
const RECENT_EVENTS: usize = 16_384;
/// Deliveries a watcher may have waiting before it is dropped as lagging.
const MAX_QUEUED: usize = 8_192;

/// One filtered watcher registered with a hub.
struct Slot {
    selection: Arc<Selection>,
    term: Option<Term>,
    /// Events at or before it are not this watcher's.
    after: Revision,
    queue: VecDeque<Delivery>,
    /// The newest revision handed out.
    taken: Revision,
    waker: Option<Waker>,
    lagged: bool,
}

/// A batch kept for joining watchers.
struct Recent {
    events: Events,
    share: Arc<KindShare>,
    upto: Revision,
    len: usize,
}

struct State {
    /// Every batch after it is dispatched or still to come; joins from
    /// before it get their own storage watch.
    oldest: Revision,
    dispatched: Revision,
    recent: VecDeque<Recent>,
    recent_events: usize,
    slots: Vec<Option<Slot>>,
    free: Vec<usize>,
    index: TermIndex,
    ended: Option<StorageError>,
}

/// A kind's shared watch; see the module docs.
pub struct Hub {
    kind: Arc<KindSpec>,
    state: Mutex<State>,
    stop: Arc<Notify>,
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.stop.notify_one();
    }
}

/// The hubs of a store, one per kind (served version) with filtered
/// watchers.
#[derive(Default)]
pub struct Hubs {
    hubs: Mutex<Vec<Weak<Hub>>>,
}

impl Hubs {
    /// Drops the recent batches at or before `compacted`: a watcher joining
    /// from there is answered by storage (410) anyway, and a kept batch
    /// holds its values, which keep the log segments they were read from
    /// on disk after compaction has rewritten them.
    pub fn forget_before(&self, compacted: Revision) {
        let hubs: Vec<Arc<Hub>> = self.hubs.lock().iter().filter_map(Weak::upgrade).collect();
        for hub in hubs {
            let mut state = hub.state.lock();
            while state.recent.front().is_some_and(|r| r.upto <= compacted) {
                if let Some(old) = state.recent.pop_front() {
                    state.recent_events -= old.len;
                    state.oldest = old.upto;
                }
            }
        }
    }

    /// The live hub of `kind`, or a new one watching all of the kind's
    /// objects in `storage` after `after`.
    pub fn hub(&self, storage: &dyn Storage, kind: &Arc<KindSpec>, after: Revision) -> Arc<Hub> {
        let mut hubs = self.hubs.lock();
        hubs.retain(|h| h.strong_count() > 0);
        let live = hubs
            .iter()
            .filter_map(Weak::upgrade)
            .find(|h| Arc::ptr_eq(&h.kind, kind) && h.state.lock().ended.is_none());
        if let Some(hub) = live {
            return hub;
        }
        let stop = Arc::new(Notify::new());
        let hub = Arc::new(Hub {
            kind: Arc::clone(kind),
            state: Mutex::new(State {
                oldest: after,
                dispatched: after,
                recent: VecDeque::new(),
                recent_events: 0,
                slots: Vec::new(),
                free: Vec::new(),
                index: TermIndex::default(),
                ended: None,
            }),
            stop: Arc::clone(&stop),
        });
        hubs.push(Arc::downgrade(&hub));
        let range = KeyRange::prefix(&keys::collection_prefix(kind, None));
        tokio::spawn(run(Arc::downgrade(&hub), storage.watch(range, after), stop));
        hub
    }
}

async fn run(hub: Weak<Hub>, mut watch: Watch, stop: Arc<Notify>) {
    loop {
        let got = tokio::select! {
            got = watch.next_batch() => got,
            () = stop.notified() => return,
        };
        let Some(hub) = hub.upgrade() else { return };
        match got {
            Some(Ok(events)) => hub.dispatch(&events, watch.progress()),
            Some(Err(e)) => return hub.end(e),
            None => return hub.end(StorageError::Internal("the storage watch closed".into())),
        }
    }
}

impl Hub {
    /// Registers a watcher of events after `after`; `None` when the hub
    /// cannot serve that start (it began later, or ended).
    pub fn join(
        self: &Arc<Hub>,
        selection: Arc<Selection>,
        term: Option<Term>,
        after: Revision,
    ) -> Option<HubFeed> {
        let mut state = self.state.lock();
        if after < state.oldest || state.ended.is_some() {
            return None;
        }
        let mut slot = Slot {
            selection,
            term,
            after,
            queue: VecDeque::new(),
            taken: after,
            waker: None,
            lagged: false,
        };
        for recent in &state.recent {
            if recent.upto > after {
                let picks = self.picks_for(&slot, &recent.events, &recent.share);
                if !picks.is_empty() {
                    slot.queue.push_back(Delivery::picked(
                        recent.events.clone(),
                        Arc::clone(&recent.share),
                        picks,
                        recent.upto,
                    ));
                }
            }
        }
        let id = state.free.pop().unwrap_or(state.slots.len());
        state.index.insert(id, slot.term.as_ref());
        if id == state.slots.len() {
            state.slots.push(Some(slot));
        } else {
            state.slots[id] = Some(slot);
        }
        Some(HubFeed {
            hub: Arc::clone(self),
            id,
        })
    }

    /// One watcher's events of a batch, for a join's catch-up.
    fn picks_for(&self, slot: &Slot, events: &Events, share: &KindShare) -> Vec<(u32, EventType)> {
        events
            .iter_indexed()
            .filter(|(_, ev)| ev.revision > slot.after)
            .filter_map(|(i, ev)| {
                let t = slot.selection.pick(&self.kind, share, i, ev)?;
                Some((u32::try_from(i).ok()?, t))
            })
            .collect()
    }

    fn dispatch(&self, events: &Events, progress: Revision) {
        let Some(share) = BatchShare::of(events, &self.kind) else {
            return self.end(StorageError::Internal(
                "a watch batch memo holds another type".into(),
            ));
        };
        let upto = events.last_revision().unwrap_or(progress).max(progress);
        let mut picked: HashMap<usize, Vec<(u32, EventType)>> = HashMap::new();
        let mut candidates = Vec::new();
        let mut state = self.state.lock();
        let mut len = 0;
        for (i, ev) in events.iter_indexed() {
            len += 1;
            let attrs = share.attrs(i, ev);
            candidates.clear();
            state
                .index
                .candidates(&self.kind, attrs.new, attrs.old, &mut candidates);
            candidates.sort_unstable();
            candidates.dedup();
            for &id in &candidates {
                let Some(Some(slot)) = state.slots.get(id) else {
                    continue;
                };
                if ev.revision <= slot.after {
                    continue;
                }
                if let (Some(t), Ok(i)) = (
                    slot.selection.pick(&self.kind, &share, i, ev),
                    u32::try_from(i),
                ) {
                    picked.entry(id).or_default().push((i, t));
                }
            }
        }
        for (id, picks) in picked {
            let Some(Some(slot)) = state.slots.get_mut(id) else {
                continue;
            };
            if slot.lagged {
                continue;
            }
            if slot.queue.len() >= MAX_QUEUED {
                slot.lagged = true;
                slot.queue.clear();
            } else {
                slot.queue.push_back(Delivery::picked(
                    events.clone(),
                    Arc::clone(&share),
                    picks,
                    upto,
                ));
            }
            if let Some(w) = slot.waker.take() {
                w.wake();
            }
        }
        state.dispatched = state.dispatched.max(upto);
        state.recent.push_back(Recent {
            events: events.clone(),
            share,
            upto,
            len,
        });
        state.recent_events += len;
        while state.recent_events > RECENT_EVENTS {
            let Some(old) = state.recent.pop_front() else {
                break;
            };
            state.recent_events -= old.len;
            state.oldest = old.upto;
        }
    }

    fn end(&self, err: StorageError) {
        let mut state = self.state.lock();
        state.ended = Some(err);
        for slot in state.slots.iter_mut().flatten() {
            if let Some(w) = slot.waker.take() {
                w.wake();
            }
        }
    }
}

/// One watcher's feed from a hub; dropping it leaves the hub.
pub struct HubFeed {
    hub: Arc<Hub>,
    id: usize,
}

impl Drop for HubFeed {
    fn drop(&mut self) {
        let mut state = self.hub.state.lock();
        if let Some(slot) = state.slots.get_mut(self.id).and_then(Option::take) {
            state.index.remove(self.id, slot.term.as_ref());
            state.free.push(self.id);
        }
    }
}

impl HubFeed {
    /// The next delivery; `Pending` registers `waker` (when given).
    pub fn poll_next(&self, waker: Option<&Waker>) -> Poll<Result<Delivery, StorageError>> {
        let mut state = self.hub.state.lock();
        let ended = state.ended.clone();
        let Some(slot) = state.slots.get_mut(self.id).and_then(Option::as_mut) else {
            return Poll::Ready(Err(StorageError::Lagged));
        };
        if let Some(d) = slot.queue.pop_front() {
            slot.taken = slot.taken.max(d.upto);
            return Poll::Ready(Ok(d));
        }
        if slot.lagged {
            return Poll::Ready(Err(StorageError::Lagged));
        }
        if let Some(e) = ended {
            return Poll::Ready(Err(e));
        }
        if let Some(w) = waker {
            slot.waker = Some(w.clone());
        }
        Poll::Pending
    }

    /// The newest revision this watcher has been sent or passed over.
    #[must_use]
    pub fn progress(&self) -> Revision {
        let state = self.hub.state.lock();
        match state.slots.get(self.id).and_then(Option::as_ref) {
            Some(slot) if slot.queue.is_empty() && !slot.lagged => slot.taken.max(state.dispatched),
            Some(slot) => slot.taken,
            None => state.dispatched,
        }
    }
}
