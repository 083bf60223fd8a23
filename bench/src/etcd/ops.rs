//! etcd requests of the same shapes: puts, one range of every key, paged
//! ranges at a pinned revision (as kube-apiserver pages), the current revision.

use std::time::Instant;

use prost::Message;
use tonic::client::Grpc;
use tonic::transport::Channel;

use super::proto::{PutRequest, PutResponse, RangeRequest, RangeResponse};
use super::{Etcd, PUT, RANGE, unary};
use crate::Result;
use crate::event::{self, ETCD_PREFIX};
use crate::load::{ListOutcome, Writer};

/// Puts Event bodies, sharing one of the etcd connections.
pub struct EtcdWriter {
    grpc: Grpc<Channel>,
}

impl Writer for EtcdWriter {
    async fn create(&mut self, i: u64) -> Result<()> {
        let req = PutRequest {
            key: event::etcd_key(i),
            value: event::body(i),
            ..Default::default()
        };
        let _: PutResponse = unary(&mut self.grpc, PUT, req).await?;
        Ok(())
    }
}

/// `n` writers spread round-robin over the connections.
pub fn writers(etcd: &Etcd, n: usize) -> Vec<EtcdWriter> {
    (0..n)
        .map(|i| EtcdWriter {
            grpc: etcd.client(i),
        })
        .collect()
}

fn all_events(limit: i64, revision: i64) -> RangeRequest {
    RangeRequest {
        key: ETCD_PREFIX.to_vec(),
        range_end: event::prefix_end(ETCD_PREFIX),
        limit,
        revision,
        ..Default::default()
    }
}

/// One range of every key under the prefix, values included.
pub async fn range_full(grpc: &mut Grpc<Channel>) -> Result<ListOutcome> {
    let start = Instant::now();
    let resp: RangeResponse = unary(grpc, RANGE, all_events(0, 0)).await?;
    Ok(ListOutcome {
        elapsed: start.elapsed(),
        items: resp.kvs.len() as u64,
        bytes: resp.encoded_len() as u64,
        pages: 1,
    })
}

/// Every key, `limit` per range, all pinned to the first page's revision.
pub async fn range_paged(
    grpc: &mut Grpc<Channel>,
    limit: u64,
    expected: u64,
) -> Result<ListOutcome> {
    let start = Instant::now();
    let (mut items, mut bytes, mut pages) = (0u64, 0u64, 0u64);
    let mut req = all_events(limit as i64, 0);
    let max_pages = expected / limit.max(1) + 10;
    loop {
        let resp: RangeResponse = unary(grpc, RANGE, req.clone()).await?;
        pages += 1;
        items += resp.kvs.len() as u64;
        bytes += resp.encoded_len() as u64;
        let Some(last) = resp.kvs.last().filter(|_| resp.more) else {
            break;
        };
        if pages >= max_pages {
            return Err(format!("paged range still going after {pages} pages").into());
        }
        if req.revision == 0 {
            req.revision = resp.header.as_ref().map_or(0, |h| h.revision);
        }
        let mut next = last.key.to_vec();
        next.push(0);
        req.key = next;
    }
    Ok(ListOutcome {
        elapsed: start.elapsed(),
        items,
        bytes,
        pages,
    })
}

/// etcd's current revision (a count-only range).
pub async fn current_revision(grpc: &mut Grpc<Channel>) -> Result<i64> {
    let mut req = all_events(0, 0);
    req.count_only = true;
    let resp: RangeResponse = unary(grpc, RANGE, req).await?;
    resp.header
        .map(|h| h.revision)
        .ok_or_else(|| "etcd range without a header".into())
}
