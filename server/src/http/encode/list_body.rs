//! A list response written as it is sent, whatever its encoding: a head
//! (envelope up to the items), the items in chunks of about `CHUNK` bytes
//! as an item encoder writes them, then a tail. Memory stays at one chunk
//! whatever the list's size; stored bytes are copied once, into the chunk.
//! Items may keep coming from a source read as the body is sent.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body as HttpBody, Frame, SizeHint};

/// Bytes per frame; large enough that framing costs nothing per object.
const CHUNK: usize = 256 * 1024;

/// Writes one list item in an encoding.
pub trait ItemEncoder: Unpin + Send + Sync + 'static {
    type Item: Unpin + Send + Sync + 'static;

    /// Appends `item` to `out`; `first` for the list's first item.
    fn item(&self, item: &Self::Item, first: bool, out: &mut Vec<u8>);
}

pub struct ListBody<E: ItemEncoder> {
    encoder: E,
    head: Option<Vec<u8>>,
    items: VecDeque<E::Item>,
    more: Option<More<E::Item>>,
    tail: Option<Vec<u8>>,
    first: bool,
}

/// Items still to read: the next batch and what follows it, or `None`
/// when reading them failed (the body then ends without its tail, so the
/// client sees a broken list rather than a short one). The mutex only
/// makes the body `Sync`: it is polled through `&mut`, never locked.
pub struct More<T>(Mutex<Pin<Box<MoreFuture<T>>>>);

/// A batch of items and what follows it.
type Batch<T> = (Vec<T>, Option<More<T>>);
type MoreFuture<T> = dyn Future<Output = Option<Batch<T>>> + Send;

impl<T> More<T> {
    pub fn new(next: impl Future<Output = Option<Batch<T>>> + Send + 'static) -> More<T> {
        More(Mutex::new(Box::pin(next)))
    }

    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<Option<Batch<T>>> {
        let next = self.0.get_mut().unwrap_or_else(PoisonError::into_inner);
        next.as_mut().poll(cx)
    }
}

impl<E: ItemEncoder> ListBody<E> {
    #[must_use]
    pub fn new(encoder: E, head: Vec<u8>, items: Vec<E::Item>, tail: Vec<u8>) -> ListBody<E> {
        ListBody {
            encoder,
            head: Some(head),
            items: items.into(),
            more: None,
            tail: Some(tail),
            first: true,
        }
    }

    /// The items after `items` come from `more`.
    #[must_use]
    pub fn followed_by(mut self, more: Option<More<E::Item>>) -> ListBody<E> {
        self.more = more;
        self
    }
}

impl<E: ItemEncoder> HttpBody for ListBody<E> {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = &mut *self;
        let Some(mut out) = this
            .head
            .take()
            .or_else(|| this.tail.as_ref().map(|_| Vec::new()))
        else {
            return Poll::Ready(None);
        };
        out.reserve(CHUNK);
        while out.len() < CHUNK {
            let Some(item) = this.items.pop_front() else {
                if let Some(more) = this.more.as_mut() {
                    match more.poll(cx) {
                        Poll::Pending if out.is_empty() => return Poll::Pending,
                        Poll::Pending => break,
                        Poll::Ready(Some((items, next))) => {
                            this.items.extend(items);
                            this.more = next;
                        }
                        Poll::Ready(None) => {
                            this.more = None;
                            this.tail = None;
                            break;
                        }
                    }
                    continue;
                }
                if let Some(tail) = this.tail.take() {
                    out.extend_from_slice(&tail);
                }
                break;
            };
            this.encoder.item(&item, this.first, &mut out);
            this.first = false;
        }
        Poll::Ready(Some(Ok(Frame::data(Bytes::from(out)))))
    }

    fn is_end_stream(&self) -> bool {
        self.head.is_none() && self.tail.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}
