//! The loop of a controller that reconciles two kinds against each other
//! (namespaces and their default ServiceAccount, FlowSchemas and their
//! priority levels): two informers feeding two caches, a sweep once both
//! are synced, again soon after a failure, else when either cache changed
//! or once a minute. Writes to objects neither cache keeps (most of a
//! ConfigMap informer's traffic, say) wake the loop but start no sweep.

use std::time::Duration;

use tokio::sync::watch;

use crate::api::error::ApiError;
use crate::api::informer::{Cache, Informer, KeyValue, Update};
use crate::api::kind::KindSpec;
use crate::api::store::Store;

/// Two kinds' caches, kept by their informers.
pub struct Paired<A, B> {
    first_informer: Informer,
    second_informer: Informer,
    pub first: Cache<A>,
    pub second: Cache<B>,
    shutdown: watch::Receiver<bool>,
    /// `who` in the log when a list fails.
    who: &'static str,
    /// Something failed: look again soon.
    again: bool,
    /// A cache changed, or a pause ended, since the last sweep.
    due: bool,
}

impl<A, B> Paired<A, B> {
    pub fn new(
        store: &Store,
        first: (&KindSpec, fn(&KeyValue) -> Option<A>),
        second: (&KindSpec, fn(&KeyValue) -> Option<B>),
        shutdown: watch::Receiver<bool>,
        who: &'static str,
    ) -> Paired<A, B> {
        Paired {
            first_informer: Informer::for_kind(store, first.0),
            second_informer: Informer::for_kind(store, second.0),
            first: Cache::new(first.1),
            second: Cache::new(second.1),
            shutdown,
            who,
            again: false,
            due: true,
        }
    }

    /// Takes in what the informers have reported; whether a sweep is due:
    /// both caches are synced and one changed (or a pause ended) since the
    /// last sweep.
    pub fn catch_up(&mut self) -> bool {
        while let Some(update) = self.first_informer.try_next() {
            self.take(First(update));
        }
        while let Some(update) = self.second_informer.try_next() {
            self.take(Second(update));
        }
        self.due && self.first.is_synced() && self.second.is_synced()
    }

    /// What the sweep said: whether it must run again soon.
    pub fn swept(&mut self, again: bool) {
        self.again = again;
        self.due = false;
    }

    fn take(&mut self, update: Reported) {
        let absorbed = match update {
            First(update) => absorb(&mut self.first, update, self.who),
            Second(update) => absorb(&mut self.second, update, self.who),
        };
        match absorbed {
            Ok(changed) => self.due |= changed,
            Err(()) => self.again = true,
        }
    }

    /// Waits until a sweep is due; `false` once the server stops (the
    /// controller ends). Each sweep is followed by `swept`.
    pub async fn due(&mut self) -> bool {
        loop {
            if self.catch_up() {
                return true;
            }
            if !self.wait().await {
                return false;
            }
        }
    }

    /// Waits for a change, the next pause's end, or the server's stop
    /// (`false`: the controller ends).
    pub async fn wait(&mut self) -> bool {
        let synced = self.first.is_synced() && self.second.is_synced();
        let pause = if self.again || !synced {
            Duration::from_millis(500)
        } else {
            Duration::from_secs(60)
        };
        tokio::select! {
            update = self.first_informer.next() => {
                let Some(update) = update else { return false };
                self.take(First(update));
            }
            update = self.second_informer.next() => {
                let Some(update) = update else { return false };
                self.take(Second(update));
            }
            () = tokio::time::sleep(pause) => self.due = true,
            _ = self.shutdown.changed() => return false,
        }
        true
    }
}

/// What one of the two informers reported.
enum Reported {
    First(Result<Update, ApiError>),
    Second(Result<Update, ApiError>),
}
use Reported::{First, Second};

/// Applies what an informer reported: whether the cache changed, or `Err`
/// when its list failed.
fn absorb<T>(
    cache: &mut Cache<T>,
    update: Result<Update, ApiError>,
    who: &'static str,
) -> Result<bool, ()> {
    match update {
        Ok(update) => Ok(cache.apply(update)),
        Err(e) => {
            tracing::warn!(error = %e, "listing for the {who} failed; retrying");
            Err(())
        }
    }
}
