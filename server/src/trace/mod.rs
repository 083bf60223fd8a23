//! Distributed tracing (`--tracing-config-file`): spans exported in batches
//! to an OTLP collector, as kube-apiserver's APIServerTracing makes them. A
//! request's span (`request`) is the parent of the spans its handling opens
//! (storage operations, webhook calls). The current span travels with the
//! request's task (a task-local; a webhook call on a task of its own
//! enters its span there) and out to webhooks as a W3C `traceparent`
//! header.
//!
//! Sampling is kube's: a span follows its parent's decision; a trace starts
//! here for `samplingRatePerMillion` in a million requests. Spans of
//! unsampled requests are never built. Without a configuration everything
//! here is one check of a static.

pub mod request;

use std::borrow::Cow;
use std::future::Future;
use std::sync::{Arc, OnceLock};

use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::{
    Span as _, SpanKind, Status, TraceContextExt, Tracer as _, TracerProvider as _,
};
use opentelemetry::{Context, KeyValue};
use opentelemetry_otlp::WithExportConfig as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{Sampler, SdkTracer, SdkTracerProvider};

use crate::config::tracing::TracingSettings;

/// The service kube-apiserver reports its spans as.
const SERVICE_NAME: &str = "apiserver";

struct Tracing {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
}

static TRACING: OnceLock<Tracing> = OnceLock::new();

/// The span a request's work runs in, and the request's audit ID, which
/// kube names on the spans under it.
#[derive(Clone)]
struct Current {
    context: Context,
    audit_id: Arc<str>,
}

tokio::task_local! {
    static CURRENT: Current;
}

/// Starts exporting spans as `settings` say. Must run inside the runtime
/// (the gRPC channel's tasks are spawned on it); once per process.
pub fn install(settings: &TracingSettings) -> Result<(), String> {
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .with_endpoint(settings.collector_url())
        .build()
        .map_err(|e| format!("tracing: cannot export to {:?}: {e}", settings.endpoint))?;
    let mut attributes = vec![KeyValue::new("service.name", SERVICE_NAME)];
    if let Some(host) = crate::util::host_name() {
        attributes.push(KeyValue::new("service.instance.id", host));
    }
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_sampler(Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(
            settings.ratio(),
        ))))
        .with_resource(
            Resource::builder_empty()
                .with_attributes(attributes)
                .build(),
        )
        .build();
    let tracer = provider.tracer("cairn-apiserver");
    TRACING
        .set(Tracing { provider, tracer })
        .map_err(|_| "tracing: already started".to_string())
}

/// Exports the spans still queued; blocks, so it runs off the runtime's
/// workers at shutdown.
pub fn shutdown() {
    if let Some(tracing) = TRACING.get()
        && let Err(e) = tracing.provider.shutdown()
    {
        tracing::warn!("tracing: exporting the last spans failed: {e}");
    }
}

/// An open span; it ends when dropped.
pub struct Span {
    context: Context,
    audit_id: Arc<str>,
}

impl Span {
    /// Adds or replaces an attribute.
    pub fn set(&self, attribute: KeyValue) {
        self.context.span().set_attribute(attribute);
    }

    /// Marks the span failed.
    pub fn fail(&self, description: impl Into<String>) {
        self.context
            .span()
            .set_status(Status::error(description.into()));
    }

    /// Runs `work` with this span as the current one.
    pub async fn enclose<F: Future>(&self, work: F) -> F::Output {
        let current = Current {
            context: self.context.clone(),
            audit_id: Arc::clone(&self.audit_id),
        };
        CURRENT.scope(current, work).await
    }

    /// The W3C headers (`traceparent`, and `tracestate` when there is one)
    /// that make this span the parent of a call's span.
    #[must_use]
    pub fn propagation_headers(&self) -> Vec<(String, String)> {
        let mut headers = Outgoing(Vec::new());
        TraceContextPropagator::new().inject_context(&self.context, &mut headers);
        headers.0
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        self.context.span().end();
    }
}

/// A span under the current one when that one is sampled; its name and
/// attributes (`describe`, given the request's audit ID) are only made
/// then.
pub fn child(
    kind: SpanKind,
    describe: impl FnOnce(&str) -> (Cow<'static, str>, Vec<KeyValue>),
) -> Option<Span> {
    let tracing = TRACING.get()?;
    CURRENT
        .try_with(|current| {
            if !current.context.span().span_context().is_sampled() {
                return None;
            }
            let (name, attributes) = describe(&current.audit_id);
            let span = tracing
                .tracer
                .span_builder(name)
                .with_kind(kind)
                .with_attributes(attributes)
                .start_with_context(&tracing.tracer, &current.context);
            Some(Span {
                context: current.context.with_span(span),
                audit_id: Arc::clone(&current.audit_id),
            })
        })
        .ok()
        .flatten()
}

/// The root span of a request whose headers may name a remote parent
/// (`traceparent`); `None` unless tracing is on and the span is sampled.
fn root(
    name: impl FnOnce() -> String,
    headers: &http::HeaderMap,
    audit_id: &str,
    attributes: impl FnOnce() -> Vec<KeyValue>,
) -> Option<Span> {
    let tracing = TRACING.get()?;
    let parent = TraceContextPropagator::new().extract(&Incoming(headers));
    let mut span = tracing
        .tracer
        .span_builder(name())
        .with_kind(SpanKind::Server)
        .start_with_context(&tracing.tracer, &parent);
    if !span.span_context().is_sampled() {
        return None;
    }
    span.set_attributes(attributes());
    Some(Span {
        context: parent.with_span(span),
        audit_id: audit_id.into(),
    })
}

/// `work` inside `span` when there is one.
pub async fn within<F: Future>(span: Option<&Span>, work: F) -> F::Output {
    match span {
        Some(span) => span.enclose(work).await,
        None => work.await,
    }
}

/// A request's headers, read for the trace context.
struct Incoming<'a>(&'a http::HeaderMap);

impl Extractor for Incoming<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}

/// Headers to send with a call.
struct Outgoing(Vec<(String, String)>);

impl Injector for Outgoing {
    fn set(&mut self, key: &str, value: String) {
        self.0.push((key.to_string(), value));
    }
}
