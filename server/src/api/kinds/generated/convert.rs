//! JSON schema (as schemars writes k8s-openapi's types) → cairn's `Schema`:
//! references resolved through the definitions, cairn's own schemas put in
//! for the types it models itself, and the list and protobuf facts k8s-openapi
//! lacks added per definition.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::facts;
use super::overrides;
use super::roots::REF_PREFIX;
use crate::api::schema::{Schema, SchemaType};

/// Converts definitions on demand, each once.
pub struct Converter<'a> {
    definitions: &'a Map<String, Value>,
    done: HashMap<String, Schema>,
    /// Definitions being converted, to stop at a self-reference.
    open: Vec<String>,
}

impl<'a> Converter<'a> {
    #[must_use]
    pub fn new(definitions: &'a Map<String, Value>) -> Converter<'a> {
        Converter {
            definitions,
            done: HashMap::new(),
            open: Vec::new(),
        }
    }

    /// The schema of definition `name`; `None` when k8s-openapi has no
    /// such definition.
    pub fn definition(&mut self, name: &str) -> Option<Schema> {
        if let Some(own) = overrides::schema(name) {
            return Some(own);
        }
        if let Some(done) = self.done.get(name) {
            return Some(done.clone());
        }
        if self.open.iter().any(|n| n == name) {
            // A recursive type: kept as sent below this point.
            return Some(Schema::free_form_object());
        }
        let json = self.definitions.get(name)?;
        self.open.push(name.to_owned());
        let mut schema = self.node(json);
        self.open.pop();
        facts::apply(name, &mut schema);
        self.done.insert(name.to_owned(), schema.clone());
        Some(schema)
    }

    fn node(&mut self, json: &Value) -> Schema {
        let Some(obj) = json.as_object() else {
            return Schema::any();
        };
        let description = obj.get("description").and_then(Value::as_str);
        let mut schema = match obj.get("$ref").and_then(Value::as_str) {
            Some(reference) => {
                let name = reference.strip_prefix(REF_PREFIX).unwrap_or(reference);
                self.definition(name).unwrap_or_else(Schema::any)
            }
            None => self.inline(obj),
        };
        if let Some(text) = description {
            schema.description = text.to_owned();
        }
        schema
    }

    fn inline(&mut self, obj: &Map<String, Value>) -> Schema {
        if obj.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
            return Schema::int_or_string();
        }
        let ty = obj
            .get("type")
            .and_then(Value::as_str)
            .and_then(SchemaType::parse);
        let mut schema = Schema {
            ty,
            format: obj.get("format").and_then(Value::as_str).map(str::to_owned),
            enum_values: obj
                .get("enum")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            ..Schema::default()
        };
        if let Some(properties) = obj.get("properties").and_then(Value::as_object) {
            schema.properties = properties
                .iter()
                .map(|(k, v)| (k.clone(), self.node(v)))
                .collect();
        }
        if let Some(required) = obj.get("required").and_then(Value::as_array) {
            schema.required = required
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
        }
        zero_defaults(&mut schema);
        if let Some(items) = obj.get("items") {
            schema.items = Some(Box::new(self.node(items)));
        }
        if let Some(values) = obj.get("additionalProperties").filter(|v| v.is_object()) {
            schema.additional_properties = Some(Box::new(self.node(values)));
        }
        if ty.is_none() {
            // No type and no shape: any value, kept as sent.
            schema.preserve_unknown_fields = true;
        } else if ty == Some(SchemaType::Object)
            && schema.properties.is_empty()
            && schema.additional_properties.is_none()
        {
            schema.preserve_unknown_fields = true;
        }
        schema
    }
}

/// A required number or boolean is a Go field without `omitempty` (a
/// StatefulSet's `status.replicas`): decoding leaves it at zero when it is
/// missing and it is always written, so it is defaulted, not demanded.
fn zero_defaults(schema: &mut Schema) {
    let mut kept = Vec::new();
    for name in std::mem::take(&mut schema.required) {
        let zero = match schema.property(&name).and_then(|p| p.ty) {
            Some(SchemaType::Integer | SchemaType::Number) => Some(Value::from(0)),
            Some(SchemaType::Boolean) => Some(Value::Bool(false)),
            _ => None,
        };
        match (zero, schema.properties.iter_mut().find(|(k, _)| *k == name)) {
            (Some(zero), Some((_, field))) => field.default = Some(zero),
            _ => kept.push(name),
        }
    }
    schema.required = kept;
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn definitions() -> Map<String, Value> {
        json!({
            "a.Outer": {"type": "object", "description": "outer",
                "properties": {
                    "inner": {"$ref": "#/$defs/a.Inner", "description": "the inner one"},
                    "count": {"type": "integer", "format": "int32"},
                    "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                    "port": {"$ref": "#/$defs/io.k8s.apimachinery.pkg.util.intstr.IntOrString"}
                },
                "required": ["inner", "count"]},
            "a.Inner": {"type": "object", "properties": {"self": {"$ref": "#/$defs/a.Inner"}}}
        })
        .as_object()
        .cloned()
        .expect("an object")
    }

    #[test]
    fn references_resolve_and_keep_the_referring_description() {
        let defs = definitions();
        let outer = Converter::new(&defs)
            .definition("a.Outer")
            .expect("defined");
        assert_eq!(outer.description, "outer");
        assert_eq!(outer.required, ["inner"], "a required count is defaulted");
        assert_eq!(
            outer.property("count").and_then(|c| c.default.clone()),
            Some(Value::from(0))
        );
        let inner = outer.property("inner").expect("declared");
        assert_eq!(inner.description, "the inner one");
        assert_eq!(
            outer.property("count").and_then(|c| c.format.as_deref()),
            Some("int32")
        );
        let tags = outer.property("tags").expect("declared");
        assert_eq!(
            tags.additional_properties.as_ref().and_then(|v| v.ty),
            Some(SchemaType::String)
        );
        assert!(outer.property("port").expect("declared").int_or_string);
    }

    #[test]
    fn a_recursive_type_stops_at_itself() {
        let defs = definitions();
        let inner = Converter::new(&defs)
            .definition("a.Inner")
            .expect("defined");
        let nested = inner.property("self").expect("declared");
        assert!(nested.preserve_unknown_fields);
    }

    #[test]
    fn an_unknown_definition_is_none() {
        let defs = definitions();
        assert!(Converter::new(&defs).definition("a.Missing").is_none());
    }
}
