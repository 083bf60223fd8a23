//! Overload protection and time limits, as kube-apiserver's filters have
//! them: the max-in-flight limits (`inflight`), which requests are
//! long-running and so escape both (`long_running`), and the deadline of
//! the others (`deadline`).

pub mod deadline;
pub mod inflight;
pub mod long_running;

use std::sync::Arc;
use std::time::Duration;

use crate::config::OverloadFlags;
pub use inflight::{InflightCounters, InflightLimiter, Permit};

/// What the request path needs of the overload flags.
pub struct Overload {
    pub inflight: Arc<InflightLimiter>,
    /// `--request-timeout`: the longest a non-long-running request takes.
    pub request_timeout: Duration,
    /// `--min-request-timeout`: the shortest life of a watch without
    /// `timeoutSeconds`.
    pub min_request_timeout: Duration,
}

impl Overload {
    #[must_use]
    pub fn new(flags: &OverloadFlags) -> Overload {
        Overload {
            inflight: Arc::new(InflightLimiter::new(
                flags.max_requests_inflight,
                flags.max_mutating_requests_inflight,
            )),
            request_timeout: flags.request_timeout,
            min_request_timeout: Duration::from_secs(flags.min_request_timeout),
        }
    }
}
