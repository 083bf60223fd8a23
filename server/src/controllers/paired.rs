//! The loop of a controller that reconciles two kinds against each other
//! (namespaces and their default ServiceAccount, FlowSchemas and their
//! priority levels): two informers feeding two caches, a sweep once both
//! are synced, again soon after a failure, else on every change or once a
//! minute.

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
        }
    }

    /// Takes in what the informers have reported; whether both caches are
    /// synced (and a sweep may run).
    pub fn catch_up(&mut self) -> bool {
        while let Some(update) = self.first_informer.try_next() {
            self.again |= !absorb(&mut self.first, Some(update), self.who);
        }
        while let Some(update) = self.second_informer.try_next() {
            self.again |= !absorb(&mut self.second, Some(update), self.who);
        }
        self.first.is_synced() && self.second.is_synced()
    }

    /// What the sweep said: whether it must run again soon.
    pub fn swept(&mut self, again: bool) {
        self.again = again;
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
                if update.is_none() { return false; }
                self.again |= !absorb(&mut self.first, update, self.who);
            }
            update = self.second_informer.next() => {
                if update.is_none() { return false; }
                self.again |= !absorb(&mut self.second, update, self.who);
            }
            () = tokio::time::sleep(pause) => {}
            _ = self.shutdown.changed() => return false,
        }
        true
    }
}

/// Applies what an informer reported; `false` when its list failed.
fn absorb<T>(
    cache: &mut Cache<T>,
    update: Option<Result<Update, ApiError>>,
    who: &'static str,
) -> bool {
    match update {
        Some(Ok(update)) => {
            cache.apply(update);
            true
        }
        Some(Err(e)) => {
            tracing::warn!(error = %e, "listing for the {who} failed; retrying");
            false
        }
        None => true,
    }
}
