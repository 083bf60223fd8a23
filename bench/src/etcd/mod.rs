//! The etcd side: gRPC channels to an etcd on loopback (started by
//! bench/etcd.sh) and the unary call every request goes through.

pub mod ops;
pub mod process;
pub mod proto;
pub mod shaped;
pub mod watch;

use http::uri::PathAndQuery;
use tonic::client::Grpc;
use tonic::transport::{Channel, Endpoint};
use tonic_prost::ProstCodec;

use crate::Result;
use crate::cairn::loopback_addr;

pub const RANGE: &str = "/etcdserverpb.KV/Range";
pub const PUT: &str = "/etcdserverpb.KV/Put";
pub const WATCH: &str = "/etcdserverpb.Watch/Watch";

/// An etcd reached over `conns` HTTP/2 connections (perf-anchors.md used 8).
pub struct Etcd {
    pub pid: Option<u32>,
    channels: Vec<Channel>,
    endpoint: Endpoint,
}

impl Etcd {
    pub async fn connect(url: &str, conns: usize, pid: Option<u32>) -> Result<Self> {
        let addr = loopback_addr(url)?;
        let endpoint = Endpoint::from_shared(format!("http://{addr}"))?.tcp_nodelay(true);
        let mut channels = Vec::with_capacity(conns);
        for _ in 0..conns.max(1) {
            channels.push(
                endpoint
                    .connect()
                    .await
                    .map_err(|e| format!("connect to etcd at {addr}: {e}"))?,
            );
        }
        Ok(Self {
            pid,
            channels,
            endpoint,
        })
    }

    /// A client on connection `i mod conns`.
    pub fn client(&self, i: usize) -> Grpc<Channel> {
        let ch = self.channels[i % self.channels.len()].clone();
        Grpc::new(ch).max_decoding_message_size(usize::MAX)
    }

    /// `n` more connections, for watchers (kept apart from the writers' ones).
    pub async fn extra_channels(&self, n: usize) -> Result<Vec<Channel>> {
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(self.endpoint.connect().await?);
        }
        Ok(out)
    }
}

/// One unary call.
pub async fn unary<Req, Resp>(
    grpc: &mut Grpc<Channel>,
    path: &'static str,
    req: Req,
) -> Result<Resp>
where
    Req: prost::Message + Send + Sync + 'static,
    Resp: prost::Message + Default + Send + Sync + 'static,
{
    grpc.ready().await?;
    let resp = grpc
        .unary(
            tonic::Request::new(req),
            PathAndQuery::from_static(path),
            ProstCodec::<Req, Resp>::default(),
        )
        .await
        .map_err(|s| format!("etcd {path}: {s}"))?;
    Ok(resp.into_inner())
}
