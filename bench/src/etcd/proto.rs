//! The etcd v3 messages the bench sends and reads, written as prost structs
//! with the field numbers of etcd's api/etcdserverpb/rpc.proto and
//! api/mvccpb/kv.proto (no protoc or build script needed).

use bytes::Bytes;

#[derive(Clone, PartialEq, prost::Message)]
pub struct ResponseHeader {
    #[prost(uint64, tag = "1")]
    pub cluster_id: u64,
    #[prost(uint64, tag = "2")]
    pub member_id: u64,
    #[prost(int64, tag = "3")]
    pub revision: i64,
    #[prost(uint64, tag = "4")]
    pub raft_term: u64,
}

/// mvccpb.KeyValue.
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyValue {
    #[prost(bytes = "bytes", tag = "1")]
    pub key: Bytes,
    #[prost(int64, tag = "2")]
    pub create_revision: i64,
    #[prost(int64, tag = "3")]
    pub mod_revision: i64,
    #[prost(int64, tag = "4")]
    pub version: i64,
    #[prost(bytes = "bytes", tag = "5")]
    pub value: Bytes,
    #[prost(int64, tag = "6")]
    pub lease: i64,
}

/// etcdserverpb.RangeRequest (sort and min/max revision filters left at their defaults).
#[derive(Clone, PartialEq, prost::Message)]
pub struct RangeRequest {
    #[prost(bytes = "vec", tag = "1")]
    pub key: Vec<u8>,
    #[prost(bytes = "vec", tag = "2")]
    pub range_end: Vec<u8>,
    #[prost(int64, tag = "3")]
    pub limit: i64,
    #[prost(int64, tag = "4")]
    pub revision: i64,
    #[prost(bool, tag = "7")]
    pub serializable: bool,
    #[prost(bool, tag = "8")]
    pub keys_only: bool,
    #[prost(bool, tag = "9")]
    pub count_only: bool,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct RangeResponse {
    #[prost(message, optional, tag = "1")]
    pub header: Option<ResponseHeader>,
    #[prost(message, repeated, tag = "2")]
    pub kvs: Vec<KeyValue>,
    #[prost(bool, tag = "3")]
    pub more: bool,
    #[prost(int64, tag = "4")]
    pub count: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PutRequest {
    #[prost(bytes = "vec", tag = "1")]
    pub key: Vec<u8>,
    #[prost(bytes = "bytes", tag = "2")]
    pub value: Bytes,
    #[prost(int64, tag = "3")]
    pub lease: i64,
    #[prost(bool, tag = "4")]
    pub prev_kv: bool,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PutResponse {
    #[prost(message, optional, tag = "1")]
    pub header: Option<ResponseHeader>,
}

/// etcdserverpb.WatchRequest; of its `request_union` only `create_request` is used.
#[derive(Clone, PartialEq, prost::Message)]
pub struct WatchRequest {
    #[prost(message, optional, tag = "1")]
    pub create_request: Option<WatchCreateRequest>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct WatchCreateRequest {
    #[prost(bytes = "vec", tag = "1")]
    pub key: Vec<u8>,
    #[prost(bytes = "vec", tag = "2")]
    pub range_end: Vec<u8>,
    #[prost(int64, tag = "3")]
    pub start_revision: i64,
    #[prost(bool, tag = "4")]
    pub progress_notify: bool,
    #[prost(bool, tag = "6")]
    pub prev_kv: bool,
    #[prost(int64, tag = "7")]
    pub watch_id: i64,
    #[prost(bool, tag = "8")]
    pub fragment: bool,
}

/// etcdserverpb.WatchResponse with events whose key-values skip the value
/// (field 5 is left unknown, so prost skips those bytes instead of copying them).
#[derive(Clone, PartialEq, prost::Message)]
pub struct WatchResponse {
    #[prost(message, optional, tag = "1")]
    pub header: Option<ResponseHeader>,
    #[prost(int64, tag = "2")]
    pub watch_id: i64,
    #[prost(bool, tag = "3")]
    pub created: bool,
    #[prost(bool, tag = "4")]
    pub canceled: bool,
    #[prost(int64, tag = "5")]
    pub compact_revision: i64,
    #[prost(string, tag = "6")]
    pub cancel_reason: String,
    #[prost(bool, tag = "7")]
    pub fragment: bool,
    #[prost(message, repeated, tag = "11")]
    pub events: Vec<WatchEvent>,
}

/// mvccpb.Event; `kind` is its `type` (0 PUT, 1 DELETE).
#[derive(Clone, PartialEq, prost::Message)]
pub struct WatchEvent {
    #[prost(int32, tag = "1")]
    pub kind: i32,
    #[prost(message, optional, tag = "2")]
    pub kv: Option<KeyOnly>,
}

/// mvccpb.KeyValue without its value.
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyOnly {
    #[prost(bytes = "bytes", tag = "1")]
    pub key: Bytes,
    #[prost(int64, tag = "3")]
    pub mod_revision: i64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn a_watch_event_decodes_without_its_value() {
        let kv = KeyValue {
            key: Bytes::from_static(b"/registry/events/ns-1/ev-11"),
            create_revision: 5,
            mod_revision: 5,
            version: 1,
            value: Bytes::from(vec![b'x'; 500]),
            lease: 0,
        };
        // mvccpb.Event { type = PUT, kv } encoded by hand: field 2, length-delimited.
        let mut event = Vec::new();
        prost::encoding::message::encode(2, &kv, &mut event);
        let mut resp = Vec::new();
        prost::encoding::int64::encode(2, &7, &mut resp);
        prost::encoding::bytes::encode(11, &event, &mut resp);
        let decoded = WatchResponse::decode(resp.as_slice()).unwrap();
        assert_eq!(decoded.watch_id, 7);
        assert_eq!(decoded.events.len(), 1);
        let key = decoded.events[0].kv.as_ref().unwrap();
        assert_eq!(key.key, kv.key);
        assert_eq!(key.mod_revision, 5);
    }
}
