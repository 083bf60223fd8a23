//! What a backend can tell about itself for monitoring, in the server's own
//! types (the embedded backend fills them from cairn-engine).

/// A histogram read at one moment: per-bucket (not cumulative) counts by
/// upper bound (the last `+Inf`), in the unit the metric reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Spread {
    pub buckets: Vec<(f64, u64)>,
    pub count: u64,
    pub sum: f64,
}

/// The embedded store's figures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BackendFigures {
    pub current_revision: u64,
    pub compacted_revision: u64,
    pub segments: u64,
    pub bytes: u64,
    pub live_keys: u64,
    pub watchers: u64,
    /// Seconds per fdatasync of a commit batch.
    pub fsync_seconds: Spread,
    /// Transactions per group commit.
    pub group_commit_size: Spread,
    /// Seconds per compaction pass.
    pub compaction_seconds: Spread,
    /// Seconds from a commit's publication to a live watcher taking it.
    pub watch_lag_seconds: Spread,
}
