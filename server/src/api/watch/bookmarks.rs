//! The objects of events that carry no stored record: BOOKMARKs (periodic
//! progress, and the end of the initial events) and the ERROR that ends a
//! watch whose start was compacted away.

use std::time::Duration;

use serde_json::{Value, json};

use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::storage::{Revision, StorageError};

/// How often a watch with `allowWatchBookmarks` gets a BOOKMARK (Kubernetes
/// sends roughly one a minute).
pub const BOOKMARK_EVERY: Duration = Duration::from_secs(60);

/// A BOOKMARK's object at `rev`; `initial_events_end` (the API domain)
/// annotates the one that ends the initial events.
#[must_use]
pub fn bookmark(kind: &KindSpec, rev: Revision, initial_events_end: Option<&str>) -> Value {
    let mut meta = json!({"resourceVersion": rev.get().to_string()});
    if let Some(domain) = initial_events_end {
        meta["annotations"] = json!({format!("{domain}/initial-events-end"): "true"});
    }
    json!({"kind": kind.kind, "apiVersion": kind.api_version(), "metadata": meta})
}

/// The `Status` of the ERROR event a watch ends with after `err`, if the
/// client is told: a compacted start (410, re-list). A lagging watcher or a
/// closed stream just ends.
#[must_use]
pub fn ended_by(err: &StorageError) -> Option<Value> {
    let StorageError::Compacted { .. } = err else {
        return None;
    };
    Some(
        ApiError::Expired {
            message: "The resourceVersion for the provided watch is too old.".into(),
            continue_token: None,
        }
        .status(),
    )
}
