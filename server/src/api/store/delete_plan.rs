//! What one DELETE does to a stored object, decided from the object and
//! the request's options alone (Kubernetes' generic store): preconditions,
//! graceful deletion, propagation finalizers for the garbage collector, the
//! kind's own deletion, and removal once no finalizer remains.

use std::time::SystemTime;

use serde_json::{Value, json};

use crate::api::error::ApiError;
use crate::api::kind::{DeleteAction, KindSpec};
use crate::api::object;
use crate::api::store::delete::{DeleteOptions, FOREGROUND_FINALIZER, ORPHAN_FINALIZER};
use crate::api::store::grace::{self, Grace};
use crate::util::time;

/// What one DELETE does to the stored object.
pub(super) enum Plan {
    /// Nothing to write (a deletion already in progress).
    Unchanged,
    /// Store this object (terminating).
    Update(Value),
    /// Remove the object.
    Remove,
}

/// Whether a DELETE leaves the `orphan` finalizer: the request decides,
/// else the finalizers the object already has.
fn should_orphan(opts: &DeleteOptions, obj: &Value) -> bool {
    if let Some(orphan) = opts.orphan_dependents {
        return orphan;
    }
    match opts.propagation_policy.as_deref() {
        Some("Orphan") => return true,
        Some("Background" | "Foreground") => return false,
        _ => {}
    }
    object::finalizers(obj)
        .iter()
        .find(|f| *f == ORPHAN_FINALIZER || *f == FOREGROUND_FINALIZER)
        .is_some_and(|f| f == ORPHAN_FINALIZER)
}

/// Whether a DELETE leaves the `foregroundDeletion` finalizer.
fn should_delete_dependents(opts: &DeleteOptions, obj: &Value) -> bool {
    if opts.orphan_dependents.is_some() {
        return false;
    }
    match opts.propagation_policy.as_deref() {
        Some("Foreground") => return true,
        Some("Background" | "Orphan") => return false,
        _ => {}
    }
    object::finalizers(obj)
        .iter()
        .find(|f| *f == ORPHAN_FINALIZER || *f == FOREGROUND_FINALIZER)
        .is_some_and(|f| f == FOREGROUND_FINALIZER)
}

/// The finalizers after a DELETE's propagation policy, if they change.
fn propagation_finalizers(
    kind: &KindSpec,
    obj: &Value,
    opts: &DeleteOptions,
) -> Option<Vec<String>> {
    if !kind.garbage_collected {
        return None;
    }
    let old = object::finalizers(obj);
    let mut new: Vec<String> = old
        .iter()
        .filter(|f| *f != ORPHAN_FINALIZER && *f != FOREGROUND_FINALIZER)
        .cloned()
        .collect();
    if should_orphan(opts, obj) {
        new.push(ORPHAN_FINALIZER.into());
    }
    if should_delete_dependents(opts, obj) {
        new.push(FOREGROUND_FINALIZER.into());
    }
    let same = new.len() == old.len() && new.iter().all(|f| old.contains(f));
    (!same).then_some(new)
}

/// A terminating object waiting for its finalizers: deletionTimestamp now
/// (unless an earlier one is set), no grace period left.
fn mark_as_deleting(kind: &KindSpec, obj: &mut Value, now: SystemTime) {
    if !object::is_terminating(obj) {
        grace::bump_generation(kind, obj);
    }
    let earlier = object::meta_str(obj, "deletionTimestamp")
        .and_then(time::parse_rfc3339)
        .is_some_and(|t| t <= now);
    let meta = object::metadata_mut(obj);
    if !earlier {
        meta.insert("deletionTimestamp".into(), json!(time::rfc3339(now)));
    }
    meta.insert("deletionGracePeriodSeconds".into(), json!(0));
}

/// Decides what a DELETE does to `current` (Kubernetes' generic store:
/// graceful deletion, then propagation finalizers, then the kind's own
/// deletion, and removal only once no finalizer remains).
pub(super) fn plan(
    kind: &KindSpec,
    current: &Value,
    opts: &DeleteOptions,
    now: SystemTime,
) -> Result<Plan, ApiError> {
    if object::is_terminating(current) && !kind.strategy.ready_to_remove(current) {
        // The kind's own finalization (a namespace's spec.finalizers) is running.
        return Ok(Plan::Unchanged);
    }
    let mut next = current.clone();
    let grace = grace::before_delete(kind, &mut next, opts.grace_period_seconds, now);
    if grace == Grace::Pending {
        return Ok(Plan::Unchanged);
    }
    if let Some(finalizers) = propagation_finalizers(kind, &next, opts) {
        object::set_finalizers(&mut next, finalizers);
    }
    if matches!(grace, Grace::Graceful(seconds) if seconds > 0) {
        return Ok(Plan::Update(next));
    }
    let next = match kind.strategy.on_delete(&next)? {
        DeleteAction::Update(updated) => updated,
        DeleteAction::Remove if object::has_finalizers(&next) => {
            mark_as_deleting(kind, &mut next, now);
            next
        }
        DeleteAction::Remove => return Ok(Plan::Remove),
    };
    Ok(if &next == current {
        Plan::Unchanged
    } else {
        Plan::Update(next)
    })
}

/// 409 for a precondition the stored object does not meet (Kubernetes'
/// `BeforeDelete` messages, naming the kind).
pub(super) fn check_preconditions(
    kind: &KindSpec,
    name: &str,
    current: &Value,
    revision: u64,
    opts: &DeleteOptions,
) -> Result<(), ApiError> {
    let conflict = |cause: String| ApiError::Conflict {
        group: kind.group.clone(),
        resource: kind.kind.clone(),
        name: name.into(),
        cause,
    };
    if let Some(uid) = &opts.precondition_uid {
        let actual = object::uid(current);
        if uid != actual {
            return Err(conflict(format!(
                "the UID in the precondition ({uid}) does not match the UID in record ({actual}). The object might have been deleted and then recreated"
            )));
        }
    }
    if let Some(rv) = opts.precondition_rv
        && rv != revision
    {
        return Err(conflict(format!(
            "the ResourceVersion in the precondition ({rv}) does not match the ResourceVersion in record ({revision}). The object might have been modified"
        )));
    }
    Ok(())
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

    fn pods() -> KindSpec {
        KindSpec {
            strategy: Arc::new(Graceful),
            ..KindSpec::new("", "v1", "Pod", "pods", true, Schema::default())
        }
    }

    fn widgets() -> KindSpec {
        KindSpec::new("", "v1", "Widget", "widgets", true, Schema::default())
    }

    fn events() -> KindSpec {
        KindSpec {
            garbage_collected: false,
            ..KindSpec::new("", "v1", "Event", "events", true, Schema::default())
        }
    }

    fn now() -> SystemTime {
        time::parse_rfc3339("2024-05-01T10:00:00Z").expect("time")
    }

    fn policy(p: &str) -> DeleteOptions {
        DeleteOptions {
            propagation_policy: Some(p.into()),
            ..DeleteOptions::default()
        }
    }

    fn updated(plan: Plan) -> Value {
        match plan {
            Plan::Update(v) => v,
            Plan::Unchanged => panic!("unchanged"),
            Plan::Remove => panic!("removed"),
        }
    }

    #[test]
    fn graceful_kinds_wait_for_their_grace_period() {
        let obj = json!({"metadata": {"name": "p"}});
        let first = updated(plan(&pods(), &obj, &DeleteOptions::default(), now()).expect("plan"));
        assert_eq!(
            first["metadata"]["deletionTimestamp"],
            "2024-05-01T10:00:30Z"
        );
        assert_eq!(first["metadata"]["deletionGracePeriodSeconds"], 30);
        let longer = DeleteOptions {
            grace_period_seconds: Some(60),
            ..DeleteOptions::default()
        };
        assert!(matches!(
            plan(&pods(), &first, &longer, now()),
            Ok(Plan::Unchanged)
        ));
        let now_please = DeleteOptions {
            grace_period_seconds: Some(0),
            ..DeleteOptions::default()
        };
        assert!(matches!(
            plan(&pods(), &first, &now_please, now()),
            Ok(Plan::Remove)
        ));
        assert!(matches!(
            plan(&pods(), &obj, &now_please, now()),
            Ok(Plan::Remove)
        ));
        // Finalizers keep the object once its grace period is over.
        let held = json!({"metadata": {"name": "p", "finalizers": ["x"]}});
        let kept = updated(plan(&pods(), &held, &now_please, now()).expect("plan"));
        assert_eq!(kept["metadata"]["deletionGracePeriodSeconds"], 0);
        assert_eq!(
            kept["metadata"]["deletionTimestamp"],
            "2024-05-01T10:00:00Z"
        );
        // Kinds without a default ignore gracePeriodSeconds.
        let later = DeleteOptions {
            grace_period_seconds: Some(30),
            ..DeleteOptions::default()
        };
        assert!(matches!(
            plan(&widgets(), &obj, &later, now()),
            Ok(Plan::Remove)
        ));
    }

    #[test]
    fn propagation_policies_set_the_collector_finalizers() {
        let obj = json!({"metadata": {"name": "w", "finalizers": ["x"]}});
        let fg = updated(plan(&widgets(), &obj, &policy("Foreground"), now()).expect("plan"));
        assert_eq!(
            fg["metadata"]["finalizers"],
            json!(["x", "foregroundDeletion"])
        );
        // A later delete keeps the policy unless it names another one.
        assert!(matches!(
            plan(&widgets(), &fg, &DeleteOptions::default(), now()),
            Ok(Plan::Unchanged)
        ));
        let orphan = updated(plan(&widgets(), &fg, &policy("Orphan"), now()).expect("plan"));
        assert_eq!(orphan["metadata"]["finalizers"], json!(["x", "orphan"]));
        let flag = DeleteOptions {
            orphan_dependents: Some(false),
            ..DeleteOptions::default()
        };
        let background = updated(plan(&widgets(), &orphan, &flag, now()).expect("plan"));
        assert_eq!(background["metadata"]["finalizers"], json!(["x"]));

        let plain = json!({"metadata": {"name": "w"}});
        assert!(matches!(
            plan(&widgets(), &plain, &policy("Background"), now()),
            Ok(Plan::Remove)
        ));
        let held = updated(plan(&widgets(), &plain, &policy("Orphan"), now()).expect("plan"));
        assert_eq!(held["metadata"]["finalizers"], json!(["orphan"]));
        assert_eq!(held["metadata"]["deletionGracePeriodSeconds"], 0);
        // Events never wait for their dependents.
        assert!(matches!(
            plan(&events(), &plain, &policy("Foreground"), now()),
            Ok(Plan::Remove)
        ));
    }
}
