//! The max-in-flight limits (`--max-requests-inflight`,
//! `--max-mutating-requests-inflight`): requests beyond them are refused
//! with 429 at once, never queued. Long-running requests are not counted;
//! members of `system:masters` are served even past the limit (uncounted),
//! as kube-apiserver serves its super-users and loopback clients. A limit
//! of 0 means unlimited.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::api::error::ApiError;
use crate::metrics::timing_ratio::{READ_VS_WRITE_BOUNDS, TimingRatio};
use crate::request::info::RequestInfo;
use crate::request::overload::long_running::is_long_running;
use crate::request::user::{MASTERS, UserInfo};

/// Seconds a refused client is told to wait (kube's constant).
pub const RETRY_AFTER_SECONDS: u32 = 1;

/// Kubernetes' read-only verbs; every other verb counts as mutating.
const READ_ONLY_VERBS: [&str; 3] = ["get", "list", "watch"];

/// One class of requests (read-only or mutating): its limit and counters.
#[derive(Default)]
struct Class {
    limit: usize,
    current: AtomicUsize,
    /// The most served at once since the last `take_watermarks`.
    watermark: AtomicUsize,
    dropped: AtomicU64,
    /// Requests executing over the limit, through time (limited classes
    /// only).
    executing: Option<Arc<TimingRatio>>,
}

impl Class {
    fn limited(limit: usize) -> Class {
        #[allow(clippy::cast_precision_loss)]
        let executing =
            (limit > 0).then(|| Arc::new(TimingRatio::new(&READ_VS_WRITE_BOUNDS, limit as f64)));
        Class {
            limit,
            executing,
            ..Class::default()
        }
    }
}

/// A snapshot of the limiter's counters, for `/metrics`
/// (`apiserver_current_inflight_requests{request_kind}`,
/// `apiserver_dropped_requests_total{request_kind}`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InflightCounters {
    pub read_only_inflight: usize,
    pub mutating_inflight: usize,
    pub read_only_dropped: u64,
    pub mutating_dropped: u64,
}

/// The two classes' limits and counters, shared by every listener.
pub struct InflightLimiter {
    read_only: Class,
    mutating: Class,
}

/// A counted request's place; given back when dropped.
pub struct Permit {
    limiter: Arc<InflightLimiter>,
    mutating: bool,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let class = self.limiter.class(self.mutating);
        class.current.fetch_sub(1, Ordering::AcqRel);
        if let Some(executing) = &class.executing {
            executing.add(-1);
        }
    }
}

impl InflightLimiter {
    #[must_use]
    pub fn new(read_only_limit: usize, mutating_limit: usize) -> InflightLimiter {
        InflightLimiter {
            read_only: Class::limited(read_only_limit),
            mutating: Class::limited(mutating_limit),
        }
    }

    fn class(&self, mutating: bool) -> &Class {
        if mutating {
            &self.mutating
        } else {
            &self.read_only
        }
    }

    /// Admits `info` from `user`: `Ok(Some(permit))` when counted (hold it
    /// until the request is answered), `Ok(None)` when not counted
    /// (long-running, unlimited class, or a master past the limit), 429
    /// when the class is full.
    pub fn admit(
        self: &Arc<Self>,
        info: &RequestInfo,
        user: &UserInfo,
    ) -> Result<Option<Permit>, ApiError> {
        if is_long_running(info) {
            return Ok(None);
        }
        let mutating = !READ_ONLY_VERBS.contains(&info.verb.as_ref());
        let class = self.class(mutating);
        if class.limit == 0 {
            return Ok(None);
        }
        let now = class.current.fetch_add(1, Ordering::AcqRel) + 1;
        if now <= class.limit {
            class.watermark.fetch_max(now, Ordering::Relaxed);
            if let Some(executing) = &class.executing {
                executing.add(1);
            }
            return Ok(Some(Permit {
                limiter: Arc::clone(self),
                mutating,
            }));
        }
        class.current.fetch_sub(1, Ordering::AcqRel);
        if user.in_group(MASTERS) {
            return Ok(None);
        }
        class.dropped.fetch_add(1, Ordering::Relaxed);
        Err(ApiError::TooManyRequests {
            retry_after: RETRY_AFTER_SECONDS,
        })
    }

    /// The counters now.
    #[must_use]
    pub fn counters(&self) -> InflightCounters {
        InflightCounters {
            read_only_inflight: self.read_only.current.load(Ordering::Acquire),
            mutating_inflight: self.mutating.current.load(Ordering::Acquire),
            read_only_dropped: self.read_only.dropped.load(Ordering::Relaxed),
            mutating_dropped: self.mutating.dropped.load(Ordering::Relaxed),
        }
    }

    /// The executing-requests ratio of each limited class, by kube's
    /// `request_kind` (`readOnly`, `mutating`).
    #[must_use]
    pub fn executing_ratios(&self) -> Vec<(&'static str, Arc<TimingRatio>)> {
        [("readOnly", &self.read_only), ("mutating", &self.mutating)]
            .into_iter()
            .filter_map(|(kind, class)| class.executing.clone().map(|r| (kind, r)))
            .collect()
    }

    /// The most (read-only, mutating) requests served at once since the
    /// previous call, as kube samples `apiserver_current_inflight_requests`
    /// once a second; the watermarks restart from the current counts.
    pub fn take_watermarks(&self) -> (usize, usize) {
        let take = |c: &Class| {
            let current = c.current.load(Ordering::Acquire);
            c.watermark.swap(current, Ordering::Relaxed).max(current)
        };
        (take(&self.read_only), take(&self.mutating))
    }
}

#[cfg(test)]
mod tests {
    use http::Method;

    use super::*;

    fn request(method: &Method, path: &str) -> RequestInfo {
        RequestInfo::new(method, path.into(), None, None)
    }

    fn user(groups: &[&str]) -> UserInfo {
        UserInfo::new("alice", groups)
    }

    #[test]
    fn each_class_is_limited_on_its_own_and_places_come_back() {
        let limiter = Arc::new(InflightLimiter::new(1, 1));
        let list = request(&Method::GET, "/api/v1/pods");
        let create = request(&Method::POST, "/api/v1/namespaces/a/pods");
        let alice = user(&["system:authenticated"]);
        let read = limiter.admit(&list, &alice).unwrap();
        assert!(read.is_some());
        let refused = limiter.admit(&list, &alice).err().unwrap();
        assert_eq!((refused.code(), refused.reason()), (429, "TooManyRequests"));
        assert_eq!(refused.retry_after(), Some(1));
        let write = limiter.admit(&create, &alice).unwrap();
        assert!(write.is_some());
        assert!(limiter.admit(&create, &alice).is_err());
        let counters = limiter.counters();
        assert_eq!(
            counters,
            InflightCounters {
                read_only_inflight: 1,
                mutating_inflight: 1,
                read_only_dropped: 1,
                mutating_dropped: 1,
            }
        );
        drop(read);
        assert!(limiter.admit(&list, &alice).unwrap().is_some());
        assert_eq!(limiter.take_watermarks(), (1, 1));
        // The write still ran during this period, the read no more.
        drop(write);
        assert_eq!(limiter.take_watermarks(), (0, 1));
        assert_eq!(limiter.take_watermarks(), (0, 0));
    }

    #[test]
    fn watches_masters_and_zero_limits_pass_uncounted() {
        let limiter = Arc::new(InflightLimiter::new(1, 0));
        let alice = user(&[]);
        let list = request(&Method::GET, "/api/v1/pods");
        let _held = limiter.admit(&list, &alice).unwrap();
        let watch = RequestInfo::new(&Method::GET, "/api/v1/pods".into(), Some("1"), None);
        assert!(limiter.admit(&watch, &alice).unwrap().is_none());
        assert!(limiter.admit(&list, &user(&[MASTERS])).unwrap().is_none());
        let create = request(&Method::POST, "/api/v1/namespaces/a/pods");
        for _ in 0..3 {
            assert!(limiter.admit(&create, &alice).unwrap().is_none());
        }
        assert_eq!(limiter.counters().read_only_inflight, 1);
        assert_eq!(limiter.counters().read_only_dropped, 0);
    }
}
