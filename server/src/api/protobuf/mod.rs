//! Protobuf (`application/vnd.kubernetes.protobuf`): one codec, driven by
//! the field numbers in the schema, for every kind whose schema has them.
//! Objects travel enveloped (`envelope`); list items and watch payloads
//! reuse the same messages.

pub mod cache;
mod decode;
mod encode;
pub mod envelope;
mod inline;
pub mod messages;
mod transcode;
pub mod wire;

use std::hash::{Hash, Hasher};

use bytes::Bytes;
use serde_json::{Map, Value};

use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::schema::Schema;
use crate::api::store::Store;
use crate::storage::KeyValue;

/// Top-level fields the envelope's `typeMeta` carries.
const TYPE_META: [&str; 2] = ["apiVersion", "kind"];

/// Whether objects of this schema have a protobuf form: every top-level
/// field besides `apiVersion` and `kind` is numbered.
#[must_use]
pub fn offered(schema: &Schema) -> bool {
    let mut fields = schema
        .properties
        .iter()
        .filter(|(k, _)| !TYPE_META.contains(&k.as_str()))
        .peekable();
    fields.peek().is_some() && fields.all(|(_, s)| s.proto.is_some())
}

/// The bare message of an object (no envelope, no `apiVersion`/`kind`).
/// Fails when a value has no field number: protobuf cannot carry it.
pub fn encode_message(schema: &Schema, value: &Value) -> Result<Vec<u8>, ApiError> {
    let Value::Object(obj) = value else {
        return Err(ApiError::NotAcceptable(vec![
            "protobuf encodes objects only".into(),
        ]));
    };
    let mut out = Vec::with_capacity(512);
    encode::message(schema, obj, &TYPE_META, encode::Path::Root, &mut out)?;
    Ok(out)
}

/// An object enveloped: magic, then `Unknown` with its apiVersion and kind.
pub fn encode_object(schema: &Schema, value: &Value) -> Result<Vec<u8>, ApiError> {
    let message = encode_message(schema, value)?;
    let text = |k: &str| value.get(k).and_then(Value::as_str).unwrap_or_default();
    let mut out = Vec::with_capacity(message.len() + 32);
    envelope::wrap(text("apiVersion"), text("kind"), &message, &mut out);
    Ok(out)
}

/// A bare message read as an object of `schema`.
pub fn decode_message(schema: &Schema, raw: &[u8]) -> Result<Map<String, Value>, ApiError> {
    decode::message(schema, raw, "")
}

/// An enveloped object read back as JSON, `apiVersion` and `kind` first.
pub fn decode_object(schema: &Schema, body: &[u8]) -> Result<Value, ApiError> {
    let unknown = envelope::unwrap(body)?;
    let fields = decode::message(schema, unknown.raw, "")?;
    let mut obj = Map::with_capacity(fields.len() + 2);
    if !unknown.api_version.is_empty() {
        obj.insert("apiVersion".into(), Value::String(unknown.api_version));
    }
    if !unknown.kind.is_empty() {
        obj.insert("kind".into(), Value::String(unknown.kind));
    }
    obj.extend(fields);
    Ok(Value::Object(obj))
}

/// Identifies a kind's served form in the message cache.
fn kind_id(kind: &KindSpec) -> u64 {
    let mut h = cache::FastHasher::default();
    (&kind.group, &kind.version, &kind.kind).hash(&mut h);
    h.finish()
}

/// Cache misses from which a list transcodes on several threads (below it,
/// a thread costs more than it saves).
const PARALLEL_FROM: usize = 2048;

/// The served objects of stored ones as bare messages, from the cache for
/// versions encoded before (one lock for the whole batch). Many misses (a
/// cold list) are encoded on all cores, and the cache is filled after the
/// answer is ready, off the request's path.
pub fn stored_messages(kind: &KindSpec, kvs: &[KeyValue]) -> Result<Vec<Bytes>, ApiError> {
    let cache = cache::MessageCache::shared();
    let id = kind_id(kind);
    let mut found = cache.get_many(id, kvs.iter().map(|kv| (&kv.key, kv.mod_revision.get())));
    let missing: Vec<usize> = (0..kvs.len()).filter(|&i| found[i].is_none()).collect();
    if !missing.is_empty() {
        let encoded = encode_missing(kind, kvs, &missing)?;
        let mut fresh = Vec::with_capacity(missing.len());
        for (&i, m) in missing.iter().zip(encoded) {
            fresh.push((kvs[i].key.clone(), kvs[i].mod_revision.get(), m.clone()));
            found[i] = Some(m);
        }
        fill_later(id, fresh);
    }
    Ok(found.into_iter().flatten().collect())
}

/// The messages of `kvs[i]` for each `i` of `missing`, in order.
fn encode_missing(
    kind: &KindSpec,
    kvs: &[KeyValue],
    missing: &[usize],
) -> Result<Vec<Bytes>, ApiError> {
    let encode_part = |part: &[usize]| -> Result<Vec<Bytes>, ApiError> {
        let mut scratch = Vec::new();
        part.iter()
            .map(|&i| fresh_message(kind, &kvs[i], &mut scratch))
            .collect()
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(8);
    if missing.len() < PARALLEL_FROM || threads < 2 {
        return encode_part(missing);
    }
    let per_thread = missing.len().div_ceil(threads);
    let mut parts = missing.chunks(per_thread);
    let first = parts.next().unwrap_or_default();
    let results = std::thread::scope(|s| {
        let others: Vec<_> = parts.map(|p| s.spawn(move || encode_part(p))).collect();
        let mut results = vec![encode_part(first)];
        for handle in others {
            results.push(
                handle
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            );
        }
        results
    });
    let mut out = Vec::with_capacity(missing.len());
    for part in results {
        out.extend(part?);
    }
    Ok(out)
}

/// Puts fresh messages into the cache on a blocking thread when a runtime
/// is at hand (the caller's answer does not wait for the insert), else now.
fn fill_later(id: u64, fresh: Vec<(Bytes, u64, Bytes)>) {
    let fill = move || cache::MessageCache::shared().put_many(id, fresh.into_iter());
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => {
            runtime.spawn_blocking(fill);
        }
        Err(_) => fill(),
    }
}

/// A stored object's message, transcoded straight from its JSON when the
/// kind stores its served form's fields (no conversion), else (or when the
/// transcoder gives up) through `Store::decode_served` and `encode`.
fn fresh_message(kind: &KindSpec, kv: &KeyValue, scratch: &mut Vec<u8>) -> Result<Bytes, ApiError> {
    if kind.storage.conversion.is_none() {
        scratch.clear();
        let revision = kv.mod_revision.get().to_string();
        if transcode::stored_message(&kind.schema, &kv.value, &revision, scratch).is_ok() {
            return Ok(Bytes::copy_from_slice(scratch));
        }
    }
    let served = Store::decode_served(kind, kv)?;
    Ok(Bytes::from(encode_message(&kind.schema, &served)?))
}

/// The served object of a stored one as a bare message.
pub fn stored_message(kind: &KindSpec, kv: &KeyValue) -> Result<Bytes, ApiError> {
    Ok(stored_messages(kind, std::slice::from_ref(kv))?.remove(0))
}

/// A stored object enveloped.
pub fn stored_object(kind: &KindSpec, kv: &KeyValue) -> Result<Vec<u8>, ApiError> {
    let message = stored_message(kind, kv)?;
    let mut out = Vec::with_capacity(message.len() + 48);
    envelope::wrap(&kind.api_version(), &kind.kind, &message, &mut out);
    Ok(out)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod transcode_tests;
