//! The request boundary's side of auditing: every answer carries the
//! `Audit-Id` header; an audited request's answer is told to its trail
//! (code, the `Status` of an error, the JSON body at level
//! RequestResponse) and a long-running answer's body is wrapped so its end
//! writes ResponseComplete.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{HeaderValue, Response, header};
use http_body::{Body as HttpBody, Frame, SizeHint};
use http_body_util::BodyExt;

use crate::http::body::{Body, full};
use crate::http::respond::SentStatus;
use crate::request::audit::Completion;
use crate::request::audit::{AUDIT_ID_HEADER, Trail};

/// The `Audit-Id` header of the trail's request.
#[must_use]
fn id_header(trail: &Trail) -> Option<(header::HeaderName, HeaderValue)> {
    let value = HeaderValue::from_str(trail.id()).ok()?;
    Some((header::HeaderName::from_static(AUDIT_ID_HEADER), value))
}

/// Finishes the trail with `resp` and stamps the `Audit-Id` header.
pub async fn finish(trail: Trail, mut resp: Response<Body>, long_running: bool) -> Response<Body> {
    if let Some((name, value)) = id_header(&trail) {
        resp.headers_mut().insert(name, value);
    }
    if trail.context().level() == crate::request::audit::Level::None {
        return resp;
    }
    let code = resp.status().as_u16();
    let status = resp.extensions().get::<SentStatus>().map(|s| s.0.clone());
    if long_running {
        let done = trail.started(code, status.as_ref());
        return resp.map(|inner| Watched { inner, _done: done }.boxed());
    }
    if !trail.wants_response_object() || !is_json(&resp) {
        trail.complete(code, status.as_ref(), None);
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let bytes = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(never) => match never {},
    };
    trail.complete(code, status.as_ref(), Some(&bytes));
    Response::from_parts(parts, full(bytes))
}

fn is_json(resp: &Response<Body>) -> bool {
    resp.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/json"))
}

/// A long-running body whose end (or drop) writes ResponseComplete.
struct Watched {
    inner: Body,
    _done: Completion,
}

impl HttpBody for Watched {
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
