//! The backend conformance suite: one set of checks, written against the
//! `Storage` trait, that every backend passes. A backend's tests call
//! [`run_all`] on a fresh or shared store; each case works under its own key
//! prefix and only on revisions it wrote, so the suite can share a store
//! (an etcd cluster) with other data.
//!
//! A failed check panics with what was expected. Waits are bounded only so
//! a broken backend fails instead of hanging; nothing here times anything.

mod history;
mod reads;
mod txn;
mod watch;

use std::time::Duration;

use crate::storage::{Event, Revision, Storage, Txn, Watch};

/// Runs every case against `storage`, under keys starting with `prefix`.
pub async fn run_all(storage: &dyn Storage, prefix: &[u8]) {
    let case = |name: &str| Case::new(storage, prefix, name);
    reads::revisions_and_versions(&case("revisions")).await;
    reads::exact_reads_at_retained_revisions(&case("exact")).await;
    reads::ranges_count_exactly(&case("ranges")).await;
    reads::future_revisions(&case("future")).await;
    txn::creates_guard_absence(&case("create")).await;
    txn::updates_and_deletes_guard_the_mod_revision(&case("update")).await;
    txn::transactions_are_atomic(&case("atomic")).await;
    watch::events_arrive_in_order_with_previous_values(&case("watch-order")).await;
    watch::watches_resume_after_a_revision(&case("watch-resume")).await;
    watch::watches_see_only_their_range(&case("watch-range")).await;
    history::ttl_expiry_is_a_delete_event(&case("ttl")).await;
    history::status_reports_revisions_and_size(&case("status")).await;
    // Last: compaction takes every earlier case's history with it.
    history::compaction_forgets_older_revisions(&case("compaction")).await;
}

/// How long a check waits for a backend before calling it broken.
const PATIENCE: Duration = Duration::from_secs(30);

/// One case's view of the store: its keys live under `<prefix><name>/`.
pub(super) struct Case<'a> {
    pub storage: &'a dyn Storage,
    prefix: Vec<u8>,
}

impl<'a> Case<'a> {
    fn new(storage: &'a dyn Storage, prefix: &[u8], name: &str) -> Case<'a> {
        let mut p = prefix.to_vec();
        p.extend_from_slice(name.as_bytes());
        p.push(b'/');
        Case { storage, prefix: p }
    }

    /// The case's key `name`.
    pub fn key(&self, name: &str) -> Vec<u8> {
        let mut k = self.prefix.clone();
        k.extend_from_slice(name.as_bytes());
        k
    }

    /// Every key of the case.
    pub fn prefix(&self) -> &[u8] {
        &self.prefix
    }

    /// Commits `txn`, which must succeed.
    pub async fn commit(&self, txn: Txn) -> Revision {
        match self.storage.commit(txn).await {
            Ok(c) => c.revision,
            Err(e) => panic!("commit failed: {e}"),
        }
    }

    /// Puts `value` at the case's key `name`.
    pub async fn put(&self, name: &str, value: &str) -> Revision {
        self.commit(Txn::new().put(self.key(name), value)).await
    }

    pub async fn current(&self) -> Revision {
        self.storage
            .current_revision()
            .await
            .expect("current revision")
    }
}

/// The next `n` events of `watch`, and no more than `n`.
pub(super) async fn next_events(watch: &mut Watch, n: usize) -> Vec<Event> {
    let mut out = Vec::new();
    while out.len() < n {
        let batch = tokio::time::timeout(PATIENCE, watch.next_batch())
            .await
            .unwrap_or_else(|_| panic!("{} of {n} events arrived", out.len()))
            .expect("the watch is open")
            .unwrap_or_else(|e| panic!("watch failed: {e}"));
        out.extend(batch.iter().cloned());
    }
    assert_eq!(out.len(), n, "more events than changes: {out:#?}");
    out
}
