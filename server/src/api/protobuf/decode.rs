//! Protobuf message → JSON value, driven by the schema's field numbers.
//! Unknown field numbers are skipped, as protobuf readers do. Fields Go
//! writes even when unset (empty strings, the zero `Time`) are left out, so
//! the JSON reads as Go's `omitempty` JSON of the same object.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Number, Value};

use super::wire::{Field, Reader};
use crate::api::error::ApiError;
use crate::api::schema::{Schema, SchemaType, TimePrecision};
use crate::util::time::{rfc3339, rfc3339_micro};

fn invalid(path: &str, why: &str) -> ApiError {
    ApiError::BadRequest(format!(
        "the body of the request could not be decoded: invalid protobuf at {}: {why}",
        if path.is_empty() {
            "the top level"
        } else {
            path
        }
    ))
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// Reads message `bytes` as an object of `schema`.
pub fn message(schema: &Schema, bytes: &[u8], path: &str) -> Result<Map<String, Value>, ApiError> {
    let mut obj = Map::new();
    let mut reader = Reader::new(bytes);
    while let Some((number, field)) = reader.next_field()? {
        let Some((name, field_schema)) = schema.proto_field(number) else {
            if let (Some(group), Field::Bytes(nested)) =
                (super::inline::group(schema, number), field)
            {
                obj.extend(message(&group, nested, path)?);
                continue;
            }
            if partly_numbered(schema) {
                return Err(invalid(
                    &child(path, &format!("field {number}")),
                    "this field is kept here only in JSON; send the object as JSON",
                ));
            }
            // A complete message: the field is newer than this schema.
            continue;
        };
        let path = child(path, name);
        if let Some(items) = &field_schema.items {
            let list = obj
                .entry(name.to_owned())
                .or_insert_with(|| Value::Array(Vec::new()));
            let Value::Array(list) = list else {
                unreachable!("only lists are stored under a list field")
            };
            repeated(items, field, &path, list)?;
        } else if let (Some(values), true) = (
            &field_schema.additional_properties,
            field_schema.properties.is_empty(),
        ) {
            let (k, v) = map_entry(values, field, &path)?;
            let map = obj
                .entry(name.to_owned())
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(map) = map {
                map.insert(k, v);
            }
        } else {
            match single(field_schema, field, &path)? {
                Some(Value::String(s)) if s.is_empty() => {
                    obj.remove(name);
                }
                Some(Value::Number(n)) if field_schema.omit_zero && n.as_f64() == Some(0.0) => {
                    obj.remove(name);
                }
                Some(Value::Bool(false)) if field_schema.omit_zero => {
                    obj.remove(name);
                }
                Some(v) => {
                    obj.insert(name.to_owned(), v);
                }
                None => {
                    obj.remove(name);
                }
            }
        }
    }
    Ok(obj)
}

/// Whether a message may hold fields its numbers do not cover (preserved
/// unknown fields, or declared fields without a number), which an unknown
/// field number could be: skipping it would lose data.
fn partly_numbered(schema: &Schema) -> bool {
    schema.preserve_unknown_fields
        || schema
            .properties
            .iter()
            .any(|(k, s)| s.proto.is_none() && k != "apiVersion" && k != "kind")
}

fn repeated(
    items: &Schema,
    field: Field<'_>,
    path: &str,
    list: &mut Vec<Value>,
) -> Result<(), ApiError> {
    let scalar_number = matches!(items.ty, Some(SchemaType::Integer | SchemaType::Boolean));
    if let (true, Field::Bytes(packed)) = (scalar_number, field) {
        for v in Reader::packed_varints(packed)? {
            list.push(scalar_varint(items, v, path)?);
        }
        return Ok(());
    }
    list.push(single(items, field, path)?.unwrap_or(Value::Null));
    Ok(())
}

fn map_entry(values: &Schema, field: Field<'_>, path: &str) -> Result<(String, Value), ApiError> {
    let Field::Bytes(entry) = field else {
        return Err(invalid(path, "a map entry must be length-delimited"));
    };
    let (mut key, mut value) = (String::new(), None);
    let mut reader = Reader::new(entry);
    while let Some((number, f)) = reader.next_field()? {
        match (number, f) {
            (1, Field::Bytes(k)) => {
                key = String::from_utf8(k.to_vec())
                    .map_err(|_| invalid(path, "a map key is not UTF-8"))?;
            }
            (2, f) => value = single(values, f, &format!("{path}[{key}]"))?,
            _ => {}
        }
    }
    // An absent value is the value type's zero.
    let value = value.unwrap_or_else(|| match values.ty {
        Some(SchemaType::Integer) => Value::from(0),
        Some(SchemaType::Boolean) => Value::Bool(false),
        Some(SchemaType::Object) => Value::Object(Map::new()),
        _ => Value::String(String::new()),
    });
    Ok((key, value))
}

fn scalar_varint(schema: &Schema, v: u64, path: &str) -> Result<Value, ApiError> {
    match schema.ty {
        Some(SchemaType::Boolean) => Ok(Value::Bool(v != 0)),
        Some(SchemaType::Integer) if schema.format.as_deref() == Some("int32") => {
            // int32 travels sign-extended to 64 bits; keep the low 32.
            #[allow(clippy::cast_possible_truncation)]
            let low = v as u32;
            Ok(Value::from(i64::from(low.cast_signed())))
        }
        Some(SchemaType::Integer) => Ok(Value::from(v.cast_signed())),
        _ => Err(invalid(path, "a varint where the schema wants no number")),
    }
}

fn utf8(bytes: &[u8], path: &str) -> Result<String, ApiError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| invalid(path, "a string is not UTF-8"))
}

/// Time / MicroTime {seconds=1, nanos=2}; the zero time reads as unset.
fn time(schema: &Schema, bytes: &[u8], path: &str) -> Result<Option<Value>, ApiError> {
    let (mut seconds, mut nanos) = (0i64, 0i64);
    let mut reader = Reader::new(bytes);
    while let Some((number, f)) = reader.next_field()? {
        match (number, f) {
            (1, Field::Varint(v)) => seconds = v.cast_signed(),
            #[allow(clippy::cast_possible_truncation)]
            (2, Field::Varint(v)) => nanos = i64::from((v as u32).cast_signed()),
            _ => return Err(invalid(path, "a time is {seconds, nanos}")),
        }
    }
    if seconds == 0 && nanos == 0 {
        return Ok(None);
    }
    let (Ok(secs), Ok(nanos)) = (u64::try_from(seconds), u32::try_from(nanos)) else {
        return Err(invalid(
            path,
            "a time before 1970 or with negative nanoseconds",
        ));
    };
    if nanos >= 1_000_000_000 {
        return Err(invalid(path, "nanoseconds out of range"));
    }
    let t = std::time::UNIX_EPOCH + std::time::Duration::new(secs, nanos);
    Ok(Some(Value::String(match schema.time_precision {
        Some(TimePrecision::Micros) => rfc3339_micro(t),
        _ => rfc3339(t),
    })))
}

/// IntOrString {type=1, intVal=2, strVal=3}.
fn int_or_string(bytes: &[u8], path: &str) -> Result<Value, ApiError> {
    let (mut is_string, mut int, mut text) = (false, 0i64, String::new());
    let mut reader = Reader::new(bytes);
    while let Some((number, f)) = reader.next_field()? {
        match (number, f) {
            (1, Field::Varint(v)) => is_string = v == 1,
            #[allow(clippy::cast_possible_truncation)]
            (2, Field::Varint(v)) => int = i64::from((v as u32).cast_signed()),
            (3, Field::Bytes(b)) => text = utf8(b, path)?,
            _ => return Err(invalid(path, "an int-or-string is {type, intVal, strVal}")),
        }
    }
    Ok(if is_string {
        Value::String(text)
    } else {
        Value::from(int)
    })
}

/// Quantity {string=1}: its text.
fn quantity(bytes: &[u8], path: &str) -> Result<Value, ApiError> {
    let mut text = String::new();
    let mut reader = Reader::new(bytes);
    while let Some((number, f)) = reader.next_field()? {
        if let (1, Field::Bytes(b)) = (number, f) {
            text = utf8(b, path)?;
        }
    }
    Ok(Value::String(text))
}

/// RawExtension / FieldsV1 {raw=1}: JSON text.
fn raw_json(bytes: &[u8], path: &str) -> Result<Option<Value>, ApiError> {
    let mut raw: &[u8] = &[];
    let mut reader = Reader::new(bytes);
    while let Some((number, f)) = reader.next_field()? {
        if let (1, Field::Bytes(b)) = (number, f) {
            raw = b;
        }
    }
    if raw.is_empty() {
        return Ok(None);
    }
    serde_json::from_slice(raw)
        .map(Some)
        .map_err(|e| invalid(path, &format!("raw content is not JSON: {e}")))
}

fn single(schema: &Schema, field: Field<'_>, path: &str) -> Result<Option<Value>, ApiError> {
    let mismatch = || {
        invalid(
            path,
            &format!("unexpected {} field for this schema", field.wire_name()),
        )
    };
    if schema.time_precision.is_some() {
        let Field::Bytes(b) = field else {
            return Err(mismatch());
        };
        return time(schema, b, path);
    }
    if schema.int_or_string && schema.format.as_deref() == Some("quantity") {
        let Field::Bytes(b) = field else {
            return Err(mismatch());
        };
        return quantity(b, path).map(Some);
    }
    if schema.int_or_string {
        let Field::Bytes(b) = field else {
            return Err(mismatch());
        };
        return int_or_string(b, path).map(Some);
    }
    if schema.preserve_unknown_fields && schema.properties.is_empty() {
        let Field::Bytes(b) = field else {
            return Err(mismatch());
        };
        return raw_json(b, path);
    }
    Ok(Some(match (schema.ty, field) {
        (Some(SchemaType::Object), Field::Bytes(b)) => Value::Object(message(schema, b, path)?),
        (Some(SchemaType::String), Field::Bytes(b)) if schema.format.as_deref() == Some("byte") => {
            Value::String(STANDARD.encode(b))
        }
        (Some(SchemaType::String), Field::Bytes(b)) => Value::String(utf8(b, path)?),
        (Some(SchemaType::Integer | SchemaType::Boolean), Field::Varint(v)) => {
            scalar_varint(schema, v, path)?
        }
        (Some(SchemaType::Number), Field::Fixed64(v)) => {
            Number::from_f64(f64::from_bits(v)).map_or(Value::Null, Value::Number)
        }
        // A list that is itself a value: a message with the items as field 1.
        (Some(SchemaType::Array), Field::Bytes(b)) => {
            let items = schema.items.as_deref().ok_or_else(mismatch)?;
            let mut list = Vec::new();
            let mut reader = Reader::new(b);
            while let Some((number, item)) = reader.next_field()? {
                if number == 1 {
                    repeated(items, item, path, &mut list)?;
                }
            }
            Value::Array(list)
        }
        _ => return Err(mismatch()),
    }))
}
