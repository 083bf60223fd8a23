//! Graceful deletion (Kubernetes' `BeforeDelete`): for kinds with a default
//! grace period, a DELETE sets `deletionTimestamp = now + grace` and
//! `deletionGracePeriodSeconds = grace`; a later DELETE may only shorten it.

use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::api::kind::KindSpec;
use crate::api::object;
use crate::util::time;

/// What graceful deletion decided for one DELETE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grace {
    /// The kind is not deleted gracefully, or the grace period is over
    /// (deletionGracePeriodSeconds 0): the usual delete path applies.
    NotGraceful,
    /// Already terminating with a grace period no longer than the one asked
    /// for: nothing changes.
    Pending,
    /// The object now carries a (new) grace period of this many seconds.
    Graceful(i64),
}

/// Applies graceful deletion to `obj` (the stored object, changed in place)
/// for a DELETE asking for `requested` seconds.
pub fn before_delete(
    kind: &KindSpec,
    obj: &mut Value,
    requested: Option<i64>,
    now: SystemTime,
) -> Grace {
    // Kubernetes reads a negative grace period as one second.
    let requested = requested.map(|g| if g < 0 { 1 } else { g });
    let Some(default) = kind.strategy.default_grace_period_seconds(obj) else {
        return Grace::NotGraceful;
    };
    let requested = if kind.strategy.deleted_at_once(obj) {
        Some(0)
    } else {
        requested
    };
    if object::is_terminating(obj) {
        let Some(current) = object::deletion_grace_period_seconds(obj).filter(|g| *g > 0) else {
            return Grace::NotGraceful;
        };
        let Some(shorter) = requested.filter(|g| *g < current) else {
            return Grace::Pending;
        };
        let deadline = object::meta_str(obj, "deletionTimestamp")
            .and_then(time::parse_rfc3339)
            .unwrap_or(now);
        let at = shift(deadline, shorter - current);
        mark(obj, at, shorter);
        return Grace::Graceful(shorter);
    }
    let grace = requested.unwrap_or(default).max(0);
    mark(obj, shift(now, grace), grace);
    bump_generation(kind, obj);
    Grace::Graceful(grace)
}

/// The first deletion is a change the kind's controllers must see: kinds
/// that track generation count it (as Kubernetes does).
pub fn bump_generation(kind: &KindSpec, obj: &mut Value) {
    if !kind.tracks_generation {
        return;
    }
    let meta = object::metadata_mut(obj);
    if let Some(g) = meta
        .get("generation")
        .and_then(Value::as_i64)
        .filter(|g| *g > 0)
    {
        meta.insert("generation".into(), json!(g + 1));
    }
}

fn shift(t: SystemTime, seconds: i64) -> SystemTime {
    let d = Duration::from_secs(seconds.unsigned_abs());
    if seconds >= 0 { t + d } else { t - d }
}

fn mark(obj: &mut Value, at: SystemTime, seconds: i64) {
    let meta = object::metadata_mut(obj);
    meta.insert("deletionTimestamp".into(), json!(time::rfc3339(at)));
    meta.insert("deletionGracePeriodSeconds".into(), json!(seconds));
}

/// When a gracefully deleted object's grace period ends (`None`: it has
/// none pending).
#[must_use]
pub fn grace_deadline(obj: &Value) -> Option<SystemTime> {
    object::deletion_grace_period_seconds(obj).filter(|g| *g > 0)?;
    object::meta_str(obj, "deletionTimestamp").and_then(time::parse_rfc3339)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::api::kind::Strategy;
    use crate::api::schema::Schema;

    struct Graceful;
    impl Strategy for Graceful {
        fn default_grace_period_seconds(&self, _obj: &Value) -> Option<i64> {
            Some(30)
        }
    }

    fn kind(graceful: bool) -> KindSpec {
        let mut k = KindSpec::new("", "v1", "Pod", "pods", true, Schema::default());
        if graceful {
            k.strategy = Arc::new(Graceful);
        }
        k.tracks_generation = true;
        k
    }

    fn at(s: &str) -> SystemTime {
        time::parse_rfc3339(s).expect("time")
    }

    fn meta(obj: &Value) -> (Option<&str>, Option<i64>) {
        (
            object::meta_str(obj, "deletionTimestamp"),
            object::deletion_grace_period_seconds(obj),
        )
    }

    #[test]
    fn kinds_without_a_default_ignore_grace_periods() {
        let mut obj = json!({"metadata": {"name": "p"}});
        let now = at("2024-05-01T10:00:00Z");
        assert_eq!(
            before_delete(&kind(false), &mut obj, Some(30), now),
            Grace::NotGraceful
        );
        assert_eq!(meta(&obj), (None, None));
    }

    #[test]
    fn first_delete_uses_the_request_or_the_default() {
        let now = at("2024-05-01T10:00:00Z");
        let mut obj = json!({"metadata": {"name": "p", "generation": 1}});
        assert_eq!(
            before_delete(&kind(true), &mut obj, None, now),
            Grace::Graceful(30)
        );
        assert_eq!(meta(&obj), (Some("2024-05-01T10:00:30Z"), Some(30)));
        assert_eq!(obj["metadata"]["generation"], 2);

        let mut obj = json!({"metadata": {"name": "p"}});
        assert_eq!(
            before_delete(&kind(true), &mut obj, Some(5), now),
            Grace::Graceful(5)
        );
        assert_eq!(meta(&obj), (Some("2024-05-01T10:00:05Z"), Some(5)));

        let mut obj = json!({"metadata": {"name": "p"}});
        assert_eq!(
            before_delete(&kind(true), &mut obj, Some(0), now),
            Grace::Graceful(0)
        );
        assert_eq!(meta(&obj), (Some("2024-05-01T10:00:00Z"), Some(0)));
        // Negative means one second.
        let mut obj = json!({"metadata": {"name": "p"}});
        assert_eq!(
            before_delete(&kind(true), &mut obj, Some(-3), now),
            Grace::Graceful(1)
        );
    }

    #[test]
    fn a_later_delete_may_only_shorten_the_grace_period() {
        let first = at("2024-05-01T10:00:00Z");
        let mut obj = json!({"metadata": {"name": "p"}});
        before_delete(&kind(true), &mut obj, Some(30), first);
        let later = at("2024-05-01T10:00:10Z");
        let before = obj.clone();
        assert_eq!(
            before_delete(&kind(true), &mut obj, Some(60), later),
            Grace::Pending
        );
        assert_eq!(
            before_delete(&kind(true), &mut obj, None, later),
            Grace::Pending
        );
        assert_eq!(obj, before);
        // Shortened from the first request's start, not from now.
        assert_eq!(
            before_delete(&kind(true), &mut obj, Some(10), later),
            Grace::Graceful(10)
        );
        assert_eq!(meta(&obj), (Some("2024-05-01T10:00:10Z"), Some(10)));
        assert_eq!(grace_deadline(&obj), Some(at("2024-05-01T10:00:10Z")));
        assert_eq!(
            before_delete(&kind(true), &mut obj, Some(0), later),
            Grace::Graceful(0)
        );
        assert_eq!(meta(&obj), (Some("2024-05-01T10:00:00Z"), Some(0)));
        assert_eq!(grace_deadline(&obj), None);
        // Grace over: the usual delete path (finalizers, removal).
        assert_eq!(
            before_delete(&kind(true), &mut obj, Some(5), later),
            Grace::NotGraceful
        );
    }
}
