//! Kubernetes' protobuf messages as the tests read them, declared here with
//! prost from the field numbers of Kubernetes' `generated.proto` files, so
//! responses are checked by a decoder independent of the server's codec.
//! Only the fields the tests look at are declared; prost skips the rest.

use std::collections::HashMap;

use prost::Message;

/// The four bytes before every enveloped object.
pub const MAGIC: &[u8; 4] = b"k8s\0";

#[derive(Clone, PartialEq, Message)]
pub struct TypeMeta {
    #[prost(string, optional, tag = "1")]
    pub api_version: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub kind: Option<String>,
}

/// `runtime.Unknown`.
#[derive(Clone, PartialEq, Message)]
pub struct Unknown {
    #[prost(message, optional, tag = "1")]
    pub type_meta: Option<TypeMeta>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub raw: Option<Vec<u8>>,
    #[prost(string, optional, tag = "3")]
    pub content_encoding: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub content_type: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Time {
    #[prost(int64, optional, tag = "1")]
    pub seconds: Option<i64>,
    #[prost(int32, optional, tag = "2")]
    pub nanos: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
pub struct OwnerReference {
    #[prost(string, optional, tag = "1")]
    pub kind: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub uid: Option<String>,
    #[prost(string, optional, tag = "5")]
    pub api_version: Option<String>,
    #[prost(bool, optional, tag = "6")]
    pub controller: Option<bool>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ObjectMeta {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub generate_name: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub namespace: Option<String>,
    #[prost(string, optional, tag = "5")]
    pub uid: Option<String>,
    #[prost(string, optional, tag = "6")]
    pub resource_version: Option<String>,
    #[prost(int64, optional, tag = "7")]
    pub generation: Option<i64>,
    #[prost(message, optional, tag = "8")]
    pub creation_timestamp: Option<Time>,
    #[prost(map = "string, string", tag = "11")]
    pub labels: HashMap<String, String>,
    #[prost(map = "string, string", tag = "12")]
    pub annotations: HashMap<String, String>,
    #[prost(message, repeated, tag = "13")]
    pub owner_references: Vec<OwnerReference>,
    #[prost(string, repeated, tag = "14")]
    pub finalizers: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ListMeta {
    #[prost(string, optional, tag = "2")]
    pub resource_version: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub r#continue: Option<String>,
    #[prost(int64, optional, tag = "4")]
    pub remaining_item_count: Option<i64>,
}

#[derive(Clone, PartialEq, Message)]
pub struct NamespaceSpec {
    #[prost(string, repeated, tag = "1")]
    pub finalizers: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct NamespaceStatus {
    #[prost(string, optional, tag = "1")]
    pub phase: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Namespace {
    #[prost(message, optional, tag = "1")]
    pub metadata: Option<ObjectMeta>,
    #[prost(message, optional, tag = "2")]
    pub spec: Option<NamespaceSpec>,
    #[prost(message, optional, tag = "3")]
    pub status: Option<NamespaceStatus>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ConfigMap {
    #[prost(message, optional, tag = "1")]
    pub metadata: Option<ObjectMeta>,
    #[prost(map = "string, string", tag = "2")]
    pub data: HashMap<String, String>,
    #[prost(map = "string, bytes", tag = "3")]
    pub binary_data: HashMap<String, Vec<u8>>,
    #[prost(bool, optional, tag = "4")]
    pub immutable: Option<bool>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ConfigMapList {
    #[prost(message, optional, tag = "1")]
    pub metadata: Option<ListMeta>,
    #[prost(message, repeated, tag = "2")]
    pub items: Vec<ConfigMap>,
}

/// `resource.Quantity`.
#[derive(Clone, PartialEq, Message)]
pub struct Quantity {
    #[prost(string, optional, tag = "1")]
    pub string: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ContainerPort {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(int32, optional, tag = "3")]
    pub container_port: Option<i32>,
    #[prost(string, optional, tag = "4")]
    pub protocol: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct EnvVar {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub value: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ResourceRequirements {
    #[prost(map = "string, message", tag = "1")]
    pub limits: HashMap<String, Quantity>,
    #[prost(map = "string, message", tag = "2")]
    pub requests: HashMap<String, Quantity>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Container {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub image: Option<String>,
    #[prost(string, repeated, tag = "3")]
    pub command: Vec<String>,
    #[prost(message, repeated, tag = "6")]
    pub ports: Vec<ContainerPort>,
    #[prost(message, repeated, tag = "7")]
    pub env: Vec<EnvVar>,
    #[prost(message, optional, tag = "8")]
    pub resources: Option<ResourceRequirements>,
    #[prost(string, optional, tag = "14")]
    pub image_pull_policy: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Toleration {
    #[prost(string, optional, tag = "1")]
    pub key: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub operator: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub effect: Option<String>,
    #[prost(int64, optional, tag = "5")]
    pub toleration_seconds: Option<i64>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PodSpec {
    #[prost(message, repeated, tag = "2")]
    pub containers: Vec<Container>,
    #[prost(string, optional, tag = "3")]
    pub restart_policy: Option<String>,
    #[prost(int64, optional, tag = "4")]
    pub termination_grace_period_seconds: Option<i64>,
    #[prost(string, optional, tag = "6")]
    pub dns_policy: Option<String>,
    #[prost(map = "string, string", tag = "7")]
    pub node_selector: HashMap<String, String>,
    #[prost(string, optional, tag = "10")]
    pub node_name: Option<String>,
    #[prost(string, optional, tag = "19")]
    pub scheduler_name: Option<String>,
    #[prost(bool, optional, tag = "21")]
    pub automount_service_account_token: Option<bool>,
    #[prost(message, repeated, tag = "22")]
    pub tolerations: Vec<Toleration>,
    #[prost(int32, optional, tag = "25")]
    pub priority: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PodCondition {
    #[prost(string, optional, tag = "1")]
    pub r#type: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub status: Option<String>,
    #[prost(message, optional, tag = "4")]
    pub last_transition_time: Option<Time>,
    #[prost(string, optional, tag = "5")]
    pub reason: Option<String>,
}

/// `PodIP` and `HostIP`.
#[derive(Clone, PartialEq, Message)]
pub struct PodIp {
    #[prost(string, optional, tag = "1")]
    pub ip: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ContainerStatus {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(bool, optional, tag = "4")]
    pub ready: Option<bool>,
    #[prost(int32, optional, tag = "5")]
    pub restart_count: Option<i32>,
    #[prost(string, optional, tag = "6")]
    pub image: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PodStatus {
    #[prost(string, optional, tag = "1")]
    pub phase: Option<String>,
    #[prost(message, repeated, tag = "2")]
    pub conditions: Vec<PodCondition>,
    #[prost(string, optional, tag = "5")]
    pub host_ip: Option<String>,
    #[prost(string, optional, tag = "6")]
    pub pod_ip: Option<String>,
    #[prost(message, optional, tag = "7")]
    pub start_time: Option<Time>,
    #[prost(message, repeated, tag = "8")]
    pub container_statuses: Vec<ContainerStatus>,
    #[prost(string, optional, tag = "9")]
    pub qos_class: Option<String>,
    #[prost(message, repeated, tag = "12")]
    pub pod_ips: Vec<PodIp>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Pod {
    #[prost(message, optional, tag = "1")]
    pub metadata: Option<ObjectMeta>,
    #[prost(message, optional, tag = "2")]
    pub spec: Option<PodSpec>,
    #[prost(message, optional, tag = "3")]
    pub status: Option<PodStatus>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Secret {
    #[prost(message, optional, tag = "1")]
    pub metadata: Option<ObjectMeta>,
    #[prost(map = "string, bytes", tag = "2")]
    pub data: HashMap<String, Vec<u8>>,
    #[prost(string, optional, tag = "3")]
    pub r#type: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ObjectReference {
    #[prost(string, optional, tag = "1")]
    pub kind: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub namespace: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub uid: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct EventSource {
    #[prost(string, optional, tag = "1")]
    pub component: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub host: Option<String>,
}

/// core/v1 Event.
#[derive(Clone, PartialEq, Message)]
pub struct Event {
    #[prost(message, optional, tag = "1")]
    pub metadata: Option<ObjectMeta>,
    #[prost(message, optional, tag = "2")]
    pub involved_object: Option<ObjectReference>,
    #[prost(string, optional, tag = "3")]
    pub reason: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub message: Option<String>,
    #[prost(message, optional, tag = "5")]
    pub source: Option<EventSource>,
    #[prost(message, optional, tag = "6")]
    pub first_timestamp: Option<Time>,
    #[prost(int32, optional, tag = "8")]
    pub count: Option<i32>,
    #[prost(string, optional, tag = "9")]
    pub r#type: Option<String>,
    #[prost(message, optional, tag = "10")]
    pub event_time: Option<Time>,
}

/// events.k8s.io/v1 Event (the fields that moved).
#[derive(Clone, PartialEq, Message)]
pub struct EventV1 {
    #[prost(message, optional, tag = "1")]
    pub metadata: Option<ObjectMeta>,
    #[prost(message, optional, tag = "2")]
    pub event_time: Option<Time>,
    #[prost(string, optional, tag = "7")]
    pub reason: Option<String>,
    #[prost(message, optional, tag = "8")]
    pub regarding: Option<ObjectReference>,
    #[prost(string, optional, tag = "10")]
    pub note: Option<String>,
    #[prost(int32, optional, tag = "15")]
    pub deprecated_count: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
pub struct StatusCause {
    #[prost(string, optional, tag = "1")]
    pub reason: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub message: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub field: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct StatusDetails {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub group: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub kind: Option<String>,
    #[prost(message, repeated, tag = "4")]
    pub causes: Vec<StatusCause>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Status {
    #[prost(message, optional, tag = "1")]
    pub metadata: Option<ListMeta>,
    #[prost(string, optional, tag = "2")]
    pub status: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub message: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub reason: Option<String>,
    #[prost(message, optional, tag = "5")]
    pub details: Option<StatusDetails>,
    #[prost(int32, optional, tag = "6")]
    pub code: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Preconditions {
    #[prost(string, optional, tag = "1")]
    pub uid: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub resource_version: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct DeleteOptions {
    #[prost(message, optional, tag = "2")]
    pub preconditions: Option<Preconditions>,
    #[prost(string, repeated, tag = "5")]
    pub dry_run: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct RawExtension {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub raw: Option<Vec<u8>>,
}

#[derive(Clone, PartialEq, Message)]
pub struct WatchEvent {
    #[prost(string, optional, tag = "1")]
    pub r#type: Option<String>,
    #[prost(message, optional, tag = "2")]
    pub object: Option<RawExtension>,
}

/// Splits an enveloped body into its type (apiVersion, kind) and raw message.
///
/// # Panics
/// When the body is not an enveloped protobuf object.
#[must_use]
pub fn unwrap(body: &[u8]) -> (String, String, Vec<u8>) {
    assert!(
        body.starts_with(MAGIC),
        "no protobuf magic: {:?}",
        String::from_utf8_lossy(&body[..body.len().min(200)])
    );
    let u = Unknown::decode(&body[4..]).expect("an Unknown envelope");
    let tm = u.type_meta.unwrap_or_default();
    (
        tm.api_version.unwrap_or_default(),
        tm.kind.unwrap_or_default(),
        u.raw.unwrap_or_default(),
    )
}

/// Envelopes a message as a client sends it.
#[must_use]
pub fn wrap(api_version: &str, kind: &str, message: &impl Message) -> Vec<u8> {
    let u = Unknown {
        type_meta: Some(TypeMeta {
            api_version: Some(api_version.into()),
            kind: Some(kind.into()),
        }),
        raw: Some(message.encode_to_vec()),
        content_encoding: Some(String::new()),
        content_type: Some(String::new()),
    };
    let mut out = MAGIC.to_vec();
    out.extend(u.encode_to_vec());
    out
}

/// The events of a protobuf watch stream body: (type, enveloped object).
///
/// # Panics
/// When the frames are malformed.
#[must_use]
pub fn watch_events(mut body: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    while !body.is_empty() {
        let len = u32::from_be_bytes(body[..4].try_into().expect("length")) as usize;
        let ev = WatchEvent::decode(&body[4..4 + len]).expect("a WatchEvent");
        out.push((
            ev.r#type.unwrap_or_default(),
            ev.object.and_then(|o| o.raw).unwrap_or_default(),
        ));
        body = &body[4 + len..];
    }
    out
}
