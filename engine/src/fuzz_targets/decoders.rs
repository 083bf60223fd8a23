//! The on-disk decoders read raw bytes: a record (and its operations), a
//! sidecar entry body, a manifest and the file headers. The first byte
//! chooses the decoder and whether a valid checksum is put back first, so
//! mutations reach the walkers behind the checksums.

use crate::codec::{
    FILE_HEADER_LEN, MANIFEST_MAGIC, Manifest, RECORD_PREFIX_LEN, RecordRead, SEGMENT_MAGIC,
    SIDECAR_MAGIC, crc, decode_file_header, read_record, walk_body,
};

/// Decodes `input[1..]` as the decoder `input[0]` chooses; never panics
/// unless a decoder does or a decoded manifest does not encode back to
/// itself.
pub fn decoders(input: &[u8]) {
    let Some((&choice, rest)) = input.split_first() else {
        return;
    };
    let mut bytes = rest.to_vec();
    let recrc = choice & 0x80 != 0;
    match choice % 3 {
        0 => record(&mut bytes, recrc),
        1 => {
            let _ = walk_body(&bytes, false, |_| {});
        }
        _ => manifest_and_headers(&mut bytes, recrc),
    }
}

fn record(rec: &mut [u8], recrc: bool) {
    if recrc && rec.len() >= RECORD_PREFIX_LEN {
        let body_len = u32::try_from(rec.len() - RECORD_PREFIX_LEN).unwrap_or(u32::MAX);
        let sum = crc(&rec[RECORD_PREFIX_LEN..]);
        rec[..4].copy_from_slice(&body_len.to_le_bytes());
        rec[4..8].copy_from_slice(&sum.to_le_bytes());
    }
    if let RecordRead::Ok { body, len } = read_record(rec, 0, 1 << 20) {
        assert!(len <= rec.len(), "a record ends inside its buffer");
        let mut walked = 0;
        if let Ok(header) = walk_body(body, true, |_| walked += 1) {
            assert_eq!(
                walked, header.op_count as usize,
                "every operation is walked"
            );
        }
    }
    let _ = walk_body(rec, false, |_| {});
    let _ = read_record(rec, rec.len() / 2, usize::MAX);
}

fn manifest_and_headers(bytes: &mut [u8], recrc: bool) {
    if recrc && bytes.len() >= FILE_HEADER_LEN + 4 {
        let end = bytes.len() - 4;
        let sum = crc(&bytes[FILE_HEADER_LEN..end]);
        bytes[end..].copy_from_slice(&sum.to_le_bytes());
    }
    if let Ok(manifest) = Manifest::decode(bytes) {
        assert_eq!(
            Manifest::decode(&manifest.encode()),
            Ok(manifest),
            "a decoded manifest encodes back to itself"
        );
    }
    for magic in [SEGMENT_MAGIC, SIDECAR_MAGIC, MANIFEST_MAGIC] {
        let _ = decode_file_header(bytes, magic);
    }
}
