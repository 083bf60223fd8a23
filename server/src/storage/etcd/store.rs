//! `Storage` for etcd: each operation is one or two etcd calls.

use super::Etcd;
use super::compact::compaction_point;
use super::convert::{self, key_value};
use super::errors::{Failure, classify, plain};
use super::proto::{
    KV, MAINTENANCE, RangeRequest, RangeResponse, StatusRequest, StatusResponse, TxnResponse,
    revision_of,
};
use super::watch::EtcdWatch;
use crate::storage::grpc::RpcError;
use crate::storage::{
    Committed, GetResult, KeyRange, Op, RangeOptions, RangeResult, Reply, Revision, Status,
    Storage, StorageError, Txn, Watch,
};

fn wire_revision(at: Option<Revision>) -> i64 {
    at.map_or(0, |r| i64::try_from(r.get()).unwrap_or(i64::MAX))
}

impl Etcd {
    async fn range_call(
        &self,
        request: RangeRequest,
        at: Option<Revision>,
    ) -> Result<RangeResponse, StorageError> {
        match self.client.call_repeatable(KV, "Range", &request).await {
            Ok(response) => Ok(response),
            Err(e) => Err(self.revision_error(e, at).await),
        }
    }

    /// A failure of a read at `at`, with the revisions it involves.
    async fn revision_error(&self, e: RpcError, at: Option<Revision>) -> StorageError {
        let requested = at.unwrap_or(Revision::ZERO);
        match classify(e) {
            Failure::Compacted => {
                let compacted = compaction_point(&self.client)
                    .await
                    .unwrap_or(Revision::ZERO)
                    .max(requested.next());
                StorageError::Compacted {
                    requested,
                    compacted,
                }
            }
            Failure::FutureRevision => StorageError::FutureRevision {
                requested,
                current: self.latest().await.unwrap_or(Revision::ZERO),
            },
            Failure::Other(e) => e,
        }
    }

    async fn latest(&self) -> Result<Revision, StorageError> {
        let request = RangeRequest {
            key: b"compact_rev_key".to_vec(),
            count_only: true,
            ..RangeRequest::default()
        };
        let response: RangeResponse = self
            .client
            .call_repeatable(KV, "Range", &request)
            .await
            .map_err(plain)?;
        Ok(Revision(revision_of(response.header.as_ref())))
    }

    async fn commit_txn(&self, txn: Txn) -> Result<Committed, StorageError> {
        let keys = &self.keys;
        let mut success = Vec::with_capacity(txn.ops.len());
        for op in txn.ops {
            success.push(match op {
                Op::Put { key, value, ttl } => {
                    let lease = match ttl {
                        Some(ttl) => self.leases.lease_for(&self.client, ttl).await?,
                        None => 0,
                    };
                    convert::put(keys.etcd_key(&key), value, lease)
                }
                Op::Delete { key } => convert::delete(keys.etcd_key(&key)),
            });
        }
        let compare = txn
            .guards
            .iter()
            .map(|g| convert::compare(keys, g))
            .collect();
        let failure = convert::failure_reads(keys, &txn.guards);
        let request = convert::txn(compare, success, failure);
        let response: TxnResponse = self.client.call(KV, "Txn", &request).await.map_err(plain)?;
        if response.succeeded {
            return Ok(Committed {
                revision: Revision(revision_of(response.header.as_ref())),
            });
        }
        Err(convert::guard_failure(keys, &txn.guards, response))
    }

    async fn status_now(&self) -> Result<Status, StorageError> {
        let status: StatusResponse = self
            .client
            .call_repeatable(MAINTENANCE, "Status", &StatusRequest {})
            .await
            .map_err(plain)?;
        let (key, range_end) = self.keys.etcd_range(&KeyRange::prefix(b"/registry/"));
        let count = RangeRequest {
            key,
            range_end,
            count_only: true,
            ..RangeRequest::default()
        };
        let counted: RangeResponse = self
            .client
            .call_repeatable(KV, "Range", &count)
            .await
            .map_err(plain)?;
        Ok(Status {
            current_revision: Revision(revision_of(counted.header.as_ref())),
            compacted_revision: compaction_point(&self.client).await?,
            size_bytes: u64::try_from(status.db_size).unwrap_or(0),
            keys: u64::try_from(counted.count).unwrap_or(0),
        })
    }
}

impl Storage for Etcd {
    fn get(&self, key: &[u8], at: Option<Revision>) -> Reply<'_, Result<GetResult, StorageError>> {
        let request = RangeRequest {
            key: self.keys.etcd_key(key),
            revision: wire_revision(at),
            ..RangeRequest::default()
        };
        Reply::pending(async move {
            let response = self.range_call(request, at).await?;
            let revision = at.unwrap_or(Revision(revision_of(response.header.as_ref())));
            Ok(GetResult {
                kv: response
                    .kvs
                    .into_iter()
                    .next()
                    .map(|kv| key_value(&self.keys, kv)),
                revision,
            })
        })
    }

    fn range(
        &self,
        range: KeyRange,
        opts: RangeOptions,
    ) -> Reply<'_, Result<RangeResult, StorageError>> {
        let (key, range_end) = self.keys.etcd_range(&range);
        let request = RangeRequest {
            key,
            range_end,
            limit: i64::try_from(opts.limit).unwrap_or(i64::MAX),
            revision: wire_revision(opts.at),
            keys_only: opts.keys_only,
            count_only: opts.count_only,
            ..RangeRequest::default()
        };
        Reply::pending(async move {
            let response = self.range_call(request, opts.at).await?;
            let revision = opts
                .at
                .unwrap_or(Revision(revision_of(response.header.as_ref())));
            Ok(RangeResult {
                items: response
                    .kvs
                    .into_iter()
                    .map(|kv| key_value(&self.keys, kv))
                    .collect(),
                more: response.more,
                count: u64::try_from(response.count).unwrap_or(0),
                revision,
            })
        })
    }

    fn commit(&self, txn: Txn) -> Reply<'_, Result<Committed, StorageError>> {
        Reply::pending(self.commit_txn(txn))
    }

    fn watch(&self, range: KeyRange, after: Revision) -> Watch {
        Watch::new(EtcdWatch::start(
            std::sync::Arc::clone(&self.client),
            self.keys.clone(),
            &range,
            after,
            self.closed.subscribe(),
            std::sync::Arc::clone(&self.probe.ordered_progress),
        ))
    }

    fn current_revision(&self) -> Reply<'_, Result<Revision, StorageError>> {
        Reply::pending(self.latest())
    }

    fn status(&self) -> Reply<'_, Result<Status, StorageError>> {
        Reply::pending(self.status_now())
    }

    fn compact(&self, at: Revision) -> Reply<'_, Result<(), StorageError>> {
        Reply::pending(self.compactor.compact(&self.client, at))
    }

    fn compact_round(&self, at: Revision) -> Reply<'_, Result<bool, StorageError>> {
        Reply::pending(self.compactor.round(&self.client, at))
    }

    fn health(&self) -> Result<(), String> {
        if *self.closed.borrow() {
            return Err("etcd: the backend is closed".into());
        }
        self.probe.last()
    }

    fn close(&self) {
        let _ = self.closed.send(true);
    }
}
