//! Tunables of an engine instance; every one is a field so tests can shrink it.

use std::time::Duration;

/// How commits reach the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncMode {
    /// fdatasync before acknowledging; concurrent committers share one sync.
    Full,
    /// Never sync. Acknowledged writes can be lost on power failure or a kernel
    /// crash. For tests and benchmarks only; the engine logs a warning at open.
    None,
}

/// Options for [`crate::Engine::open`].
#[derive(Clone, Debug)]
pub struct Options {
    /// Durability of commits.
    pub sync: SyncMode,
    /// A segment is sealed and a new one started once it reaches this size.
    pub segment_bytes: u64,
    /// Largest encoded transaction accepted.
    pub max_txn_bytes: u64,
    /// Commit batches a watcher may have queued before it is ended as lagging.
    pub watch_buffer_batches: usize,
    /// Revisions a catching-up watcher reads from history per step.
    pub watch_catchup_revisions: usize,
    /// Compaction rewrites old segments only when at least this fraction of
    /// their bytes is reclaimable.
    pub reclaim_min_ratio: f64,
    /// Keys handled per index-lock hold while compacting the index, so writers
    /// are never stalled for a whole pass.
    pub compaction_keys_per_lock: usize,
    /// Run space reclamation on a background thread after each `compact`.
    pub background_reclaim: bool,
    /// How long the expiry reaper sleeps at most between checks.
    pub expiry_poll: Duration,
    /// A segment retired by compaction is shrunk by this many bytes at a time
    /// before it is deleted, pausing `retire_pause` between steps: freeing a
    /// large file at once stalls other writers' fdatasync.
    pub retire_step_bytes: u64,
    /// Pause between two shrink steps of a retired segment.
    pub retire_pause: Duration,
    /// Space reclaim reads old segments at most this fast, so it leaves CPU
    /// and disk to committers (0 = unlimited).
    pub reclaim_scan_bytes_per_sec: u64,
    /// How often the housekeeper unmaps the segment pages readers faulted in
    /// (`None`: never). Mapped pages count as the process's resident memory
    /// although the kernel's page cache holds them anyway; unmapping them
    /// keeps RSS to the engine's own memory, and a later read costs a minor
    /// fault, not a disk read.
    pub release_mapped_every: Option<Duration>,
    /// With `SyncMode::Full`, the active segment is kept zero-filled this
    /// many bytes past its end (0: never), so a commit's fdatasync finds the
    /// file's size and blocks already on disk and writes only the data.
    pub zero_fill_ahead: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            sync: SyncMode::Full,
            segment_bytes: 64 << 20,
            max_txn_bytes: 32 << 20,
            watch_buffer_batches: 4096,
            watch_catchup_revisions: 512,
            reclaim_min_ratio: 0.25,
            compaction_keys_per_lock: 512,
            background_reclaim: true,
            expiry_poll: Duration::from_secs(1),
            retire_step_bytes: 4 << 20,
            retire_pause: Duration::from_millis(2),
            reclaim_scan_bytes_per_sec: 512 << 20,
            release_mapped_every: Some(Duration::from_secs(1)),
            zero_fill_ahead: 4 << 20,
        }
    }
}

impl Options {
    /// Zero bytes the active segment keeps past its end (`zero_fill_ahead`
    /// when commits sync; nothing is gained without syncs).
    pub(crate) fn fill_ahead(&self) -> u64 {
        match self.sync {
            SyncMode::Full => self.zero_fill_ahead,
            SyncMode::None => 0,
        }
    }

    /// Defaults with syncing turned off (tests, benchmarks).
    #[must_use]
    pub fn no_sync() -> Options {
        Options {
            sync: SyncMode::None,
            ..Options::default()
        }
    }
}
