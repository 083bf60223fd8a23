//! A shared informer: one informer and its cache run by a task of their
//! own, read by any number of consumers at once (request handlers reading
//! RBAC bindings or webhook configurations, controllers), each told when
//! the cache changed.

use std::sync::Arc;

use parking_lot::{RwLock, RwLockReadGuard};
use tokio::sync::watch;

use super::{Cache, Informer, KeyValue};

/// A cache kept current by its informer's task; clones share it.
pub struct Shared<T> {
    cache: Arc<RwLock<Cache<T>>>,
    /// Counts the changes applied (a new value per change).
    changes: watch::Receiver<u64>,
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Shared<T> {
        Shared {
            cache: Arc::clone(&self.cache),
            changes: self.changes.clone(),
        }
    }
}

impl<T: Send + Sync + 'static> Shared<T> {
    /// Starts following `informer`, keeping what `project` makes of each
    /// object, until `stop` flips or storage closes.
    pub fn spawn(
        mut informer: Informer,
        project: fn(&KeyValue) -> Option<T>,
        mut stop: watch::Receiver<bool>,
    ) -> Shared<T> {
        let cache = Arc::new(RwLock::new(Cache::new(project)));
        let (tx, changes) = watch::channel(0);
        let writer = Arc::clone(&cache);
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    update = informer.next() => match update {
                        Some(Ok(update)) => {
                            // A list is applied whole before anyone is told.
                            let mut changed = writer.write().apply(update);
                            while let Some(Ok(more)) = informer.try_next() {
                                changed |= writer.write().apply(more);
                            }
                            if changed {
                                tx.send_modify(|n| *n += 1);
                            }
                        }
                        Some(Err(e)) => {
                            // The informer backs off before it lists again.
                            tracing::warn!(error = %e, "shared informer cannot list; retrying");
                        }
                        None => return,
                    },
                    _ = stop.changed() => return,
                }
            }
        });
        Shared { cache, changes }
    }

    /// The cache as it is now (hold the guard briefly: the informer's task
    /// waits for it to write).
    pub fn read(&self) -> RwLockReadGuard<'_, Cache<T>> {
        self.cache.read()
    }

    /// Waits until the cache changed since this handle last looked; `false`
    /// once the informer has stopped.
    pub async fn changed(&mut self) -> bool {
        self.changes.changed().await.is_ok()
    }
}
