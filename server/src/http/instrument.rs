//! Request metrics at the front door: a resource request is counted when
//! its answer is ready, or, for a watch, when its stream ends (the
//! long-running gauge counts it meanwhile). Labels come from the request's
//! `RequestInfo` alone.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::Response;
use http_body::{Body as HttpBody, Frame, SizeHint};
use http_body_util::BodyExt;

use crate::http::body::Body;
use crate::http::params::Query;
use crate::metrics::clock::Stamp;
use crate::metrics::labels;
use crate::metrics::request::{InflightGuard, Observed};
use crate::request::info::{RequestInfo, ResourceInfo};

/// One resource request being measured.
pub struct Measured<'a> {
    labels: Observed<'a>,
    started: Stamp,
    long_running: bool,
    _in_flight: Option<InflightGuard>,
}

impl<'a> Measured<'a> {
    /// Starts measuring `info`'s request (`target` is its resource part).
    #[must_use]
    pub fn start(info: &RequestInfo, target: &'a ResourceInfo, reported: Reported) -> Measured<'a> {
        let Reported { verb, dry_run } = reported;
        // Proxied and streamed (CONNECT) requests last as long as their
        // exchange, as watches do.
        let long_running = matches!(verb, "WATCH" | "CONNECT");
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
            started: Stamp::now(),
            long_running,
            _in_flight: in_flight,
        }
    }

    /// Records the answer (a short request now, its size when a streamed
    /// body ends; a watch when its body ends) and hands it back.
    #[must_use]
    pub fn finish(self, resp: Response<Body>) -> Response<Body> {
        let metrics = &crate::metrics::global().requests;
        let mut observed = self.labels;
        observed.code = resp.status().as_u16();
        if self.long_running {
            let owned = Owned::from(&observed);
            let gauge = metrics.long_running(&observed);
            let started = self.started;
            return track(resp, move |_| {
                drop(gauge);
                let observed = owned.observed();
                crate::metrics::global().requests.observe(
                    &observed,
                    started.elapsed_nanos(),
                    true,
                    None,
                );
            });
        }
        let size = resp.body().size_hint().exact();
        metrics.observe(&observed, self.started.elapsed_nanos(), false, size);
        if size.is_some() {
            return resp;
        }
        // Labels outlive the request only when its body is streamed.
        let owned = Owned::from(&observed);
        track(resp, move |sent| {
            crate::metrics::global()
                .requests
                .observe_size(&owned.observed(), sent);
        })
    }
}

/// How a request is reported in the metrics whatever its fate: its
/// reported verb and dry-run value.
#[derive(Clone, Copy, Debug)]
pub struct Reported {
    pub verb: &'static str,
    pub dry_run: &'static str,
}

impl Reported {
    #[must_use]
    pub fn of(info: &RequestInfo, content_type: Option<&str>, query: &Query) -> Reported {
        Reported {
            verb: if labels::is_connect(info) {
                "CONNECT"
            } else {
                labels::reported_verb(&info.verb, content_type)
            },
            dry_run: labels::dry_run(query.all("dryRun").iter().map(String::as_str)),
        }
    }

    /// Counts `info`'s request as refused in self-defense (`code` 429: in
    /// the request count too, as kube counts dropped requests) or cut short
    /// (504: a termination only, its handler having been dropped). A
    /// non-resource request is counted with empty target labels.
    pub fn refused(self, info: &RequestInfo, code: u16) {
        let empty = String::new();
        let target = info.resource.as_ref();
        let part = |f: fn(&ResourceInfo) -> &String| target.map_or(&empty, f);
        let observed = Observed {
            verb: self.verb,
            dry_run: self.dry_run,
            group: part(|t| &t.group),
            version: part(|t| &t.version),
            resource: part(|t| &t.resource),
            subresource: target
                .and_then(|t| t.subresource.as_deref())
                .unwrap_or_default(),
            scope: labels::scope(info),
            code,
        };
        let metrics = &crate::metrics::global().requests;
        if code == 429 {
            metrics.dropped(&observed);
        } else {
            metrics.terminated(&observed);
        }
    }
}

/// An `Observed` that outlives the request.
struct Owned {
    verb: &'static str,
    dry_run: &'static str,
    /// group, version, resource, subresource.
    target: [String; 4],
    scope: &'static str,
    code: u16,
}

impl Owned {
    fn from(o: &Observed<'_>) -> Owned {
        Owned {
            verb: o.verb,
            dry_run: o.dry_run,
            target: [
                o.group.to_string(),
                o.version.to_string(),
                o.resource.to_string(),
                o.subresource.to_string(),
            ],
            scope: o.scope,
            code: o.code,
        }
    }

    fn observed(&self) -> Observed<'_> {
        let [group, version, resource, subresource] = &self.target;
        Observed {
            verb: self.verb,
            dry_run: self.dry_run,
            group,
            version,
            resource,
            subresource,
            scope: self.scope,
            code: self.code,
        }
    }
}

type OnEnd = Box<dyn FnOnce(u64) + Send + Sync>;

/// `resp` with a body that calls `on_end` with the bytes sent when it is
/// dropped (stream ended or client gone).
fn track(resp: Response<Body>, on_end: impl FnOnce(u64) + Send + Sync + 'static) -> Response<Body> {
    resp.map(|inner| {
        Tracked {
            inner,
            sent: 0,
            on_end: Some(Box::new(on_end)),
        }
        .boxed()
    })
}

struct Tracked {
    inner: Body,
    sent: u64,
    on_end: Option<OnEnd>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if let Some(on_end) = self.on_end.take() {
            on_end(self.sent);
        }
    }
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled
            && let Some(data) = frame.data_ref()
        {
            self.sent += data.len() as u64;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
