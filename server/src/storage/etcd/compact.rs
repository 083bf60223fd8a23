//! Compaction through kube-apiserver's `compact_rev_key` protocol: the key
//! holds the last compaction target and its version counts rounds. A round
//! writes the new target only if the version is the one this server last
//! saw, so when several servers share etcd exactly one of them compacts
//! per interval; the others learn the version and try next interval.
//! A direct `compact` writes the key unconditionally (compare-and-swap
//! until it lands) so the key always names the newest compaction point,
//! which `status` reports.

use std::sync::atomic::{AtomicI64, Ordering};

use super::convert::{get, put, txn};
use super::errors::{Failure, classify, plain};
use super::proto::{
    COMPARE_EQUAL, CompactionRequest, CompactionResponse, Compare, CompareTarget, KV, RangeRequest,
    RangeResponse, Response, TARGET_VERSION, TxnResponse, revision_of,
};
use crate::storage::grpc::GrpcClient;
use crate::storage::{Revision, StorageError};

/// kube-apiserver's key, outside any prefix.
pub const COMPACT_REV_KEY: &[u8] = b"compact_rev_key";

/// This server's view of the protocol.
#[derive(Default)]
pub struct Compactor {
    /// The key's version when this server last looked.
    version: AtomicI64,
}

/// The key's value and version.
async fn read_key(client: &GrpcClient) -> Result<(Revision, i64), StorageError> {
    let request = RangeRequest {
        key: COMPACT_REV_KEY.to_vec(),
        ..RangeRequest::default()
    };
    let response: RangeResponse = client
        .call_repeatable(KV, "Range", &request)
        .await
        .map_err(plain)?;
    Ok(response.kvs.first().map_or((Revision::ZERO, 0), |kv| {
        let at = std::str::from_utf8(&kv.value)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        (Revision(at), kv.version)
    }))
}

/// The newest compaction point recorded in etcd.
pub async fn compaction_point(client: &GrpcClient) -> Result<Revision, StorageError> {
    Ok(read_key(client).await?.0)
}

impl Compactor {
    /// Writes `at` if the key's version is still `version`; `Err` carries
    /// the version found instead.
    async fn claim(
        client: &GrpcClient,
        version: i64,
        at: Revision,
    ) -> Result<Result<(), i64>, StorageError> {
        let request = txn(
            vec![Compare {
                result: COMPARE_EQUAL,
                target: TARGET_VERSION,
                key: COMPACT_REV_KEY.to_vec(),
                target_union: Some(CompareTarget::Version(version)),
            }],
            vec![put(
                COMPACT_REV_KEY.to_vec(),
                at.get().to_string().into_bytes(),
                0,
            )],
            vec![get(COMPACT_REV_KEY.to_vec())],
        );
        let response: TxnResponse = client.call(KV, "Txn", &request).await.map_err(plain)?;
        if response.succeeded {
            return Ok(Ok(()));
        }
        let found = response
            .responses
            .into_iter()
            .find_map(|op| match op.response {
                Some(Response::Range(r)) => Some(r.kvs.first().map_or(0, |kv| kv.version)),
                _ => None,
            })
            .unwrap_or(0);
        Ok(Err(found))
    }

    /// One periodic round: `true` when this server won it and compacted.
    pub async fn round(&self, client: &GrpcClient, at: Revision) -> Result<bool, StorageError> {
        let seen = self.version.load(Ordering::Relaxed);
        match Self::claim(client, seen, at).await? {
            Ok(()) => {
                self.version.store(seen + 1, Ordering::Relaxed);
                compact_etcd(client, at).await?;
                Ok(true)
            }
            Err(found) => {
                self.version.store(found, Ordering::Relaxed);
                Ok(false)
            }
        }
    }

    /// Compacts to `at` now, recording it in the key.
    pub async fn compact(&self, client: &GrpcClient, at: Revision) -> Result<(), StorageError> {
        loop {
            let (recorded, version) = read_key(client).await?;
            if recorded >= at {
                break;
            }
            if Self::claim(client, version, at).await?.is_ok() {
                self.version.store(version + 1, Ordering::Relaxed);
                break;
            }
        }
        compact_etcd(client, at).await
    }
}

async fn compact_etcd(client: &GrpcClient, at: Revision) -> Result<(), StorageError> {
    let request = CompactionRequest {
        revision: i64::try_from(at.get()).unwrap_or(i64::MAX),
        physical: false,
    };
    match client
        .call::<_, CompactionResponse>(KV, "Compact", &request)
        .await
    {
        Ok(_) => Ok(()),
        Err(e) => match classify(e) {
            // Already compacted there or past it: nothing to do.
            Failure::Compacted => Ok(()),
            Failure::FutureRevision => {
                let current = RangeRequest {
                    key: COMPACT_REV_KEY.to_vec(),
                    count_only: true,
                    ..RangeRequest::default()
                };
                let current: RangeResponse = client
                    .call_repeatable(KV, "Range", &current)
                    .await
                    .map_err(plain)?;
                Err(StorageError::FutureRevision {
                    requested: at,
                    current: Revision(revision_of(current.header.as_ref())),
                })
            }
            Failure::Other(e) => Err(e),
        },
    }
}
