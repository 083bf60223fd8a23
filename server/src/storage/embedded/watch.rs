//! The engine's watch behind `WatchStream`. The engine hands every watcher
//! of a commit batch the same batch; its memo keeps the batch converted to
//! the boundary's types, so conversion happens once per batch however many
//! watchers there are.

use std::sync::Arc;
use std::task::{Context, Poll};

use cairn_engine as engine;

use super::convert;
use crate::storage::{Batch, Events, KeyRange, Revision, StorageError, WatchStream};

pub(super) struct EngineWatch {
    pub(super) inner: engine::Watch,
    pub(super) range: Arc<KeyRange>,
}

impl EngineWatch {
    fn share(
        &self,
        got: Option<engine::Result<engine::Events>>,
    ) -> Option<Result<Events, StorageError>> {
        let events = match got? {
            Ok(events) => events,
            Err(e) => return Some(Err(convert::error(e))),
        };
        let Some(batch) = events.memo(|all| {
            let converted = Batch::new(all.iter().map(convert::event).collect());
            Arc::new(converted.published_at(events.built()))
        }) else {
            return Some(Err(StorageError::Internal(
                "an engine batch memo holds another type".into(),
            )));
        };
        // The engine skips events before the watch's start revision, and the
        // first of the watch's events is past all of them.
        let start = events
            .iter_indexed()
            .next()
            .map_or(events.all().len(), |(i, _)| i);
        Some(Ok(Events::new(
            Arc::clone(batch),
            start,
            Some(Arc::clone(&self.range)),
        )))
    }
}

impl WatchStream for EngineWatch {
    fn poll_next_batch(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Events, StorageError>>> {
        match self.inner.poll_next_batch(cx) {
            Poll::Ready(got) => Poll::Ready(self.share(got)),
            Poll::Pending => Poll::Pending,
        }
    }

    fn try_next_batch(&mut self) -> Option<Result<Events, StorageError>> {
        let got = self.inner.try_next_batch();
        self.share(got)
    }

    fn progress(&self) -> Revision {
        convert::revision(self.inner.progress())
    }

    fn sync_progress(&mut self) -> Option<Revision> {
        // A write is acknowledged only after the engine published it.
        Some(convert::revision(self.inner.sync_progress()))
    }
}
