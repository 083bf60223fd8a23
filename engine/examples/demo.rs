//! A tour of cairn-engine on a real data directory: durable concurrent
//! commits, snapshot reads, a watch replaying history, compaction, reopen.
//!
//! `cargo run --release -p cairn-engine --example demo -- [DATA_DIR]`

use std::time::Instant;

use cairn_engine::{Engine, KeyRange, Options, RangeOptions, Revision, Txn};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "./cairn-data".into());
    let engine = Engine::open(&dir, Options::default())?;
    println!("opened {dir} at revision {}", engine.current_revision());
    let start_rev = engine.current_revision();

    // 64 threads commit durably at once; the writer groups them into shared fsyncs.
    let per_thread = 200;
    let t0 = Instant::now();
    std::thread::scope(|s| {
        for t in 0..64 {
            let engine = engine.clone();
            s.spawn(move || {
                for i in 0..per_thread {
                    let key = format!("/demo/{t:02}/{i:04}");
                    engine
                        .commit_blocking(Txn::new().put(key, vec![b'x'; 500]))
                        .expect("commit");
                }
            });
        }
    });
    let n = 64 * per_thread;
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "{n} durable puts from 64 threads in {secs:.2}s ({:.0} puts/s)",
        f64::from(n) / secs
    );

    let t0 = Instant::now();
    let all = engine.range(&KeyRange::prefix(b"/demo/"), RangeOptions::default())?;
    println!(
        "range over {} keys in {:.2} ms",
        all.items.len(),
        t0.elapsed().as_secs_f64() * 1e3
    );

    let mut watch = engine.watch(KeyRange::prefix(b"/demo/00/"), start_rev)?;
    let mut replayed = 0;
    while let Some(event) = watch.try_next() {
        event?;
        replayed += 1;
    }
    println!("a watch from revision {start_rev} replayed {replayed} events for /demo/00/");

    let now = engine.current_revision();
    engine.compact(Revision(now.get().saturating_sub(1000)))?;
    let stats = engine.stats();
    println!(
        "compacted at {}: {} live keys, {} versions, {} segments, {} bytes on disk",
        stats.compacted_revision,
        stats.live_keys,
        stats.versions,
        stats.segments,
        stats.bytes_on_disk
    );
    drop(watch);
    engine.close();

    let t0 = Instant::now();
    let reopened = Engine::open(&dir, Options::default())?;
    println!(
        "reopened in {:.1} ms at revision {}",
        t0.elapsed().as_secs_f64() * 1e3,
        reopened.current_revision()
    );
    Ok(())
}
