//! Where a watch starts (spec 4.5, 6.2): the parameter combinations allowed,
//! the initial state sent as ADDED, and the revision changes follow from.
//!
//! resourceVersion unset or `0` → the current state, then changes; `N` →
//! changes after N. `sendInitialEvents=true` (with
//! `resourceVersionMatch=NotOlderThan`) → the state at a revision not older
//! than N, then (with `allowWatchBookmarks`) a BOOKMARK annotated
//! `<domain>/initial-events-end`.

use std::sync::Arc;

use crate::api::error::ApiError;
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::store::{ListOptions, ResourceVersionMatch, Store, parse_rv};
use crate::api::watch::selection::Selection;
use crate::api::watch::{WatchRequest, Watcher};
use crate::storage::{KeyRange, KeyValue, Revision};

/// Checks the parameter combinations of spec 4.5 for a watch.
fn check_params(
    opts: &ListOptions,
    send_initial: Option<bool>,
    watch_list_gate: bool,
) -> Result<(), ApiError> {
    match (send_initial, opts.rv_match) {
        (Some(_), _) if !watch_list_gate => Err(ApiError::BadRequest(
            "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled".into(),
        )),
        (Some(_), Some(ResourceVersionMatch::NotOlderThan)) | (None, None) => Ok(()),
        (Some(_), _) => Err(ApiError::BadRequest(
            "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan".into(),
        )),
        (None, Some(_)) => Err(ApiError::BadRequest(
            "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided".into(),
        )),
    }
}

/// A watch of one object may not select another by name.
fn check_name(opts: &ListOptions, name: Option<&str>) -> Result<(), ApiError> {
    if let Some(n) = name
        && opts.field.as_ref().is_some_and(|f| {
            f.requires_exact_match("metadata.name")
                .is_some_and(|v| v != n)
        })
    {
        return Err(ApiError::BadRequest(
            "fieldSelector metadata.name doesn't match requested name".into(),
        ));
    }
    Ok(())
}

impl Watcher {
    /// Checks `req`, reads the initial state it asks for and fixes the
    /// revision changes are watched from.
    pub async fn start(
        store: &Store,
        kind: &Arc<KindSpec>,
        ns: Option<&str>,
        name: Option<&str>,
        req: WatchRequest,
        watch_list_gate: bool,
        api_domain: &str,
    ) -> Result<Watcher, ApiError> {
        let WatchRequest {
            mut opts,
            bookmarks,
            send_initial,
            timeout,
        } = req;
        let rv = parse_rv(opts.resource_version.as_deref())?;
        check_params(&opts, send_initial, watch_list_gate)?;
        check_name(&opts, name)?;
        let range = match name {
            Some(n) => KeyRange::key(&keys::object_key(kind, ns, n)),
            None => KeyRange::prefix(&keys::collection_prefix(kind, ns)),
        };
        let wants_state = match send_initial {
            Some(initial) => initial,
            None => rv.is_none_or(|r| r == 0),
        };
        let (initial, after) = if wants_state {
            // Not older than `rv` (`0`: what a cache holds will do); the
            // newest when unset.
            let list_opts = ListOptions {
                label: opts.label.take(),
                field: opts.field.take(),
                shard: opts.shard.take(),
                resource_version: rv.map(|n| n.to_string()),
                rv_match: rv.map(|_| ResourceVersionMatch::NotOlderThan),
                ..ListOptions::default()
            };
            let page = store.list_raw(kind, ns, &list_opts).await?;
            opts.label = list_opts.label;
            opts.field = list_opts.field;
            opts.shard = list_opts.shard;
            let items: Vec<KeyValue> = page
                .items
                .into_iter()
                .filter(|kv| name.is_none_or(|n| range.contains(&kv.key) && !n.is_empty()))
                .collect();
            (items, page.revision)
        } else {
            let after = match rv {
                Some(rv) => Revision(rv),
                None => store.current_revision().await?,
            };
            (Vec::new(), after)
        };
        // Other versions' watchers convert per watcher; the shared encodings
        // are of the stored form.
        let selecting = opts.label.is_some() || opts.field.is_some() || opts.shard.is_some();
        let selection = (selecting || !kind.stores_served_form()).then(|| {
            Arc::new(Selection {
                range,
                label: opts.label,
                field: opts.field,
                shard: opts.shard,
            })
        });
        Ok(Watcher {
            kind: Arc::clone(kind),
            initial,
            after,
            selection,
            namespace: ns.map(str::to_string),
            name: name.map(str::to_string),
            bookmarks,
            initial_events_end: (send_initial == Some(true) && bookmarks)
                .then(|| api_domain.to_string()),
            timeout,
        })
    }
}
