//! Stored JSON bytes → protobuf message in one pass. A serde visitor driven
//! by the schema reads the stored object and writes each field as it meets
//! it, with no `serde_json::Value` in between (building one per item was
//! most of a cold protobuf list's time). It follows `encode` rule for rule,
//! so its bytes are the same; whatever it cannot place makes it give up,
//! and the caller takes the `Value` path, which encodes or says why not.

mod object;
mod slot;
mod value;

use serde::de::{self, Deserializer};

use self::object::Object;
use crate::api::schema::Schema;

/// The transcoder met something it does not place (the `Value` path will
/// either encode it or explain why protobuf cannot).
#[derive(Debug, PartialEq, Eq)]
pub struct Unplaced;

/// Appends the message of the stored object `json` as `Store::decode_served`
/// and `encode_message` would produce it for a kind stored in its served
/// form: `metadata.resourceVersion` reads `resource_version`, and the
/// top-level `apiVersion`/`kind` (the envelope's) are left out. On `Err`
/// nothing was appended.
pub fn stored_message(
    schema: &Schema,
    json: &[u8],
    resource_version: &str,
    out: &mut Vec<u8>,
) -> Result<(), Unplaced> {
    let start = out.len();
    let mut de = serde_json::Deserializer::from_slice(json);
    let root = Object {
        schema,
        place: Place::Root(resource_version),
        out: &mut *out,
    };
    if de.deserialize_map(root).and_then(|()| de.end()).is_err() {
        out.truncate(start);
        return Err(Unplaced);
    }
    Ok(())
}

fn unplaced<E: de::Error>() -> E {
    E::custom("the protobuf transcoder cannot place this value")
}

/// Which object a field list belongs to: what `decode_stored` changes is at
/// the root (`apiVersion`/`kind` skipped, the revision put into `metadata`).
#[derive(Clone, Copy)]
enum Place<'a> {
    Root(&'a str),
    Metadata(&'a str),
    Nested,
}
