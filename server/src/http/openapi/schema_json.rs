//! A structural `Schema` written as an OpenAPI schema object, in Swagger 2.0
//! or OpenAPI 3.0 flavour, with the `x-kubernetes-*` extensions clients read
//! (list and map types, patch strategy, int-or-string, ...).

use serde_json::{Map, Value, json};

use crate::api::schema::{Limits, Schema};

/// Which OpenAPI version a document is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// Swagger 2.0 (`/openapi/v2`): no `nullable`, `anyOf`, `oneOf`, `not`.
    V2,
    /// OpenAPI 3.0 (`/openapi/v3`).
    V3,
}

impl Flavor {
    /// A `$ref` to a definition of this document.
    #[must_use]
    pub fn reference(self, name: &str) -> Value {
        let base = match self {
            Flavor::V2 => "#/definitions/",
            Flavor::V3 => "#/components/schemas/",
        };
        json!({ "$ref": format!("{base}{name}") })
    }

    /// A field whose type is a shared definition, with the field's own
    /// description: v3 wraps the `$ref` in `allOf` (siblings of `$ref` are
    /// ignored there), as Kubernetes does.
    #[must_use]
    pub fn field_reference(self, name: &str, description: &str) -> Value {
        let mut field = match self {
            Flavor::V2 => self.reference(name),
            Flavor::V3 => json!({ "allOf": [self.reference(name)], "default": {} }),
        };
        if !description.is_empty() {
            field["description"] = json!(description);
        }
        field
    }

    /// Writes `schema` (and everything under it).
    #[must_use]
    pub fn schema(self, schema: &Schema) -> Value {
        Value::Object(self.schema_map(schema))
    }

    /// Writes `schema` as a map, for callers that add or replace fields.
    #[must_use]
    pub fn schema_map(self, s: &Schema) -> Map<String, Value> {
        let mut out = Map::new();
        if !s.description.is_empty() {
            out.insert("description".into(), json!(s.description));
        }
        if let Some(ty) = s.ty {
            out.insert("type".into(), json!(ty.as_str()));
        }
        if let Some(format) = &s.format {
            out.insert("format".into(), json!(format));
        }
        if !s.enum_values.is_empty() {
            out.insert("enum".into(), Value::Array(s.enum_values.clone()));
        }
        if let Some(default) = &s.default {
            out.insert("default".into(), default.clone());
        }
        if s.nullable && self == Flavor::V3 {
            out.insert("nullable".into(), json!(true));
        }
        if !s.properties.is_empty() {
            let props: Map<String, Value> = s
                .properties
                .iter()
                .map(|(name, field)| (name.clone(), self.schema(field)))
                .collect();
            out.insert("properties".into(), Value::Object(props));
        }
        if !s.required.is_empty() {
            out.insert("required".into(), json!(s.required));
        }
        if let Some(items) = &s.items {
            out.insert("items".into(), self.schema(items));
        }
        if let Some(values) = &s.additional_properties {
            out.insert("additionalProperties".into(), self.schema(values));
        }
        self.limits(&s.limits, &mut out);
        self.extensions(s, &mut out);
        out
    }

    fn limits(self, l: &Limits, out: &mut Map<String, Value>) {
        let numbers = [
            ("minimum", l.minimum),
            ("maximum", l.maximum),
            ("multipleOf", l.multiple_of),
        ];
        for (key, n) in numbers {
            if let Some(n) = n {
                out.insert(key.into(), number(n));
            }
        }
        if l.exclusive_minimum {
            out.insert("exclusiveMinimum".into(), json!(true));
        }
        if l.exclusive_maximum {
            out.insert("exclusiveMaximum".into(), json!(true));
        }
        let counts = [
            ("minLength", l.min_length),
            ("maxLength", l.max_length),
            ("minItems", l.min_items),
            ("maxItems", l.max_items),
            ("minProperties", l.min_properties),
            ("maxProperties", l.max_properties),
        ];
        for (key, n) in counts {
            if let Some(n) = n {
                out.insert(key.into(), json!(n));
            }
        }
        if let Some(p) = &l.pattern {
            out.insert("pattern".into(), json!(p.as_str()));
        }
        if !l.all_of.is_empty() {
            out.insert("allOf".into(), self.list(&l.all_of));
        }
        if self == Flavor::V2 {
            return;
        }
        if !l.any_of.is_empty() {
            out.insert("anyOf".into(), self.list(&l.any_of));
        }
        if !l.one_of.is_empty() {
            out.insert("oneOf".into(), self.list(&l.one_of));
        }
        if let Some(not) = &l.not {
            out.insert("not".into(), self.schema(not));
        }
    }

    fn list(self, schemas: &[Schema]) -> Value {
        Value::Array(schemas.iter().map(|s| self.schema(s)).collect())
    }

    fn extensions(self, s: &Schema, out: &mut Map<String, Value>) {
        if s.int_or_string {
            out.insert("x-kubernetes-int-or-string".into(), json!(true));
            if self == Flavor::V3 && !out.contains_key("anyOf") {
                out.insert(
                    "anyOf".into(),
                    json!([{"type": "integer"}, {"type": "string"}]),
                );
            }
        }
        if s.preserve_unknown_fields {
            out.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
        }
        if s.embedded_resource {
            out.insert("x-kubernetes-embedded-resource".into(), json!(true));
        }
        if let Some(list_type) = &s.list_type {
            out.insert("x-kubernetes-list-type".into(), json!(list_type));
        }
        if !s.list_map_keys.is_empty() {
            out.insert("x-kubernetes-list-map-keys".into(), json!(s.list_map_keys));
        }
        if let Some(map_type) = &s.map_type {
            out.insert("x-kubernetes-map-type".into(), json!(map_type));
        }
        if let Some(key) = &s.patch_merge_key {
            out.insert("x-kubernetes-patch-merge-key".into(), json!(key));
        }
        if let Some(strategy) = &s.patch_strategy {
            out.insert("x-kubernetes-patch-strategy".into(), json!(strategy));
        }
        if !s.rules.is_empty() {
            let rules: Vec<Value> = s
                .rules
                .iter()
                .map(|r| {
                    let mut rule = json!({ "rule": r.rule });
                    let optional = [
                        ("message", &r.message),
                        ("messageExpression", &r.message_expression),
                        ("fieldPath", &r.field_path),
                    ];
                    for (key, value) in optional {
                        if let Some(v) = value {
                            rule[key] = json!(v);
                        }
                    }
                    rule
                })
                .collect();
            out.insert("x-kubernetes-validations".into(), Value::Array(rules));
        }
    }
}

/// Whole numbers are written as integers (`1`, not `1.0`).
fn number(n: f64) -> Value {
    #[allow(clippy::cast_possible_truncation)]
    let whole = n as i64;
    #[allow(clippy::cast_precision_loss)]
    if whole as f64 == n {
        json!(whole)
    } else {
        json!(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_types_and_extensions() {
        let s = Schema::object([
            (
                "ports",
                Schema::array(Schema::object([("port", Schema::integer_i32())]).required(["port"]))
                    .map_list(["port"])
                    .merge_by("port"),
            ),
            ("target", Schema::int_or_string()),
            ("labels", Schema::string_map().atomic_map()),
            ("any", Schema::any()),
            ("when", Schema::time().nullable()),
        ])
        .describe("a thing");
        let v3 = Flavor::V3.schema(&s);
        assert_eq!(v3["description"], "a thing");
        let ports = &v3["properties"]["ports"];
        assert_eq!(ports["type"], "array");
        assert_eq!(ports["x-kubernetes-list-type"], "map");
        assert_eq!(ports["x-kubernetes-list-map-keys"], json!(["port"]));
        assert_eq!(ports["x-kubernetes-patch-strategy"], "merge");
        assert_eq!(ports["x-kubernetes-patch-merge-key"], "port");
        assert_eq!(ports["items"]["required"], json!(["port"]));
        assert_eq!(ports["items"]["properties"]["port"]["format"], "int32");
        let target = &v3["properties"]["target"];
        assert_eq!(target["x-kubernetes-int-or-string"], true);
        assert_eq!(target["anyOf"][0]["type"], "integer");
        assert_eq!(
            v3["properties"]["labels"]["x-kubernetes-map-type"],
            "atomic"
        );
        assert_eq!(
            v3["properties"]["labels"]["additionalProperties"]["type"],
            "string"
        );
        assert_eq!(
            v3["properties"]["any"]["x-kubernetes-preserve-unknown-fields"],
            true
        );
        assert_eq!(v3["properties"]["when"]["nullable"], true);
        assert_eq!(v3["properties"]["when"]["format"], "date-time");
        let v2 = Flavor::V2.schema(&s);
        assert!(v2["properties"]["target"].get("anyOf").is_none());
        assert!(v2["properties"]["when"].get("nullable").is_none());
    }

    #[test]
    fn references_per_flavor() {
        assert_eq!(
            Flavor::V2.reference("a.B"),
            json!({"$ref": "#/definitions/a.B"})
        );
        let f = Flavor::V3.field_reference("a.B", "meta");
        assert_eq!(f["allOf"][0]["$ref"], "#/components/schemas/a.B");
        assert_eq!(f["description"], "meta");
    }
}
