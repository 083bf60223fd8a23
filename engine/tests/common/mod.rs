//! Helpers shared by the engine's integration tests: data directory surgery
//! (copy, list segments, find record boundaries as FORMAT.md lays them out)
//! and a deterministic workload with its expected states.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use cairn_engine::{Engine, KeyRange, RangeOptions, Revision, Txn};

/// Copies every file of `from` into `to` (created).
pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("mkdir");
    for e in fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        if e.file_type().expect("type").is_file() {
            fs::copy(e.path(), to.join(e.file_name())).expect("copy");
        }
    }
}

/// Segment files in id order.
pub fn segments(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "seg"))
        .collect();
    v.sort();
    v
}

/// (start offset, end offset, revision) of every record in a segment file.
pub fn records(path: &Path) -> Vec<(usize, usize, u64)> {
    let buf = fs::read(path).expect("read segment");
    let mut out = Vec::new();
    let mut pos = 32;
    while pos + 8 <= buf.len() {
        let len = u32::from_le_bytes(buf[pos..pos + 4].try_into().expect("4")) as usize;
        let end = pos + 8 + len;
        let rev = u64::from_le_bytes(buf[pos + 8..pos + 16].try_into().expect("8"));
        out.push((pos, end, rev));
        pos = end;
    }
    out
}

/// The latest state of every key under `/w/`.
pub type State = BTreeMap<Vec<u8>, Vec<u8>>;

/// Transaction `i` of the deterministic workload.
pub fn workload_txn(i: u64) -> Txn {
    let mut t = Txn::new().put(
        format!("/w/{:02}", i % 20),
        format!("value-{i}-{}", "x".repeat((i % 13) as usize)),
    );
    if i % 7 == 3 {
        t = t.delete(format!("/w/{:02}", (i * 3 + 1) % 20));
    }
    if i % 11 == 5 {
        t = t.put(format!("/w/extra-{i}"), "e");
    }
    t
}

/// States after each transaction of the workload: `states[n]` is the state
/// after the first `n` transactions, and `revs[n]` its revision (a
/// transaction that changes nothing takes no revision).
pub fn workload_states(n: u64) -> (Vec<State>, Vec<u64>) {
    let mut states = vec![State::new()];
    let mut revs = vec![0];
    for i in 0..n {
        let mut s = states.last().expect("state").clone();
        let mut changed = false;
        for op in workload_txn(i).ops() {
            match op {
                cairn_engine::Op::Put { key, value, .. } => {
                    s.insert(key.clone(), value.clone());
                    changed = true;
                }
                cairn_engine::Op::Delete { key } => changed |= s.remove(key).is_some(),
            }
        }
        let rev = revs.last().expect("rev") + u64::from(changed);
        states.push(s);
        revs.push(rev);
    }
    (states, revs)
}

/// Everything under `/w/` at a revision.
pub fn state_at(engine: &Engine, at: Option<Revision>) -> State {
    engine
        .range(
            &KeyRange::prefix(b"/w/"),
            RangeOptions {
                at,
                ..RangeOptions::default()
            },
        )
        .expect("range")
        .items
        .into_iter()
        .map(|kv| (kv.key.to_vec(), kv.value.to_vec()))
        .collect()
}
