//! The events one watcher is sent, batch by batch: every event of its
//! range (unfiltered watchers, straight from the storage watch), or the
//! events its selection picks — from the kind's hub, or from its own
//! storage watch when it starts before the hub's history.

use std::future::poll_fn;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::api::kind::KindSpec;
use crate::api::watch::hub::HubFeed;
use crate::api::watch::selection::Selection;
use crate::api::watch::share::{BatchShare, KindShare};
use crate::api::watch::translate::EventType;
use crate::storage::{Events, Revision, StorageError, Watch};

/// Which events of a batch a watcher is sent.
pub enum Picks {
    /// Every event of the watcher's share, as it is.
    Every,
    /// These events (by position in the whole batch) as these types.
    These(Vec<(u32, EventType)>),
}

/// One batch for one watcher.
pub struct Delivery {
    pub events: Events,
    /// What the batch's watchers of this kind share (attributes, encodings).
    pub share: Arc<KindShare>,
    pub picks: Picks,
    /// The batch's newest revision.
    pub upto: Revision,
}

impl Delivery {
    pub(super) fn picked(
        events: Events,
        share: Arc<KindShare>,
        picks: Vec<(u32, EventType)>,
        upto: Revision,
    ) -> Delivery {
        Delivery {
            events,
            share,
            picks: Picks::These(picks),
            upto,
        }
    }
}

/// A watcher's source of deliveries.
pub enum Feed {
    /// Unfiltered: every event of the range.
    Every { watch: Watch, kind: Arc<KindSpec> },
    /// Filtered on its own storage watch.
    Own {
        watch: Watch,
        kind: Arc<KindSpec>,
        selection: Arc<Selection>,
    },
    /// Filtered through the kind's hub.
    Hub(HubFeed),
}

fn share(events: &Events, kind: &Arc<KindSpec>) -> Result<Arc<KindShare>, StorageError> {
    BatchShare::of(events, kind)
        .ok_or_else(|| StorageError::Internal("a watch batch memo holds another type".into()))
}

impl Feed {
    fn deliver(&self, events: Events) -> Option<Result<Delivery, StorageError>> {
        let (kind, selection) = match self {
            Feed::Every { kind, .. } => (kind, None),
            Feed::Own {
                kind, selection, ..
            } => (kind, Some(selection)),
            Feed::Hub(_) => return None,
        };
        let share = match share(&events, kind) {
            Ok(s) => s,
            Err(e) => return Some(Err(e)),
        };
        let upto = events.last_revision().unwrap_or_default();
        let Some(selection) = selection else {
            return Some(Ok(Delivery {
                events,
                share,
                picks: Picks::Every,
                upto,
            }));
        };
        let picks: Vec<(u32, EventType)> = events
            .iter_indexed()
            .filter_map(|(i, ev)| {
                let t = selection.pick(kind, &share, i, ev)?;
                Some((u32::try_from(i).ok()?, t))
            })
            .collect();
        (!picks.is_empty()).then(|| Ok(Delivery::picked(events, share, picks, upto)))
    }

    /// The next delivery; `None` once storage has closed. Cancel-safe.
    pub async fn next(&mut self) -> Option<Result<Delivery, StorageError>> {
        poll_fn(|cx| self.poll_next(Some(cx))).await
    }

    /// The next delivery if one is ready without waiting.
    pub fn try_next(&mut self) -> Option<Result<Delivery, StorageError>> {
        match self.poll_next(None) {
            Poll::Ready(d) => d,
            Poll::Pending => None,
        }
    }

    fn poll_next(
        &mut self,
        cx: Option<&mut Context<'_>>,
    ) -> Poll<Option<Result<Delivery, StorageError>>> {
        if let Feed::Hub(hub) = self {
            return hub.poll_next(cx.map(|c| c.waker())).map(Some);
        }
        let mut cx = cx;
        loop {
            let (Feed::Every { watch, .. } | Feed::Own { watch, .. }) = self else {
                return Poll::Ready(None);
            };
            let got = match cx.as_deref_mut() {
                Some(cx) => match watch.poll_next_batch(cx) {
                    Poll::Ready(got) => got,
                    Poll::Pending => return Poll::Pending,
                },
                None => match watch.try_next_batch() {
                    Some(got) => Some(got),
                    None => return Poll::Pending,
                },
            };
            match got {
                Some(Ok(events)) => {
                    if let Some(d) = self.deliver(events) {
                        return Poll::Ready(Some(d));
                    }
                }
                Some(Err(e)) => return Poll::Ready(Some(Err(e))),
                None => return Poll::Ready(None),
            }
        }
    }

    /// The revision of the newest event delivered or passed over.
    #[must_use]
    pub fn progress(&self) -> Revision {
        match self {
            Feed::Every { watch, .. } | Feed::Own { watch, .. } => watch.progress(),
            Feed::Hub(hub) => hub.progress(),
        }
    }
}
