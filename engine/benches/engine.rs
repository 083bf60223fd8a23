//! Criterion micro-benchmarks of cairn-engine: durable and unsynced put rates
//! with 1 and 64 committers against the disk's raw append+fdatasync rate, point
//! gets and full/paged ranges over 100k keys, and writer throughput while 100
//! watchers follow the writes (checking every watcher saw every event).
//!
//! Data directories live under `target/bench-data` (on the real disk, not a
//! tmpfs). Keys look like `/registry/events/ns-N/ev-M`, values are 500 bytes.
//! Whole run: `cargo bench -p cairn-engine --bench engine` (about a minute and
//! a half); add `-- --quick` for a smoke run or a name filter such as `-- read/`.

mod common;
use common::Tally;

use std::cell::{OnceCell, RefCell};
use std::fs::{File, OpenOptions};
use std::hint::black_box;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use cairn_engine::{Engine, KeyRange, Options, RangeOptions, Txn, prefix_end};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tempfile::TempDir;
use tokio::runtime::Runtime;

const VALUE_LEN: usize = 500;
const PREFIX: &[u8] = b"/registry/events/";
const READ_KEYS: u64 = 100_000;
const COMMITTERS: usize = 64;
const WATCHERS: usize = 100;

/// `/registry/events/ns-N/ev-M`: about 32 bytes.
fn key(i: u64) -> Vec<u8> {
    format!("/registry/events/ns-{}/ev-{i:06}", i % 100).into_bytes()
}

fn value(i: u64) -> Vec<u8> {
    let mut v = vec![b'v'; VALUE_LEN];
    v[..8].copy_from_slice(&i.to_le_bytes());
    v
}

/// A fresh directory under `target/bench-data`, removed when dropped.
fn bench_dir(name: &str) -> TempDir {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-data");
    std::fs::create_dir_all(&base).expect("create target/bench-data");
    tempfile::Builder::new()
        .prefix(name)
        .tempdir_in(&base)
        .expect("create bench dir")
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// An engine in its own directory plus a counter handing out fresh key ids.
struct Store {
    engine: Engine,
    next: Arc<AtomicU64>,
    _dir: TempDir,
}

impl Store {
    fn open(name: &str, options: Options) -> Store {
        let dir = bench_dir(name);
        let engine = Engine::open(dir.path(), options).expect("open engine");
        Store {
            engine,
            next: Arc::new(AtomicU64::new(0)),
            _dir: dir,
        }
    }
}

/// `iters` single-put commits from one thread; returns the time taken.
fn put_serial(store: &Store, iters: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        let i = store.next.fetch_add(1, Ordering::Relaxed);
        store
            .engine
            .commit_blocking(Txn::new().put(key(i), value(i)))
            .expect("commit");
    }
    start.elapsed()
}

/// `iters` single-put commits shared by `committers` tokio tasks (each takes
/// the next unit of work until none is left, so all stay busy to the end).
fn put_concurrent(rt: &Runtime, store: &Store, committers: usize, iters: u64) -> Duration {
    let remaining = Arc::new(AtomicU64::new(iters));
    let start = Instant::now();
    rt.block_on(async {
        let tasks: Vec<_> = (0..committers)
            .map(|_| {
                let (engine, next, remaining) = (
                    store.engine.clone(),
                    Arc::clone(&store.next),
                    Arc::clone(&remaining),
                );
                tokio::spawn(async move {
                    while remaining
                        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| r.checked_sub(1))
                        .is_ok()
                    {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        engine
                            .commit(Txn::new().put(key(i), value(i)))
                            .await
                            .expect("commit");
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.expect("committer task");
        }
    });
    start.elapsed()
}

/// Appends 4 KiB and fdatasyncs, `iters` times: the disk's own durable-write rate.
struct RawFile {
    file: File,
    offset: u64,
    _dir: TempDir,
}

impl RawFile {
    fn new() -> RawFile {
        let dir = bench_dir("raw-fdatasync-");
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(dir.path().join("raw.dat"))
            .expect("create raw file");
        RawFile {
            file,
            offset: 0,
            _dir: dir,
        }
    }

    fn run(&mut self, iters: u64) -> Duration {
        let block = vec![0xa5u8; 4096];
        let start = Instant::now();
        for _ in 0..iters {
            if self.offset >= 64 << 20 {
                // Start over, like the engine rolling to a new segment.
                self.file.set_len(0).expect("truncate");
                self.offset = 0;
            }
            self.file.write_all_at(&block, self.offset).expect("write");
            self.file.sync_data().expect("fdatasync");
            self.offset += block.len() as u64;
        }
        start.elapsed()
    }
}

fn bench_writes(c: &mut Criterion) {
    let rt = runtime();
    let mut g = c.benchmark_group("write");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6))
        .throughput(Throughput::Elements(1));

    let raw = OnceCell::new();
    g.bench_function("raw_fdatasync", |b| {
        let _ = raw.get_or_init(|| RefCell::new(RawFile::new()));
        b.iter_custom(|iters| raw.get().expect("initialised").borrow_mut().run(iters));
    });
    drop(raw);

    // `durable_appending` shows what the zero fill ahead of appends saves:
    // without it every commit's fdatasync also writes the file's size.
    let appending = Options {
        zero_fill_ahead: 0,
        ..Options::default()
    };
    for (name, options) in [
        ("durable", Options::default()),
        ("durable_appending", appending),
        ("nosync", Options::no_sync()),
    ] {
        let store = OnceCell::new();
        g.bench_function(format!("put_{name}_1"), |b| {
            let s = store.get_or_init(|| Store::open(&format!("put-{name}-"), options.clone()));
            b.iter_custom(|iters| put_serial(s, iters));
        });
        g.bench_function(format!("put_{name}_{COMMITTERS}"), |b| {
            let s = store.get_or_init(|| Store::open(&format!("put-{name}-"), options.clone()));
            b.iter_custom(|iters| put_concurrent(&rt, s, COMMITTERS, iters));
        });
    }
    g.finish();
}

/// 100k keys written unsynced in transactions of 1000 puts.
fn read_store() -> (Store, Vec<Vec<u8>>) {
    let store = Store::open("read-", Options::no_sync());
    let mut keys = Vec::with_capacity(READ_KEYS as usize);
    for chunk in (0..READ_KEYS).collect::<Vec<_>>().chunks(1000) {
        let mut txn = Txn::new();
        for &i in chunk {
            txn = txn.put(key(i), value(i));
            keys.push(key(i));
        }
        store.engine.commit_blocking(txn).expect("populate");
    }
    let stats = store.engine.stats();
    assert_eq!(stats.live_keys, READ_KEYS, "populated store");
    (store, keys)
}

fn bench_reads(c: &mut Criterion) {
    let mut g = c.benchmark_group("read");
    g.warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let data = OnceCell::new();

    g.bench_function("get", |b| {
        let (s, keys) = data.get_or_init(read_store);
        // A cheap pseudo-random walk over the keys so lookups are not sequential.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        b.iter(|| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = &keys[(x % READ_KEYS) as usize];
            let r = s.engine.get(black_box(k), None).expect("get");
            black_box(r.kv.expect("present key"))
        });
    });

    g.sample_size(10)
        .throughput(Throughput::Elements(READ_KEYS));
    let range = KeyRange::prefix(PREFIX);
    g.bench_function("range_full_100k", |b| {
        let (s, _) = data.get_or_init(read_store);
        b.iter(|| {
            let r = s
                .engine
                .range(black_box(&range), RangeOptions::default())
                .expect("range");
            assert_eq!(r.items.len() as u64, READ_KEYS);
            black_box(r)
        });
    });

    g.bench_function("range_paged_100k", |b| {
        let (s, _) = data.get_or_init(read_store);
        let end = prefix_end(PREFIX);
        b.iter(|| {
            let mut start = PREFIX.to_vec();
            let mut at = None;
            let mut total = 0u64;
            loop {
                let page = s
                    .engine
                    .range(
                        &KeyRange::between(&start, &end),
                        RangeOptions {
                            at,
                            limit: 500,
                            count_total: false,
                        },
                    )
                    .expect("range page");
                total += page.items.len() as u64;
                at = Some(page.revision);
                let Some(last) = page.items.last() else { break };
                start = last.key.to_vec();
                start.push(0);
                if !page.more {
                    break;
                }
                black_box(&page);
            }
            assert_eq!(total, READ_KEYS);
        });
    });
    g.finish();
}

struct Fanout {
    store: Store,
    tallies: Vec<Arc<Tally>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    /// Key id counter value when the watchers started.
    first: u64,
}

fn start_fanout(rt: &Runtime) -> Fanout {
    let store = Store::open("watch-", Options::default());
    let after = store.engine.current_revision();
    let (tallies, tasks) = common::spawn_watchers(rt, &store.engine, PREFIX, after, WATCHERS);
    let first = store.next.load(Ordering::Relaxed);
    Fanout {
        store,
        tallies,
        tasks,
        first,
    }
}

fn bench_watch(c: &mut Criterion) {
    let rt = runtime();
    let mut g = c.benchmark_group("watch");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6))
        .throughput(Throughput::Elements(1));
    let fanout = OnceCell::new();
    g.bench_function(format!("watch_fanout_{WATCHERS}"), |b| {
        let f = fanout.get_or_init(|| start_fanout(&rt));
        b.iter_custom(|iters| put_concurrent(&rt, &f.store, COMMITTERS, iters));
    });
    g.finish();

    let Some(f) = fanout.into_inner() else { return };
    // Every put since the watchers started is one event for each of them.
    let expected = f.store.next.load(Ordering::Relaxed) - f.first;
    let delivered = |f: &Fanout| {
        f.tallies
            .iter()
            .map(|t| t.events.load(Ordering::Relaxed))
            .sum::<u64>()
    };
    let caught_up = Instant::now();
    // Wait until everything arrived, a watcher failed, or nothing moved for 3 s.
    let mut last_change = (delivered(&f), Instant::now());
    while delivered(&f) < expected * WATCHERS as u64
        && !f.tallies.iter().any(|t| t.failed.load(Ordering::Relaxed))
    {
        std::thread::sleep(Duration::from_millis(5));
        let d = delivered(&f);
        if d != last_change.0 {
            last_change = (d, Instant::now());
        } else if last_change.1.elapsed() > Duration::from_secs(3) {
            break;
        }
    }
    let lag = caught_up.elapsed();
    let got = delivered(&f);
    let complete = f
        .tallies
        .iter()
        .filter(|t| t.events.load(Ordering::Relaxed) == expected)
        .count();
    let failed = f
        .tallies
        .iter()
        .filter(|t| t.failed.load(Ordering::Relaxed))
        .count();
    let out_of_order: u64 = f
        .tallies
        .iter()
        .map(|t| t.out_of_order.load(Ordering::Relaxed))
        .sum();
    println!(
        "watch_fanout_{WATCHERS}: delivered {got}/{} events ({complete}/{WATCHERS} watchers complete, {failed} ended with an error, {out_of_order} out of order; waited {lag:.2?} after the last commit) {}",
        expected * WATCHERS as u64,
        if got == expected * WATCHERS as u64 && failed == 0 && out_of_order == 0 {
            "OK"
        } else {
            "MISMATCH"
        },
    );
    let Fanout { store, tasks, .. } = f;
    let Store { engine, _dir, .. } = store;
    engine.close();
    rt.block_on(async {
        for t in tasks {
            let _ = t.await;
        }
    });
}

criterion_group!(benches, bench_writes, bench_reads, bench_watch);
criterion_main!(benches);
