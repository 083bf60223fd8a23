//! A Swagger 2.0 schema object (JSON) as the protobuf `Schema`, the way
//! gnostic reads one: `$ref` into `xref`, `type` and `items` as lists,
//! `additionalProperties` as a schema or a boolean, `default`/`enum`/`example`
//! and `x-` extensions as YAML text. A present `properties` stays present
//! even when empty: client-go tells an object with fields from a map by it.

use serde_json::{Map, Value};

use super::fields::{Dropped, Fields};
use super::schema_messages::{
    AdditionalProperties, AdditionalPropertiesItem, ItemsItem, NamedSchema, Properties, Schema,
    TypeItem,
};

/// Named schemas (properties or definitions), in document order.
#[must_use]
pub fn named_schemas(map: &Map<String, Value>, dropped: &mut Dropped) -> Vec<NamedSchema> {
    map.iter()
        .map(|(name, value)| NamedSchema {
            name: name.clone(),
            value: Some(schema(value, dropped)),
        })
        .collect()
}

#[must_use]
pub fn schema(value: &Value, dropped: &mut Dropped) -> Schema {
    let Some(mut f) = Fields::new(value, "schema", dropped) else {
        return Schema::default();
    };
    let mut s = Schema {
        xref: f.string("$ref"),
        format: f.string("format"),
        title: f.string("title"),
        description: f.string("description"),
        default: f.any("default"),
        multiple_of: f.number("multipleOf"),
        maximum: f.number("maximum"),
        exclusive_maximum: f.boolean("exclusiveMaximum"),
        minimum: f.number("minimum"),
        exclusive_minimum: f.boolean("exclusiveMinimum"),
        max_length: f.integer("maxLength"),
        min_length: f.integer("minLength"),
        pattern: f.string("pattern"),
        max_items: f.integer("maxItems"),
        min_items: f.integer("minItems"),
        unique_items: f.boolean("uniqueItems"),
        max_properties: f.integer("maxProperties"),
        min_properties: f.integer("minProperties"),
        required: f.strings("required"),
        enum_values: f.anys("enum"),
        discriminator: f.string("discriminator"),
        read_only: f.boolean("readOnly"),
        example: f.any("example"),
        ..Schema::default()
    };
    if let Some(extra) = f.value("additionalProperties") {
        let oneof = match extra {
            Value::Bool(allowed) => AdditionalProperties::Boolean(*allowed),
            other => AdditionalProperties::Schema(Box::new(schema(other, f.dropped()))),
        };
        s.additional_properties = Some(AdditionalPropertiesItem { oneof: Some(oneof) });
    }
    if let Some(ty) = f.value("type") {
        let value = match ty {
            Value::String(one) => vec![one.clone()],
            _ => f.strings("type"),
        };
        s.r#type = Some(TypeItem { value });
    }
    if let Some(items) = f.value("items") {
        let schemas = match items {
            Value::Array(tuple) => tuple.iter().map(|i| schema(i, f.dropped())).collect(),
            one => vec![schema(one, f.dropped())],
        };
        s.items = Some(ItemsItem { schema: schemas });
    }
    s.all_of = f
        .array("allOf")
        .iter()
        .map(|part| schema(part, f.dropped()))
        .collect();
    if let Some(properties) = f.object("properties") {
        s.properties = Some(Properties {
            additional_properties: named_schemas(properties, f.dropped()),
        });
    }
    s.vendor_extension = f.finish();
    s
}
