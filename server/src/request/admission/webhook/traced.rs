//! The span of one webhook call, named and described as kube-apiserver's
//! (`Call validating webhook`, with the configuration, webhook, resource,
//! subresource, operation and review UID).

use opentelemetry::KeyValue;
use opentelemetry::trace::SpanKind;

use super::hook::Hook;
use crate::request::admission::Attributes;
use crate::trace;

/// The call's span, when the request is traced.
pub(super) fn call_span(
    mutating: bool,
    hook: &Hook,
    attrs: &Attributes<'_>,
    uid: &str,
) -> Option<trace::Span> {
    trace::child(SpanKind::Internal, |_| {
        let name = if mutating {
            "Call mutating webhook"
        } else {
            "Call validating webhook"
        };
        let kind = attrs.kind;
        // Go's GroupVersionResource.String().
        let resource = format!(
            "{}/{}, Resource={}",
            kind.group, kind.version, kind.resource
        );
        let attributes = vec![
            KeyValue::new("configuration", hook.configuration.clone()),
            KeyValue::new("webhook", hook.name.clone()),
            KeyValue::new("resource", resource),
            KeyValue::new("subresource", attrs.subresource.unwrap_or_default()),
            KeyValue::new("operation", attrs.operation.as_str()),
            KeyValue::new("UID", uid.to_string()),
        ];
        (name.into(), attributes)
    })
}
