//! Request bodies to `serde_json::Value` — JSON or YAML — keeping key order
//! and reporting duplicate keys by path, with the last value kept as Go's
//! decoder keeps it.
//!
//! Both formats go through one `DeserializeSeed` (`ValueSeed`), because
//! `serde_json::Value` would overwrite duplicates silently. Integers stay
//! integers (`i64`/`u64`), other numbers are `f64`.
//!
//! YAML is read as Kubernetes reads it (sigs.k8s.io/yaml on go-yaml v2, YAML
//! 1.1): `yes`/`no`/`on`/`off`/`y`/`n` are booleans (so a string field given `on`
//! fails type validation, as it does in Kubernetes), `012` is octal (10),
//! timestamps stay strings, whole floats become integers (`5.0` → `5`, since
//! Kubernetes goes through JSON text), and non-string keys become strings
//! (`1:` → `"1"`, `on:` → `"true"`). serde-saphyr is told to pass duplicate keys through
//! (`DuplicateKeyPolicy::PassThrough`), so they reach the seed and are
//! reported by path like JSON's, rather than failing the parse.

mod presize;
mod seed;
#[cfg(test)]
mod tests;

use serde::de::DeserializeSeed;
use serde_json::Value;

use presize::array_lengths;
use seed::{State, ValueSeed};

/// A decoded body.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    pub value: Value,
    /// Paths of keys that appeared more than once (`metadata.name`,
    /// `spec.items[0].name`), each time a repeat was seen, in document order.
    pub duplicates: Vec<String>,
}

/// Why a body could not be decoded; each message is one line, fit for a 400.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("invalid JSON: {0}")]
    Json(String),
    #[error("invalid YAML: {0}")]
    Yaml(String),
    #[error("invalid YAML: expected a single document, found more than one")]
    MultipleDocuments,
    #[error("invalid YAML: expected a mapping at the top level, found {0}")]
    NotAMapping(&'static str),
}

/// Bodies from this size on have their arrays sized exactly before they
/// are read: a `Value` is 72 bytes, so a 2 MB body of a million numbers is a
/// 72 MB array, and growing it by doubling would cost half as much again.
const PRESIZE_ARRAYS_FROM: usize = 64 * 1024;

/// Parses one JSON value (any type; callers needing an object check it).
pub fn parse_json(bytes: &[u8]) -> Result<Decoded, DecodeError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let mut state = State::default();
    if bytes.len() >= PRESIZE_ARRAYS_FROM {
        state.array_lengths = array_lengths(bytes).unwrap_or_default();
    }
    let value = ValueSeed { state: &mut state }
        .deserialize(&mut de)
        .map_err(|e| DecodeError::Json(e.to_string()))?;
    de.end().map_err(|e| DecodeError::Json(e.to_string()))?;
    Ok(Decoded {
        value,
        duplicates: state.duplicates,
    })
}

/// Parses one YAML document whose top level is a mapping.
pub fn parse_yaml(bytes: &[u8]) -> Result<Decoded, DecodeError> {
    let mut state = State {
        whole_floats_are_integers: true,
        ..State::default()
    };
    // The default budget stays: among other limits it caps nesting at 64
    // levels, which bounds the deserializer's stack use (tens of KiB per
    // level in unoptimised builds) within a 2 MiB thread.
    let options = serde_saphyr::options! {
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::PassThrough,
        legacy_octal_numbers: true,
        with_snippet: false,
    };
    let value = serde_saphyr::with_deserializer_from_slice_with_options(bytes, options, |de| {
        ValueSeed { state: &mut state }.deserialize(de)
    })
    .map_err(yaml_error)?;
    let found = match &value {
        Value::Object(_) => {
            return Ok(Decoded {
                value,
                duplicates: state.duplicates,
            });
        }
        Value::Null => "an empty document",
        Value::Array(_) => "a sequence",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
    };
    Err(DecodeError::NotAMapping(found))
}

fn yaml_error(e: serde_saphyr::Error) -> DecodeError {
    if matches!(e, serde_saphyr::Error::MultipleDocuments { .. }) {
        return DecodeError::MultipleDocuments;
    }
    // Renderings may span lines; a Status message is one.
    let text = e.to_string();
    DecodeError::Yaml(text.split_whitespace().collect::<Vec<_>>().join(" "))
}
