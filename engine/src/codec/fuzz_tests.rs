//! Bounded random-input tests of the record, sidecar, manifest and file
//! header decoders: mutated valid layouts (bit flips, byte edits, cuts,
//! inserted bytes), with checksums sometimes recomputed so the mutations
//! reach the walkers behind them. Every decoder must answer, never panic.
//! `CAIRN_FUZZ_ROUNDS` sets the cases (default 2,000).

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use super::*;

fn cases() -> u32 {
    std::env::var("CAIRN_FUZZ_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(2_000)
}

fn record(revision: u64, ops: &[(OpKind, &[u8], &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut builder = RecordBuilder::begin(&mut out, revision, revision * 10);
    for (kind, key, value) in ops {
        let header = OpHeader {
            kind: *kind,
            key_len: u32::try_from(key.len()).expect("short key"),
            value_len: u32::try_from(value.len()).expect("short value"),
            create_revision: revision,
            version: 1,
            expires_at: 0,
        };
        builder.push_op(&mut out, &header, key, value);
    }
    builder.finish(&mut out);
    out
}

fn records() -> Vec<Vec<u8>> {
    vec![
        record(
            1,
            &[(OpKind::Put, b"/registry/pods/a", b"{\"kind\":\"Pod\"}")],
        ),
        record(
            2,
            &[
                (OpKind::Put, b"k", b""),
                (OpKind::Delete, b"gone", b""),
                (OpKind::Put, b"v", &[0xff; 40]),
            ],
        ),
        record(3, &[]),
    ]
}

/// A mutation plan: which seed, bytes to overwrite, where to cut, bytes to
/// insert, and whether to put a valid checksum back afterwards.
type Plan = (usize, Vec<(usize, u8)>, Option<usize>, Vec<u8>, usize, bool);

fn plans() -> impl Strategy<Value = Plan> {
    (
        any::<usize>(),
        vec((any::<usize>(), any::<u8>()), 0..6),
        proptest::option::of(any::<usize>()),
        vec(any::<u8>(), 0..6),
        any::<usize>(),
        any::<bool>(),
    )
}

fn mutate(seeds: &[Vec<u8>], plan: &Plan) -> Vec<u8> {
    let (pick, edits, cut, insert, at, _) = plan;
    let mut bytes = seeds[pick % seeds.len()].clone();
    for (pos, byte) in edits {
        if !bytes.is_empty() {
            let i = pos % bytes.len();
            bytes[i] = *byte;
        }
    }
    if let Some(cut) = cut {
        bytes.truncate(cut % (bytes.len() + 1));
    }
    let at = at % (bytes.len() + 1);
    bytes.splice(at..at, insert.iter().copied());
    bytes
}

fn run(seeds: &[Vec<u8>], check: impl Fn(Vec<u8>, bool)) {
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&plans(), |plan| {
            check(mutate(seeds, &plan), plan.5);
            Ok(())
        })
        .expect("no decoder panics");
}

#[test]
fn mutated_records_read_and_walk_or_fail_cleanly() {
    run(&records(), |mut rec, recrc| {
        if recrc && rec.len() >= RECORD_PREFIX_LEN {
            let body_len = u32::try_from(rec.len() - RECORD_PREFIX_LEN).expect("short");
            let c = crc(&rec[RECORD_PREFIX_LEN..]);
            rec[..4].copy_from_slice(&body_len.to_le_bytes());
            rec[4..8].copy_from_slice(&c.to_le_bytes());
        }
        if let RecordRead::Ok { body, len } = read_record(&rec, 0, 1 << 20) {
            assert!(len <= rec.len());
            let mut walked = 0;
            if let Ok(header) = walk_body(body, true, |_| walked += 1) {
                assert_eq!(walked, header.op_count as usize);
            }
        }
        let _ = walk_body(&rec, false, |_| {});
        let _ = read_record(&rec, rec.len() / 2, usize::MAX);
    });
}

#[test]
fn mutated_sidecar_bodies_walk_or_fail_cleanly() {
    let entries: Vec<Vec<u8>> = records()
        .iter()
        .map(|rec| {
            let mut out = Vec::new();
            push_sidecar_entry(&mut out, 0, rec);
            out.split_off(SIDECAR_ENTRY_PREFIX_LEN)
        })
        .collect();
    run(&entries, |body, _| {
        let _ = walk_body(&body, false, |_| {});
    });
}

#[test]
fn mutated_manifests_and_headers_decode_or_fail_cleanly() {
    let seeds = vec![
        Manifest::default().encode(),
        Manifest {
            compacted_revision: 9,
            next_segment_id: 4,
            segments: vec![1, 2, 3],
        }
        .encode(),
        encode_file_header(SEGMENT_MAGIC, 7).to_vec(),
    ];
    run(&seeds, |mut bytes, recrc| {
        if recrc && bytes.len() >= FILE_HEADER_LEN + 4 {
            let end = bytes.len() - 4;
            let c = crc(&bytes[FILE_HEADER_LEN..end]);
            bytes[end..].copy_from_slice(&c.to_le_bytes());
        }
        if let Ok(manifest) = Manifest::decode(&bytes) {
            assert_eq!(Manifest::decode(&manifest.encode()), Ok(manifest));
        }
        for magic in [SEGMENT_MAGIC, SIDECAR_MAGIC, MANIFEST_MAGIC] {
            let _ = decode_file_header(&bytes, magic);
        }
    });
}
