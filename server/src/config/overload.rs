//! Overload and time-limit flags, kube-apiserver's names and defaults.

use std::time::Duration;

use clap::Args;

use crate::util::duration;

#[derive(Args, Debug, Clone)]
pub struct OverloadFlags {
    /// Most read-only requests (get, list) served at once; beyond it 429
    /// (0: unlimited). Long-running requests (watch, proxy, exec, attach,
    /// log, portforward) and system:masters are not limited.
    #[arg(long, default_value_t = 400)]
    pub max_requests_inflight: usize,
    /// Most mutating requests served at once; beyond it 429 (0: unlimited).
    #[arg(long, default_value_t = 200)]
    pub max_mutating_requests_inflight: usize,
    /// Longest a non-long-running request may take before it is answered
    /// 504 (`?timeout=` may ask for less).
    #[arg(long, default_value = "1m0s", value_parser = duration::parse)]
    pub request_timeout: Duration,
    /// Shortest time, in seconds, a watch without `timeoutSeconds` is kept
    /// open: each ends after a random time in [min, 2·min).
    #[arg(long, default_value_t = 1800)]
    pub min_request_timeout: u64,
}
