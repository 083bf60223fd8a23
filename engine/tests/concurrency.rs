//! Many writers and readers at once: group-committed batches land intact,
//! guarded transfers keep an invariant, and snapshot reads at a revision
//! never change while writers, compaction and reclaim go on.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use cairn_engine::{Engine, Error, Guard, KeyRange, Options, RangeOptions, Revision, Txn};

/// (sum of balances, every (key, value)) at a revision.
type Balance = (u64, Vec<(Vec<u8>, Vec<u8>)>);

#[test]
fn concurrent_committers_land_every_value_where_it_belongs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Engine::open(
        dir.path(),
        Options {
            segment_bytes: 64 << 10,
            ..Options::default()
        },
    )
    .expect("open");
    let threads: Vec<_> = (0..16)
        .map(|t| {
            let e = e.clone();
            std::thread::spawn(move || {
                (0..300)
                    .map(|i| {
                        let key = format!("/c/{t:02}/{i:04}");
                        let value = format!("{key}:{}", "z".repeat((i * 7 + t) % 90));
                        let c = e
                            .commit_blocking(Txn::new().put(key.clone(), value.clone()))
                            .expect("commit");
                        (key, value, c.revision)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let written: Vec<_> = threads
        .into_iter()
        .flat_map(|t| t.join().expect("join"))
        .collect();
    let mut revs: Vec<_> = written.iter().map(|w| w.2.get()).collect();
    revs.sort_unstable();
    assert_eq!(
        revs,
        (1..=4800).collect::<Vec<_>>(),
        "one revision per transaction, none skipped"
    );
    let check = |e: &Engine| {
        for (key, value, rev) in &written {
            let kv = e
                .get(key.as_bytes(), None)
                .expect("get")
                .kv
                .expect("present");
            assert_eq!(
                (&kv.key[..], &kv.value[..], kv.mod_revision),
                (key.as_bytes(), value.as_bytes(), *rev)
            );
        }
        let all = e
            .range(&KeyRange::prefix(b"/c/"), RangeOptions::default())
            .expect("range");
        assert_eq!(all.items.len(), written.len());
        let by_key: HashMap<_, _> = written
            .iter()
            .map(|w| (w.0.as_bytes(), w.1.as_bytes()))
            .collect();
        for kv in &all.items {
            assert_eq!(by_key[&kv.key[..]], &kv.value[..]);
        }
    };
    check(&e);
    drop(e);
    check(&Engine::open(dir.path(), Options::default()).expect("reopen"));
}

#[test]
fn guarded_transfers_keep_the_total_and_snapshots_hold() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Engine::open(
        dir.path(),
        Options {
            segment_bytes: 32 << 10,
            reclaim_min_ratio: 0.0,
            ..Options::no_sync()
        },
    )
    .expect("open");
    let accounts = 20u64;
    let mut init = Txn::new();
    for a in 0..accounts {
        init = init.put(format!("/acct/{a:02}"), "100");
    }
    e.commit_blocking(init).expect("init");
    let total = 100 * accounts;
    let stop = Arc::new(AtomicBool::new(false));
    let balance = |e: &Engine, at: Option<Revision>| -> Result<Balance, Error> {
        let r = e.range(
            &KeyRange::prefix(b"/acct/"),
            RangeOptions {
                at,
                ..RangeOptions::default()
            },
        )?;
        let sum = r
            .items
            .iter()
            .map(|kv| {
                std::str::from_utf8(&kv.value)
                    .expect("utf8")
                    .parse::<u64>()
                    .expect("num")
            })
            .sum();
        Ok((
            sum,
            r.items
                .iter()
                .map(|kv| (kv.key.to_vec(), kv.value.to_vec()))
                .collect(),
        ))
    };
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let (e, stop) = (e.clone(), Arc::clone(&stop));
            std::thread::spawn(move || {
                let mut checks = 0;
                while !stop.load(Ordering::Relaxed) {
                    let rev = e.current_revision();
                    let Ok((sum, first)) = balance(&e, Some(rev)) else {
                        continue;
                    };
                    assert_eq!(sum, total, "snapshot at {rev} is consistent");
                    // Reading the same revision again gives the same answer,
                    // unless compaction has since moved past it.
                    match balance(&e, Some(rev)) {
                        Ok((_, again)) => assert_eq!(again, first, "snapshot at {rev} changed"),
                        Err(Error::Compacted { .. }) => {}
                        Err(other) => panic!("{other}"),
                    }
                    checks += 1;
                }
                checks
            })
        })
        .collect();
    let writers: Vec<_> = (0..6u64)
        .map(|w| {
            let e = e.clone();
            std::thread::spawn(move || {
                let mut done = 0;
                let mut conflicts = 0;
                let mut i = w;
                while done < 400 {
                    i = i
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let (from, to) = ((i >> 33) % accounts, (i >> 17) % accounts);
                    if from == to {
                        continue;
                    }
                    let (kf, kt) = (format!("/acct/{from:02}"), format!("/acct/{to:02}"));
                    let vf = e.get(kf.as_bytes(), None).expect("get").kv.expect("acct");
                    let vt = e.get(kt.as_bytes(), None).expect("get").kv.expect("acct");
                    let (bf, bt): (u64, u64) = (
                        std::str::from_utf8(&vf.value)
                            .expect("utf8")
                            .parse()
                            .expect("num"),
                        std::str::from_utf8(&vt.value)
                            .expect("utf8")
                            .parse()
                            .expect("num"),
                    );
                    if bf == 0 {
                        continue;
                    }
                    let txn = Txn::new()
                        .guard(Guard::ModRevision(kf.clone().into_bytes(), vf.mod_revision))
                        .guard(Guard::ModRevision(kt.clone().into_bytes(), vt.mod_revision))
                        .put(kf, (bf - 1).to_string())
                        .put(kt, (bt + 1).to_string());
                    match e.commit_blocking(txn) {
                        Ok(_) => done += 1,
                        Err(Error::GuardFailed { .. }) => conflicts += 1,
                        Err(other) => panic!("{other}"),
                    }
                }
                conflicts
            })
        })
        .collect();
    let compactor = {
        let (e, stop) = (e.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(15));
                let target = e.current_revision().get().saturating_sub(50);
                e.compact(Revision(target)).expect("compact");
                e.reclaim(false).expect("reclaim");
            }
        })
    };
    let conflicts: u64 = writers.into_iter().map(|w| w.join().expect("writer")).sum();
    stop.store(true, Ordering::Relaxed);
    compactor.join().expect("compactor");
    let checks: u64 = readers.into_iter().map(|r| r.join().expect("reader")).sum();
    assert!(checks > 10, "readers ran: {checks}");
    let _ = conflicts;
    assert_eq!(balance(&e, None).expect("final").0, total);
    assert_eq!(e.current_revision().get(), 1 + 6 * 400);
    drop(e);
    let e = Engine::open(dir.path(), Options::no_sync()).expect("reopen");
    assert_eq!(balance(&e, None).expect("after reopen").0, total);
}
