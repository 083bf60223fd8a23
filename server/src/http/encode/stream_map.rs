//! Re-encodes a streamed body of newline-terminated JSON documents (a watch)
//! document by document: Tables and CBOR sequences are derived from the one
//! JSON watch stream.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body as HttpBody, Frame, SizeHint};
use http_body_util::BodyExt;

use crate::http::body::Body;

/// `body` with each complete line replaced by `f`'s answer (dropped when
/// `None`).
pub fn map_lines<F>(body: Body, f: F) -> Body
where
    F: FnMut(&[u8]) -> Option<Vec<u8>> + Send + Sync + Unpin + 'static,
{
    LineMap {
        inner: body,
        pending: Vec::new(),
        f,
    }
    .boxed()
}

struct LineMap<F> {
    inner: Body,
    pending: Vec<u8>,
    f: F,
}

impl<F> HttpBody for LineMap<F>
where
    F: FnMut(&[u8]) -> Option<Vec<u8>> + Send + Sync + Unpin + 'static,
{
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = &mut *self;
        loop {
            let frame = match Pin::new(&mut this.inner).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => frame,
                other => return other,
            };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            this.pending.extend_from_slice(&data);
            let Some(last_newline) = this.pending.iter().rposition(|&b| b == b'\n') else {
                continue;
            };
            let complete: Vec<u8> = this.pending.drain(..=last_newline).collect();
            let mut out = Vec::new();
            for line in complete.split(|&b| b == b'\n') {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                if let Some(mapped) = (this.f)(line) {
                    out.extend_from_slice(&mapped);
                }
            }
            if !out.is_empty() {
                return Poll::Ready(Some(Ok(Frame::data(Bytes::from(out)))));
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}
