//! A list response written as it is sent: the `<Kind>List` envelope, then the
//! stored objects with their resourceVersion spliced in, in chunks of about
//! `CHUNK` bytes. Memory stays at one chunk whatever the list's size; the
//! object bytes come straight from the store's mapped segments.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body as HttpBody, Frame, SizeHint};

use std::sync::Arc;

use crate::api::kind::KindSpec;
use crate::api::served::write_object;
use crate::storage::KeyValue;

/// Bytes per frame; large enough that framing costs nothing per object.
const CHUNK: usize = 256 * 1024;

pub struct ListBody {
    kind: Arc<KindSpec>,
    head: Option<Vec<u8>>,
    items: VecDeque<KeyValue>,
    first: bool,
    done: bool,
}

impl ListBody {
    /// `head` is everything up to and including `"items":[`.
    #[must_use]
    pub fn new(kind: Arc<KindSpec>, head: Vec<u8>, items: Vec<KeyValue>) -> ListBody {
        ListBody {
            kind,
            head: Some(head),
            items: items.into(),
            first: true,
            done: false,
        }
    }
}

impl HttpBody for ListBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if self.done {
            return Poll::Ready(None);
        }
        let mut out = self.head.take().unwrap_or_default();
        out.reserve(CHUNK);
        while out.len() < CHUNK {
            let Some(kv) = self.items.pop_front() else {
                out.extend_from_slice(b"]}");
                self.done = true;
                break;
            };
            if !self.first {
                out.push(b',');
            }
            self.first = false;
            write_object(&self.kind, &kv, &mut out);
        }
        Poll::Ready(Some(Ok(Frame::data(Bytes::from(out)))))
    }

    fn is_end_stream(&self) -> bool {
        self.done
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}
