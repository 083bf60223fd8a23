//! The disk fills exactly when the log must start its next segment: the
//! roll cannot create the new file, the write is refused and nothing else
//! changes, and the roll succeeds once space returns, without a restart.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use cairn_tests::Server;

use crate::mount::SmallFs;
use crate::{
    CONFIG_MAPS, assert_refused_absent_and_kept_after_restart, assert_refused_for_space,
    config_map, names_of_list,
};

/// The engine's segment size (`Options::segment_bytes`'s default).
const SEGMENT_BYTES: u64 = 64 << 20;

/// Bytes of data per ConfigMap: close to the 1 MiB object limit, so the
/// first segment fills in a few dozen writes.
const PAYLOAD: usize = 960 << 10;

/// The first file under `dir` (searched depth first) named `name`.
fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.file_name().is_some_and(|n| n == name) {
            return Some(path);
        }
        if path.is_dir()
            && let Some(found) = find_file(&path, name)
        {
            return Some(found);
        }
    }
    None
}

/// Bytes the file occupies on its filesystem.
fn allocated(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.blocks() * 512)
}

#[test]
fn a_roll_on_a_full_disk_is_refused_and_rolls_once_space_returns() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(fs) = SmallFs::mount(&dir.path().join("small"), 96) else {
        eprintln!("skipped: this machine does not let the test mount a tmpfs");
        return;
    };
    let data_dir = fs.path.clone();
    let server = Server::start_on(&data_dir, &[]);
    let first_segment = find_file(&data_dir, "0000000000000001.seg").expect("the first segment");
    let log_dir = first_segment.parent().expect("log directory").to_path_buf();
    let second_segment = log_dir.join("0000000000000002.seg");

    // Write until the zeros the log keeps ahead of its appends reach the
    // segment's end: from then on every append lands in space the file
    // already has, so with the disk full the first write that fails is
    // the one that needs the next segment.
    let mut acknowledged = Vec::new();
    while allocated(&first_segment) < SEGMENT_BYTES {
        let name = format!("cm-{}", acknowledged.len());
        let r = server.post(CONFIG_MAPS, &config_map(&name, PAYLOAD));
        assert_eq!(r.status, 201, "filling the first segment: {}", r.text());
        acknowledged.push(name);
        assert!(
            !second_segment.exists(),
            "the log rolled before its first segment was zero-filled to the end"
        );
        assert!(acknowledged.len() < 200, "the first segment never filled");
    }

    let filler = fs.fill();
    let refusal = loop {
        let name = format!("cm-{}", acknowledged.len());
        let r = server.post(CONFIG_MAPS, &config_map(&name, PAYLOAD));
        if r.status != 201 {
            break r;
        }
        assert!(
            !second_segment.exists(),
            "a write was acknowledged by rolling onto a full disk"
        );
        acknowledged.push(name);
        assert!(acknowledged.len() < 200, "the disk never filled");
    };
    assert_refused_for_space(refusal.status, &refusal.json());
    assert!(
        !second_segment.exists(),
        "the segment a failed roll began is removed again"
    );
    let refused_name = format!("cm-{}", acknowledged.len());
    let again = server.post(CONFIG_MAPS, &config_map("refused-again", PAYLOAD));
    assert_refused_for_space(again.status, &again.json());

    let mut want = acknowledged.clone();
    want.sort();
    let mut listed = names_of_list(&server);
    listed.sort();
    assert_eq!(listed, want, "reads go on at a failed roll");

    std::fs::remove_file(&filler).expect("free the space");
    for name in ["after-0", "after-1", "after-2"] {
        let r = server.post(CONFIG_MAPS, &config_map(name, PAYLOAD));
        assert_eq!(
            r.status,
            201,
            "a write once space returned: {}\n{}",
            r.text(),
            server.log_text()
        );
        want.push(name.to_string());
    }
    assert!(
        second_segment.exists(),
        "the log rolled once space returned"
    );
    assert_refused_absent_and_kept_after_restart(
        server,
        &data_dir,
        &[&refused_name, "refused-again"],
        &mut want,
    );
    drop(fs);
}
