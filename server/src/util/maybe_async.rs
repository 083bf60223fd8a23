//! Answers that are nearly always ready at once but may have to wait (a
//! webhook, a remote key set): the ready case is a plain value, so the
//! request pipeline's stages cost no allocation until one really waits.

use std::future::Future;
use std::pin::Pin;

/// A value now, or a future of it.
pub enum MaybeAsync<'a, T> {
    Ready(T),
    Pending(Pin<Box<dyn Future<Output = T> + Send + 'a>>),
}

impl<'a, T> MaybeAsync<'a, T> {
    /// A future to wait for, boxed once.
    pub fn pending(f: impl Future<Output = T> + Send + 'a) -> MaybeAsync<'a, T> {
        MaybeAsync::Pending(Box::pin(f))
    }

    /// The value, waiting only if it is not ready.
    pub async fn resolve(self) -> T {
        match self {
            MaybeAsync::Ready(v) => v,
            MaybeAsync::Pending(f) => f.await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn ready_and_pending_values_resolve() {
        assert_eq!(MaybeAsync::Ready(1).resolve().await, 1);
        let later = MaybeAsync::pending(async {
            tokio::task::yield_now().await;
            2
        });
        assert_eq!(later.resolve().await, 2);
    }
}
