//! Records and transactions between the storage boundary's types and
//! etcd's messages, in kube-apiserver's transaction shapes: each guard is a
//! `mod_revision` compare (0 for "absent"), the writes are the success
//! branch, and the failure branch reads every guarded key so a failed
//! commit reports the key's current record without another round trip.

use super::keys::Keys;
use super::proto::{
    COMPARE_EQUAL, Compare, CompareTarget, DeleteRangeRequest, KeyValue as EtcdKv, PutRequest,
    RangeRequest, Request, RequestOp, Response, TARGET_MOD, TxnRequest, TxnResponse,
};
use crate::storage::{Guard, KeyValue, LeaseId, Revision, StorageError};

fn revision(r: i64) -> Revision {
    Revision(u64::try_from(r).unwrap_or(0))
}

/// A record read from etcd, under cairn's key.
pub fn key_value(keys: &Keys, kv: EtcdKv) -> KeyValue {
    KeyValue {
        key: keys.cairn_key(&kv.key).into(),
        value: kv.value,
        create_revision: revision(kv.create_revision),
        mod_revision: revision(kv.mod_revision),
        version: u64::try_from(kv.version).unwrap_or(0),
        lease: (kv.lease != 0).then_some(LeaseId(kv.lease)),
    }
}

/// A guard as etcd's compare.
pub fn compare(keys: &Keys, guard: &Guard) -> Compare {
    let expected = match guard {
        Guard::Absent(_) => 0,
        Guard::ModRevision(_, r) => i64::try_from(r.get()).unwrap_or(i64::MAX),
    };
    Compare {
        result: COMPARE_EQUAL,
        target: TARGET_MOD,
        key: keys.etcd_key(guard.key()),
        target_union: Some(CompareTarget::ModRevision(expected)),
    }
}

pub fn put(key: Vec<u8>, value: Vec<u8>, lease: i64) -> RequestOp {
    RequestOp {
        request: Some(Request::Put(PutRequest { key, value, lease })),
    }
}

pub fn delete(key: Vec<u8>) -> RequestOp {
    RequestOp {
        request: Some(Request::DeleteRange(DeleteRangeRequest {
            key,
            range_end: Vec::new(),
        })),
    }
}

pub fn get(key: Vec<u8>) -> RequestOp {
    RequestOp {
        request: Some(Request::Range(RangeRequest {
            key,
            ..RangeRequest::default()
        })),
    }
}

/// The "else get" branch of a transaction guarded by `guards`.
pub fn failure_reads(keys: &Keys, guards: &[Guard]) -> Vec<RequestOp> {
    guards.iter().map(|g| get(keys.etcd_key(g.key()))).collect()
}

/// Why a transaction's guards failed: the first guard the state read by
/// the failure branch does not satisfy.
pub fn guard_failure(keys: &Keys, guards: &[Guard], response: TxnResponse) -> StorageError {
    for (i, (guard, op)) in guards.iter().zip(response.responses).enumerate() {
        let current = match op.response {
            Some(Response::Range(mut range)) => range.kvs.pop(),
            _ => None,
        };
        match (guard, current) {
            (Guard::Absent(_), None) => {}
            (Guard::ModRevision(_, r), Some(kv)) if revision(kv.mod_revision) == *r => {}
            (Guard::ModRevision(..), None) => return StorageError::NotFound { guard: i },
            (_, Some(kv)) => {
                return StorageError::Conflict {
                    guard: i,
                    current: Box::new(key_value(keys, kv)),
                };
            }
        }
    }
    // Every guard holds now: the state changed between compare and read,
    // which one transaction cannot see; report the first guard.
    StorageError::Internal("etcd: transaction guards failed but hold on re-read".into())
}

/// A transaction of `compare`s with `success` writes and the guards' reads.
pub fn txn(compare: Vec<Compare>, success: Vec<RequestOp>, failure: Vec<RequestOp>) -> TxnRequest {
    TxnRequest {
        compare,
        success,
        failure,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::etcd::proto::{RangeResponse, ResponseOp};

    fn read(kv: Option<EtcdKv>) -> ResponseOp {
        ResponseOp {
            response: Some(Response::Range(RangeResponse {
                kvs: kv.into_iter().collect(),
                ..RangeResponse::default()
            })),
        }
    }

    #[test]
    fn failed_guards_are_named_with_the_current_record() {
        let keys = Keys::new("/registry");
        let kv = EtcdKv {
            key: "/registry/a".into(),
            mod_revision: 7,
            create_revision: 3,
            version: 2,
            ..EtcdKv::default()
        };
        let guards = vec![
            Guard::Absent(b"/registry/b".to_vec()),
            Guard::ModRevision(b"/registry/a".to_vec(), Revision(5)),
        ];
        let response = TxnResponse {
            responses: vec![read(None), read(Some(kv))],
            ..TxnResponse::default()
        };
        match guard_failure(&keys, &guards, response) {
            StorageError::Conflict { guard, current } => {
                assert_eq!((guard, current.mod_revision), (1, Revision(7)));
            }
            other => panic!("{other:?}"),
        }
        let gone = TxnResponse {
            responses: vec![read(None), read(None)],
            ..TxnResponse::default()
        };
        assert!(matches!(
            guard_failure(&keys, &guards, gone),
            StorageError::NotFound { guard: 1 }
        ));
        assert_eq!(
            compare(&keys, &guards[0]).target_union,
            Some(CompareTarget::ModRevision(0))
        );
    }
}
