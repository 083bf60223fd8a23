//! Model-based property test: random transactions, guarded writes, deletes,
//! reads at old revisions, ranges with limits, compactions, space reclaims,
//! reopens and watch replays, checked step by step against a plain in-memory
//! model of every revision's state.

use std::collections::BTreeMap;
use std::path::Path;

use cairn_engine::{
    Engine, Error, EventKind, Guard, KeyRange, Options, RangeOptions, Revision, Txn,
};
use proptest::prelude::*;

const KEYS: usize = 10;

fn key(i: usize) -> Vec<u8> {
    format!("/k/{i:02}").into_bytes()
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Rec {
    value: Vec<u8>,
    create: u64,
    modr: u64,
    version: u64,
}

type State = BTreeMap<Vec<u8>, Rec>;

/// Every revision's state, plus the compaction point.
struct Model {
    states: Vec<State>,
    compacted: u64,
}

impl Model {
    fn current(&self) -> u64 {
        (self.states.len() - 1) as u64
    }
    fn latest(&self) -> &State {
        self.states.last().expect("revision 0 exists")
    }
}

#[derive(Clone, Debug)]
enum GuardSpec {
    None,
    Absent(usize),
    ModRevCurrent(usize),
    ModRevWrong(usize),
}

#[derive(Clone, Debug)]
enum Step {
    Txn {
        ops: Vec<(usize, Option<Vec<u8>>)>,
        guard: GuardSpec,
    },
    Get {
        key: usize,
        back: u64,
    },
    Range {
        start: usize,
        end: usize,
        back: u64,
        limit: usize,
    },
    Compact {
        back: u64,
    },
    Reclaim,
    Reopen,
    WatchReplay {
        from_back: u64,
    },
}

fn step() -> impl Strategy<Value = Step> {
    let op = (
        0..KEYS,
        prop::option::weighted(0.75, prop::collection::vec(any::<u8>(), 0..40)),
    );
    let guard = prop_oneof![
        3 => Just(GuardSpec::None),
        1 => (0..KEYS).prop_map(GuardSpec::Absent),
        1 => (0..KEYS).prop_map(GuardSpec::ModRevCurrent),
        1 => (0..KEYS).prop_map(GuardSpec::ModRevWrong),
    ];
    prop_oneof![
        10 => (prop::collection::vec(op, 1..4), guard).prop_map(|(ops, guard)| Step::Txn { ops, guard }),
        4 => (0..KEYS, 0..12u64).prop_map(|(key, back)| Step::Get { key, back }),
        3 => (0..KEYS, 0..=KEYS, 0..12u64, 0..5usize).prop_map(|(start, end, back, limit)| Step::Range { start, end, back, limit }),
        2 => (0..10u64).prop_map(|back| Step::Compact { back }),
        1 => Just(Step::Reclaim),
        1 => Just(Step::Reopen),
        1 => (0..15u64).prop_map(|from_back| Step::WatchReplay { from_back }),
    ]
}

fn options() -> Options {
    Options {
        segment_bytes: 2048,
        reclaim_min_ratio: 0.0,
        background_reclaim: false,
        ..Options::no_sync()
    }
}

fn open(dir: &Path) -> Engine {
    Engine::open(dir, options()).expect("open")
}

fn check_read_error(model: &Model, rev: u64, err: &Error) {
    match err {
        Error::Compacted {
            requested,
            compacted,
        } => {
            assert!(
                rev < model.compacted,
                "read at {rev} refused but compacted is {}",
                model.compacted
            );
            assert_eq!((requested.get(), compacted.get()), (rev, model.compacted));
        }
        other => panic!("unexpected error at revision {rev}: {other}"),
    }
}

fn apply_txn(
    engine: &Engine,
    model: &mut Model,
    ops: &[(usize, Option<Vec<u8>>)],
    guard: &GuardSpec,
) {
    let mut seen = Vec::new();
    let ops: Vec<_> = ops
        .iter()
        .filter(|(k, _)| {
            !seen.contains(k) && {
                seen.push(*k);
                true
            }
        })
        .cloned()
        .collect();
    let latest = model.latest().clone();
    let mut txn = Txn::new().with_prev();
    let guard_holds = match guard {
        GuardSpec::None => true,
        GuardSpec::Absent(k) => {
            txn = txn.guard(Guard::Absent(key(*k)));
            !latest.contains_key(&key(*k))
        }
        GuardSpec::ModRevCurrent(k) => {
            let r = latest.get(&key(*k)).map_or(0, |r| r.modr);
            txn = txn.guard(Guard::ModRevision(key(*k), Revision(r)));
            latest.contains_key(&key(*k))
        }
        GuardSpec::ModRevWrong(k) => {
            let r = latest.get(&key(*k)).map_or(1, |r| r.modr + 1000);
            txn = txn.guard(Guard::ModRevision(key(*k), Revision(r)));
            false
        }
    };
    for (k, v) in &ops {
        txn = match v {
            Some(v) => txn.put(key(*k), v.clone()),
            None => txn.delete(key(*k)),
        };
    }
    let result = engine.commit_blocking(txn);
    if !guard_holds {
        match result {
            Err(Error::GuardFailed { index: 0, current }) => {
                let gk = match guard {
                    GuardSpec::Absent(k)
                    | GuardSpec::ModRevCurrent(k)
                    | GuardSpec::ModRevWrong(k) => key(*k),
                    GuardSpec::None => unreachable!(),
                };
                assert_eq!(
                    current.map(|c| c.value.to_vec()),
                    latest.get(&gk).map(|r| r.value.clone())
                );
            }
            other => panic!("guard should fail, got {other:?}"),
        }
        return;
    }
    let committed = result.expect("commit");
    let changes = ops
        .iter()
        .any(|(k, v)| v.is_some() || latest.contains_key(&key(*k)));
    assert_eq!(committed.changed, changes);
    let prevs: Vec<_> = committed
        .prev
        .iter()
        .map(|p| p.as_ref().map(|kv| kv.value.to_vec()))
        .collect();
    let want_prevs: Vec<_> = ops
        .iter()
        .map(|(k, _)| latest.get(&key(*k)).map(|r| r.value.clone()))
        .collect();
    assert_eq!(prevs, want_prevs);
    if !changes {
        assert_eq!(committed.revision.get(), model.current());
        return;
    }
    let rev = model.current() + 1;
    assert_eq!(committed.revision.get(), rev);
    let mut next = latest;
    for (k, v) in ops {
        match v {
            Some(value) => {
                let (create, version) = next
                    .get(&key(k))
                    .map_or((rev, 1), |r| (r.create, r.version + 1));
                next.insert(
                    key(k),
                    Rec {
                        value,
                        create,
                        modr: rev,
                        version,
                    },
                );
            }
            None => {
                next.remove(&key(k));
            }
        }
    }
    model.states.push(next);
}

fn run(steps: Vec<Step>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut engine = open(dir.path());
    let mut model = Model {
        states: vec![State::new()],
        compacted: 0,
    };
    for step in steps {
        let current = model.current();
        match step {
            Step::Txn { ops, guard } => apply_txn(&engine, &mut model, &ops, &guard),
            Step::Get { key: k, back } => {
                let rev = current.saturating_sub(back);
                match engine.get(&key(k), Some(Revision(rev))) {
                    Ok(got) => {
                        assert_eq!(got.revision.get(), rev);
                        let want = model.states[rev as usize].get(&key(k));
                        let got = got.kv.map(|kv| Rec {
                            value: kv.value.to_vec(),
                            create: kv.create_revision.get(),
                            modr: kv.mod_revision.get(),
                            version: kv.version,
                        });
                        assert_eq!(got.as_ref(), want, "get {k} at {rev}");
                    }
                    Err(e) => check_read_error(&model, rev, &e),
                }
            }
            Step::Range {
                start,
                end,
                back,
                limit,
            } => {
                let rev = current.saturating_sub(back);
                let end_key = if end >= KEYS { Vec::new() } else { key(end) };
                let range = KeyRange::between(&key(start), &end_key);
                match engine.range(
                    &range,
                    RangeOptions {
                        at: Some(Revision(rev)),
                        limit,
                        count_total: true,
                    },
                ) {
                    Ok(got) => {
                        let want: Vec<_> = model.states[rev as usize]
                            .iter()
                            .filter(|(k, _)| range.contains(k))
                            .map(|(k, r)| (k.clone(), r.value.clone(), r.modr))
                            .collect();
                        let take = if limit == 0 {
                            want.len()
                        } else {
                            limit.min(want.len())
                        };
                        let items: Vec<_> = got
                            .items
                            .iter()
                            .map(|kv| (kv.key.to_vec(), kv.value.to_vec(), kv.mod_revision.get()))
                            .collect();
                        assert_eq!(items, want[..take].to_vec(), "range at {rev} limit {limit}");
                        assert_eq!(got.more, take < want.len());
                        assert_eq!(got.count, want.len() as u64);
                    }
                    Err(e) => check_read_error(&model, rev, &e),
                }
            }
            Step::Compact { back } => {
                let at = current.saturating_sub(back);
                engine.compact(Revision(at)).expect("compact");
                model.compacted = model.compacted.max(at);
                assert_eq!(engine.compacted_revision().get(), model.compacted);
            }
            Step::Reclaim => {
                engine.reclaim(false).expect("reclaim");
            }
            Step::Reopen => {
                drop(engine);
                engine = open(dir.path());
                assert_eq!(
                    engine.current_revision().get(),
                    current.max(model.compacted)
                );
                assert_eq!(engine.compacted_revision().get(), model.compacted);
            }
            Step::WatchReplay { from_back } => {
                let after = current.saturating_sub(from_back);
                match engine.watch(KeyRange::prefix(b"/k/"), Revision(after)) {
                    Ok(mut w) => {
                        let mut got = Vec::new();
                        while let Some(ev) = w.try_next() {
                            let ev = ev.expect("event");
                            got.push((
                                ev.revision.get(),
                                ev.key.to_vec(),
                                ev.kind,
                                ev.kv.map(|kv| kv.value.to_vec()),
                                ev.prev.map(|kv| kv.value.to_vec()),
                            ));
                        }
                        let mut want = Vec::new();
                        for rev in after + 1..=current {
                            let (before, now) =
                                (&model.states[rev as usize - 1], &model.states[rev as usize]);
                            let mut keys: Vec<_> =
                                before.keys().chain(now.keys()).cloned().collect();
                            keys.sort();
                            keys.dedup();
                            for k in keys {
                                let (b, n) = (before.get(&k), now.get(&k));
                                if n.is_some_and(|n| n.modr == rev) {
                                    want.push((
                                        rev,
                                        k,
                                        EventKind::Put,
                                        n.map(|r| r.value.clone()),
                                        b.map(|r| r.value.clone()),
                                    ));
                                } else if b.is_some() && n.is_none() {
                                    want.push((
                                        rev,
                                        k,
                                        EventKind::Delete,
                                        None,
                                        b.map(|r| r.value.clone()),
                                    ));
                                }
                            }
                        }
                        // Within one revision the engine reports ops in transaction order.
                        got.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
                        assert_eq!(got, want, "watch replay after {after}");
                    }
                    Err(e) => check_read_error(&model, after, &e),
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn engine_matches_model(steps in prop::collection::vec(step(), 1..150)) {
        run(steps);
    }
}
