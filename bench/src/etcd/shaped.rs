//! etcd writers of a selective shape: object `i`'s value (the same bytes as
//! cairn's create body) put under its target's prefix.

use std::sync::Arc;

use tonic::client::Grpc;
use tonic::transport::Channel;

use super::proto::{PutRequest, PutResponse};
use super::{Etcd, PUT, unary};
use crate::Result;
use crate::load::Writer;
use crate::shape::Shape;

pub struct ShapedWriter {
    grpc: Grpc<Channel>,
    shape: Arc<Shape>,
}

impl Writer for ShapedWriter {
    async fn create(&mut self, i: u64) -> Result<()> {
        let req = PutRequest {
            key: self.shape.etcd_key(i),
            value: self.shape.body(i),
            ..Default::default()
        };
        let _: PutResponse = unary(&mut self.grpc, PUT, req).await?;
        Ok(())
    }
}

/// `n` writers spread round-robin over the etcd connections.
pub fn writers(etcd: &Etcd, shape: &Arc<Shape>, n: usize) -> Vec<ShapedWriter> {
    (0..n)
        .map(|i| ShapedWriter {
            grpc: etcd.client(i),
            shape: Arc::clone(shape),
        })
        .collect()
}
