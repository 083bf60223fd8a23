//! Request metrics at the front door: a resource request is counted when
//! its answer is ready, or, for a watch, when its stream ends (the
//! long-running gauge counts it meanwhile). Labels come from the request's
//! `RequestInfo` alone.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Bytes;
use http::Response;
use http_body::{Body as HttpBody, Frame, SizeHint};
use http_body_util::BodyExt;

use crate::http::body::Body;
use crate::metrics::labels;
use crate::metrics::request::{InflightGuard, LongRunningGuard, Observed};
use crate::request::info::{RequestInfo, ResourceInfo};

/// One resource request being measured.
pub struct Measured<'a> {
    labels: Observed<'a>,
    started: Instant,
    long_running: bool,
    _in_flight: Option<InflightGuard>,
}

impl<'a> Measured<'a> {
    /// Starts measuring `info`'s request (`target` is its resource part).
    #[must_use]
    pub fn start(
        info: &RequestInfo,
        target: &'a ResourceInfo,
        content_type: Option<&str>,
        dry_run: &'static str,
    ) -> Measured<'a> {
        let verb = labels::reported_verb(&info.verb, content_type);
        let long_running = verb == "WATCH";
        let in_flight = (!long_running).then(|| {
            crate::metrics::global()
                .requests
                .in_flight(labels::is_mutating(verb))
        });
        Measured {
            labels: Observed {
                verb,
                dry_run,
                group: &target.group,
                version: &target.version,
                resource: &target.resource,
                subresource: target.subresource.as_deref().unwrap_or_default(),
                scope: labels::scope(info),
                code: 0,
            },
            started: Instant::now(),
            long_running,
            _in_flight: in_flight,
        }
    }

    /// Records the answer (a short request now; a watch when its body ends)
    /// and hands it back.
    #[must_use]
    pub fn finish(self, resp: Response<Body>) -> Response<Body> {
        let metrics = &crate::metrics::global().requests;
        let mut observed = self.labels;
        observed.code = resp.status().as_u16();
        if !self.long_running {
            let size = resp.body().size_hint().exact();
            metrics.observe(&observed, self.started.elapsed(), false, size);
            return resp;
        }
        let end = WatchEnd {
            long_running: metrics.long_running(&observed),
            verb: observed.verb,
            dry_run: observed.dry_run,
            target: [
                observed.group.to_string(),
                observed.version.to_string(),
                observed.resource.to_string(),
                observed.subresource.to_string(),
            ],
            scope: observed.scope,
            code: observed.code,
            started: self.started,
        };
        resp.map(|body| {
            Tracked {
                inner: body,
                _end: end,
            }
            .boxed()
        })
    }
}

/// Counts a watch when its response body is dropped (stream ended or
/// client gone), and keeps it in the long-running gauge until then.
struct WatchEnd {
    long_running: LongRunningGuard,
    verb: &'static str,
    dry_run: &'static str,
    /// group, version, resource, subresource.
    target: [String; 4],
    scope: &'static str,
    code: u16,
    started: Instant,
}

impl Drop for WatchEnd {
    fn drop(&mut self) {
        let [group, version, resource, subresource] = &self.target;
        let observed = Observed {
            verb: self.verb,
            dry_run: self.dry_run,
            group,
            version,
            resource,
            subresource,
            scope: self.scope,
            code: self.code,
        };
        crate::metrics::global()
            .requests
            .observe(&observed, self.started.elapsed(), true, None);
        let _ = &self.long_running;
    }
}

/// A body that carries its `WatchEnd` along.
struct Tracked {
    inner: Body,
    _end: WatchEnd,
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
