//! Leases for keys written with a TTL, shared as kube-apiserver shares
//! them: a granted lease is reused by every later write whose TTL it still
//! covers within a small reuse window (5% of the TTL, at most a minute), so
//! a stream of Events costs one lease a window instead of one per object.
//! A key may therefore live up to the window longer than its TTL.

use std::time::{Duration, Instant};

use super::proto::{LEASE, LeaseGrantRequest, LeaseGrantResponse};
use crate::storage::StorageError;
use crate::storage::grpc::GrpcClient;

const REUSE_PERCENT: u64 = 5;
const REUSE_MAX_SECONDS: u64 = 60;

/// The lease last granted.
#[derive(Default)]
pub struct Leases {
    last: tokio::sync::Mutex<Option<(i64, Instant)>>,
}

impl Leases {
    /// A lease that expires between `ttl` and `ttl` plus the reuse window
    /// from now.
    pub async fn lease_for(&self, client: &GrpcClient, ttl: Duration) -> Result<i64, StorageError> {
        let seconds = ttl.as_secs() + u64::from(ttl.subsec_nanos() > 0);
        let seconds = seconds.max(1);
        let reuse = (seconds * REUSE_PERCENT / 100).min(REUSE_MAX_SECONDS);
        let mut last = self.last.lock().await;
        let now = Instant::now();
        if let Some((id, expires)) = *last
            && reusable(now, seconds, reuse, expires)
        {
            return Ok(id);
        }
        let granted_ttl = seconds + reuse;
        let request = LeaseGrantRequest {
            ttl: i64::try_from(granted_ttl).unwrap_or(i64::MAX),
            id: 0,
        };
        let response: LeaseGrantResponse = client
            .call(LEASE, "LeaseGrant", &request)
            .await
            .map_err(super::errors::plain)?;
        if !response.error.is_empty() {
            return Err(StorageError::Internal(format!("etcd: {}", response.error)));
        }
        *last = Some((response.id, now + Duration::from_secs(granted_ttl)));
        Ok(response.id)
    }
}

/// Whether a lease expiring at `expires` outlives a `ttl` from `now` by no
/// more than the reuse window.
fn reusable(now: Instant, ttl: u64, reuse: u64, expires: Instant) -> bool {
    let earliest = now + Duration::from_secs(ttl);
    let latest = now + Duration::from_secs(ttl + reuse);
    earliest < expires && expires <= latest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_is_reused_within_its_window_only() {
        let now = Instant::now();
        let at = |s| now + Duration::from_secs(s);
        // An hour's TTL has a one-minute window (5% is three minutes).
        assert!(reusable(now, 3600, 60, at(3630)));
        assert!(!reusable(now, 3600, 60, at(3600)), "would expire too early");
        assert!(
            !reusable(now, 3600, 60, at(3700)),
            "would outlive the window"
        );
    }
}
