//! The protobuf envelope: the magic `k8s\0` then `runtime.Unknown`
//! {typeMeta=1 {apiVersion=1, kind=2}, raw=2, contentEncoding=3,
//! contentType=4}; `<Kind>List` {metadata=1, items=2}; and watch frames.

use super::wire::{Field, LEN, Reader, put_bytes, put_nested, put_tag, put_varint, varint_len};
use crate::api::error::ApiError;

/// The four bytes every enveloped protobuf object starts with.
pub const MAGIC: &[u8; 4] = b"k8s\0";

/// An enveloped object as read.
#[derive(Debug, PartialEq, Eq)]
pub struct Unknown<'a> {
    pub api_version: String,
    pub kind: String,
    pub raw: &'a [u8],
}

/// Appends the magic and an `Unknown` wrapping message `raw`.
pub fn wrap(api_version: &str, kind: &str, raw: &[u8], out: &mut Vec<u8>) {
    out.reserve(raw.len() + api_version.len() + kind.len() + 16);
    out.extend_from_slice(MAGIC);
    put_nested::<()>(out, 1, |o| {
        put_bytes(o, 1, api_version.as_bytes());
        put_bytes(o, 2, kind.as_bytes());
        Ok(())
    })
    .expect("infallible");
    put_bytes(out, 2, raw);
    // Go writes the empty contentEncoding and contentType too.
    put_bytes(out, 3, b"");
    put_bytes(out, 4, b"");
}

fn invalid(why: &str) -> ApiError {
    ApiError::BadRequest(format!(
        "the body of the request could not be decoded: invalid protobuf envelope: {why}"
    ))
}

fn text(bytes: &[u8]) -> Result<String, ApiError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| invalid("typeMeta is not UTF-8"))
}

/// Reads the magic and the `Unknown` wrapper.
pub fn unwrap(body: &[u8]) -> Result<Unknown<'_>, ApiError> {
    let Some(rest) = body.strip_prefix(MAGIC) else {
        return Err(invalid("it does not start with the protobuf magic number"));
    };
    let mut out = Unknown {
        api_version: String::new(),
        kind: String::new(),
        raw: &[],
    };
    let mut reader = Reader::new(rest);
    while let Some((number, field)) = reader.next_field()? {
        match (number, field) {
            (1, Field::Bytes(type_meta)) => {
                let mut tm = Reader::new(type_meta);
                while let Some((n, f)) = tm.next_field()? {
                    match (n, f) {
                        (1, Field::Bytes(v)) => out.api_version = text(v)?,
                        (2, Field::Bytes(k)) => out.kind = text(k)?,
                        _ => {}
                    }
                }
            }
            (2, Field::Bytes(raw)) => out.raw = raw,
            (3, Field::Bytes(enc)) if !enc.is_empty() => {
                return Err(invalid("content encodings are not supported"));
            }
            (3 | 4, Field::Bytes(_)) => {}
            (1..=4, _) => return Err(invalid("a field has the wrong wire type")),
            _ => {}
        }
    }
    Ok(out)
}

/// The head of a `<Kind>List` message wrapped in its envelope, up to where
/// the items start: the envelope's `raw` length must count the items, whose
/// encoded form (each `items=2` field) takes `items_len` bytes.
#[must_use]
pub fn list_head(
    api_version: &str,
    list_kind: &str,
    list_meta: &[u8],
    items_len: usize,
) -> Vec<u8> {
    let mut list = Vec::with_capacity(list_meta.len() + 8);
    put_bytes(&mut list, 1, list_meta);
    let raw_len = list.len() + items_len;
    let mut out = Vec::with_capacity(raw_len.min(1 << 16) + 64);
    out.extend_from_slice(MAGIC);
    put_nested::<()>(&mut out, 1, |o| {
        put_bytes(o, 1, api_version.as_bytes());
        put_bytes(o, 2, list_kind.as_bytes());
        Ok(())
    })
    .expect("infallible");
    put_tag(&mut out, 2, LEN);
    put_varint(&mut out, raw_len as u64);
    out.extend_from_slice(&list);
    out
}

/// The envelope's fields after `raw` (empty contentEncoding and contentType).
#[must_use]
pub fn list_tail() -> Vec<u8> {
    let mut out = Vec::with_capacity(4);
    put_bytes(&mut out, 3, b"");
    put_bytes(&mut out, 4, b"");
    out
}

/// Appends one list item (`items=2`) of message `item`.
pub fn list_item(item: &[u8], out: &mut Vec<u8>) {
    put_bytes(out, 2, item);
}

/// Bytes `list_item` appends for an item of `len` bytes.
#[must_use]
pub fn list_item_len(len: usize) -> usize {
    1 + varint_len(len as u64) + len
}

/// One frame of a protobuf watch stream: a 4-byte big-endian length, then a
/// bare `WatchEvent` {type=1, object=2 RawExtension {raw=1 = the enveloped
/// object}}.
pub fn watch_frame(event_type: &str, enveloped: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    put_bytes(out, 1, event_type.as_bytes());
    put_nested::<()>(out, 2, |o| {
        put_bytes(o, 1, enveloped);
        Ok(())
    })
    .expect("infallible");
    let len = u32::try_from(out.len() - start - 4).unwrap_or(u32::MAX);
    out[start..start + 4].copy_from_slice(&len.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_round_trip() {
        let mut out = Vec::new();
        wrap("v1", "Namespace", b"\x0a\x00", &mut out);
        assert!(out.starts_with(MAGIC));
        let u = unwrap(&out).expect("valid");
        assert_eq!(
            u,
            Unknown {
                api_version: "v1".into(),
                kind: "Namespace".into(),
                raw: b"\x0a\x00"
            }
        );
        assert!(unwrap(b"{\"kind\":1}").is_err());
        assert!(unwrap(b"k8s\0\x0a\x05ab").is_err());
    }

    #[test]
    fn list_parts_add_up_to_one_valid_envelope() {
        let items: Vec<Vec<u8>> = vec![vec![1; 3], vec![2; 200]];
        let items_len = items.iter().map(|i| list_item_len(i.len())).sum();
        let mut out = list_head("v1", "NamespaceList", b"\x12\x015", items_len);
        for i in &items {
            list_item(i, &mut out);
        }
        out.extend_from_slice(&list_tail());
        let u = unwrap(&out).expect("valid");
        assert_eq!(u.kind, "NamespaceList");
        let mut r = Reader::new(u.raw);
        let mut seen = Vec::new();
        while let Some((n, f)) = r.next_field().expect("valid") {
            let Field::Bytes(b) = f else { panic!("bytes") };
            seen.push((n, b.len()));
        }
        assert_eq!(seen, [(1, 3), (2, 3), (2, 200)]);
    }

    #[test]
    fn watch_frames_are_length_prefixed() {
        let mut out = Vec::new();
        watch_frame("ADDED", b"k8s\0xyz", &mut out);
        let len = u32::from_be_bytes(out[..4].try_into().expect("4")) as usize;
        assert_eq!(len, out.len() - 4);
        let mut r = Reader::new(&out[4..]);
        assert_eq!(
            r.next_field().expect("ok"),
            Some((1, Field::Bytes(b"ADDED")))
        );
    }
}
