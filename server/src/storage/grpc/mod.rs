//! gRPC by hand over hyper's HTTP/2 client, shared by the backends that
//! speak it (a KMS plugin on a unix socket, etcd over TCP or TLS): messages
//! are prost structs written in Rust, framed and statused as gRPC does, in
//! unary and streaming calls.

mod body;
mod client;
mod status;
mod transport;

pub use client::{GrpcClient, ResponseStream};
pub use status::{
    DEADLINE_EXCEEDED, INTERNAL, OUT_OF_RANGE, RpcError, UNAVAILABLE, UNKNOWN, encode_frame,
};
pub use transport::{Endpoint, Transport};
