//! Watch events through the transformers: each commit batch is transformed
//! once (kept in the backend batch's memo) and shared by every watcher, as
//! its encodings are downstream. A delete whose previous value cannot be
//! read (an unsafe delete of an unreadable object) keeps its event, with
//! an empty previous value: the API layer says what it can of the object.

use std::sync::Arc;
use std::task::{Context, Poll};

use cairn_transform::Transformers;

use super::{SharedTransformers, plain};
use crate::storage::{Batch, Event, EventKind, Events, Revision, StorageError, Watch, WatchStream};

pub(super) struct PlainWatch {
    pub(super) inner: Watch,
    pub(super) transformers: Arc<SharedTransformers>,
    /// An event could not be transformed: the watch has ended.
    pub(super) failed: bool,
}

/// The batch with every value and previous value as written.
fn plain_batch(
    transformers: &Transformers,
    all: &[Event],
    published: std::time::Instant,
) -> Result<Arc<Batch>, StorageError> {
    let mut events = all.to_vec();
    for e in &mut events {
        if let Some(kv) = &mut e.kv {
            plain(transformers, kv)?;
        }
        if let Some(prev) = &mut e.prev {
            match plain(transformers, prev) {
                Ok(()) => {}
                Err(StorageError::CorruptValue { .. }) if e.kind == EventKind::Delete => {
                    prev.value = bytes::Bytes::new();
                }
                Err(err) => return Err(err),
            }
        }
    }
    Ok(Arc::new(Batch::new(events).published_at(published)))
}

impl PlainWatch {
    fn plain(
        &mut self,
        got: Option<Result<Events, StorageError>>,
    ) -> Option<Result<Events, StorageError>> {
        let events = match got? {
            Ok(events) => events,
            Err(e) => return Some(Err(e)),
        };
        let transformers = self.transformers.load();
        let published = events.published();
        let shared = events.memo(|all| plain_batch(&transformers, all, published));
        let result = match shared {
            Some(Ok(batch)) => Ok(events.with_batch(Arc::clone(batch))),
            Some(Err(e)) => Err(e.clone()),
            None => Err(StorageError::Internal(
                "a watch batch memo holds another type".into(),
            )),
        };
        // Like a backend's watch, one that failed ends.
        self.failed = result.is_err();
        Some(result)
    }
}

impl WatchStream for PlainWatch {
    fn poll_next_batch(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Events, StorageError>>> {
        if self.failed {
            return Poll::Ready(None);
        }
        match self.inner.poll_next_batch(cx) {
            Poll::Ready(got) => Poll::Ready(self.plain(got)),
            Poll::Pending => Poll::Pending,
        }
    }

    fn try_next_batch(&mut self) -> Option<Result<Events, StorageError>> {
        if self.failed {
            return None;
        }
        let got = self.inner.try_next_batch();
        self.plain(got)
    }

    fn progress(&self) -> Revision {
        self.inner.progress()
    }

    fn sync_progress(&mut self) -> Option<Revision> {
        if self.failed {
            return None;
        }
        self.inner.sync_progress()
    }

    fn request_progress(&mut self) {
        self.inner.request_progress();
    }
}
