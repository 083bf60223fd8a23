//! Response bodies (whole, or streamed for watches) and bounded request bodies.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body as HttpBody, Frame};
use http_body_util::{BodyExt, Full, Limited, combinators::BoxBody};
use tokio::sync::mpsc;

use crate::api::error::ApiError;

/// Every response body.
pub type Body = BoxBody<Bytes, Infallible>;

/// A body of known bytes.
pub fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into()).boxed()
}

/// Most bytes one write of a streamed body gathers from chunks queued for it.
const COALESCE_LIMIT: usize = 256 * 1024;

/// Chunks queued for one client, joined into one write (one copy is cheaper
/// than one send per chunk) up to `COALESCE_LIMIT` bytes.
pub(crate) struct Gathered {
    first: Bytes,
    joined: Option<Vec<u8>>,
}

impl Gathered {
    pub(crate) fn new(first: Bytes) -> Gathered {
        Gathered {
            first,
            joined: None,
        }
    }

    /// Whether another chunk may be added.
    pub(crate) fn has_room(&self) -> bool {
        self.joined.as_ref().map_or(self.first.len(), Vec::len) < COALESCE_LIMIT
    }

    pub(crate) fn push(&mut self, more: &[u8]) {
        let first = &self.first;
        self.joined
            .get_or_insert_with(|| first.to_vec())
            .extend_from_slice(more);
    }

    pub(crate) fn into_bytes(self) -> Bytes {
        self.joined.map_or(self.first, Bytes::from)
    }
}

/// A body fed chunk by chunk (watch streams); ends when the sender is dropped.
pub struct ChannelBody {
    rx: mpsc::Receiver<Bytes>,
}

impl HttpBody for ChannelBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let first = match self.rx.poll_recv(cx) {
            Poll::Ready(Some(b)) => b,
            other => return other.map(|c| c.map(|b| Ok(Frame::data(b)))),
        };
        // A client that fell a little behind gets what queued up in one write.
        let mut gathered = Gathered::new(first);
        while gathered.has_room() {
            match self.rx.try_recv() {
                Ok(b) => gathered.push(&b),
                Err(_) => break,
            }
        }
        Poll::Ready(Some(Ok(Frame::data(gathered.into_bytes()))))
    }
}

/// A streamed body and the sender that feeds it.
pub fn channel(buffer: usize) -> (mpsc::Sender<Bytes>, Body) {
    let (tx, rx) = mpsc::channel(buffer);
    (tx, ChannelBody { rx }.boxed())
}

/// Reads a request body of at most `limit` bytes (413 beyond).
pub async fn read_limited<B>(body: B, limit: u64) -> Result<Bytes, ApiError>
where
    B: HttpBody<Data = Bytes> + Send,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let limit_usize = usize::try_from(limit).unwrap_or(usize::MAX);
    match Limited::new(body, limit_usize).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            Err(ApiError::TooLarge(format!("limit is {limit}")))
        }
        Err(e) => Err(ApiError::BadRequest(format!(
            "could not read the request body: {e}"
        ))),
    }
}
