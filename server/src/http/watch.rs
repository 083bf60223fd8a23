//! Watch streams (spec 6.2, 6.3): `{"type","object"}` JSON documents, one per
//! line, flushed per commit batch.
//!
//! Start: resourceVersion unset or `0` → the current state as ADDED, then
//! changes; `N` → changes after N. `sendInitialEvents=true` (with
//! `resourceVersionMatch=NotOlderThan`) → the state at a revision not older
//! than N as ADDED, then (with `allowWatchBookmarks`) a BOOKMARK annotated
//! `<domain>/initial-events-end`. Selectors turn objects that start or stop
//! matching into ADDED or DELETED. Objects are written from their stored
//! bytes; parsing happens only when a selector needs field values.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Response, header};
use serde_json::json;

use crate::api::error::ApiError;
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::served::write_object;
use crate::api::store::read::selected;
use crate::api::store::{ListOptions, ResourceVersionMatch, Store, parse_rv};
use crate::app::AppState;
use crate::http::body::{Body, Gathered, channel};
use crate::http::negotiate::Encoding;
use crate::http::params::Query;
use crate::http::protobuf;
use crate::storage::{Event, EventKind, Events, KeyRange, KeyValue, Revision, StorageError, Watch};

/// How often a watch with `allowWatchBookmarks` gets a BOOKMARK (Kubernetes
/// sends roughly one a minute).
const BOOKMARK_EVERY: Duration = Duration::from_secs(60);

/// How events are framed: JSON lines, or length-prefixed protobuf.
#[derive(Clone, Copy)]
enum Framing {
    Json,
    Protobuf,
}

fn frame(kind: &KindSpec, framing: Framing, out: &mut Vec<u8>, event_type: &str, kv: &KeyValue) {
    if let Framing::Protobuf = framing {
        if let Err(e) = protobuf::watch_event(kind, event_type, kv, out) {
            // Mid-stream there is no other encoding to turn to.
            let status = ApiError::Internal(format!("this object has no protobuf form: {e}"));
            if let Ok(b) = protobuf::watch_value(kind, "ERROR", &status.status()) {
                out.extend_from_slice(&b);
            }
        }
        return;
    }
    out.extend_from_slice(b"{\"type\":\"");
    out.extend_from_slice(event_type.as_bytes());
    out.extend_from_slice(b"\",\"object\":");
    write_object(kind, kv, out);
    out.extend_from_slice(b"}\n");
}

fn line(kind: &KindSpec, framing: Framing, event_type: &str, object: &serde_json::Value) -> Bytes {
    if let Framing::Protobuf = framing {
        return protobuf::watch_value(kind, event_type, object).unwrap_or_default();
    }
    let mut out = serde_json::to_vec(&json!({"type": event_type, "object": object}))
        .expect("JSON values serialize");
    out.push(b'\n');
    out.into()
}

/// The ERROR event for a start revision that was compacted away.
fn expired_event(kind: &KindSpec, framing: Framing) -> Bytes {
    let status = ApiError::Expired {
        message: "The resourceVersion for the provided watch is too old.".into(),
        continue_token: None,
    }
    .status();
    line(kind, framing, "ERROR", &status)
}

fn bookmark(
    kind: &KindSpec,
    framing: Framing,
    rev: Revision,
    initial_events_end: Option<&str>,
) -> Bytes {
    let mut meta = json!({"resourceVersion": rev.get().to_string()});
    if let Some(domain) = initial_events_end {
        meta["annotations"] = json!({format!("{domain}/initial-events-end"): "true"});
    }
    line(
        kind,
        framing,
        "BOOKMARK",
        &json!({"kind": kind.kind, "apiVersion": kind.api_version(), "metadata": meta}),
    )
}

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

/// Starts a watch and returns the streaming response.
pub async fn serve(
    state: &Arc<AppState>,
    kind: &Arc<KindSpec>,
    ns: Option<&str>,
    name: Option<&str>,
    query: &Query,
    encoding: Encoding,
) -> Result<Response<Body>, ApiError> {
    let framing = match encoding {
        Encoding::Protobuf(_) => Framing::Protobuf,
        _ => Framing::Json,
    };
    let mut opts = query.list_options(kind, &state.config.feature_gates)?;
    let rv = parse_rv(opts.resource_version.as_deref())?;
    let bookmarks = query.bool("allowWatchBookmarks")?.unwrap_or(false);
    let send_initial = query.bool("sendInitialEvents")?;
    check_params(
        &opts,
        send_initial,
        state.config.feature_gates.enabled("WatchList"),
    )?;
    let timeout = query
        .int("timeoutSeconds")?
        .filter(|&t| t > 0)
        .map(|t| Duration::from_secs(t.unsigned_abs()));
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
    let range = match name {
        Some(n) => KeyRange::key(&keys::object_key(kind, ns, n)),
        None => KeyRange::prefix(&keys::collection_prefix(kind, ns)),
    };
    let wants_state = match send_initial {
        Some(initial) => initial,
        None => rv.is_none_or(|r| r == 0),
    };
    let (initial, after) = if wants_state {
        if let Some(n) = rv.filter(|&n| n > 0) {
            state.store.wait_for_revision(n).await?;
        }
        let list_opts = ListOptions {
            label: opts.label.take(),
            field: opts.field.take(),
            shard: opts.shard.take(),
            ..ListOptions::default()
        };
        let page = state.store.list_raw(kind, ns, &list_opts).await?;
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
        (
            Vec::new(),
            match rv {
                Some(rv) => Revision(rv),
                None => state.store.current_revision().await?,
            },
        )
    };
    let end_bookmark =
        (send_initial == Some(true) && bookmarks).then(|| state.config.api_domain.clone());
    let (tx, body) = channel(16);
    // A compacted start arrives as the watch's first item.
    let mut watch = state.store.storage.watch(range, after);
    let mut shutdown = state.shutdown.clone();
    let kind = Arc::clone(kind);
    tokio::spawn(async move {
        let deadline =
            tokio::time::Instant::now() + timeout.unwrap_or(Duration::from_secs(3600 * 24 * 365));
        let mut chunk = Vec::new();
        for kv in &initial {
            frame(&kind, framing, &mut chunk, "ADDED", kv);
        }
        if let Some(domain) = &end_bookmark {
            chunk.extend_from_slice(&bookmark(&kind, framing, after, Some(domain)));
        }
        if !chunk.is_empty() && tx.send(chunk.into()).await.is_err() {
            return;
        }
        // Other versions' watchers convert per watcher; the shared encodings
        // are of the stored form.
        let selecting = opts.label.is_some() || opts.field.is_some() || opts.shard.is_some();
        let filtered = selecting || !kind.stores_served_form();
        // Timers are created once: re-arming them per event costs more than
        // the event itself at high fan-out.
        let end = tokio::time::sleep_until(deadline);
        tokio::pin!(end);
        let mut ticks =
            tokio::time::interval_at(tokio::time::Instant::now() + BOOKMARK_EVERY, BOOKMARK_EVERY);
        let encoder = BatchEncoder {
            kind: Arc::clone(&kind),
            framing,
            opts,
            filtered,
        };
        loop {
            tokio::select! {
                batch = watch.next_batch() => {
                    let (bytes, ended) = match batch {
                        Some(Ok(events)) => {
                            let Some(gathered) = encoder.gather(&mut watch, &events) else { return };
                            gathered
                        }
                        Some(Err(e)) => (Bytes::new(), Some(e)),
                        None => return,
                    };
                    if !bytes.is_empty() && tx.send(bytes).await.is_err() {
                        return;
                    }
                    match ended {
                        Some(StorageError::Compacted { .. }) => {
                            let _ = tx.send(expired_event(&kind, framing)).await;
                            return;
                        }
                        // Lagged (the client reads too slowly: it must re-list), or closed.
                        Some(_) => return,
                        None => {}
                    }
                }
                _ = ticks.tick(), if bookmarks => {
                    if tx.send(bookmark(&kind, framing, watch.progress(), None)).await.is_err() {
                        return;
                    }
                }
                () = &mut end => {
                    if bookmarks {
                        let _ = tx.send(bookmark(&kind, framing, watch.progress(), None)).await;
                    }
                    return;
                }
                _ = shutdown.changed() => return,
                () = tx.closed() => return,
            }
        }
    });
    let mut resp = Response::new(body);
    let content_type = match encoding {
        Encoding::Protobuf(p) => protobuf::watch_content_type(p),
        _ => "application/json",
    };
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    Ok(resp)
}

/// Turns the batches one watcher receives into the bytes it is sent.
struct BatchEncoder {
    kind: Arc<KindSpec>,
    framing: Framing,
    opts: ListOptions,
    /// Encoded per watcher (selectors, conversions) rather than once per
    /// commit batch and encoding.
    filtered: bool,
}

impl BatchEncoder {
    /// `events` and every batch already waiting after them, as one write: a
    /// watcher that fell behind then catches up instead of paying a write
    /// (and two task wake-ups) per batch. Also returns the error that ended
    /// the watch meanwhile, if any; `None` as `encode`.
    fn gather(&self, watch: &mut Watch, events: &Events) -> Option<(Bytes, Option<StorageError>)> {
        let mut gathered = Gathered::new(self.encode(events)?);
        while gathered.has_room() {
            match watch.try_next_batch() {
                Some(Ok(more)) => gathered.push(&self.encode(&more)?),
                Some(Err(e)) => return Some((gathered.into_bytes(), Some(e))),
                None => break,
            }
        }
        Some((gathered.into_bytes(), None))
    }

    /// `None` if the batch's shared encoding is of another type (a bug).
    fn encode(&self, events: &Events) -> Option<Bytes> {
        if self.filtered {
            let mut out = Vec::new();
            for ev in events.iter() {
                translate(&self.kind, self.framing, ev, &self.opts, &mut out);
            }
            return Some(Bytes::from(out));
        }
        // Encoded once per commit batch and encoding, shared by every watcher.
        let shared = events.memo(|_| SharedEncodings::default())?;
        let cell = match self.framing {
            Framing::Json => &shared.json,
            Framing::Protobuf => &shared.protobuf,
        };
        let encoded =
            cell.get_or_init(|| EncodedBatch::new(&self.kind, self.framing, events.all()));
        if events.is_whole() {
            return Some(encoded.whole.clone());
        }
        let mut out = Vec::new();
        for (i, _) in events.iter_indexed() {
            out.extend_from_slice(&encoded.frames[i]);
        }
        Some(Bytes::from(out))
    }
}

/// A commit batch's events in each encoding some watcher asked for.
#[derive(Default)]
struct SharedEncodings {
    json: OnceLock<EncodedBatch>,
    protobuf: OnceLock<EncodedBatch>,
}

/// A commit batch as unfiltered watch events: one frame per storage event
/// (empty when it yields none) and all of them back to back.
struct EncodedBatch {
    frames: Vec<Bytes>,
    whole: Bytes,
}

impl EncodedBatch {
    fn new(kind: &KindSpec, framing: Framing, all: &[Event]) -> EncodedBatch {
        let mut whole = Vec::new();
        let mut bounds = Vec::with_capacity(all.len());
        for ev in all {
            let start = whole.len();
            translate_unfiltered(kind, framing, ev, &mut whole);
            bounds.push((start, whole.len()));
        }
        let whole = Bytes::from(whole);
        let frames = bounds.into_iter().map(|(a, b)| whole.slice(a..b)).collect();
        EncodedBatch { frames, whole }
    }
}

fn translate_unfiltered(kind: &KindSpec, framing: Framing, ev: &Event, out: &mut Vec<u8>) {
    match (ev.kind, &ev.kv, &ev.prev) {
        (EventKind::Put, Some(kv), Some(_)) => frame(kind, framing, out, "MODIFIED", kv),
        (EventKind::Put, Some(kv), None) => frame(kind, framing, out, "ADDED", kv),
        (EventKind::Delete, _, Some(prev)) => frame(
            kind,
            framing,
            out,
            "DELETED",
            &KeyValue {
                mod_revision: ev.revision,
                ..prev.clone()
            },
        ),
        _ => {}
    }
}

/// Appends the watch event one storage event is for a client with selectors, if any.
fn translate(kind: &KindSpec, framing: Framing, ev: &Event, opts: &ListOptions, out: &mut Vec<u8>) {
    let matches = |kv: Option<&KeyValue>| {
        kv.is_some_and(|kv| Store::decode_served(kind, kv).is_ok_and(|o| selected(kind, &o, opts)))
    };
    let (new_ok, old_ok) = (matches(ev.kv.as_ref()), matches(ev.prev.as_ref()));
    // A deleted object is served as its last state at the delete's revision.
    let as_deleted = |prev: &KeyValue| KeyValue {
        mod_revision: ev.revision,
        ..prev.clone()
    };
    match (ev.kind, &ev.kv, &ev.prev) {
        (EventKind::Put, Some(kv), _) if new_ok && old_ok => {
            frame(kind, framing, out, "MODIFIED", kv);
        }
        (EventKind::Put, Some(kv), _) if new_ok => frame(kind, framing, out, "ADDED", kv),
        (_, _, Some(prev)) if old_ok => frame(kind, framing, out, "DELETED", &as_deleted(prev)),
        _ => {}
    }
}
