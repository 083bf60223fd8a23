//! Whole documents: the Swagger 2.0 document of every kind (`/openapi/v2`)
//! and one OpenAPI 3.0 document per group/version (`/openapi/v3/...`), from
//! the kinds' schemas plus the shared meta definitions.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::meta_types;
use super::names::Namer;
use super::operations;
use super::schema_json::Flavor;
use crate::api::kind::KindSpec;

const TITLE: &str = "Kubernetes";
const VERSION: &str = "v1.32.0";

fn gvk_list(kind: &KindSpec, kind_name: &str) -> Value {
    json!([{"group": kind.group, "kind": kind_name, "version": kind.version}])
}

/// A kind's definition: its schema, `metadata` referring to `ObjectMeta`,
/// and `x-kubernetes-group-version-kind`.
#[must_use]
pub fn kind_definition(flavor: Flavor, namer: &Namer, kind: &KindSpec) -> Value {
    let mut def = flavor.schema_map(&kind.schema);
    let props = def
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(props) = props.as_object_mut() {
        for field in ["apiVersion", "kind"] {
            props
                .entry(field)
                .or_insert_with(|| json!({"type": "string"}));
        }
        let description = props
            .get("metadata")
            .and_then(|m| m.get("description"))
            .and_then(Value::as_str)
            .unwrap_or("Standard object's metadata.")
            .to_string();
        props.insert(
            "metadata".into(),
            flavor.field_reference(&namer.meta("ObjectMeta"), &description),
        );
    }
    def.insert("type".into(), json!("object"));
    def.insert(
        "x-kubernetes-group-version-kind".into(),
        gvk_list(kind, &kind.kind),
    );
    Value::Object(def)
}

/// A kind's list: `items` of the kind, `metadata` a `ListMeta`.
#[must_use]
pub fn list_definition(flavor: Flavor, namer: &Namer, kind: &KindSpec) -> Value {
    json!({
        "description": format!("{} is a list of {}.", kind.list_kind, kind.kind),
        "type": "object",
        "required": ["items"],
        "properties": {
            "apiVersion": {"type": "string", "description": "APIVersion defines the versioned schema of this representation of an object."},
            "items": {
                "type": "array",
                "description": format!("List of {}.", kind.resource),
                "items": flavor.field_reference(&namer.kind(kind), ""),
            },
            "kind": {"type": "string", "description": "Kind is a string value representing the REST resource this object represents."},
            "metadata": flavor.field_reference(&namer.meta("ListMeta"), "Standard list metadata."),
        },
        "x-kubernetes-group-version-kind": gvk_list(kind, &kind.list_kind),
    })
}

/// Definitions and paths of some kinds.
fn contents(
    flavor: Flavor,
    namer: &Namer,
    kinds: &[&KindSpec],
) -> (Map<String, Value>, Map<String, Value>) {
    let mut definitions = Map::new();
    for (name, def) in meta_types::definitions(namer, flavor, operations::needs(kinds)) {
        definitions.insert(name, def);
    }
    let mut paths = Map::new();
    for kind in kinds {
        definitions.insert(namer.kind(kind), kind_definition(flavor, namer, kind));
        if kind.answered_by.is_none() {
            definitions.insert(namer.list(kind), list_definition(flavor, namer, kind));
        }
        for (path, item) in operations::paths(flavor, namer, kind) {
            paths.insert(path, item);
        }
    }
    definitions.sort_keys();
    (definitions, paths)
}

/// `/openapi/v2`.
#[must_use]
pub fn swagger(namer: &Namer, kinds: &[Arc<KindSpec>]) -> Value {
    let kinds: Vec<&KindSpec> = kinds.iter().map(AsRef::as_ref).collect();
    let (definitions, paths) = contents(Flavor::V2, namer, &kinds);
    json!({
        "swagger": "2.0",
        "info": {"title": TITLE, "version": VERSION},
        "paths": paths,
        "definitions": definitions,
        "securityDefinitions": {
            "BearerToken": {"type": "apiKey", "name": "authorization", "in": "header", "description": "Bearer Token authentication"}
        },
        "security": [{"BearerToken": []}],
    })
}

/// `api/v1` or `apis/{group}/{version}`: a group/version's key in the v3 index.
#[must_use]
pub fn group_version_key(kind: &KindSpec) -> String {
    if kind.group.is_empty() {
        format!("api/{}", kind.version)
    } else {
        format!("apis/{}/{}", kind.group, kind.version)
    }
}

/// One OpenAPI 3.0 document per group/version, keyed as the v3 index keys them.
#[must_use]
pub fn openapi_v3(namer: &Namer, kinds: &[Arc<KindSpec>]) -> Vec<(String, Value)> {
    let mut keys: Vec<String> = Vec::new();
    for k in kinds {
        let key = group_version_key(k);
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys.into_iter()
        .map(|key| {
            let members: Vec<&KindSpec> = kinds
                .iter()
                .filter(|k| group_version_key(k) == key)
                .map(AsRef::as_ref)
                .collect();
            let (schemas, paths) = contents(Flavor::V3, namer, &members);
            let doc = json!({
                "openapi": "3.0.0",
                "info": {"title": TITLE, "version": VERSION},
                "paths": paths,
                "components": {
                    "schemas": schemas,
                    "securitySchemes": {
                        "BearerToken": {"type": "apiKey", "name": "authorization", "in": "header", "description": "Bearer Token authentication"}
                    }
                },
            });
            (key, doc)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::api::kinds;
    use crate::config::{Config, Flags};

    fn builtin_kinds(domain: &str) -> Vec<Arc<KindSpec>> {
        let config = Config::from(Flags::parse_from([
            "cairn-apiserver",
            "--api-domain",
            domain,
        ]));
        kinds::builtin(&config).snapshot().iter().cloned().collect()
    }

    /// Every `$ref` under `v`.
    fn refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref") {
                    out.push(r);
                }
                m.values().for_each(|c| refs(c, out));
            }
            Value::Array(a) => a.iter().for_each(|c| refs(c, out)),
            _ => {}
        }
    }

    fn patch_ops(paths: &Value) -> Vec<&Value> {
        paths
            .as_object()
            .expect("paths")
            .values()
            .filter_map(|item| item.get("patch"))
            .collect()
    }

    #[test]
    fn every_reference_resolves_and_every_kind_is_patchable_with_field_validation() {
        for domain in ["k8s.io", "svc.io"] {
            let kinds = builtin_kinds(domain);
            let namer = Namer::new(domain);
            let v2 = swagger(&namer, &kinds);
            let mut found = Vec::new();
            refs(&v2, &mut found);
            for r in &found {
                let name = r.strip_prefix("#/definitions/").expect("a v2 reference");
                assert!(v2["definitions"].get(name).is_some(), "{domain}: {r}");
            }
            let docs = openapi_v3(&namer, &kinds);
            for (key, doc) in &docs {
                let mut found = Vec::new();
                refs(doc, &mut found);
                for r in &found {
                    let name = r
                        .strip_prefix("#/components/schemas/")
                        .expect("a v3 reference");
                    assert!(
                        doc["components"]["schemas"].get(name).is_some(),
                        "{key}: {r}"
                    );
                }
            }
            for kind in &kinds {
                // Kinds answered by a handler (Binding) are create-only.
                if kind.answered_by.is_some() {
                    continue;
                }
                let name = namer.kind(kind);
                let gvk = json!({"group": kind.group, "kind": kind.kind, "version": kind.version});
                assert_eq!(
                    v2["definitions"][&name]["x-kubernetes-group-version-kind"],
                    json!([gvk])
                );
                let (_, doc) = docs
                    .iter()
                    .find(|(k, _)| *k == group_version_key(kind))
                    .expect("the kind's group/version document");
                assert!(doc["components"]["schemas"][&name].is_object(), "{name}");
                let patch = patch_ops(&doc["paths"])
                    .into_iter()
                    .find(|op| op["x-kubernetes-group-version-kind"] == gvk)
                    .unwrap_or_else(|| panic!("a PATCH of {name}"));
                let params = patch["parameters"].as_array().expect("parameters");
                assert!(
                    params.iter().any(|p| p["name"] == "fieldValidation"),
                    "{name}"
                );
            }
        }
    }
}
