//! Tests of Table rendering: default and CRD printer columns, object
//! inclusion, elapsed-time cells and the streamed JSON form.

use serde_json::json;

use super::*;
use crate::api::kinds::custom_resource::kinds_for_crd;
use crate::api::schema::Schema;

fn options(include: IncludeObject) -> TableOptions {
    TableOptions {
        api_version: "meta.k8s.io/v1".into(),
        include,
    }
}

fn plain_kind() -> KindSpec {
    KindSpec::new("x.io", "v1", "Thing", "things", true, Schema::any())
}

fn thing() -> Value {
    json!({"kind": "Thing", "apiVersion": "x.io/v1",
        "metadata": {"name": "a", "namespace": "ns", "resourceVersion": "7",
            "creationTimestamp": "2024-05-01T10:00:00Z"},
        "spec": {"replicas": 3, "size": 2.5, "on": true}})
}

#[test]
fn default_columns_are_name_and_created_at() {
    let kind = plain_kind();
    let b = TableBuilder::new(&kind, options(IncludeObject::Metadata));
    let obj = thing();
    let t = b.table([&obj], object_list_meta(&obj), true);
    assert_eq!(t["kind"], "Table");
    assert_eq!(t["apiVersion"], "meta.k8s.io/v1");
    assert_eq!(t["metadata"], json!({"resourceVersion": "7"}));
    assert_eq!(
        t["columnDefinitions"][0],
        json!({"name": "Name", "type": "string", "format": "name",
            "description": "Name must be unique within a namespace.", "priority": 0})
    );
    assert_eq!(t["columnDefinitions"][1]["name"], "Created At");
    assert_eq!(t["columnDefinitions"][1]["type"], "date");
    assert_eq!(t["rows"][0]["cells"], json!(["a", "2024-05-01T10:00:00Z"]));
    assert_eq!(
        t["rows"][0]["object"],
        json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
            "metadata": obj["metadata"]})
    );
    let later = b.table([&obj], Map::new(), false);
    assert_eq!(later["columnDefinitions"], Value::Null);
}

#[test]
fn include_object_variants() {
    let kind = plain_kind();
    let obj = thing();
    let none = TableBuilder::new(&kind, options(IncludeObject::None)).row(&obj);
    assert_eq!(none["object"], Value::Null);
    assert!(none.as_object().is_some_and(|o| o.contains_key("object")));
    let whole = TableBuilder::new(&kind, options(IncludeObject::Object)).row(&obj);
    assert_eq!(whole["object"], obj);
    assert_eq!(
        IncludeObject::parse(None).ok(),
        Some(IncludeObject::Metadata)
    );
    assert_eq!(
        IncludeObject::parse(Some("None")).ok(),
        Some(IncludeObject::None)
    );
    let err = IncludeObject::parse(Some("All")).expect_err("bad value");
    assert_eq!(err.code(), 400);
    assert!(err.to_string().contains(
        "includeObject: Invalid value: \"All\": must be 'Metadata', 'Object', 'None', or empty"
    ));
}

#[test]
fn crd_printer_columns_follow_their_types() {
    let crd = json!({
        "metadata": {"name": "things.x.io"},
        "spec": {"group": "x.io", "scope": "Namespaced",
            "names": {"plural": "things", "singular": "thing", "kind": "Thing", "listKind": "ThingList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "additionalPrinterColumns": [
                    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
                    {"name": "Size", "type": "number", "jsonPath": ".spec.size"},
                    {"name": "On", "type": "boolean", "jsonPath": ".spec.on"},
                    {"name": "Text", "type": "string", "jsonPath": ".spec.replicas"},
                    {"name": "Missing", "type": "string", "jsonPath": ".spec.nothing", "priority": 1},
                    {"name": "Created", "type": "date", "jsonPath": ".metadata.creationTimestamp"}
                ],
                "schema": {"openAPIV3Schema": {"type": "object"}}}]}
    });
    let kinds = kinds_for_crd(&crd).expect("valid CRD");
    let b = TableBuilder::new(&kinds[0], options(IncludeObject::None));
    let defs = b.column_definitions();
    let names: Vec<&str> = defs
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|d| d["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "Name", "Replicas", "Size", "On", "Text", "Missing", "Created"
        ]
    );
    assert_eq!(defs[5]["priority"], 1);
    let cells = b.row(&thing())["cells"].clone();
    assert_eq!(cells[0], "a");
    assert_eq!(cells[1], 3);
    assert_eq!(cells[2], 2.5);
    assert_eq!(cells[3], true);
    assert_eq!(cells[4], "3");
    assert_eq!(cells[5], Value::Null);
    // Elapsed since 2024: whole days or years, never the raw timestamp.
    let age = cells[6].as_str().expect("a duration");
    assert!(age.ends_with('d') || age.ends_with('y'), "{age}");
}

#[test]
fn age_columns_print_elapsed_time() {
    let mut kind = plain_kind();
    kind.columns = vec![Column::defaults().remove(0), Column::age()];
    let b = TableBuilder::new(&kind, options(IncludeObject::None));
    let mut obj = thing();
    obj["metadata"]["creationTimestamp"] = json!(crate::util::time::rfc3339(
        SystemTime::now() - std::time::Duration::from_secs(300)
    ));
    let cells = b.row(&obj)["cells"].clone();
    assert!(
        matches!(cells[1].as_str(), Some("5m" | "4m59s" | "5m1s")),
        "{cells}"
    );
    obj["metadata"]
        .as_object_mut()
        .expect("metadata")
        .remove("creationTimestamp");
    assert_eq!(b.row(&obj)["cells"][1], "<unknown>");
}

#[test]
fn streamed_json_matches_the_value() {
    let kind = plain_kind();
    let b = TableBuilder::new(&kind, options(IncludeObject::Metadata));
    let objs = [thing(), thing()];
    let mut meta = Map::new();
    meta.insert("continue".into(), json!("c"));
    let mut out = Vec::new();
    b.write_json(
        objs.iter().cloned().map(Ok::<_, ()>),
        meta.clone(),
        &mut out,
    )
    .expect("no errors");
    let whole = serde_json::to_vec(&b.table(&objs, meta, true)).expect("json");
    assert_eq!(String::from_utf8(out), String::from_utf8(whole));
}
