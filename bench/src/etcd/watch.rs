//! An etcd watch: one gRPC Watch stream on the Event prefix, keys only read.

use http::uri::PathAndQuery;
use tokio_stream::StreamExt;
use tonic::Streaming;
use tonic::client::Grpc;
use tonic::transport::Channel;
use tonic_prost::ProstCodec;

use super::WATCH;
use super::proto::{WatchCreateRequest, WatchRequest, WatchResponse};
use crate::Result;
use crate::event::{self, ETCD_PREFIX};
use crate::load::WatchStream;
use crate::parse::trailing_index;

pub struct EtcdWatch {
    stream: Streaming<WatchResponse>,
}

/// Watches every key under the prefix from `start_revision`; returns once
/// etcd confirmed the watch was created.
pub async fn open(channel: Channel, start_revision: i64) -> Result<EtcdWatch> {
    let mut grpc = Grpc::new(channel).max_decoding_message_size(usize::MAX);
    grpc.ready().await?;
    let create = WatchRequest {
        create_request: Some(WatchCreateRequest {
            key: ETCD_PREFIX.to_vec(),
            range_end: event::prefix_end(ETCD_PREFIX),
            start_revision,
            ..Default::default()
        }),
    };
    // The request side stays open (and silent) for the life of the watch.
    let outbound = tokio_stream::once(create).chain(tokio_stream::pending());
    let resp = grpc
        .streaming(
            tonic::Request::new(outbound),
            PathAndQuery::from_static(WATCH),
            ProstCodec::<WatchRequest, WatchResponse>::default(),
        )
        .await
        .map_err(|s| format!("etcd watch: {s}"))?;
    let mut stream = resp.into_inner();
    match stream.message().await? {
        Some(first) if first.created => Ok(EtcdWatch { stream }),
        Some(other) => Err(format!("etcd watch not created: {}", other.cancel_reason).into()),
        None => Err("etcd watch stream ended before it was created".into()),
    }
}

impl WatchStream for EtcdWatch {
    async fn next_batch(&mut self, out: &mut Vec<u64>) -> Result<bool> {
        let Some(resp) = self.stream.message().await? else {
            return Ok(false);
        };
        if resp.canceled {
            return Err(format!("etcd canceled a watch: {}", resp.cancel_reason).into());
        }
        for ev in &resp.events {
            if ev.kind == 0
                && let Some(i) = ev.kv.as_ref().and_then(|kv| trailing_index(&kv.key))
            {
                out.push(i);
            }
        }
        Ok(true)
    }
}
