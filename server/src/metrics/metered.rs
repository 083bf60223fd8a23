//! `MeteredStorage`: any backend, with each request's latency recorded as
//! kube's `etcd_request_duration_seconds` (operation get, list, count,
//! create, update, delete; type the collection's resource) and, inside a
//! traced request, a span (`Create etcd3`, as kube-apiserver's storage
//! spans are named).

use std::sync::Arc;

use opentelemetry::KeyValue;
use opentelemetry::trace::SpanKind;

use super::clock::{self, Stamp};
use super::storage::StorageMetrics;
use crate::storage::txn::{Guard, Op};
use crate::storage::types::{GetResult, KeyRange, RangeOptions, RangeResult, Revision, Status};
use crate::storage::{Committed, Reply, Storage, StorageError, Txn, Watch};
use crate::trace;

/// `inner`, measured into `metrics`.
pub struct MeteredStorage {
    inner: Arc<dyn Storage>,
    metrics: &'static StorageMetrics,
    /// The backend's name in span names.
    backend: &'static str,
}

impl MeteredStorage {
    #[must_use]
    pub fn new(
        inner: Arc<dyn Storage>,
        metrics: &'static StorageMetrics,
        backend: &'static str,
    ) -> MeteredStorage {
        MeteredStorage {
            inner,
            metrics,
            backend,
        }
    }

    /// The operation's span, when the request it serves is traced.
    fn span(&self, operation: &'static str, key: &[u8]) -> Option<trace::Span> {
        trace::child(SpanKind::Internal, |audit_id| {
            let verb = match operation {
                "get" => "Get",
                "list" => "List",
                "count" => "Count",
                "create" => "Create",
                "update" => "GuaranteedUpdate",
                _ => "Delete",
            };
            let attributes = vec![
                KeyValue::new("audit-id", audit_id.to_string()),
                KeyValue::new("key", String::from_utf8_lossy(key).into_owned()),
            ];
            (format!("{verb} {}", self.backend).into(), attributes)
        })
    }
}

/// kube's operation name for a transaction of the store's shapes.
fn operation(txn: &Txn) -> &'static str {
    if txn.ops.iter().any(|op| matches!(op, Op::Delete { .. })) {
        "delete"
    } else if txn.guards.iter().any(|g| matches!(g, Guard::Absent(_))) {
        "create"
    } else {
        "update"
    }
}

fn txn_key(txn: &Txn) -> &[u8] {
    let first = txn.ops.first().map(|op| match op {
        Op::Put { key, .. } | Op::Delete { key } => key.as_slice(),
    });
    first
        .or_else(|| txn.guards.first().map(Guard::key))
        .unwrap_or_default()
}

impl Storage for MeteredStorage {
    fn pages_cheaply(&self) -> bool {
        self.inner.pages_cheaply()
    }

    fn reached(&self, revision: Revision) -> bool {
        self.inner.reached(revision)
    }

    fn catch_up(&self, revision: Revision) -> Reply<'_, bool> {
        self.inner.catch_up(revision)
    }

    fn get(&self, key: &[u8], at: Option<Revision>) -> Reply<'_, Result<GetResult, StorageError>> {
        let series = self.metrics.series("get", key);
        let span = self.span("get", key);
        let started = Stamp::now();
        self.inner.get(key, at).map(move |r| {
            series.observe(clock::seconds(started.elapsed_nanos()));
            drop(span);
            r
        })
    }

    fn range(
        &self,
        range: KeyRange,
        opts: RangeOptions,
    ) -> Reply<'_, Result<RangeResult, StorageError>> {
        let operation = if opts.count_only { "count" } else { "list" };
        let series = self.metrics.series(operation, &range.start);
        let span = self.span(operation, &range.start);
        let started = Stamp::now();
        self.inner.range(range, opts).map(move |r| {
            series.observe(clock::seconds(started.elapsed_nanos()));
            drop(span);
            r
        })
    }

    fn commit(&self, txn: Txn) -> Reply<'_, Result<Committed, StorageError>> {
        let operation = operation(&txn);
        let series = self.metrics.series(operation, txn_key(&txn));
        let span = self.span(operation, txn_key(&txn));
        let started = Stamp::now();
        self.inner.commit(txn).map(move |r| {
            series.observe(clock::seconds(started.elapsed_nanos()));
            drop(span);
            r
        })
    }

    fn watch(&self, range: KeyRange, after: Revision) -> Watch {
        self.inner.watch(range, after)
    }

    fn current_revision(&self) -> Reply<'_, Result<Revision, StorageError>> {
        self.inner.current_revision()
    }

    fn status(&self) -> Reply<'_, Result<Status, StorageError>> {
        self.inner.status()
    }

    fn compact(&self, at: Revision) -> Reply<'_, Result<(), StorageError>> {
        self.inner.compact(at)
    }

    fn compact_round(&self, at: Revision) -> Reply<'_, Result<bool, StorageError>> {
        self.inner.compact_round(at)
    }

    fn health(&self) -> Result<(), String> {
        self.inner.health()
    }

    fn close(&self) {
        self.inner.close();
    }
}
