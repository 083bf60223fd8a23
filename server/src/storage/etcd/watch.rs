//! A watch over its own etcd Watch stream: created with `prev_kv` and
//! progress notifications from the caller's revision itself (its events
//! are skipped), so a start at the compaction point's predecessor is
//! refused as compacted, as every backend refuses it. A task reads the
//! stream and hands each response's events on as one batch; a stream that
//! breaks (a member died or lost its leader) is reopened from the last
//! revision delivered, on whichever member answers. A consumer
//! that lets the embedded engine's bound of batches pile up is ended with
//! `Lagged` once it has read them (it must re-list), as the embedded
//! backend ends it, rather than growing memory. Dropping the watch ends
//! the task and with it the stream.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::{Notify, mpsc, watch};

use super::convert::key_value;
use super::errors::plain;
use super::keys::Keys;
use super::proto::{
    EVENT_DELETE, WATCH, WatchCreateRequest, WatchProgressRequest, WatchRequest, WatchRequestUnion,
    WatchResponse, revision_of,
};
use crate::storage::grpc::{DEADLINE_EXCEEDED, GrpcClient, RpcError, UNAVAILABLE};
use crate::storage::{
    Batch, Event, EventKind, Events, KeyRange, Revision, StorageError, WatchStream,
};

/// Batches a watcher may have waiting (the embedded backend's bound).
const QUEUE: usize = 1024;
/// How long a watch tries to reopen a broken stream before it reports
/// etcd unavailable (its consumer then re-watches or re-lists).
const RESUME_PATIENCE: Duration = Duration::from_secs(60);
const FIRST_PAUSE: Duration = Duration::from_millis(50);
const MAX_PAUSE: Duration = Duration::from_secs(1);
/// etcd's require-leader metadata (clientv3.WithRequireLeader): a member
/// that loses its leader ends the stream instead of going quiet.
const REQUIRE_LEADER: (&str, &str) = ("hasleader", "true");

enum Item {
    Events(Events, Revision),
    /// etcd says every change up to here was sent.
    Progress(Revision),
    Failed(StorageError),
}

/// The consumer's side.
pub struct EtcdWatch {
    items: mpsc::Receiver<Item>,
    /// Set when the queue overflowed: the watch ends once it is drained.
    lagged: Arc<AtomicBool>,
    progress: Revision,
    /// Wakes the task to ask etcd for a progress notification.
    progress_wanted: Arc<Notify>,
    /// Whether this etcd orders those after the events before them; an
    /// older one is not asked (its answer could overtake events).
    ordered_progress: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for EtcdWatch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl EtcdWatch {
    /// Starts watching `range` after `after`; ends when `closed` flips.
    pub fn start(
        client: Arc<GrpcClient>,
        keys: Keys,
        range: &KeyRange,
        after: Revision,
        closed: watch::Receiver<bool>,
        ordered_progress: Arc<AtomicBool>,
    ) -> EtcdWatch {
        let range = keys.etcd_range(range);
        let (tx, items) = mpsc::channel(QUEUE);
        let lagged = Arc::new(AtomicBool::new(false));
        let progress_wanted = Arc::new(Notify::new());
        let feed = Feed {
            tx,
            lagged: Arc::clone(&lagged),
            progress_wanted: Arc::clone(&progress_wanted),
        };
        let task = tokio::spawn(run(client, keys, range, after, feed, closed));
        EtcdWatch {
            items,
            lagged,
            progress: after,
            progress_wanted,
            ordered_progress,
            task,
        }
    }
}

/// The task's side of the queue.
struct Feed {
    tx: mpsc::Sender<Item>,
    lagged: Arc<AtomicBool>,
    progress_wanted: Arc<Notify>,
}

impl Feed {
    /// Queues `item`; `false` when the watch is over (consumer gone, or
    /// too far behind).
    fn send(&self, item: Item) -> bool {
        match self.tx.try_send(item) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.lagged.store(true, Ordering::Release);
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }
}

/// How one etcd Watch stream ended.
enum Ended {
    /// The watch is over (consumer gone, closed, or a failure reported).
    Over,
    /// The stream broke in a way another member, or the same one later,
    /// may mend: open it again from where it got to.
    Broken(RpcError),
}

/// Follows etcd Watch streams until the watch is over, opening a new one
/// from the last revision delivered whenever a stream breaks (a member
/// died or lost its leader), as etcd's own client does, so a consumer sees
/// neither a gap nor a repeat. Gives up, reporting etcd unavailable, once
/// no stream could be opened for `RESUME_PATIENCE`.
async fn run(
    client: Arc<GrpcClient>,
    keys: Keys,
    range: (Vec<u8>, Vec<u8>),
    after: Revision,
    feed: Feed,
    mut closed: watch::Receiver<bool>,
) {
    let mut delivered = after;
    let mut failing_since: Option<Instant> = None;
    let mut pause = FIRST_PAUSE;
    loop {
        let mut created = false;
        let broken = follow(
            &client,
            &keys,
            &range,
            &mut delivered,
            &mut created,
            &feed,
            &mut closed,
        )
        .await;
        let Ended::Broken(error) = broken else {
            return;
        };
        if created {
            failing_since = None;
            pause = FIRST_PAUSE;
        }
        let since = *failing_since.get_or_insert_with(Instant::now);
        if since.elapsed() >= RESUME_PATIENCE {
            feed.send(Item::Failed(plain(error)));
            return;
        }
        tracing::debug!(error = %error, "etcd watch stream broke; reopening");
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            _ = closed.wait_for(|c| *c) => return,
            () = feed.tx.closed() => return,
        }
        pause = (pause * 2).min(MAX_PAUSE);
    }
}

/// One etcd Watch stream from `delivered`, advancing it as events and
/// progress arrive; `created` turns true once etcd accepted the watch.
async fn follow(
    client: &GrpcClient,
    keys: &Keys,
    (key, range_end): &(Vec<u8>, Vec<u8>),
    delivered: &mut Revision,
    created: &mut bool,
    feed: &Feed,
    closed: &mut watch::Receiver<bool>,
) -> Ended {
    let request = WatchRequest {
        request_union: Some(WatchRequestUnion::Create(WatchCreateRequest {
            key: key.clone(),
            range_end: range_end.clone(),
            start_revision: i64::try_from(delivered.get().max(1)).unwrap_or(i64::MAX),
            progress_notify: true,
            prev_kv: true,
        })),
    };
    let stream = tokio::select! {
        opened = client.open_stream::<_, WatchResponse>(WATCH, "Watch", &[REQUIRE_LEADER], &request) => opened,
        _ = closed.wait_for(|c| *c) => return Ended::Over,
    };
    let (requests, mut responses) = match stream {
        Ok(stream) => stream,
        Err(e) if mendable(&e) => return Ended::Broken(e),
        Err(e) => {
            feed.send(Item::Failed(plain(e)));
            return Ended::Over;
        }
    };
    // `requests` stays alive: etcd ends a watch stream whose client side ends.
    loop {
        let next = tokio::select! {
            next = responses.message() => next,
            () = feed.progress_wanted.notified() => {
                ask_progress(&requests);
                continue;
            }
            _ = closed.wait_for(|c| *c) => return Ended::Over,
            () = feed.tx.closed() => return Ended::Over,
        };
        let response = match next {
            Ok(Some(response)) => response,
            Ok(None) => return Ended::Broken(RpcError::new(UNAVAILABLE, "the watch stream ended")),
            Err(e) if mendable(&e) => {
                if e.code == UNAVAILABLE {
                    client.abandon(responses.connection);
                }
                return Ended::Broken(e);
            }
            Err(e) => {
                feed.send(Item::Failed(plain(e)));
                return Ended::Over;
            }
        };
        *created |= response.created;
        let Some(item) = interpret(keys, response, *delivered) else {
            continue;
        };
        match &item {
            Item::Events(_, last) | Item::Progress(last) => *delivered = (*delivered).max(*last),
            Item::Failed(_) => {
                feed.send(item);
                return Ended::Over;
            }
        }
        if !feed.send(item) {
            return Ended::Over;
        }
    }
}

/// Asks etcd for a progress notification on the stream. A full request
/// queue means earlier requests are still to go: one of them will do.
fn ask_progress(requests: &mpsc::Sender<Bytes>) {
    let request = WatchRequest {
        request_union: Some(WatchRequestUnion::Progress(WatchProgressRequest {})),
    };
    if let Ok(frame) = crate::storage::grpc::encode_frame(&request) {
        let _ = requests.try_send(frame);
    }
}

/// Whether a stream failure is one a new stream may get past.
fn mendable(e: &RpcError) -> bool {
    matches!(e.code, UNAVAILABLE | DEADLINE_EXCEEDED)
}

fn wire(r: Revision) -> i64 {
    i64::try_from(r.get()).unwrap_or(i64::MAX)
}

/// What one response means for the watcher (`None`: nothing).
fn interpret(keys: &Keys, response: WatchResponse, after: Revision) -> Option<Item> {
    if response.compact_revision != 0 {
        return Some(Item::Failed(StorageError::Compacted {
            requested: after,
            compacted: Revision(u64::try_from(response.compact_revision).unwrap_or(0)),
        }));
    }
    if response.canceled {
        return Some(Item::Failed(StorageError::Unavailable(format!(
            "etcd: watch canceled: {}",
            response.cancel_reason
        ))));
    }
    if response.events.is_empty() {
        let at = Revision(revision_of(response.header.as_ref()));
        return (!response.created).then_some(Item::Progress(at));
    }
    let events: Vec<Event> = response
        .events
        .into_iter()
        .filter(|e| {
            e.kv.as_ref()
                .is_some_and(|kv| kv.mod_revision > wire(after))
        })
        .filter_map(|e| {
            let prev = e.prev_kv.map(|kv| key_value(keys, kv));
            let kv = key_value(keys, e.kv?);
            let key: Bytes = kv.key.clone();
            Some(if e.r#type == EVENT_DELETE {
                Event {
                    kind: EventKind::Delete,
                    key,
                    revision: kv.mod_revision,
                    kv: None,
                    prev,
                }
            } else {
                Event {
                    kind: EventKind::Put,
                    key,
                    revision: kv.mod_revision,
                    kv: Some(kv),
                    prev,
                }
            })
        })
        .collect();
    if events.is_empty() {
        return None;
    }
    let last = events.last().map_or(after, |e| e.revision);
    let events = Events::new(Arc::new(Batch::new(events)), 0, None);
    Some(Item::Events(events, last))
}

impl EtcdWatch {
    fn take(&mut self, item: Option<Item>) -> Option<Option<Result<Events, StorageError>>> {
        match item {
            None if self.lagged.swap(false, Ordering::AcqRel) => {
                Some(Some(Err(StorageError::Lagged)))
            }
            None => Some(None),
            Some(Item::Events(events, last)) => {
                self.progress = self.progress.max(last);
                Some(Some(Ok(events)))
            }
            Some(Item::Progress(at)) => {
                self.progress = self.progress.max(at);
                None
            }
            Some(Item::Failed(e)) => Some(Some(Err(e))),
        }
    }
}

impl WatchStream for EtcdWatch {
    fn poll_next_batch(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Events, StorageError>>> {
        loop {
            let item = std::task::ready!(self.items.poll_recv(cx));
            if let Some(out) = self.take(item) {
                return Poll::Ready(out);
            }
        }
    }

    fn try_next_batch(&mut self) -> Option<Result<Events, StorageError>> {
        loop {
            let item = match self.items.try_recv() {
                Ok(item) => Some(item),
                Err(mpsc::error::TryRecvError::Empty) => return None,
                Err(mpsc::error::TryRecvError::Disconnected) => None,
            };
            if let Some(out) = self.take(item) {
                return out;
            }
        }
    }

    fn progress(&self) -> Revision {
        self.progress
    }

    fn request_progress(&mut self) {
        if self.ordered_progress.load(Ordering::Acquire) {
            self.progress_wanted.notify_one();
        }
    }
}
