//! Asking the authorizer chain from inside a CEL evaluation, which is
//! synchronous. Nearly every answer is ready at once (RBAC reads its
//! caches, cached webhook answers): the chain's future is polled once and
//! its value used. Only an answer that really waits (a webhook call) blocks
//! the evaluating thread, through `block_in_place` on the server's
//! multi-threaded runtime so that its other tasks move to other workers.
//! Where waiting is impossible (a single-threaded runtime, whose one thread
//! is the one evaluating) the check reports an evaluation error instead of
//! deadlocking: `errored()` is true and `allowed()` false.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use tokio::runtime::{Handle, RuntimeFlavor};

use crate::request::authz::{Attributes, Authorizers, Verdict};

/// The chain's verdict on `attrs`, waiting only if it must.
pub fn decide_now(authorizers: &Authorizers, attrs: &Attributes<'_>) -> Verdict {
    let mut decided = pin!(authorizers.decide(attrs));
    if let Poll::Ready(verdict) = decided
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        return verdict;
    }
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(|| handle.block_on(decided))
        }
        Ok(_) => cannot_wait("the evaluating runtime has a single thread"),
        Err(_) => match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime.block_on(decided),
            Err(e) => cannot_wait(&format!("no runtime to wait on: {e}")),
        },
    }
}

fn cannot_wait(why: &str) -> Verdict {
    Verdict {
        evaluation_error: format!("the authorization check had to wait, and cannot: {why}"),
        ..Verdict::default()
    }
}
