//! Round trips: the built-in kinds' document is encoded, decoded with the
//! same messages and compared with the JSON it came from.

use std::sync::Arc;

use clap::Parser;
use prost::Message;
use serde_json::{Value, json};

use super::document_messages::{
    Document, NonBodyKind, Operation, ParameterKind, ParameterOrReference, ResponseOrReference,
};
use super::encode;
use super::schema_messages::{AdditionalProperties, Any, NamedAny, Schema};
use crate::api::kind::KindSpec;
use crate::api::kinds;
use crate::config::{Config, Flags};
use crate::http::openapi::document::swagger;
use crate::http::openapi::names::Namer;

fn builtin_document(domain: &str) -> Value {
    let config = Config::from(Flags::parse_from([
        "cairn-apiserver",
        "--api-domain",
        domain,
    ]));
    let kinds: Vec<Arc<KindSpec>> = kinds::builtin(&config).snapshot().iter().cloned().collect();
    swagger(&Namer::new(domain), &kinds)
}

fn decode(json: &Value) -> Document {
    let encoded = encode(json);
    assert_eq!(encoded.dropped, Vec::<String>::new(), "keys not carried");
    Document::decode(encoded.bytes.as_slice()).expect("decodes")
}

fn yaml(any: Option<&Any>) -> Value {
    let text = &any.expect("a value").yaml;
    serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

fn assert_extensions(json: &Value, extensions: &[NamedAny], at: &str) {
    let expected: Vec<(&String, &Value)> = json
        .as_object()
        .expect("an object")
        .iter()
        .filter(|(k, _)| k.starts_with("x-"))
        .collect();
    assert_eq!(expected.len(), extensions.len(), "{at}: extensions");
    for ((name, value), ext) in expected.into_iter().zip(extensions) {
        assert_eq!(*name, ext.name, "{at}");
        assert_eq!(*value, yaml(ext.value.as_ref()), "{at}: {name}");
    }
}

/// Compares a schema with its JSON, recursively, on everything client-side
/// validation reads (and descriptions).
fn assert_schema(json: &Value, s: &Schema, at: &str) {
    let text = |key: &str| json.get(key).and_then(Value::as_str).unwrap_or_default();
    assert_eq!(text("$ref"), s.xref, "{at}: $ref");
    assert_eq!(text("description"), s.description, "{at}: description");
    assert_eq!(text("format"), s.format, "{at}: format");
    let types: Vec<&str> = json
        .get("type")
        .and_then(Value::as_str)
        .into_iter()
        .collect();
    let decoded: Vec<&str> = s
        .r#type
        .iter()
        .flat_map(|t| t.value.iter())
        .map(String::as_str)
        .collect();
    assert_eq!(types, decoded, "{at}: type");
    let required: Vec<&str> = json["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(required, s.required, "{at}: required");
    match (
        json.get("properties").and_then(Value::as_object),
        &s.properties,
    ) {
        (None, None) => {}
        (Some(props), Some(decoded)) => {
            assert_eq!(
                props.len(),
                decoded.additional_properties.len(),
                "{at}: properties"
            );
            for ((name, field), named) in props.iter().zip(&decoded.additional_properties) {
                assert_eq!(*name, named.name, "{at}");
                let value = named.value.as_ref().expect("a property schema");
                assert_schema(field, value, &format!("{at}.{name}"));
            }
        }
        (json, decoded) => panic!("{at}: properties {json:?} vs {}", decoded.is_some()),
    }
    match (json.get("items"), &s.items) {
        (None, None) => {}
        (Some(items), Some(decoded)) => {
            assert_eq!(decoded.schema.len(), 1, "{at}: items");
            assert_schema(items, &decoded.schema[0], &format!("{at}[]"));
        }
        _ => panic!("{at}: items"),
    }
    let extra = s
        .additional_properties
        .as_ref()
        .and_then(|a| a.oneof.as_ref());
    match (json.get("additionalProperties"), extra) {
        (None, None) => {}
        (Some(Value::Bool(b)), Some(AdditionalProperties::Boolean(d))) => assert_eq!(b, d, "{at}"),
        (Some(v), Some(AdditionalProperties::Schema(d))) => {
            assert_schema(v, d, &format!("{at}{{}}"))
        }
        _ => panic!("{at}: additionalProperties"),
    }
    assert_eq!(
        json["allOf"].as_array().map_or(0, Vec::len),
        s.all_of.len(),
        "{at}: allOf"
    );
    assert_extensions(json, &s.vendor_extension, at);
}

#[test]
fn every_definition_survives_the_round_trip() {
    let json = builtin_document("k8s.io");
    let doc = decode(&json);
    assert_eq!(doc.swagger, "2.0");
    assert_eq!(
        doc.info.as_ref().map(|i| i.title.as_str()),
        Some("Kubernetes")
    );
    let definitions = json["definitions"].as_object().expect("definitions");
    let decoded = &doc
        .definitions
        .as_ref()
        .expect("definitions")
        .additional_properties;
    assert_eq!(definitions.len(), decoded.len());
    for ((name, def), named) in definitions.iter().zip(decoded) {
        assert_eq!(*name, named.name);
        assert_schema(def, named.value.as_ref().expect("a schema"), name);
    }
    let secret = decoded
        .iter()
        .find(|d| d.name == "io.k8s.api.core.v1.Secret")
        .expect("Secret");
    let secret = secret.value.as_ref().expect("schema");
    let gvk = secret
        .vendor_extension
        .iter()
        .find(|e| e.name == "x-kubernetes-group-version-kind");
    assert_eq!(
        yaml(gvk.and_then(|e| e.value.as_ref())),
        json!([{"group": "", "kind": "Secret", "version": "v1"}])
    );
    let metadata = &secret
        .properties
        .as_ref()
        .expect("properties")
        .additional_properties;
    let metadata = metadata
        .iter()
        .find(|p| p.name == "metadata")
        .expect("metadata");
    assert_eq!(
        metadata.value.as_ref().map(|m| m.xref.as_str()),
        Some("#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
    );
    let security = doc
        .security_definitions
        .as_ref()
        .expect("security definitions");
    assert_eq!(security.additional_properties[0].name, "BearerToken");
}

fn patch_of<'a>(doc: &'a Document, path: &str) -> &'a Operation {
    let paths = &doc.paths.as_ref().expect("paths").path;
    let item = paths.iter().find(|p| p.name == path).expect("the path");
    item.value
        .as_ref()
        .and_then(|i| i.patch.as_ref())
        .expect("a PATCH")
}

#[test]
fn operations_keep_parameters_responses_and_extensions() {
    let json = builtin_document("svc.io");
    let doc = decode(&json);
    let path = "/api/v1/namespaces/{namespace}/secrets/{name}";
    assert_eq!(
        doc.paths.as_ref().expect("paths").path.len(),
        json["paths"].as_object().expect("paths").len()
    );
    let patch = patch_of(&doc, path);
    let patch_json = &json["paths"][path]["patch"];
    assert_eq!(patch.operation_id, "patchCoreV1NamespacedSecret");
    assert_extensions(patch_json, &patch.vendor_extension, "patch");
    assert_eq!(
        patch.consumes,
        patch_json["consumes"]
            .as_array()
            .expect("consumes")
            .iter()
            .map(|v| v.as_str().unwrap_or_default())
            .collect::<Vec<_>>()
    );
    let params_json = patch_json["parameters"].as_array().expect("parameters");
    assert_eq!(params_json.len(), patch.parameters.len());
    let mut names = Vec::new();
    for (p, p_json) in patch.parameters.iter().zip(params_json) {
        let Some(ParameterOrReference::Parameter(p)) = &p.oneof else {
            panic!("inline")
        };
        match &p.oneof {
            Some(ParameterKind::Body(body)) => {
                assert!(body.required);
                let schema = body.schema.as_ref().expect("a body schema");
                assert_eq!(
                    schema.xref,
                    "#/definitions/io.svc.apimachinery.pkg.apis.meta.v1.Patch"
                );
                names.push(body.name.clone());
            }
            Some(ParameterKind::NonBody(n)) => match &n.oneof {
                Some(NonBodyKind::Query(q)) => {
                    assert_eq!(q.r#in, "query");
                    assert_eq!(q.r#type, p_json["type"].as_str().expect("a type"));
                    assert_eq!(q.description, p_json["description"].as_str().expect("text"));
                    assert!(q.unique_items);
                    names.push(q.name.clone());
                }
                other => panic!("{other:?}"),
            },
            None => panic!("a parameter kind"),
        }
    }
    let expected: Vec<&str> = params_json
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(names, expected);
    assert!(names.contains(&"fieldValidation".to_string()));
    let item = &doc
        .paths
        .as_ref()
        .expect("paths")
        .path
        .iter()
        .find(|p| p.name == path)
        .expect("path")
        .value;
    let path_params = &item.as_ref().expect("item").parameters;
    let first = path_params.first().and_then(|p| p.oneof.as_ref());
    let Some(ParameterOrReference::Parameter(p)) = first else {
        panic!("a path parameter")
    };
    let Some(ParameterKind::NonBody(n)) = &p.oneof else {
        panic!("non-body")
    };
    let Some(NonBodyKind::Path(name)) = &n.oneof else {
        panic!("in path")
    };
    assert!(name.required);
    let responses = &patch.responses.as_ref().expect("responses").response_code;
    let codes: Vec<&str> = responses.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(codes, ["200", "201", "401"]);
    let Some(ResponseOrReference::Response(ok)) =
        responses[0].value.as_ref().and_then(|v| v.oneof.as_ref())
    else {
        panic!("a response")
    };
    assert_eq!(ok.description, "OK");
    assert_eq!(
        ok.schema
            .as_ref()
            .and_then(|s| s.schema.as_ref())
            .map(|s| s.xref.as_str()),
        patch_json["responses"]["200"]["schema"]["$ref"].as_str()
    );
}

#[test]
fn presence_booleans_and_unknown_keys() {
    let json = json!({
        "swagger": "2.0",
        "definitions": {
            "Empty": {"type": "object", "properties": {}, "additionalProperties": false},
            "Tuple": {"type": ["string", "null"], "items": [{"type": "string"}, {"type": "integer"}], "maximum": 3},
        },
        "somethingElse": 1,
    });
    let encoded = encode(&json);
    assert_eq!(encoded.dropped, ["somethingElse"]);
    let doc = Document::decode(encoded.bytes.as_slice()).expect("decodes");
    let defs = &doc.definitions.expect("definitions").additional_properties;
    let empty = defs[0].value.as_ref().expect("Empty");
    assert!(
        empty.properties.is_some(),
        "an empty properties stays present"
    );
    let extra = empty
        .additional_properties
        .as_ref()
        .and_then(|a| a.oneof.as_ref());
    assert_eq!(extra, Some(&AdditionalProperties::Boolean(false)));
    let tuple = defs[1].value.as_ref().expect("Tuple");
    assert_eq!(
        tuple.r#type.as_ref().map(|t| t.value.clone()),
        Some(vec!["string".into(), "null".into()])
    );
    assert_eq!(tuple.items.as_ref().map(|i| i.schema.len()), Some(2));
    assert!((tuple.maximum - 3.0).abs() < f64::EPSILON);
}
