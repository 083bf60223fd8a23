//! Pieces shared by the engine's benchmark binaries: watchers that drain a
//! watch batch by batch and tally what they saw.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use cairn_engine::{Engine, KeyRange, Revision};
use tokio::runtime::Runtime;

/// One watcher's tally.
#[derive(Default)]
pub struct Tally {
    pub events: AtomicU64,
    /// Events whose revision did not follow the previous one's.
    pub out_of_order: AtomicU64,
    /// Whether the watch ended with an error (lagged, compacted).
    pub failed: AtomicBool,
}

/// Starts `n` watchers on `prefix` after `after`, each a tokio task that
/// takes whole commit batches (shared by every watcher, no per-event copies)
/// and updates its tally once per batch.
pub fn spawn_watchers(
    rt: &Runtime,
    engine: &Engine,
    prefix: &[u8],
    after: Revision,
    n: usize,
) -> (Vec<Arc<Tally>>, Vec<tokio::task::JoinHandle<()>>) {
    let mut tallies = Vec::new();
    let mut tasks = Vec::new();
    for _ in 0..n {
        let tally = Arc::new(Tally::default());
        let mut w = engine
            .watch(KeyRange::prefix(prefix), after)
            .expect("watch");
        let t = Arc::clone(&tally);
        tasks.push(rt.spawn(async move {
            let mut last = Revision::ZERO;
            while let Some(batch) = w.next_batch().await {
                match batch {
                    Ok(batch) => {
                        let (mut n, mut disordered) = (0, 0);
                        for ev in batch.iter() {
                            disordered += u64::from(ev.revision <= last);
                            last = ev.revision;
                            n += 1;
                        }
                        t.out_of_order.fetch_add(disordered, Ordering::Relaxed);
                        t.events.fetch_add(n, Ordering::Relaxed);
                    }
                    Err(e) => {
                        eprintln!("watcher ended: {e}");
                        t.failed.store(true, Ordering::Relaxed);
                        return;
                    }
                }
            }
        }));
        tallies.push(tally);
    }
    (tallies, tasks)
}
