//! The rules one record's content must follow beyond its checksum, and the
//! sidecar entry it should have.
//!
//! Per op (as the writer produces them, and compaction copies them):
//! a put has `version >= 1` and `1 <= create_revision <= revision`, with
//! `version == 1` exactly when `create_revision == revision` (a key's first
//! version is created by that very put); a delete carries no value,
//! create_revision, version or expiry. A record holds at least one op and
//! no key twice.

use crate::codec::{
    OP_HEADER_LEN, OpHeader, OpKind, RECORD_PREFIX_LEN, TXN_HEADER_LEN, TxnHeader, u32_at, u64_at,
    walk_body,
};

/// A record whose ops decode: its header and the first rule it breaks.
pub(crate) struct Checked {
    pub header: TxnHeader,
    pub problem: Option<String>,
}

/// Checks `record` (length prefix included, checksum already verified), found
/// at `offset`; fills `entry`, if given, with the sidecar entry it should
/// have. `Err` when its ops do not decode (then `entry` is meaningless).
pub(crate) fn check(
    record: &[u8],
    offset: u64,
    mut entry: Option<&mut Vec<u8>>,
) -> Result<Checked, String> {
    let body = &record[RECORD_PREFIX_LEN..];
    let revision = u64_at(body, 0).unwrap_or(0);
    let op_count = u32_at(body, 16).unwrap_or(0);
    if let Some(entry) = entry.as_deref_mut() {
        entry.clear();
        entry.extend_from_slice(&u32::try_from(offset).unwrap_or(u32::MAX).to_le_bytes());
        entry.extend_from_slice(
            &u32::try_from(record.len())
                .unwrap_or(u32::MAX)
                .to_le_bytes(),
        );
        entry.extend_from_slice(&record[4..8]);
        entry.extend_from_slice(&[0; 4]);
        entry.extend_from_slice(&body[..TXN_HEADER_LEN]);
    }
    let mut problem = None;
    // Keys are gathered only to find duplicates, which need two ops.
    let mut keys = Vec::new();
    let header = walk_body(body, true, |op| {
        if let Some(entry) = entry.as_deref_mut() {
            let end = op.segment_pos + OP_HEADER_LEN + op.header.key_len as usize;
            entry.extend_from_slice(&body[op.segment_pos..end]);
        }
        if problem.is_none() {
            problem = op_problem(&op.header, op.key, revision);
        }
        if op_count > 1 {
            keys.push(op.key);
        }
    })
    .map_err(str::to_string)?;
    if let Some(entry) = entry {
        let stripped = u32::try_from(entry.len() - 16).unwrap_or(u32::MAX);
        entry[12..16].copy_from_slice(&stripped.to_le_bytes());
    }
    if header.op_count == 0 {
        problem.get_or_insert_with(|| "the record holds no ops".into());
    }
    if keys.len() > 1 {
        keys.sort_unstable();
        if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
            problem.get_or_insert_with(|| {
                format!(
                    "key {} appears twice in one transaction",
                    w[0].escape_ascii()
                )
            });
        }
    }
    Ok(Checked { header, problem })
}

fn op_problem(h: &OpHeader, key: &[u8], revision: u64) -> Option<String> {
    let key = key.escape_ascii();
    match h.kind {
        OpKind::Put => {
            if h.version == 0 {
                Some(format!("put of {key} has version 0"))
            } else if h.create_revision == 0 || h.create_revision > revision {
                Some(format!(
                    "put of {key} at revision {revision} has create_revision {}",
                    h.create_revision
                ))
            } else if (h.version == 1) != (h.create_revision == revision) {
                Some(format!(
                    "put of {key} at revision {revision} has version {} but create_revision {} \
                     (a key's first version is created at its own revision)",
                    h.version, h.create_revision
                ))
            } else {
                None
            }
        }
        OpKind::Delete => (h.create_revision != 0 || h.version != 0 || h.expires_at != 0)
            .then(|| format!("delete of {key} carries a create_revision, version or expiry")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{RecordBuilder, push_sidecar_entry};

    /// (kind, key, create_revision, version) of one op.
    type Op<'a> = (OpKind, &'a [u8], u64, u64);

    fn record(rev: u64, ops: &[Op<'_>]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut b = RecordBuilder::begin(&mut out, rev, 99);
        for &(kind, key, create_revision, version) in ops {
            let value: &[u8] = if kind == OpKind::Put { b"val" } else { b"" };
            let h = OpHeader {
                kind,
                key_len: u32::try_from(key.len()).expect("small"),
                value_len: u32::try_from(value.len()).expect("small"),
                create_revision,
                version,
                expires_at: 0,
            };
            b.push_op(&mut out, &h, key, value);
        }
        b.finish(&mut out);
        out
    }

    #[test]
    fn the_entry_is_the_one_the_engine_writes() {
        let rec = record(
            7,
            &[(OpKind::Put, b"a", 7, 1), (OpKind::Delete, b"b", 0, 0)],
        );
        let mut entry = Vec::new();
        let c = check(&rec, 4096, Some(&mut entry)).expect("decodes");
        assert_eq!(c.problem, None);
        assert_eq!((c.header.revision, c.header.op_count), (7, 2));
        let mut want = Vec::new();
        push_sidecar_entry(&mut want, 4096, &rec);
        assert_eq!(entry, want);
    }

    #[test]
    fn op_rules() {
        let cases: [(&[Op<'_>], Option<&str>); 7] = [
            (&[(OpKind::Put, b"k", 5, 3)], None),
            (&[(OpKind::Put, b"k", 7, 0)], Some("version 0")),
            (&[(OpKind::Put, b"k", 8, 1)], Some("create_revision 8")),
            (&[(OpKind::Put, b"k", 0, 2)], Some("create_revision 0")),
            (&[(OpKind::Put, b"k", 7, 2)], Some("first version")),
            (&[(OpKind::Put, b"k", 3, 1)], Some("first version")),
            (
                &[(OpKind::Put, b"k", 7, 1), (OpKind::Delete, b"k", 0, 0)],
                Some("twice"),
            ),
        ];
        for (ops, want) in cases {
            let c = check(&record(7, ops), 32, None).expect("decodes");
            match want {
                None => assert_eq!(c.problem, None),
                Some(w) => assert!(
                    c.problem.as_deref().is_some_and(|p| p.contains(w)),
                    "{c:?}",
                    c = c.problem
                ),
            }
        }
        let bad_delete = record(7, &[(OpKind::Delete, b"k", 3, 0)]);
        let c = check(&bad_delete, 32, None).expect("decodes");
        assert!(c.problem.is_some_and(|p| p.contains("delete")));
    }
}
