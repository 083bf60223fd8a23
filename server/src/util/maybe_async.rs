//! Answers that are nearly always ready at once but may have to wait: a
//! storage backend across a network, a webhook, a remote key set. The ready
//! case is a plain value, so storage replies (`storage::Reply`) and the
//! request pipeline's stages cost no allocation or task switch until one
//! really waits; either is awaited directly.

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::{Context, Poll};

/// A boxed future, for answers that wait.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A value now, or a future of it.
#[must_use = "an answer does nothing until awaited"]
pub enum MaybeAsync<'a, T> {
    Ready(T),
    Pending(BoxFuture<'a, T>),
}

impl<'a, T: Send + 'a> MaybeAsync<'a, T> {
    /// An answer known now.
    pub fn ready(value: T) -> MaybeAsync<'a, T> {
        MaybeAsync::Ready(value)
    }

    /// A future to wait for, boxed once.
    pub fn pending(f: impl Future<Output = T> + Send + 'a) -> MaybeAsync<'a, T> {
        MaybeAsync::Pending(Box::pin(f))
    }

    /// The answer passed through `f`; stays unboxed when ready.
    pub fn map<U: Send + 'a>(self, f: impl FnOnce(T) -> U + Send + 'a) -> MaybeAsync<'a, U> {
        match self {
            MaybeAsync::Ready(v) => MaybeAsync::Ready(f(v)),
            MaybeAsync::Pending(fut) => MaybeAsync::pending(async move { f(fut.await) }),
        }
    }

    /// The answer if it is known now, else the answer to wait for (callers
    /// that are themselves nearly always ready stay unboxed).
    pub fn into_ready(self) -> Result<T, MaybeAsync<'a, T>> {
        match self {
            MaybeAsync::Ready(v) => Ok(v),
            pending => Err(pending),
        }
    }

    /// The value, waiting only if it is not ready.
    pub async fn resolve(self) -> T {
        match self {
            MaybeAsync::Ready(v) => v,
            MaybeAsync::Pending(f) => f.await,
        }
    }
}

/// Awaiting a `MaybeAsync`.
pub struct Answer<'a, T>(Option<MaybeAsync<'a, T>>);

impl<'a, T: Unpin> IntoFuture for MaybeAsync<'a, T> {
    type Output = T;
    type IntoFuture = Answer<'a, T>;

    fn into_future(self) -> Answer<'a, T> {
        Answer(Some(self))
    }
}

impl<T: Unpin> Future for Answer<'_, T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let this = self.get_mut();
        match this.0.take().expect("an answer polled after it finished") {
            MaybeAsync::Ready(v) => Poll::Ready(v),
            MaybeAsync::Pending(mut f) => match f.as_mut().poll(cx) {
                Poll::Ready(v) => Poll::Ready(v),
                Poll::Pending => {
                    this.0 = Some(MaybeAsync::Pending(f));
                    Poll::Pending
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn ready_and_pending_values_resolve_map_and_await_alike() {
        assert_eq!(MaybeAsync::Ready(1).resolve().await, 1);
        let later = MaybeAsync::pending(async {
            tokio::task::yield_now().await;
            2
        });
        assert_eq!(later.resolve().await, 2);
        assert_eq!(MaybeAsync::ready(2).map(|v| v * 10).await, 20);
        let later = MaybeAsync::pending(async {
            tokio::task::yield_now().await;
            2
        });
        assert_eq!(later.map(|v| v * 10).await, 20);
        assert_eq!(MaybeAsync::ready(3).into_ready().ok(), Some(3));
        let later = MaybeAsync::pending(async { 4 });
        assert_eq!(later.into_ready().expect_err("not ready").await, 4);
    }
}
