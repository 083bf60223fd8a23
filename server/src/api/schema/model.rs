//! `Schema` and `SchemaType`: one node of a structural schema, and looking
//! its fields up (the builders are in `builders`, the chained markers in
//! `markers`).

use serde_json::Value;

use super::pattern::Pattern;
use crate::api::cel::Rule;

/// The JSON type a schema node accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchemaType {
    Object,
    Array,
    String,
    Integer,
    Number,
    Boolean,
}

impl SchemaType {
    /// The OpenAPI spelling (`object`, `integer`, ...).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            SchemaType::Object => "object",
            SchemaType::Array => "array",
            SchemaType::String => "string",
            SchemaType::Integer => "integer",
            SchemaType::Number => "number",
            SchemaType::Boolean => "boolean",
        }
    }

    /// Reads the OpenAPI spelling.
    #[must_use]
    pub fn parse(s: &str) -> Option<SchemaType> {
        Some(match s {
            "object" => SchemaType::Object,
            "array" => SchemaType::Array,
            "string" => SchemaType::String,
            "integer" => SchemaType::Integer,
            "number" => SchemaType::Number,
            "boolean" => SchemaType::Boolean,
            _ => return None,
        })
    }
}

/// One node of a structural schema (the OpenAPI v3 subset that
/// CustomResourceDefinitions accept). Every field has a type, except nodes
/// marked `int_or_string` or `preserve_unknown_fields`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schema {
    /// `None` only with `int_or_string` or `preserve_unknown_fields` (any value).
    pub ty: Option<SchemaType>,
    pub description: String,
    /// Declared fields of an object, in declaration order.
    pub properties: Vec<(String, Schema)>,
    /// Fields that must be present (and not null unless the field is nullable).
    pub required: Vec<String>,
    /// Element schema of an array.
    pub items: Option<Box<Schema>>,
    /// Value schema of a map (`map[string]T`); exclusive with `properties`.
    pub additional_properties: Option<Box<Schema>>,
    /// `date-time` (RFC 3339, fraction optional: serves Time and MicroTime),
    /// `byte` (base64), `int32`, `int64`; other formats are not checked.
    pub format: Option<String>,
    /// Allowed values; empty means any.
    pub enum_values: Vec<Value>,
    /// `null` is a value of its own here rather than "unset".
    pub nullable: bool,
    /// `x-kubernetes-preserve-unknown-fields`: undeclared fields are kept.
    pub preserve_unknown_fields: bool,
    /// `x-kubernetes-int-or-string`: an integer or a string.
    pub int_or_string: bool,
    /// `x-kubernetes-embedded-resource`: an object with apiVersion, kind, metadata.
    pub embedded_resource: bool,
    /// `x-kubernetes-list-type`: `atomic`, `set` or `map` (server-side apply).
    pub list_type: Option<String>,
    /// `x-kubernetes-list-map-keys`, for `list_type == "map"`.
    pub list_map_keys: Vec<String>,
    /// `x-kubernetes-map-type`: `granular` or `atomic` (server-side apply).
    pub map_type: Option<String>,
    /// `x-kubernetes-patch-strategy` of built-in kinds' Go types: `merge`,
    /// `replace`, `retainKeys` or `merge,retainKeys` (strategic merge patch;
    /// server-side apply reads `merge` as a map list keyed by
    /// `patch_merge_key` when `list_type` is unset).
    pub patch_strategy: Option<String>,
    /// `x-kubernetes-patch-merge-key`: the element field lists merge by.
    pub patch_merge_key: Option<String>,
    /// Set on Kubernetes `Time` / `MicroTime` fields: how they are written
    /// back (see `normalize`).
    pub time_precision: Option<TimePrecision>,
    /// `minimum`, `maxLength`, `pattern`, `anyOf`, ...: restrictions of the
    /// value that do not change its shape.
    pub limits: Limits,
    /// `default`: filled in by `apply_defaults` when the field is missing.
    pub default: Option<Value>,
    /// `x-kubernetes-validations`, compiled when the schema was read.
    pub rules: Vec<Rule>,
    /// A Go number or boolean that is neither a pointer nor written when
    /// zero (`omitempty`): protobuf always carries it, and a zero read from
    /// there is left out of the JSON, as Go's JSON of the same object would.
    pub omit_zero: bool,
    /// Protobuf field number of this node in its parent message (Kubernetes'
    /// `generated.proto` for built-in kinds); `None`: no protobuf form. How
    /// the value is written follows from the node's shape (`api/protobuf`).
    pub proto: Option<u32>,
    /// Go's inlined struct (`json:",inline"`, an IngressRule's `http`):
    /// protobuf carries this field, at `proto`, inside the parent's nested
    /// message of this number, while JSON has it in the parent itself.
    pub proto_inline: Option<u32>,
}

/// The OpenAPI value validations of one node. Lengths count Unicode
/// characters, as Kubernetes does; numbers compare as `f64`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    pub minimum: Option<f64>,
    /// OpenAPI v3.0's boolean form: `minimum` itself is excluded.
    pub exclusive_minimum: bool,
    pub maximum: Option<f64>,
    pub exclusive_maximum: bool,
    pub multiple_of: Option<f64>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<Pattern>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub min_properties: Option<u64>,
    pub max_properties: Option<u64>,
    /// Junctors: nested schemas that carry value validations only.
    pub all_of: Vec<Schema>,
    pub any_of: Vec<Schema>,
    pub one_of: Vec<Schema>,
    pub not: Option<Box<Schema>>,
}

/// How a timestamp field is serialized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimePrecision {
    /// `Time`: whole seconds, UTC (`2024-05-01T10:00:00Z`).
    Seconds,
    /// `MicroTime`: six fraction digits, UTC (`2024-05-01T10:00:00.000000Z`).
    Micros,
}

impl Schema {
    /// The declared field numbered `number` for protobuf.
    #[must_use]
    pub fn proto_field(&self, number: u32) -> Option<(&str, &Schema)> {
        self.properties
            .iter()
            .find(|(_, s)| s.proto == Some(number) && s.proto_inline.is_none())
            .map(|(k, s)| (k.as_str(), s))
    }

    /// The declared schema of field `name`.
    #[must_use]
    pub fn property(&self, name: &str) -> Option<&Schema> {
        self.properties
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, s)| s)
    }

    /// The schema governing field `key` of an object value of this schema:
    /// a declared property, the map value schema, or an embedded resource's
    /// `apiVersion`/`kind`/`metadata`. `None` means the field is unknown.
    #[must_use]
    pub fn field_schema(&self, key: &str) -> Option<&Schema> {
        if let Some(s) = self.property(key) {
            return Some(s);
        }
        if let Some(values) = &self.additional_properties {
            return Some(values);
        }
        if self.embedded_resource {
            return super::meta::embedded_field(key);
        }
        None
    }
}
