//! The default backend: cairn-engine on a local data directory.

use std::path::Path;
use std::time::SystemTime;

use cairn_engine::{Engine, Options};
use parking_lot::Mutex;

use crate::storage::{
    BoxFuture, Committed, GetResult, KeyRange, RangeOptions, RangeResult, Revision, Storage,
    StorageError, Txn, Watch,
};

/// cairn-engine behind the `Storage` trait.
pub struct Embedded {
    engine: Mutex<Option<Engine>>,
    handle: Engine,
}

impl Embedded {
    /// Opens (creating) the data directory with durable commits.
    pub fn open(dir: &Path) -> Result<Embedded, StorageError> {
        // A watch whose client stops reading is ended (and re-lists) once this
        // many commit batches wait for it, so one slow client cannot pin much
        // shared memory.
        let engine = Engine::open(
            dir,
            Options {
                watch_buffer_batches: 1024,
                ..Options::default()
            },
        )?;
        Ok(Embedded {
            engine: Mutex::new(Some(engine.clone())),
            handle: engine,
        })
    }
}

impl Storage for Embedded {
    fn get(&self, key: &[u8], at: Option<Revision>) -> Result<GetResult, StorageError> {
        self.handle.get(key, at)
    }

    fn range(&self, range: &KeyRange, opts: RangeOptions) -> Result<RangeResult, StorageError> {
        self.handle.range(range, opts)
    }

    fn commit(&self, txn: Txn) -> BoxFuture<'_, Result<Committed, StorageError>> {
        Box::pin(self.handle.commit(txn))
    }

    fn watch(&self, range: KeyRange, after: Revision) -> Result<Watch, StorageError> {
        self.handle.watch(range, after)
    }

    fn current_revision(&self) -> Revision {
        self.handle.current_revision()
    }

    fn compacted_revision(&self) -> Revision {
        self.handle.compacted_revision()
    }

    fn compact(&self, at: Revision) -> Result<(), StorageError> {
        self.handle.compact(at)
    }

    fn revision_at(&self, time: SystemTime) -> Option<Revision> {
        self.handle.revision_at(time)
    }

    fn health(&self) -> Result<(), String> {
        if self.engine.lock().is_none() {
            return Err("storage closed".into());
        }
        Ok(())
    }

    fn close(&self) {
        if let Some(e) = self.engine.lock().take() {
            e.close();
        }
    }
}
