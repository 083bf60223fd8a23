//! An etcd watch: one gRPC Watch stream on the Event prefix, keys only read.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use http::uri::PathAndQuery;
use tokio_stream::StreamExt;
use tonic::client::Grpc;
use tonic::codec::{Codec, DecodeBuf, Decoder};
use tonic::transport::Channel;
use tonic::{Status, Streaming};
use tonic_prost::{ProstCodec, ProstDecoder};

use super::WATCH;
use super::proto::{WatchCreateRequest, WatchRequest, WatchResponse};
use crate::Result;
use crate::event::{self, ETCD_PREFIX};
use crate::load::WatchStream;
use crate::parse::trailing_index;

pub struct EtcdWatch {
    stream: Streaming<WatchResponse>,
    received: Arc<AtomicU64>,
}

type Prost = ProstCodec<WatchRequest, WatchResponse>;

/// The watch's protobuf codec, also counting the bytes of every message it
/// decodes (the responses skip the values, so their decoded size would not say).
#[derive(Default)]
struct CountingCodec {
    received: Arc<AtomicU64>,
}

impl Codec for CountingCodec {
    type Encode = WatchRequest;
    type Decode = WatchResponse;
    type Encoder = <Prost as Codec>::Encoder;
    type Decoder = CountingDecoder;

    fn encoder(&mut self) -> Self::Encoder {
        Prost::default().encoder()
    }

    fn decoder(&mut self) -> Self::Decoder {
        CountingDecoder {
            inner: Prost::default().decoder(),
            received: Arc::clone(&self.received),
        }
    }
}

struct CountingDecoder {
    inner: ProstDecoder<WatchResponse>,
    received: Arc<AtomicU64>,
}

impl Decoder for CountingDecoder {
    type Item = WatchResponse;
    type Error = Status;

    fn decode(
        &mut self,
        src: &mut DecodeBuf<'_>,
    ) -> std::result::Result<Option<WatchResponse>, Status> {
        use bytes::Buf;
        self.received
            .fetch_add(src.remaining() as u64, Ordering::Relaxed);
        self.inner.decode(src)
    }
}

/// Watches every key under the prefix from `start_revision`; returns once
/// etcd confirmed the watch was created.
pub async fn open(channel: Channel, start_revision: i64) -> Result<EtcdWatch> {
    open_prefix(channel, ETCD_PREFIX, start_revision).await
}

/// Watches every key under `prefix` from `start_revision`.
pub async fn open_prefix(
    channel: Channel,
    prefix: &[u8],
    start_revision: i64,
) -> Result<EtcdWatch> {
    let mut grpc = Grpc::new(channel).max_decoding_message_size(usize::MAX);
    grpc.ready().await?;
    let create = WatchRequest {
        create_request: Some(WatchCreateRequest {
            key: prefix.to_vec(),
            range_end: event::prefix_end(prefix),
            start_revision,
            ..Default::default()
        }),
    };
    // The request side stays open (and silent) for the life of the watch.
    let outbound = tokio_stream::once(create).chain(tokio_stream::pending());
    let codec = CountingCodec::default();
    let received = Arc::clone(&codec.received);
    let resp = grpc
        .streaming(
            tonic::Request::new(outbound),
            PathAndQuery::from_static(WATCH),
            codec,
        )
        .await
        .map_err(|s| format!("etcd watch: {s}"))?;
    let mut stream = resp.into_inner();
    match stream.message().await? {
        Some(first) if first.created => Ok(EtcdWatch { stream, received }),
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

    fn received_bytes(&self) -> u64 {
        self.received.load(Ordering::Relaxed)
    }
}
