//! The body of a gRPC request: one message (a unary call) or messages sent
//! as they come while the call stays open (a streaming call such as etcd's
//! Watch, whose server ends the stream once the client's side ends).

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame};
use tokio::sync::mpsc;

/// See the module docs.
pub enum RequestBody {
    Once(Option<Bytes>),
    Stream(mpsc::Receiver<Bytes>),
}

impl Body for RequestBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            RequestBody::Once(message) => Poll::Ready(message.take().map(|m| Ok(Frame::data(m)))),
            RequestBody::Stream(messages) => messages
                .poll_recv(cx)
                .map(|message| message.map(|m| Ok(Frame::data(m)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, RequestBody::Once(None))
    }
}
