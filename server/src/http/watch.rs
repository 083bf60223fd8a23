//! Watch streams (spec 6.2): `{"type","object"}` JSON documents, one per line,
//! flushed per event. Without a resourceVersion (or with `0`) the stream
//! starts with the current state as ADDED events; with one, it carries the
//! changes after it. Selectors turn objects that start or stop matching into
//! ADDED or DELETED.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Response, header};
use serde_json::{Value, json};

use crate::api::error::ApiError;
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::store::read::selected;
use crate::api::store::{ListOptions, Store, parse_rv, write::with_rv};
use crate::http::AppState;
use crate::http::body::{Body, channel};
use crate::http::params::Query;
use crate::storage::{Event, EventKind, KeyRange, Revision, StorageError};

fn line(kind: &str, object: &Value) -> Bytes {
    let mut out = serde_json::to_vec(&json!({"type": kind, "object": object}))
        .expect("JSON values serialize");
    out.push(b'\n');
    out.into()
}

/// The ERROR event for a start revision that was compacted away.
fn expired_event() -> Bytes {
    let status = ApiError::Expired {
        message: "The resourceVersion for the provided watch is too old.".into(),
        continue_token: None,
    }
    .status();
    line("ERROR", &status)
}

/// Starts a watch and returns the streaming response.
pub async fn serve(
    state: &Arc<AppState>,
    kind: &Arc<KindSpec>,
    ns: Option<&str>,
    name: Option<&str>,
    query: &Query,
) -> Result<Response<Body>, ApiError> {
    let mut opts = query.list_options(kind)?;
    let rv = parse_rv(opts.resource_version.as_deref())?;
    let timeout = query
        .int("timeoutSeconds")?
        .filter(|&t| t > 0)
        .map(|t| Duration::from_secs(t.unsigned_abs()));
    let range = match name {
        Some(n) => KeyRange::key(&keys::object_key(kind, ns, n)),
        None => KeyRange::prefix(&keys::collection_prefix(kind, ns)),
    };
    let (initial, after) = match rv {
        None | Some(0) => {
            opts.limit = 0;
            opts.continue_token = None;
            opts.resource_version = None;
            opts.rv_match = None;
            let page = state.store.list(kind, ns, &opts).await?;
            let items = page
                .items
                .into_iter()
                .filter(|o| name.is_none_or(|n| crate::api::object::name(o) == n))
                .collect();
            (items, page.revision)
        }
        Some(n) => (Vec::new(), Revision(n)),
    };
    let (tx, body) = channel(64);
    let watch = state.store.storage.watch(range, after);
    let mut shutdown = state.shutdown.clone();
    let kind = Arc::clone(kind);
    tokio::spawn(async move {
        let deadline = timeout.map(|t| tokio::time::Instant::now() + t);
        for obj in &initial {
            if tx.send(line("ADDED", obj)).await.is_err() {
                return;
            }
        }
        let mut watch = match watch {
            Ok(w) => w,
            Err(StorageError::Compacted { .. }) => {
                let _ = tx.send(expired_event()).await;
                return;
            }
            Err(_) => return,
        };
        loop {
            let next = async {
                match deadline {
                    Some(d) => tokio::time::timeout_at(d, watch.next()).await.ok(),
                    None => Some(watch.next().await),
                }
            };
            tokio::select! {
                ev = next => match ev {
                    Some(Some(Ok(ev))) => {
                        if let Some(bytes) = translate(&kind, &ev, &opts) && tx.send(bytes).await.is_err() {
                            return;
                        }
                    }
                    Some(Some(Err(StorageError::Compacted { .. }))) => {
                        let _ = tx.send(expired_event()).await;
                        return;
                    }
                    _ => return,
                },
                _ = shutdown.changed() => return,
                () = tx.closed() => return,
            }
        }
    });
    let mut resp = Response::new(body);
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Ok(resp)
}

/// One storage event as a watch event for this client, if it sees one.
fn translate(kind: &KindSpec, ev: &Event, opts: &ListOptions) -> Option<Bytes> {
    let decode = |kv: &crate::storage::KeyValue| Store::decode_stored(kv).ok();
    let new = ev.kv.as_ref().and_then(decode);
    let old = ev.prev.as_ref().and_then(decode);
    let matches = |o: &Option<Value>| {
        o.as_ref()
            .is_some_and(|o| selected(kind, o, opts.label.as_ref(), opts.field.as_ref()))
    };
    let (new_ok, old_ok) = (matches(&new), matches(&old));
    match ev.kind {
        EventKind::Put if new_ok && old_ok => Some(line("MODIFIED", new.as_ref()?)),
        EventKind::Put if new_ok => Some(line("ADDED", new.as_ref()?)),
        EventKind::Put if old_ok => Some(line("DELETED", &with_rv(old?, ev.revision))),
        EventKind::Delete if old_ok => Some(line("DELETED", &with_rv(old?, ev.revision))),
        _ => None,
    }
}
