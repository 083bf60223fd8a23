//! `Schema` builders, one per shape and per common Kubernetes type (`Time`,
//! `ObjectReference`, conditions), so built-in kinds read as data.

use super::model::{Schema, SchemaType, TimePrecision};

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
}
