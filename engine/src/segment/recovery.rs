//! Scanning a segment on open: checksums every record, tells a torn tail of
//! the last segment (truncated) from damage anywhere else (an error naming
//! the file and byte offset).

use std::path::Path;

use crate::codec::{RecordRead, TXN_HEADER_LEN, read_record, u32_at, u64_at, walk_body};
use crate::error::{Error, Result};

/// One record met while replaying a segment or its sidecar.
pub(crate) struct RecordVisit<'a> {
    /// Offset of the record in the segment file.
    pub offset: u32,
    /// Total length of the record in the segment file.
    pub len: u32,
    /// The record body (values stripped when `with_values` is false).
    pub body: &'a [u8],
    pub with_values: bool,
}

/// Where a scan stopped.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ScanEnd {
    /// Length of the prefix made of whole, valid records.
    pub valid_len: u64,
    /// A torn tail after `valid_len`, with the reason the record there failed.
    pub torn: Option<&'static str>,
}

/// Scans `buf` (a segment file's bytes) from `start`, visiting each valid record.
///
/// Zeros from some offset to the end are the end of the log. In the last
/// segment, a record that is incomplete or fails its checksum is a torn tail
/// only if no valid record follows it anywhere in the file; otherwise, and
/// in any sealed segment, it is corruption.
pub(crate) fn scan(
    path: &Path,
    buf: &[u8],
    start: usize,
    last: bool,
    max_body: usize,
    mut visit: impl FnMut(RecordVisit<'_>) -> Result<()>,
) -> Result<ScanEnd> {
    let mut pos = start;
    let mut last_rev = 0u64;
    while pos < buf.len() {
        let failure = match read_record(buf, pos, max_body) {
            RecordRead::Ok { body, len, .. } => {
                if let Err(reason) = walk_body(body, true, |_| {}) {
                    return Err(Error::corrupt(path, pos as u64, reason));
                }
                last_rev = u64_at(body, 0).unwrap_or(0);
                visit(RecordVisit {
                    offset: u32::try_from(pos)
                        .map_err(|_| Error::corrupt(path, pos as u64, "offset beyond 4 GiB"))?,
                    len: u32::try_from(len)
                        .map_err(|_| Error::corrupt(path, pos as u64, "record beyond 4 GiB"))?,
                    body,
                    with_values: true,
                })?;
                pos += len;
                continue;
            }
            RecordRead::Incomplete => "record runs past the end of the file",
            RecordRead::Bad(reason) => reason,
        };
        if is_zero_tail(&buf[pos..]) {
            break;
        }
        if !last || valid_record_after(buf, pos + 1, max_body, last_rev) {
            return Err(Error::corrupt(path, pos as u64, failure));
        }
        return Ok(ScanEnd {
            valid_len: pos as u64,
            torn: Some(failure),
        });
    }
    Ok(ScanEnd {
        valid_len: pos as u64,
        torn: None,
    })
}

/// Whether the bytes after the last record are zeros the writer wrote ahead
/// of its appends (see `segment::zero_fill`): no record starts with a zero
/// length, so they end the log cleanly.
pub(crate) fn is_zero_tail(rest: &[u8]) -> bool {
    rest.iter().all(|&b| b == 0)
}

/// Whether any offset from `from` on starts a valid record newer than
/// `after_rev`: if so, the bad bytes before it are damage, not a torn write.
fn valid_record_after(buf: &[u8], from: usize, max_body: usize, after_rev: u64) -> bool {
    next_valid_record(buf, from, max_body, after_rev).is_some()
}

/// The first offset from `from` on that starts a valid record newer than
/// `after_rev`.
pub(crate) fn next_valid_record(
    buf: &[u8],
    from: usize,
    max_body: usize,
    after_rev: u64,
) -> Option<usize> {
    (from..buf.len()).find(|&p| {
        let plausible = u32_at(buf, p).is_some_and(|len| {
            let len = len as usize;
            len >= TXN_HEADER_LEN && len <= max_body && p + 8 + len <= buf.len()
        }) && u64_at(buf, p + 8).is_some_and(|rev| rev > after_rev);
        plausible && matches!(read_record(buf, p, max_body), RecordRead::Ok { .. })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{OpHeader, OpKind, RecordBuilder};

    fn log_of(revs: &[u64]) -> (Vec<u8>, Vec<usize>) {
        let mut out = vec![0u8; 32];
        let mut ends = Vec::new();
        for &r in revs {
            let mut b = RecordBuilder::begin(&mut out, r, r * 10);
            let h = OpHeader {
                kind: OpKind::Put,
                key_len: 1,
                value_len: 4,
                create_revision: r,
                version: 1,
                expires_at: 0,
            };
            b.push_op(&mut out, &h, b"k", b"vvvv");
            b.finish(&mut out);
            ends.push(out.len());
        }
        (out, ends)
    }

    #[test]
    fn clean_log_scans_whole() {
        let (buf, ends) = log_of(&[1, 2, 3]);
        let mut seen = 0;
        let end = scan(Path::new("s"), &buf, 32, true, 1 << 20, |_| {
            seen += 1;
            Ok(())
        })
        .expect("scan");
        assert_eq!(
            end,
            ScanEnd {
                valid_len: *ends.last().expect("ends") as u64,
                torn: None
            }
        );
        assert_eq!(seen, 3);
    }

    #[test]
    fn zeros_after_the_records_end_the_log_cleanly() {
        let (mut buf, ends) = log_of(&[1, 2, 3]);
        buf.resize(buf.len() + 4096, 0);
        for last in [true, false] {
            let end = scan(Path::new("s"), &buf, 32, last, 1 << 20, |_| Ok(())).expect("scan");
            let clean = ScanEnd {
                valid_len: ends[2] as u64,
                torn: None,
            };
            assert_eq!(end, clean, "last {last}");
        }
        // A torn record is still torn when the fill's zeros follow it.
        let mut torn = buf.clone();
        torn[ends[2] + 3] = 0x40;
        let end = scan(Path::new("s"), &torn, 32, true, 1 << 20, |_| Ok(())).expect("scan");
        assert_eq!(end.valid_len, ends[2] as u64);
        assert!(end.torn.is_some());
        // Zeros where a record should be, with a valid one after: damage.
        let (mut holed, ends) = log_of(&[1, 2, 3]);
        holed[ends[0]..ends[1]].fill(0);
        let err = scan(Path::new("s"), &holed, 32, true, 1 << 20, |_| Ok(())).expect_err("hole");
        assert!(matches!(err, Error::Corrupt { offset, .. } if offset == ends[0] as u64));
    }

    #[test]
    fn every_cut_of_the_last_record_is_a_torn_tail() {
        let (buf, ends) = log_of(&[1, 2, 3]);
        for cut in ends[1] + 1..ends[2] {
            let end = scan(Path::new("s"), &buf[..cut], 32, true, 1 << 20, |_| Ok(()))
                .expect("torn tail is not an error");
            assert_eq!(end.valid_len, ends[1] as u64, "cut {cut}");
            assert!(end.torn.is_some());
        }
    }

    #[test]
    fn damage_before_a_valid_record_is_corruption_with_offset() {
        let (mut buf, ends) = log_of(&[1, 2, 3]);
        buf[ends[0] + 30] ^= 0xff;
        let err =
            scan(Path::new("seg"), &buf, 32, true, 1 << 20, |_| Ok(())).expect_err("must fail");
        match err {
            Error::Corrupt { offset, .. } => assert_eq!(offset, ends[0] as u64),
            other => panic!("unexpected {other}"),
        }
    }

    #[test]
    fn any_bad_record_in_a_sealed_segment_is_corruption() {
        let (buf, ends) = log_of(&[1, 2]);
        let err = scan(
            Path::new("seg"),
            &buf[..ends[1] - 1],
            32,
            false,
            1 << 20,
            |_| Ok(()),
        )
        .expect_err("sealed");
        assert!(matches!(err, Error::Corrupt { offset, .. } if offset == ends[0] as u64));
    }
}
