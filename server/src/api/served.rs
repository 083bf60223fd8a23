//! Stored bytes → served bytes without parsing: an object is stored as
//! compact JSON with `kind`, `apiVersion`, `metadata` first and without
//! `metadata.resourceVersion`; serving it splices the revision in.

use crate::api::kind::KindSpec;
use crate::api::store::Store;
use crate::storage::KeyValue;

const METADATA: &[u8] = b"\"metadata\":{";
/// `metadata` follows `kind` and `apiVersion`, so it starts early.
const SEARCH_WINDOW: usize = 512;

/// Whether `json[..end]` leaves the scanner at depth 1 outside any string,
/// i.e. a key starting at `end` belongs to the top-level object.
fn at_top_level(json: &[u8], end: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0i32, false, false);
    for &b in &json[..end] {
        match (in_string, escaped, b) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (true, false, b'"') => in_string = false,
            (true, false, _) => {}
            (false, _, b'"') => in_string = true,
            (false, _, b'{' | b'[') => depth += 1,
            (false, _, b'}' | b']') => depth -= 1,
            _ => {}
        }
    }
    depth == 1 && !in_string
}

fn metadata_body_start(json: &[u8]) -> Option<usize> {
    let window = &json[..json.len().min(SEARCH_WINDOW)];
    let i = window.windows(METADATA.len()).position(|w| w == METADATA)?;
    at_top_level(json, i).then_some(i + METADATA.len())
}

/// Appends stored JSON with `metadata.resourceVersion` set to `rev`;
/// `false` (and nothing appended) if the bytes are not in the stored form.
pub fn splice(json: &[u8], rev: u64, out: &mut Vec<u8>) -> bool {
    let Some(at) = metadata_body_start(json) else {
        return false;
    };
    out.extend_from_slice(&json[..at]);
    out.extend_from_slice(b"\"resourceVersion\":\"");
    out.extend_from_slice(rev.to_string().as_bytes());
    out.push(b'"');
    if json.get(at) != Some(&b'}') {
        out.push(b',');
    }
    out.extend_from_slice(&json[at..]);
    true
}

/// Appends the served JSON of a stored object to `out`.
pub fn write_object(kind: &KindSpec, kv: &KeyValue, out: &mut Vec<u8>) {
    if kind.stores_served_form() && splice(&kv.value, kv.mod_revision.get(), out) {
        return;
    }
    // Another version's form, or not in the stored form (written by another
    // tool): parse instead.
    match Store::decode_served(kind, kv) {
        Ok(v) => out.extend_from_slice(&serde_json::to_vec(&v).unwrap_or_default()),
        Err(_) => out.extend_from_slice(b"null"),
    }
}

/// The served JSON of a stored object.
#[must_use]
pub fn object_bytes(kind: &KindSpec, kv: &KeyValue) -> Vec<u8> {
    let mut out = Vec::with_capacity(kv.value.len() + 32);
    write_object(kind, kv, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use serde_json::{Value, json};

    use super::*;
    use crate::storage::Revision;

    fn kv(value: &Value, rev: u64) -> KeyValue {
        KeyValue {
            key: Bytes::from_static(b"/k"),
            value: Bytes::from(serde_json::to_vec(value).expect("json")),
            create_revision: Revision(1),
            mod_revision: Revision(rev),
            version: 1,
            lease: None,
        }
    }

    #[test]
    fn splices_the_revision_like_a_parse_would() {
        for obj in [
            json!({"kind": "Event", "apiVersion": "v1", "metadata": {"name": "a", "uid": "u"}, "reason": "x"}),
            json!({"kind": "Event", "apiVersion": "v1", "metadata": {}, "spec": {"metadata": {"name": "inner"}}}),
            json!({"apiVersion": "v1", "kind": "Namespace", "spec": {"metadata": {}}, "metadata": {"name": "late"}}),
        ] {
            let stored = kv(&obj, 42);
            let kind = KindSpec::new(
                "",
                "v1",
                "Event",
                "events",
                true,
                crate::api::schema::Schema::any(),
            );
            let served: Value =
                serde_json::from_slice(&object_bytes(&kind, &stored)).expect("valid JSON");
            let mut want = obj.clone();
            want["metadata"]["resourceVersion"] = json!("42");
            assert_eq!(served, want);
        }
    }
}
