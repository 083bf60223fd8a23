//! etcd's failures in the storage boundary's terms. Compaction and future
//! revisions need the revisions involved, which the caller knows; the rest
//! map by gRPC code: a call that ran out of time is a timeout (504), one
//! that could not reach a member or found no leader is unavailable (503).

use crate::storage::StorageError;
use crate::storage::grpc::{DEADLINE_EXCEEDED, RpcError, UNAVAILABLE};

/// etcd's own words (ErrGRPCCompacted, ErrGRPCFutureRev).
const COMPACTED: &str = "required revision has been compacted";
const FUTURE: &str = "required revision is a future revision";

/// What a failed call means.
#[derive(Debug)]
pub enum Failure {
    /// The revision asked for was compacted away.
    Compacted,
    /// The revision asked for is not written yet.
    FutureRevision,
    Other(StorageError),
}

/// Classifies a failed call.
pub fn classify(e: RpcError) -> Failure {
    if e.message.contains(COMPACTED) {
        return Failure::Compacted;
    }
    if e.message.contains(FUTURE) {
        return Failure::FutureRevision;
    }
    Failure::Other(plain(e))
}

/// A failure that names no revision.
pub fn plain(e: RpcError) -> StorageError {
    let text = format!("etcd: {}", e.message);
    match e.code {
        DEADLINE_EXCEEDED => StorageError::Timeout(text),
        UNAVAILABLE => StorageError::Unavailable(text),
        // etcd words some of its own timeouts with another code (a quorum
        // read that waited out its deadline comes back as Unknown).
        _ if e.message.contains("request timed out") || e.message.contains("deadline exceeded") => {
            StorageError::Timeout(text)
        }
        _ => StorageError::Internal(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::grpc::{OUT_OF_RANGE, UNKNOWN};

    #[test]
    fn failures_map_by_words_then_code() {
        let compacted = RpcError::new(
            OUT_OF_RANGE,
            "etcdserver: mvcc: required revision has been compacted",
        );
        assert!(matches!(classify(compacted), Failure::Compacted));
        let future = RpcError::new(
            OUT_OF_RANGE,
            "etcdserver: mvcc: required revision is a future revision",
        );
        assert!(matches!(classify(future), Failure::FutureRevision));
        assert!(matches!(
            plain(RpcError::new(UNAVAILABLE, "no leader")),
            StorageError::Unavailable(_)
        ));
        assert!(matches!(
            plain(RpcError::new(DEADLINE_EXCEEDED, "late")),
            StorageError::Timeout(_)
        ));
        assert!(matches!(
            plain(RpcError::new(UNKNOWN, "context deadline exceeded")),
            StorageError::Timeout(_)
        ));
        assert!(matches!(
            plain(RpcError::new(UNKNOWN, "odd")),
            StorageError::Internal(_)
        ));
    }
}
