//! A protobuf `<Kind>List` written as it is sent: the envelope and list
//! head (whose lengths were computed up front), then the items' messages in
//! chunks of about `CHUNK` bytes, then the envelope's tail.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body as HttpBody, Frame};

use crate::api::protobuf::envelope;

const CHUNK: usize = 256 * 1024;

pub struct ProtobufListBody {
    head: Option<Vec<u8>>,
    items: VecDeque<Bytes>,
    tail: Option<Vec<u8>>,
}

impl ProtobufListBody {
    #[must_use]
    pub fn new(head: Vec<u8>, items: Vec<Bytes>, tail: Vec<u8>) -> ProtobufListBody {
        ProtobufListBody {
            head: Some(head),
            items: items.into(),
            tail: Some(tail),
        }
    }
}

impl HttpBody for ProtobufListBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let Some(mut out) = self
            .head
            .take()
            .or_else(|| self.tail.as_ref().map(|_| Vec::new()))
        else {
            return Poll::Ready(None);
        };
        out.reserve(CHUNK);
        while out.len() < CHUNK {
            let Some(item) = self.items.pop_front() else {
                if let Some(tail) = self.tail.take() {
                    out.extend_from_slice(&tail);
                }
                break;
            };
            envelope::list_item(&item, &mut out);
        }
        Poll::Ready(Some(Ok(Frame::data(Bytes::from(out)))))
    }

    fn is_end_stream(&self) -> bool {
        self.head.is_none() && self.tail.is_none()
    }
}
