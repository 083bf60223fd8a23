//! JSON value → protobuf message, driven by the schema's field numbers. A
//! value the schema gives no number is not dropped: encoding fails, and the
//! caller answers in another encoding (or 406).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

use super::wire::{FIXED64, put_bytes, put_int, put_nested, put_tag};
use crate::api::error::ApiError;
use crate::api::schema::{Schema, SchemaType};
use crate::util::time::parse_rfc3339;

/// Where a value is, spelled out only when encoding fails.
#[derive(Clone, Copy)]
pub enum Path<'a> {
    Root,
    Field(&'a Path<'a>, &'a str),
    Key(&'a Path<'a>, &'a str),
}

impl std::fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Path::Root => f.write_str("the object"),
            Path::Field(Path::Root, k) => f.write_str(k),
            Path::Field(parent, k) => write!(f, "{parent}.{k}"),
            Path::Key(parent, k) => write!(f, "{parent}[{k}]"),
        }
    }
}

fn unencodable(path: Path<'_>, why: &str) -> ApiError {
    ApiError::NotAcceptable(vec![format!("protobuf cannot represent {path}: {why}")])
}

/// Appends the fields of `obj` as message `schema`. `skip` names top-level
/// fields carried elsewhere (`apiVersion`/`kind` go to the envelope).
pub fn message(
    schema: &Schema,
    obj: &Map<String, Value>,
    skip: &[&str],
    path: Path<'_>,
    out: &mut Vec<u8>,
) -> Result<(), ApiError> {
    let mut inlined: Vec<u32> = Vec::new();
    for (key, value) in obj {
        if value.is_null() || skip.contains(&key.as_str()) {
            continue;
        }
        let Some(field) = schema.property(key) else {
            return Err(unencodable(
                Path::Field(&path, key),
                "the field is not in the schema",
            ));
        };
        if let Some(wrapper) = field.proto_inline {
            if !inlined.contains(&wrapper) {
                inlined.push(wrapper);
            }
            continue;
        }
        let Some(number) = field.proto else {
            if free_form(field) && value.as_object().is_some_and(Map::is_empty) {
                // An empty object kept free-form (a defaulted
                // `securityContext: {}`) carries nothing but its presence.
                continue;
            }
            return Err(unencodable(
                Path::Field(&path, key),
                "the field has no number",
            ));
        };
        repeated_or_single(field, number, value, Path::Field(&path, key), out)?;
    }
    for wrapper in inlined {
        let (group, fields) = super::inline::split(schema, wrapper, obj);
        put_nested(out, wrapper, |o| message(&group, &fields, &[], path, o))?;
    }
    Ok(())
}

pub(super) fn repeated_or_single(
    schema: &Schema,
    number: u32,
    value: &Value,
    path: Path<'_>,
    out: &mut Vec<u8>,
) -> Result<(), ApiError> {
    if let (Some(items), Value::Array(list)) = (&schema.items, value) {
        for item in list {
            single(items, number, item, path, out)?;
        }
        return Ok(());
    }
    if let (Some(values), Value::Object(map)) = (&schema.additional_properties, value)
        && schema.properties.is_empty()
    {
        // map<string, V>: one (key=1, value=2) entry message per key.
        for (k, v) in map {
            put_nested(out, number, |o| {
                put_bytes(o, 1, k.as_bytes());
                if v.is_null() {
                    return Ok(());
                }
                single(values, 2, v, Path::Key(&path, k), o)
            })?;
        }
        return Ok(());
    }
    single(schema, number, value, path, out)
}

/// `preserve_unknown_fields` without properties: free-form JSON.
pub(super) fn free_form(schema: &Schema) -> bool {
    schema.preserve_unknown_fields && schema.properties.is_empty()
}

/// A `resource.Quantity` (an int-or-string of format `quantity`), whose
/// message is `{string=1}`: its canonical text.
pub(super) fn quantity(schema: &Schema) -> bool {
    schema.int_or_string && schema.format.as_deref() == Some("quantity")
}

/// The text of a quantity: a string as is, a JSON number as written.
pub(super) fn quantity_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `seconds` and `nanos` of an RFC 3339 timestamp.
pub(super) fn timestamp(text: &str) -> Option<(i64, i64)> {
    let since = parse_rfc3339(text)?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some((
        i64::try_from(since.as_secs()).ok()?,
        i64::from(since.subsec_nanos()),
    ))
}

pub(super) fn single(
    schema: &Schema,
    number: u32,
    value: &Value,
    path: Path<'_>,
    out: &mut Vec<u8>,
) -> Result<(), ApiError> {
    if schema.time_precision.is_some() {
        let (seconds, nanos) = value
            .as_str()
            .and_then(timestamp)
            .ok_or_else(|| unencodable(path, "not an RFC 3339 time"))?;
        return put_nested(out, number, |o| {
            put_int(o, 1, seconds);
            put_int(o, 2, nanos);
            Ok(())
        });
    }
    if quantity(schema) {
        let text = quantity_text(value)
            .ok_or_else(|| unencodable(path, "a quantity is a string or a number"))?;
        return put_nested(out, number, |o| {
            put_bytes(o, 1, text.as_bytes());
            Ok(())
        });
    }
    if schema.int_or_string {
        // IntOrString {type=1 (0 int, 1 string), intVal=2, strVal=3}.
        return match value {
            Value::Number(n) => {
                let i = n
                    .as_i64()
                    .and_then(|i| i32::try_from(i).ok())
                    .ok_or_else(|| unencodable(path, "not a 32-bit integer"))?;
                put_nested(out, number, |o| {
                    put_int(o, 1, 0);
                    put_int(o, 2, i64::from(i));
                    Ok(())
                })
            }
            Value::String(s) => put_nested(out, number, |o| {
                put_int(o, 1, 1);
                put_bytes(o, 3, s.as_bytes());
                Ok(())
            }),
            _ => Err(unencodable(path, "neither an integer nor a string")),
        };
    }
    if free_form(schema) {
        // RawExtension / FieldsV1: the JSON text in field 1.
        let json = serde_json::to_vec(value).expect("JSON values serialize");
        return put_nested(out, number, |o| {
            put_bytes(o, 1, &json);
            Ok(())
        });
    }
    match (schema.ty, value) {
        (Some(SchemaType::Object), Value::Object(map)) => {
            put_nested(out, number, |o| message(schema, map, &[], path, o))
        }
        (Some(SchemaType::String), Value::String(s))
            if schema.format.as_deref() == Some("byte") =>
        {
            let raw = STANDARD
                .decode(s)
                .map_err(|_| unencodable(path, "not base64"))?;
            put_bytes(out, number, &raw);
            Ok(())
        }
        (Some(SchemaType::String), Value::String(s)) => {
            put_bytes(out, number, s.as_bytes());
            Ok(())
        }
        (Some(SchemaType::Integer), Value::Number(n)) => {
            let i = n
                .as_i64()
                .ok_or_else(|| unencodable(path, "not a 64-bit integer"))?;
            put_int(out, number, i);
            Ok(())
        }
        (Some(SchemaType::Boolean), Value::Bool(b)) => {
            put_int(out, number, i64::from(*b));
            Ok(())
        }
        (Some(SchemaType::Number), Value::Number(n)) => {
            let f = n
                .as_f64()
                .ok_or_else(|| unencodable(path, "not a number"))?;
            put_tag(out, number, FIXED64);
            out.extend_from_slice(&f.to_le_bytes());
            Ok(())
        }
        // A list that is itself a value (a map's, as UserInfo.extra's
        // ExtraValue) is a message holding the items as field 1.
        (Some(SchemaType::Array), Value::Array(list)) => {
            let items = schema
                .items
                .as_deref()
                .ok_or_else(|| unencodable(path, "a list without an item schema"))?;
            put_nested(out, number, |o| {
                for item in list {
                    single(items, 1, item, path, o)?;
                }
                Ok(())
            })
        }
        _ => Err(unencodable(path, "the value does not match its schema")),
    }
}
