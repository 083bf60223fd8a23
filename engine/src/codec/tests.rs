//! Round trips of every layout, and damage (flipped or cut bytes) caught
//! by the checksums and length checks.

use super::*;

fn sample_record() -> Vec<u8> {
    let mut out = vec![0xAA; 3];
    let mut b = RecordBuilder::begin(&mut out, 7, 1234);
    let put = OpHeader {
        kind: OpKind::Put,
        key_len: 3,
        value_len: 5,
        create_revision: 7,
        version: 1,
        expires_at: 0,
    };
    b.push_op(&mut out, &put, b"abc", b"hello");
    let del = OpHeader {
        kind: OpKind::Delete,
        key_len: 1,
        value_len: 0,
        create_revision: 0,
        version: 0,
        expires_at: 0,
    };
    b.push_op(&mut out, &del, b"z", b"");
    let len = b.finish(&mut out);
    assert_eq!(len, out.len() - 3);
    assert_eq!(len, record_len([(3, 5), (1, 0)].into_iter()));
    out.split_off(3)
}

#[test]
fn record_round_trips_and_detects_every_flipped_byte() {
    let rec = sample_record();
    let RecordRead::Ok { body, len, .. } = read_record(&rec, 0, 1 << 20) else {
        panic!("record must read back")
    };
    assert_eq!(len, rec.len());
    let mut keys = Vec::new();
    let h = walk_body(body, true, |op| {
        keys.push((op.key.to_vec(), op.segment_pos))
    })
    .expect("walk");
    assert_eq!((h.revision, h.time_micros, h.op_count), (7, 1234, 2));
    assert_eq!(
        keys,
        vec![(b"abc".to_vec(), 20), (b"z".to_vec(), 20 + 36 + 8)]
    );
    for i in 0..rec.len() {
        let mut bad = rec.clone();
        bad[i] ^= 0x40;
        assert!(
            !matches!(read_record(&bad, 0, 1 << 20), RecordRead::Ok { .. }),
            "flip at {i} undetected"
        );
    }
    for cut in 0..rec.len() {
        assert!(
            matches!(read_record(&rec[..cut], 0, 1 << 20), RecordRead::Incomplete),
            "cut at {cut}"
        );
    }
}

#[test]
fn sidecar_entry_walks_like_the_record() {
    let rec = sample_record();
    let mut side = Vec::new();
    push_sidecar_entry(&mut side, 32, &rec);
    assert_eq!(u32_at(&side, 0), Some(32));
    assert_eq!(u32_at(&side, 4), Some(rec.len() as u32));
    let stripped = &side[SIDECAR_ENTRY_PREFIX_LEN..];
    assert_eq!(u32_at(&side, 12), Some(stripped.len() as u32));
    let mut seen = Vec::new();
    walk_body(stripped, false, |op| {
        seen.push((op.key.to_vec(), op.segment_pos))
    })
    .expect("walk stripped");
    assert_eq!(
        seen,
        vec![(b"abc".to_vec(), 20), (b"z".to_vec(), 20 + 36 + 8)]
    );
}

#[test]
fn manifest_round_trips_and_rejects_damage() {
    let m = Manifest {
        compacted_revision: 42,
        next_segment_id: 9,
        segments: vec![3, 5, 8],
    };
    let enc = m.encode();
    assert_eq!(Manifest::decode(&enc), Ok(m));
    for i in 0..enc.len() {
        let mut bad = enc.clone();
        bad[i] ^= 1;
        assert!(Manifest::decode(&bad).is_err(), "flip at {i} undetected");
    }
}

#[test]
fn file_header_checks() {
    let h = encode_file_header(SEGMENT_MAGIC, 77);
    assert_eq!(decode_file_header(&h, SEGMENT_MAGIC), Ok(77));
    assert_eq!(
        decode_file_header(&h, SIDECAR_MAGIC),
        Err(HeaderError::Magic)
    );
    assert_eq!(
        decode_file_header(&h[..10], SEGMENT_MAGIC),
        Err(HeaderError::Short)
    );
    let mut bad = h;
    bad[20] ^= 1;
    assert_eq!(
        decode_file_header(&bad, SEGMENT_MAGIC),
        Err(HeaderError::Checksum)
    );
}
