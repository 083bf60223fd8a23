//! Mapped segment pages stop counting as resident memory once released, and
//! values read before or after the release keep their bytes.

use std::path::Path;
use std::time::{Duration, Instant};

use cairn_engine::{Engine, KeyRange, Options, RangeOptions, Txn};

/// Resident bytes of this process's mappings of files under `dir`, from
/// /proc/self/smaps (one header line per mapping, then `Rss:` among its fields).
fn resident_under(dir: &Path) -> u64 {
    let smaps = std::fs::read_to_string("/proc/self/smaps").expect("read smaps");
    let dir = dir.to_string_lossy();
    let mut ours = false;
    let mut kib = 0;
    for line in smaps.lines() {
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or_default();
        if first.contains('-') && first.chars().next().is_some_and(|c| c.is_ascii_hexdigit()) {
            ours = line.contains(dir.as_ref());
        } else if ours && first == "Rss:" {
            kib += words
                .next()
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    kib * 1024
}

const VALUES: u64 = 2000;

fn fill(e: &Engine) {
    for i in 0..VALUES {
        e.commit_blocking(Txn::new().put(format!("/m/{i:05}"), value(i)))
            .expect("commit");
    }
}

fn value(i: u64) -> Vec<u8> {
    format!("{i:05}").repeat(400).into_bytes()
}

/// Reads every value (faulting its pages in) and checks its bytes.
fn read_all(e: &Engine) {
    let all = e
        .range(&KeyRange::prefix(b"/m/"), RangeOptions::default())
        .expect("range");
    assert_eq!(all.items.len() as u64, VALUES);
    for (i, kv) in all.items.iter().enumerate() {
        assert_eq!(kv.value[..], value(i as u64)[..], "value {i}");
    }
}

#[test]
fn released_pages_leave_resident_memory_and_reads_still_see_the_bytes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let opts = Options {
        segment_bytes: 1 << 20,
        release_mapped_every: None,
        ..Options::no_sync()
    };
    let e = Engine::open(dir.path(), opts).expect("open");
    fill(&e);
    let held = e
        .range(&KeyRange::prefix(b"/m/"), RangeOptions::default())
        .expect("range");
    read_all(&e);
    let before = resident_under(dir.path());
    assert!(
        before >= VALUES * 2000 * 9 / 10,
        "read pages are mapped: {before}"
    );
    e.release_mapped_pages();
    let after = resident_under(dir.path());
    assert!(after < before / 10, "released: {before} → {after}");
    // A value handed out before the release reads the same bytes after it.
    for (i, kv) in held.items.iter().enumerate() {
        assert_eq!(kv.value[..], value(i as u64)[..], "held value {i}");
    }
    read_all(&e);
}

#[test]
fn the_housekeeper_releases_mapped_pages_periodically() {
    let dir = tempfile::tempdir().expect("tempdir");
    let opts = Options {
        segment_bytes: 1 << 20,
        release_mapped_every: Some(Duration::from_millis(20)),
        ..Options::no_sync()
    };
    let e = Engine::open(dir.path(), opts).expect("open");
    fill(&e);
    read_all(&e);
    let deadline = Instant::now() + Duration::from_secs(30);
    while resident_under(dir.path()) > VALUES * 2000 / 10 {
        assert!(Instant::now() < deadline, "pages were never released");
        std::thread::sleep(Duration::from_millis(10));
    }
    read_all(&e);
}

#[test]
fn a_compacted_segment_held_by_a_reader_keeps_no_resident_pages() {
    let dir = tempfile::tempdir().expect("tempdir");
    let opts = Options {
        segment_bytes: 1 << 20,
        release_mapped_every: None,
        background_reclaim: false,
        ..Options::no_sync()
    };
    let e = Engine::open(dir.path(), opts).expect("open");
    fill(&e);
    // Held across the rewrite: keeps the old segments mapped (and on disk).
    let held = e
        .range(&KeyRange::prefix(b"/m/"), RangeOptions::default())
        .expect("range");
    e.release_mapped_pages();
    for i in 0..VALUES {
        e.commit_blocking(Txn::new().delete(format!("/m/{i:05}")))
            .expect("delete");
    }
    e.compact(e.current_revision()).expect("compact");
    let r = e.reclaim(true).expect("reclaim");
    assert!(r.segments_in > 2, "{r:?}");
    let resident = resident_under(dir.path());
    assert!(
        resident < VALUES * 2000 / 10,
        "the rewrite's scan left {resident} bytes of retired segments resident"
    );
    for (i, kv) in held.items.iter().enumerate() {
        assert_eq!(kv.value[..], value(i as u64)[..], "held value {i}");
    }
}
