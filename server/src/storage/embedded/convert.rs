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
    let now = SystemTime::now();
    let ops = t
        .ops
        .into_iter()
        .map(|op| match op {
            Op::Put { key, value, ttl } => engine::Op::Put {
                key,
                value,
                expires_at: ttl.map(|ttl| now + ttl),
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

    /// A range converts its items in place only while both records have one
    /// layout; otherwise every list would allocate a second vector.
    #[test]
    fn records_and_txn_parts_share_the_engines_layout() {
        assert_eq!(size_of::<engine::KeyValue>(), size_of::<KeyValue>());
        assert_eq!(align_of::<engine::KeyValue>(), align_of::<KeyValue>());
        assert_eq!(size_of::<engine::Guard>(), size_of::<Guard>());
        assert_eq!(size_of::<engine::Op>(), size_of::<Op>());
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
