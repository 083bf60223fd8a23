//! Between cairn-engine's types and the storage boundary's. The shapes
//! match field for field, so a range's items are converted in place (the
//! engine's vector is reused) and values stay slices of mapped segments.

use std::time::{SystemTime, UNIX_EPOCH};

use cairn_engine as engine;

use crate::storage::{
    Event, EventKind, GetResult, Guard, KeyValue, LeaseId, Op, Revision, StorageError, Txn,
};

pub(super) fn revision(r: engine::Revision) -> Revision {
    Revision(r.get())
}

pub(super) fn engine_revision(r: Revision) -> engine::Revision {
    engine::Revision(r.get())
}

/// The embedded backend's leases are expiry instants: the id is the
/// instant, in microseconds since the epoch, that the key expires at.
fn lease(expires_at: SystemTime) -> LeaseId {
    let micros = expires_at
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX));
    LeaseId(micros)
}

pub(super) fn key_value(kv: engine::KeyValue) -> KeyValue {
    KeyValue {
        key: kv.key,
        value: kv.value,
        create_revision: revision(kv.create_revision),
        mod_revision: revision(kv.mod_revision),
        version: kv.version,
        lease: kv.expires_at.map(lease),
    }
}

pub(super) fn get_result(g: engine::GetResult) -> GetResult {
    GetResult {
        kv: g.kv.map(key_value),
        revision: revision(g.revision),
    }
}

pub(super) fn event(e: &engine::Event) -> Event {
    Event {
        kind: match e.kind {
            engine::EventKind::Put => EventKind::Put,
            engine::EventKind::Delete => EventKind::Delete,
        },
        key: e.key.clone(),
        revision: revision(e.revision),
        kv: e.kv.clone().map(key_value),
        prev: e.prev.clone().map(key_value),
    }
}

pub(super) fn txn(t: Txn) -> engine::Txn {
    let guards = t
        .guards
        .into_iter()
        .map(|g| match g {
            Guard::Absent(k) => engine::Guard::Absent(k),
            Guard::ModRevision(k, r) => engine::Guard::ModRevision(k, engine_revision(r)),
        })
        .collect();
    let ops = t
        .ops
        .into_iter()
        .map(|op| match op {
            Op::Put { key, value, ttl } => engine::Op::Put {
                key,
                value,
                expires_at: ttl.map(|ttl| SystemTime::now() + ttl),
            },
            Op::Delete { key } => engine::Op::Delete { key },
        })
        .collect();
    engine::Txn::from_parts(guards, ops)
}

pub(super) fn error(e: engine::Error) -> StorageError {
    match e {
        engine::Error::Compacted {
            requested,
            compacted,
        } => StorageError::Compacted {
            requested: revision(requested),
            compacted: revision(compacted),
        },
        engine::Error::FutureRevision { requested, current } => StorageError::FutureRevision {
            requested: revision(requested),
            current: revision(current),
        },
        engine::Error::GuardFailed { index, current } => match current {
            Some(kv) => StorageError::Conflict {
                guard: index,
                current: Box::new(key_value(*kv)),
            },
            None => StorageError::NotFound { guard: index },
        },
        engine::Error::Lagged { .. } => StorageError::Lagged,
        engine::Error::Closed => StorageError::Closed,
        other => StorageError::Internal(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use std::mem::{align_of, size_of};

    use super::*;

    /// Guards convert in place only while both have one layout (the
    /// engine does not show its guards, so the layout is what is checked).
    #[test]
    fn guards_share_the_engines_layout() {
        assert_eq!(size_of::<engine::Guard>(), size_of::<Guard>());
        assert_eq!(align_of::<engine::Guard>(), align_of::<Guard>());
    }

    /// Otherwise every list and every write would allocate a second vector.
    #[test]
    fn a_ranges_items_and_a_txns_ops_are_converted_in_place() {
        let items: Vec<engine::KeyValue> = (0..3)
            .map(|i| engine::KeyValue {
                key: format!("/k{i}").into(),
                value: "v".into(),
                create_revision: engine::Revision(1),
                mod_revision: engine::Revision(1),
                version: 1,
                expires_at: None,
            })
            .collect();
        let before = items.as_ptr() as usize;
        let converted: Vec<KeyValue> = items.into_iter().map(key_value).collect();
        assert_eq!(converted.as_ptr() as usize, before, "no second vector");
        let t = Txn::new()
            .guard(Guard::Absent(b"/a".to_vec()))
            .put_with_ttl("/a", "1", std::time::Duration::from_secs(5))
            .delete("/b");
        let ops = t.ops.as_ptr() as usize;
        let e = txn(t);
        assert_eq!(
            (e.ops().as_ptr() as usize, e.ops().len()),
            (ops, 2),
            "the ops vector is the engine's"
        );
    }

    #[test]
    fn guard_failures_become_conflict_or_not_found() {
        let kv = engine::KeyValue {
            key: "/k".into(),
            value: "v".into(),
            create_revision: engine::Revision(2),
            mod_revision: engine::Revision(3),
            version: 2,
            expires_at: Some(UNIX_EPOCH + std::time::Duration::from_micros(9)),
        };
        let e = error(engine::Error::GuardFailed {
            index: 1,
            current: Some(Box::new(kv)),
        });
        let StorageError::Conflict { guard: 1, current } = e else {
            panic!("{e:?}")
        };
        assert_eq!(
            (current.mod_revision, current.version, current.lease),
            (Revision(3), 2, Some(LeaseId(9)))
        );
        let e = error(engine::Error::GuardFailed {
            index: 0,
            current: None,
        });
        assert!(matches!(e, StorageError::NotFound { guard: 0 }), "{e:?}");
    }
}
