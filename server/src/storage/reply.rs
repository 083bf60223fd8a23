//! `Reply`: a backend's answer as a future that is either ready at once (the
//! embedded backend: no allocation, no task switch) or boxed (a networked
//! backend, which must wait).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A boxed future, for backends that wait.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A storage operation's result, to be awaited.
#[must_use = "a Reply does nothing until awaited"]
pub struct Reply<'a, T>(Inner<'a, T>);

enum Inner<'a, T> {
    Ready(Option<T>),
    Later(BoxFuture<'a, T>),
}

impl<'a, T: Send + 'a> Reply<'a, T> {
    /// An answer known now.
    pub fn ready(value: T) -> Reply<'a, T> {
        Reply(Inner::Ready(Some(value)))
    }

    /// An answer that needs waiting for.
    pub fn later(future: impl Future<Output = T> + Send + 'a) -> Reply<'a, T> {
        Reply(Inner::Later(Box::pin(future)))
    }

    /// The answer if it is known now, else the reply to wait for (callers
    /// that are themselves nearly always ready stay unboxed).
    pub fn into_ready(self) -> Result<T, Reply<'a, T>> {
        match self.0 {
            Inner::Ready(Some(v)) => Ok(v),
            other => Err(Reply(other)),
        }
    }

    /// The answer passed through `f`; stays unboxed when ready.
    pub fn map<U: Send + 'a>(self, f: impl FnOnce(T) -> U + Send + 'a) -> Reply<'a, U> {
        match self.0 {
            Inner::Ready(v) => Reply(Inner::Ready(v.map(f))),
            Inner::Later(fut) => Reply::later(async move { f(fut.await) }),
        }
    }
}

impl<T: Unpin> Future for Reply<'_, T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        match &mut self.get_mut().0 {
            Inner::Ready(v) => Poll::Ready(v.take().expect("a Reply polled after it finished")),
            Inner::Later(fut) => fut.as_mut().poll(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn ready_and_later_answers_map_alike() {
        assert_eq!(Reply::ready(2).map(|v| v * 10).await, 20);
        let later = Reply::later(async {
            tokio::task::yield_now().await;
            2
        });
        assert_eq!(later.map(|v| v * 10).await, 20);
        assert_eq!(Reply::ready(3).into_ready().ok(), Some(3));
        let later = Reply::later(async { 4 });
        assert_eq!(later.into_ready().expect_err("not ready").await, 4);
    }
}
