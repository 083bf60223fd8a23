//! Watch streams (spec 6.2, 6.3) on the wire: the events `api::watch`
//! decides, as `{"type","object"}` JSON documents one per line or
//! length-prefixed protobuf frames, written per commit batch. Objects are
//! written from their stored bytes; unfiltered watchers share one encoding
//! per commit batch and encoding.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Response, header};
use serde_json::Value;

use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::watch::bookmarks::BOOKMARK_EVERY;
use crate::api::watch::translate::record;
use crate::api::watch::{Delivery, EventType, Feed, Picks, WatchRequest, Watcher, translate};
use crate::app::AppState;
use crate::http::body::{Body, Gathered, channel};
use crate::http::encode::{json, protobuf};
use crate::http::negotiate::Encoding;
use crate::http::params::Query;
use crate::metrics::watch::WatchEvents;
use crate::request::overload::deadline;
use crate::storage::{Event, KeyValue, StorageError};

/// How events are framed: JSON lines, or length-prefixed protobuf.
#[derive(Clone, Copy)]
enum Framing {
    Json,
    Protobuf,
}

fn frame(
    kind: &KindSpec,
    framing: Framing,
    out: &mut Vec<u8>,
    event_type: EventType,
    kv: &KeyValue,
) {
    let event_type = event_type.as_str();
    if let Framing::Json = framing {
        return json::watch_event(kind, event_type, kv, out);
    }
    if let Err(e) = protobuf::watch_event(kind, event_type, kv, out) {
        // Mid-stream there is no other encoding to turn to.
        let status = ApiError::Internal(format!("this object has no protobuf form: {e}"));
        if let Ok(b) = protobuf::watch_value(kind, "ERROR", &status.status()) {
            out.extend_from_slice(&b);
        }
    }
}

/// An event whose object is a value (a BOOKMARK, an ERROR's `Status`).
fn line(kind: &KindSpec, framing: Framing, event_type: EventType, object: &Value) -> Bytes {
    match framing {
        Framing::Json => json::watch_value(event_type.as_str(), object),
        Framing::Protobuf => {
            protobuf::watch_value(kind, event_type.as_str(), object).unwrap_or_default()
        }
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
    let req = WatchRequest {
        opts: query.list_options(kind, &state.config.feature_gates)?,
        bookmarks: query.bool("allowWatchBookmarks")?.unwrap_or(false),
        send_initial: query.bool("sendInitialEvents")?,
        // Without its own timeoutSeconds a watch ends after a random time
        // in [min, 2·min) of --min-request-timeout, as kube spreads them.
        timeout: query
            .int("timeoutSeconds")?
            .filter(|&t| t > 0)
            .map(|t| Duration::from_secs(t.unsigned_abs()))
            .or_else(|| {
                let min = state.overload.min_request_timeout;
                (!min.is_zero()).then(|| deadline::spread_watch_timeout(min))
            }),
    };
    let gate = state.config.feature_gates.enabled("WatchList");
    let domain = &state.config.api_domain;
    let watcher = Watcher::start(&state.store, kind, ns, name, req, gate, domain).await?;
    let (tx, body) = channel(16);
    let mut watch = watcher.open(&state.store);
    let mut shutdown = state.shutdown.clone();
    let lag = Arc::clone(&state.store.watch_lag);
    let started = std::time::Instant::now();
    tokio::spawn(async move {
        let kind = Arc::clone(watcher.kind());
        let deadline = tokio::time::Instant::now()
            + watcher
                .timeout
                .unwrap_or(Duration::from_secs(3600 * 24 * 365));
        let sent = crate::metrics::global()
            .watch
            .for_kind(&kind.group, &kind.version, &kind.kind);
        let mut chunk = Vec::new();
        // Taken, not borrowed: kept for the watch's whole life, the values
        // would keep the log segments they were read from on disk.
        let mut watcher = watcher;
        for kv in std::mem::take(&mut watcher.initial) {
            let before = chunk.len();
            frame(&kind, framing, &mut chunk, EventType::Added, &kv);
            sent.sent(chunk.len() - before);
        }
        if let Some(end) = watcher.initial_events_end() {
            chunk.extend_from_slice(&line(&kind, framing, EventType::Bookmark, &end));
        }
        if !chunk.is_empty() && tx.send(chunk.into()).await.is_err() {
            return;
        }
        let bookmarks = watcher.wants_bookmarks();
        let bookmark = |watch: &Feed| {
            line(
                &kind,
                framing,
                EventType::Bookmark,
                &watcher.bookmark(watch.progress()),
            )
        };
        // Timers are created once: re-arming them per event costs more than
        // the event itself at high fan-out.
        let end = tokio::time::sleep_until(deadline);
        tokio::pin!(end);
        let mut ticks =
            tokio::time::interval_at(tokio::time::Instant::now() + BOOKMARK_EVERY, BOOKMARK_EVERY);
        let encoder = BatchEncoder {
            watcher: &watcher,
            framing,
            sent: &sent,
        };
        loop {
            tokio::select! {
                batch = watch.next() => {
                    let (bytes, ended) = match batch {
                        Some(Ok(delivery)) => {
                            lag.report(started, delivery.events.published());
                            let Some(gathered) = encoder.gather(&mut watch, &delivery) else { return };
                            gathered
                        }
                        Some(Err(e)) => (Bytes::new(), Some(e)),
                        None => return,
                    };
                    if !bytes.is_empty() && tx.send(bytes).await.is_err() {
                        return;
                    }
                    if let Some(err) = ended {
                        if let Some(status) = watcher.ended_by(&err) {
                            let _ = tx.send(line(&kind, framing, EventType::Error, &status)).await;
                        }
                        return;
                    }
                }
                _ = ticks.tick(), if bookmarks => {
                    if tx.send(bookmark(&watch)).await.is_err() {
                        return;
                    }
                }
                () = &mut end => {
                    if bookmarks {
                        let _ = tx.send(bookmark(&watch)).await;
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
struct BatchEncoder<'a> {
    watcher: &'a Watcher,
    framing: Framing,
    /// Counts each event sent, with its size.
    sent: &'a WatchEvents,
}

impl BatchEncoder<'_> {
    /// `delivery` and every one already waiting after it, as one write: a
    /// watcher that fell behind then catches up instead of paying a write
    /// (and two task wake-ups) per batch. Also returns the error that ended
    /// the watch meanwhile, if any; `None` as `encode`.
    fn gather(
        &self,
        feed: &mut Feed,
        delivery: &Delivery,
    ) -> Option<(Bytes, Option<StorageError>)> {
        let mut gathered = Gathered::new(self.encode(delivery)?);
        while gathered.has_room() {
            match feed.try_next() {
                Some(Ok(more)) => gathered.push(&self.encode(&more)?),
                Some(Err(e)) => return Some((gathered.into_bytes(), Some(e))),
                None => break,
            }
        }
        Some((gathered.into_bytes(), None))
    }

    /// Frames are encoded once per batch, kind and encoding and shared by
    /// every watcher sent them. `None` if the shared encodings are of
    /// another type (a bug).
    fn encode(&self, delivery: &Delivery) -> Option<Bytes> {
        let shared = delivery.share.encodings::<SharedEncodings>()?;
        let batch = match self.framing {
            Framing::Json => &shared.json,
            Framing::Protobuf => &shared.protobuf,
        };
        let events = &delivery.events;
        let Picks::These(picks) = &delivery.picks else {
            let encoded = batch
                .every
                .get_or_init(|| EncodedBatch::new(self.watcher, self.framing, events.all()));
            if events.is_whole() {
                for frame in &encoded.frames {
                    self.sent.sent(frame.len());
                }
                return Some(encoded.whole.clone());
            }
            let mut out = Vec::new();
            for (i, _) in events.iter_indexed() {
                self.sent.sent(encoded.frames[i].len());
                out.extend_from_slice(&encoded.frames[i]);
            }
            return Some(Bytes::from(out));
        };
        let frames = batch.picked.get_or_init(|| {
            (0..events.all().len())
                .map(|_| Default::default())
                .collect()
        });
        let mut out = Vec::new();
        for &(i, event_type) in picks {
            let i = i as usize;
            let (Some(ev), Some(cells)) = (events.all().get(i), frames.get(i)) else {
                continue;
            };
            let frame = cells[type_slot(event_type)].get_or_init(|| {
                let mut one = Vec::new();
                if let Some(kv) = record(self.watcher.kind(), ev, event_type) {
                    frame(self.watcher.kind(), self.framing, &mut one, event_type, &kv);
                }
                Bytes::from(one)
            });
            self.sent.sent(frame.len());
            out.extend_from_slice(frame);
        }
        Some(Bytes::from(out))
    }
}

fn type_slot(event_type: EventType) -> usize {
    match event_type {
        EventType::Added => 0,
        EventType::Modified => 1,
        _ => 2,
    }
}

/// A commit batch's events in each encoding some watcher asked for.
#[derive(Default)]
struct SharedEncodings {
    json: BatchFrames,
    protobuf: BatchFrames,
}

/// One encoding of a batch: for unfiltered watchers every event as it is;
/// for filtered ones each event as each type they were sent it.
#[derive(Default)]
struct BatchFrames {
    every: OnceLock<EncodedBatch>,
    picked: OnceLock<Box<[[OnceLock<Bytes>; 3]]>>,
}

/// A commit batch as unfiltered watch events: one frame per storage event
/// (empty when it yields none) and all of them back to back.
struct EncodedBatch {
    frames: Vec<Bytes>,
    whole: Bytes,
}

impl EncodedBatch {
    /// Any unfiltered watcher of the kind translates `all` alike.
    fn new(watcher: &Watcher, framing: Framing, all: &[Event]) -> EncodedBatch {
        let mut whole = Vec::new();
        let mut bounds = Vec::with_capacity(all.len());
        for ev in all {
            let start = whole.len();
            if let Some((event_type, kv)) = translate(watcher.kind(), ev, None) {
                frame(watcher.kind(), framing, &mut whole, event_type, &kv);
            }
            bounds.push((start, whole.len()));
        }
        let whole = Bytes::from(whole);
        let frames = bounds.into_iter().map(|(a, b)| whole.slice(a..b)).collect();
        EncodedBatch { frames, whole }
    }
}
