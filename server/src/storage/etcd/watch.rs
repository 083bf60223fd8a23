//! A watch over its own etcd Watch stream: created with `prev_kv` and
//! progress notifications from the caller's revision itself (its events
//! are skipped), so a start at the compaction point's predecessor is
//! refused as compacted, as every backend refuses it. A task reads the
//! stream and hands each response's events on as one batch. The channel is
//! bounded, so a slow consumer slows the stream (HTTP/2 flow control
//! reaches etcd) rather than growing memory. Dropping the watch ends the
//! task and with it the stream.

use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::sync::{mpsc, watch};

use super::convert::key_value;
use super::errors::plain;
use super::keys::Keys;
use super::proto::{
    EVENT_DELETE, WATCH, WatchCreateRequest, WatchRequest, WatchRequestUnion, WatchResponse,
    revision_of,
};
use crate::storage::grpc::GrpcClient;
use crate::storage::{
    Batch, Event, EventKind, Events, KeyRange, Revision, StorageError, WatchStream,
};

/// Batches a watcher may have waiting.
const QUEUE: usize = 64;

enum Item {
    Events(Events, Revision),
    /// etcd says every change up to here was sent.
    Progress(Revision),
    Failed(StorageError),
}

/// The consumer's side.
pub struct EtcdWatch {
    items: mpsc::Receiver<Item>,
    progress: Revision,
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
    ) -> EtcdWatch {
        let (key, range_end) = keys.range_to_etcd(range);
        let request = WatchRequest {
            request_union: Some(WatchRequestUnion::Create(WatchCreateRequest {
                key,
                range_end,
                start_revision: i64::try_from(after.get().max(1)).unwrap_or(i64::MAX),
                progress_notify: true,
                prev_kv: true,
            })),
        };
        let (tx, items) = mpsc::channel(QUEUE);
        let task = tokio::spawn(run(client, keys, request, after, tx, closed));
        EtcdWatch {
            items,
            progress: after,
            task,
        }
    }
}

async fn run(
    client: Arc<GrpcClient>,
    keys: Keys,
    request: WatchRequest,
    after: Revision,
    tx: mpsc::Sender<Item>,
    mut closed: watch::Receiver<bool>,
) {
    let stream = tokio::select! {
        opened = client.open_stream::<_, WatchResponse>(WATCH, "Watch", &request) => opened,
        _ = closed.wait_for(|c| *c) => return,
    };
    let (_requests, mut responses) = match stream {
        Ok(stream) => stream,
        Err(e) => {
            let _ = tx.send(Item::Failed(plain(e))).await;
            return;
        }
    };
    // `_requests` stays alive: etcd ends a watch stream whose client side ends.
    loop {
        let next = tokio::select! {
            next = responses.message() => next,
            _ = closed.wait_for(|c| *c) => return,
            () = tx.closed() => return,
        };
        let item = match next {
            Ok(Some(response)) => match interpret(&keys, response, after) {
                Some(item) => item,
                None => continue,
            },
            Ok(None) => Item::Failed(StorageError::Unavailable(
                "etcd: the watch stream ended".into(),
            )),
            Err(e) => Item::Failed(plain(e)),
        };
        let last = matches!(item, Item::Failed(_));
        if tx.send(item).await.is_err() || last {
            return;
        }
    }
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
}
