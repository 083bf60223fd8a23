//! An OTLP trace collector for tests: a real gRPC server (HTTP/2 through
//! hyper, no TLS, as kube's exporters dial it) on a loopback port serving
//! `opentelemetry.proto.collector.trace.v1.TraceService/Export`. It keeps
//! every span it receives, with its resource's attributes, for tests to
//! wait for and inspect. It runs on its own runtime.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use hyper_util::rt::{TokioExecutor, TokioIo};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use parking_lot::Mutex;
use prost::Message;

use crate::kms_plugin::{Reply, success, unframe};

const EXPORT: &str = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";

/// One received span, its ids in lower-case hex.
#[derive(Clone, Debug)]
pub struct ReceivedSpan {
    pub name: String,
    pub trace_id: String,
    pub span_id: String,
    /// Empty for a root span.
    pub parent_span_id: String,
    /// OTLP's SpanKind: 1 internal, 2 server, 3 client.
    pub kind: i32,
    pub attributes: BTreeMap<String, String>,
    pub resource: BTreeMap<String, String>,
}

impl ReceivedSpan {
    #[must_use]
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).map(String::as_str)
    }
}

pub struct Collector {
    address: SocketAddr,
    spans: Arc<Mutex<Vec<ReceivedSpan>>>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Collector {
    #[must_use]
    pub fn start() -> Collector {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("collector runtime");
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("bind the collector");
        let address = listener.local_addr().expect("collector address");
        let spans = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&spans);
        runtime.spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let kept = Arc::clone(&kept);
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let kept = Arc::clone(&kept);
                        async move { Ok::<_, Infallible>(export(&kept, request).await) }
                    });
                    let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Collector {
            address,
            spans,
            runtime: Some(runtime),
        }
    }

    /// `host:port`, as a TracingConfiguration's `endpoint`.
    #[must_use]
    pub fn endpoint(&self) -> String {
        self.address.to_string()
    }

    /// Every span received so far.
    #[must_use]
    pub fn spans(&self) -> Vec<ReceivedSpan> {
        self.spans.lock().clone()
    }

    /// The spans once `done` holds of them (the server exports in batches);
    /// panics with what did arrive after a minute.
    pub fn wait_for(
        &self,
        what: &str,
        done: impl Fn(&[ReceivedSpan]) -> bool,
    ) -> Vec<ReceivedSpan> {
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let spans = self.spans();
            if done(&spans) {
                return spans;
            }
            assert!(
                Instant::now() < until,
                "the collector never received {what}; it has: {:#?}",
                spans.iter().map(|s| &s.name).collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Collector {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

async fn export(
    kept: &Mutex<Vec<ReceivedSpan>>,
    request: http::Request<hyper::body::Incoming>,
) -> Reply {
    assert_eq!(request.uri().path(), EXPORT, "an OTLP trace export");
    let body = request
        .into_body()
        .collect()
        .await
        .expect("the export's body")
        .to_bytes();
    let message = unframe(body).expect("one gRPC message");
    let export = ExportTraceServiceRequest::decode(message).expect("an ExportTraceServiceRequest");
    let mut spans = kept.lock();
    for resource_spans in export.resource_spans {
        let resource = resource_spans
            .resource
            .map(|r| flatten(&r.attributes))
            .unwrap_or_default();
        for scope in resource_spans.scope_spans {
            for span in scope.spans {
                spans.push(ReceivedSpan {
                    name: span.name,
                    trace_id: hex(&span.trace_id),
                    span_id: hex(&span.span_id),
                    parent_span_id: hex(&span.parent_span_id),
                    kind: span.kind,
                    attributes: flatten(&span.attributes),
                    resource: resource.clone(),
                });
            }
        }
    }
    success(&ExportTraceServiceResponse::default())
}

fn flatten(attributes: &[KeyValue]) -> BTreeMap<String, String> {
    attributes
        .iter()
        .map(|kv| (kv.key.clone(), text(kv.value.as_ref())))
        .collect()
}

fn text(value: Option<&AnyValue>) -> String {
    match value.and_then(|v| v.value.as_ref()) {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        Some(any_value::Value::IntValue(i)) => i.to_string(),
        Some(any_value::Value::BoolValue(b)) => b.to_string(),
        Some(any_value::Value::DoubleValue(d)) => d.to_string(),
        other => format!("{other:?}"),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
