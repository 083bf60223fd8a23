//! `Schema` and `SchemaType`: one node of a structural schema, plus builders so
//! that built-in kinds read as data.

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
    /// Protobuf field number of this node in its parent message (Kubernetes'
    /// `generated.proto` for built-in kinds); `None`: no protobuf form. How
    /// the value is written follows from the node's shape (`api/protobuf`).
    pub proto: Option<u32>,
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
    fn typed(ty: SchemaType) -> Schema {
        Schema {
            ty: Some(ty),
            ..Schema::default()
        }
    }

    fn formatted(ty: SchemaType, format: &str) -> Schema {
        Schema {
            format: Some(format.to_owned()),
            ..Schema::typed(ty)
        }
    }

    #[must_use]
    pub fn string() -> Schema {
        Schema::typed(SchemaType::String)
    }

    /// Any integer.
    #[must_use]
    pub fn integer() -> Schema {
        Schema::typed(SchemaType::Integer)
    }

    /// A Go `int32`.
    #[must_use]
    pub fn integer_i32() -> Schema {
        Schema::formatted(SchemaType::Integer, "int32")
    }

    /// A Go `int64`.
    #[must_use]
    pub fn integer_i64() -> Schema {
        Schema::formatted(SchemaType::Integer, "int64")
    }

    #[must_use]
    pub fn number() -> Schema {
        Schema::typed(SchemaType::Number)
    }

    #[must_use]
    pub fn boolean() -> Schema {
        Schema::typed(SchemaType::Boolean)
    }

    /// Kubernetes `Time`: an RFC 3339 string (served at second precision).
    #[must_use]
    pub fn time() -> Schema {
        Schema {
            time_precision: Some(TimePrecision::Seconds),
            ..Schema::formatted(SchemaType::String, "date-time")
        }
    }

    /// Kubernetes `MicroTime`: an RFC 3339 string (served with microseconds).
    /// Input is checked like `Time`; a fraction is optional on both.
    #[must_use]
    pub fn micro_time() -> Schema {
        Schema {
            time_precision: Some(TimePrecision::Micros),
            ..Schema::formatted(SchemaType::String, "date-time")
        }
    }

    /// Go `[]byte`: a base64 (standard alphabet, padded) string.
    #[must_use]
    pub fn bytes() -> Schema {
        Schema::formatted(SchemaType::String, "byte")
    }

    /// An object with these fields, in this order.
    #[must_use]
    pub fn object<I, K>(properties: I) -> Schema
    where
        I: IntoIterator<Item = (K, Schema)>,
        K: Into<String>,
    {
        Schema {
            properties: properties.into_iter().map(|(k, s)| (k.into(), s)).collect(),
            ..Schema::typed(SchemaType::Object)
        }
    }

    #[must_use]
    pub fn array(items: Schema) -> Schema {
        Schema {
            items: Some(Box::new(items)),
            ..Schema::typed(SchemaType::Array)
        }
    }

    /// A map from string keys to `values` (`additionalProperties`).
    #[must_use]
    pub fn map(values: Schema) -> Schema {
        Schema {
            additional_properties: Some(Box::new(values)),
            ..Schema::typed(SchemaType::Object)
        }
    }

    /// `map[string]string` (labels, annotations).
    #[must_use]
    pub fn string_map() -> Schema {
        Schema::map(Schema::string())
    }

    /// `[]string`.
    #[must_use]
    pub fn string_list() -> Schema {
        Schema::array(Schema::string())
    }

    /// `intstr.IntOrString`.
    #[must_use]
    pub fn int_or_string() -> Schema {
        Schema {
            int_or_string: true,
            ..Schema::default()
        }
    }

    /// Any JSON value, kept as sent.
    #[must_use]
    pub fn any() -> Schema {
        Schema {
            preserve_unknown_fields: true,
            ..Schema::default()
        }
    }

    /// An object whose fields are kept as sent (`fieldsV1`, `RawExtension`).
    #[must_use]
    pub fn free_form_object() -> Schema {
        Schema {
            preserve_unknown_fields: true,
            ..Schema::typed(SchemaType::Object)
        }
    }

    /// A top-level kind: `apiVersion`, `kind` and the standard `metadata`
    /// (required) first, then the kind's own fields.
    #[must_use]
    pub fn resource<I, K>(fields: I) -> Schema
    where
        I: IntoIterator<Item = (K, Schema)>,
        K: Into<String>,
    {
        let mut properties = vec![
            ("apiVersion".to_string(), Schema::string()),
            ("kind".to_string(), Schema::string()),
            ("metadata".to_string(), Schema::object_meta()),
        ];
        properties.extend(fields.into_iter().map(|(k, s)| (k.into(), s)));
        Schema {
            properties,
            required: vec!["metadata".into()],
            ..Schema::typed(SchemaType::Object)
        }
    }

    /// core/v1 `ObjectReference` (Event's involvedObject, a ServiceAccount's
    /// secrets), with its protobuf field numbers.
    #[must_use]
    pub fn object_reference() -> Schema {
        Schema::object([
            ("kind", Schema::string()),
            ("namespace", Schema::string()),
            ("name", Schema::string()),
            ("uid", Schema::string()),
            ("apiVersion", Schema::string()),
            ("resourceVersion", Schema::string()),
            ("fieldPath", Schema::string()),
        ])
        .atomic_map()
        .proto_fields([
            ("kind", 1),
            ("namespace", 2),
            ("name", 3),
            ("uid", 4),
            ("apiVersion", 5),
            ("resourceVersion", 6),
            ("fieldPath", 7),
        ])
    }

    /// `metav1.Condition`-shaped status conditions (type, status, time,
    /// reason, message).
    #[must_use]
    pub fn condition() -> Schema {
        Schema::object([
            ("type", Schema::string()),
            ("status", Schema::string()),
            ("lastTransitionTime", Schema::time()),
            ("reason", Schema::string()),
            ("message", Schema::string()),
        ])
        .required(["type", "status"])
        .proto_fields([
            ("type", 1),
            ("status", 2),
            ("lastTransitionTime", 4),
            ("reason", 5),
            ("message", 6),
        ])
    }

    /// Marks fields as required.
    #[must_use]
    pub fn required<I, K>(mut self, names: I) -> Schema
    where
        I: IntoIterator<Item = K>,
        K: Into<String>,
    {
        self.required.extend(names.into_iter().map(Into::into));
        self
    }

    /// Accepts `null` as a value.
    #[must_use]
    pub fn nullable(mut self) -> Schema {
        self.nullable = true;
        self
    }

    #[must_use]
    pub fn describe(mut self, text: impl Into<String>) -> Schema {
        self.description = text.into();
        self
    }

    /// Restricts a string to these values.
    #[must_use]
    pub fn one_of<'a>(mut self, values: impl IntoIterator<Item = &'a str>) -> Schema {
        self.enum_values = values
            .into_iter()
            .map(|v| Value::String(v.to_owned()))
            .collect();
        self
    }

    /// Keeps undeclared fields of this object.
    #[must_use]
    pub fn preserve_unknown(mut self) -> Schema {
        self.preserve_unknown_fields = true;
        self
    }

    /// Marks an object as an embedded resource (apiVersion, kind, metadata).
    #[must_use]
    pub fn embedded(mut self) -> Schema {
        self.embedded_resource = true;
        self
    }

    /// `x-kubernetes-list-type: atomic`: the list is replaced as a whole.
    #[must_use]
    pub fn atomic_list(mut self) -> Schema {
        self.list_type = Some("atomic".into());
        self
    }

    /// `x-kubernetes-list-type: set`: scalar elements merged by value.
    #[must_use]
    pub fn set_list(mut self) -> Schema {
        self.list_type = Some("set".into());
        self
    }

    /// `x-kubernetes-list-type: map` keyed by these fields of the elements.
    #[must_use]
    pub fn map_list<'a>(mut self, keys: impl IntoIterator<Item = &'a str>) -> Schema {
        self.list_type = Some("map".into());
        self.list_map_keys = keys.into_iter().map(str::to_owned).collect();
        self
    }

    /// `x-kubernetes-map-type: atomic`: the object is replaced as a whole.
    #[must_use]
    pub fn atomic_map(mut self) -> Schema {
        self.map_type = Some("atomic".into());
        self
    }

    /// `patchStrategy=merge` with `patchMergeKey=key` (Kubernetes' Go struct
    /// tags on lists of built-in kinds).
    #[must_use]
    pub fn merge_by(mut self, key: &str) -> Schema {
        self.patch_strategy = Some("merge".into());
        self.patch_merge_key = Some(key.to_owned());
        self
    }

    /// A patch strategy without a merge key (`merge` for scalar lists,
    /// `retainKeys`, `replace`).
    #[must_use]
    pub fn patch_strategy(mut self, strategy: &str) -> Schema {
        self.patch_strategy = Some(strategy.to_owned());
        self
    }

    /// Numbers this object's fields for protobuf: `(name, field number)`.
    /// Panics on a name the object does not declare: a typo in a kind's data.
    #[must_use]
    pub fn proto_fields<'a>(mut self, numbers: impl IntoIterator<Item = (&'a str, u32)>) -> Schema {
        for (name, number) in numbers {
            let Some((_, field)) = self.properties.iter_mut().find(|(k, _)| k == name) else {
                panic!("proto_fields: no field {name:?} to number");
            };
            field.proto = Some(number);
        }
        self
    }

    /// The declared field numbered `number` for protobuf.
    #[must_use]
    pub fn proto_field(&self, number: u32) -> Option<(&str, &Schema)> {
        self.properties
            .iter()
            .find(|(_, s)| s.proto == Some(number))
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
