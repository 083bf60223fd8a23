//! The transcoder against the `Value` path: same bytes for every numbered
//! kind's generated objects, the same refusals for objects broken anywhere,
//! and a clean give-up (nothing written) on input it does not place.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use clap::Parser as _;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestRunner};
use serde_json::{Map, Value, json};

use super::transcode::{self, Unplaced};
use super::*;
use crate::api::kinds::{self, config_map};
use crate::api::schema::SchemaType;
use crate::config::{Config, Flags};
use crate::storage::{KeyValue, Revision};

/// A stored record under a key of its own (the message cache is shared by
/// every test of the process).
fn kv(json: &[u8], rev: u64) -> KeyValue {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    KeyValue {
        key: Bytes::from(format!("/registry/transcode-tests/{n}")),
        value: Bytes::copy_from_slice(json),
        create_revision: Revision(1),
        mod_revision: Revision(rev),
        version: 1,
        lease: None,
    }
}

/// What `stored_messages` produced before the transcoder: parse, set the
/// revision, encode.
fn value_path(schema: &Schema, kv: &KeyValue) -> Option<Vec<u8>> {
    let served = Store::decode_stored(kv).ok()?;
    encode_message(schema, &served).ok()
}

/// The transcoder's message; on `Err` it must have written nothing.
fn transcoded(schema: &Schema, kv: &KeyValue) -> Option<Vec<u8>> {
    let mut out = vec![0xee];
    let rv = kv.mod_revision.get().to_string();
    match transcode::stored_message(schema, &kv.value, &rv, &mut out) {
        Ok(()) => Some(out.split_off(1)),
        Err(Unplaced) => {
            assert_eq!(out, [0xee], "a give-up leaves the output as it was");
            None
        }
    }
}

fn builtin_kinds() -> Vec<Arc<KindSpec>> {
    let config = Config::from(Flags::parse_from([
        "cairn-apiserver",
        "--api-domain",
        "k8s.io",
    ]));
    kinds::builtin(&config)
        .snapshot()
        .iter()
        .filter(|k| offered(&k.schema))
        .cloned()
        .collect()
}

fn text() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => "[a-z0-9.-]{0,12}".prop_map(Value::from),
        1 => any::<String>().prop_map(Value::from),
    ]
    .boxed()
}

fn time() -> BoxedStrategy<Value> {
    (
        1971..2200u32,
        1..=12u32,
        1..=28u32,
        0..24u32,
        0..60u32,
        0..60u32,
        prop_oneof![Just(String::new()), "\\.[0-9]{1,9}"],
        prop_oneof![Just("Z".to_string()), "[+-]0[0-9]:[0-5][0-9]"],
    )
        .prop_map(|(y, mo, d, h, mi, s, frac, zone)| {
            Value::from(format!(
                "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}{frac}{zone}"
            ))
        })
        .boxed()
}

/// Any JSON (free-form fields, and what breaks an object).
fn any_json() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        text(),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            vec(("[a-zA-Z]{1,8}", inner), 0..4)
                .prop_map(|kvs| Value::Object(kvs.into_iter().collect())),
        ]
    })
    .boxed()
}

/// Values `schema` admits (what protobuf carries), unset or `null` at times.
fn value_of(schema: &Schema) -> BoxedStrategy<Value> {
    if schema.time_precision.is_some() {
        return time();
    }
    if schema.int_or_string {
        return prop_oneof![any::<i32>().prop_map(Value::from), text()].boxed();
    }
    if schema.preserve_unknown_fields && schema.properties.is_empty() {
        return any_json();
    }
    if let Some(items) = &schema.items {
        return vec(value_of(items), 0..3).prop_map(Value::Array).boxed();
    }
    if let Some(values) = &schema.additional_properties
        && schema.properties.is_empty()
    {
        let value = prop_oneof![9 => value_of(values), 1 => Just(Value::Null)];
        return vec((any::<String>(), value), 0..3)
            .prop_map(|kvs| Value::Object(kvs.into_iter().collect()))
            .boxed();
    }
    match schema.ty {
        Some(SchemaType::Object) => object_of(schema, &[]),
        Some(SchemaType::String) if schema.format.as_deref() == Some("byte") => {
            vec(any::<u8>(), 0..12)
                .prop_map(|b| Value::from(STANDARD.encode(b)))
                .boxed()
        }
        Some(SchemaType::String) => text(),
        Some(SchemaType::Integer) => any::<i64>().prop_map(Value::from).boxed(),
        Some(SchemaType::Number) => prop_oneof![
            any::<f64>().prop_map(Value::from),
            any::<i32>().prop_map(Value::from)
        ]
        .boxed(),
        Some(SchemaType::Boolean) => any::<bool>().prop_map(Value::from).boxed(),
        _ => Just(Value::Null).boxed(),
    }
}

/// An object of `schema`'s numbered properties in any order, plus `fixed`.
fn object_of(schema: &Schema, fixed: &[(&str, Value)]) -> BoxedStrategy<Value> {
    let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = schema
        .properties
        .iter()
        .filter(|(_, s)| s.proto.is_some())
        .map(|(name, s)| {
            let name = name.clone();
            prop_oneof![
                3 => value_of(s).prop_map(Some),
                1 => Just(None),
                1 => Just(Some(Value::Null)),
            ]
            .prop_map(move |v| v.map(|v| (name.clone(), v)))
            .boxed()
        })
        .collect();
    let fixed: Vec<(String, Value)> = fixed
        .iter()
        .map(|(k, v)| ((*k).to_string(), v.clone()))
        .collect();
    fields
        .prop_shuffle()
        .prop_map(move |fields| {
            let mut obj: Map<String, Value> = fixed.iter().cloned().collect();
            obj.extend(fields.into_iter().flatten());
            Value::Object(obj)
        })
        .boxed()
}

fn stored_object_of(kind: &KindSpec) -> BoxedStrategy<Value> {
    object_of(
        &kind.schema,
        &[
            ("apiVersion", Value::from(kind.api_version())),
            ("kind", Value::from(kind.kind.clone())),
        ],
    )
}

/// `v` with its `at`-th node in preorder (mod the count) replaced by `with`.
fn broken(mut v: Value, at: usize, with: Value) -> Value {
    fn count(v: &Value) -> usize {
        1 + match v {
            Value::Array(items) => items.iter().map(count).sum(),
            Value::Object(map) => map.values().map(count).sum(),
            _ => 0,
        }
    }
    fn replace(v: &mut Value, at: &mut usize, with: &mut Option<Value>) {
        if *at == 0 {
            if let Some(w) = with.take() {
                *v = w;
            }
            return;
        }
        *at -= 1;
        match v {
            Value::Array(items) => items.iter_mut().for_each(|i| replace(i, at, with)),
            Value::Object(map) => map.values_mut().for_each(|i| replace(i, at, with)),
            _ => {}
        }
    }
    let mut at = at % count(&v);
    replace(&mut v, &mut at, &mut Some(with));
    v
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(RunnerConfig {
        cases,
        failure_persistence: None,
        ..RunnerConfig::default()
    })
}

#[test]
fn every_numbered_kind_transcodes_to_the_value_paths_bytes() {
    let kinds = builtin_kinds();
    assert!(kinds.len() >= 10, "numbered kinds: {}", kinds.len());
    // A CertificateSigningRequest's `spec.request` is `bytes` (base64 in
    // JSON), which the transcoder leaves to the value path (it declines and
    // `fresh_message` falls back), so it is not held to the fast path here.
    for kind in kinds
        .into_iter()
        .filter(|k| k.kind != "CertificateSigningRequest")
    {
        let strategy = (stored_object_of(&kind), 1..u64::MAX / 2);
        runner(48)
            .run(&strategy, |(obj, rev)| {
                let kv = kv(&serde_json::to_vec(&obj).expect("json"), rev);
                let expected = value_path(&kind.schema, &kv);
                prop_assert!(expected.is_some(), "{} {obj}", kind.kind);
                prop_assert_eq!(transcoded(&kind.schema, &kv), expected);
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{}: {e}", kind.kind));
    }
}

#[test]
fn objects_broken_anywhere_are_refused_or_encoded_alike() {
    // `bytes` fields are the value path's (see above).
    for kind in builtin_kinds()
        .into_iter()
        .filter(|k| k.kind != "CertificateSigningRequest")
    {
        let strategy = (
            stored_object_of(&kind),
            any::<usize>(),
            any_json(),
            1..1000u64,
        );
        runner(48)
            .run(&strategy, |(obj, at, with, rev)| {
                let obj = broken(obj, at, with);
                let kv = kv(&serde_json::to_vec(&obj).expect("json"), rev);
                prop_assert_eq!(transcoded(&kind.schema, &kv), value_path(&kind.schema, &kv));
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{}: {e}", kind.kind));
    }
}

#[test]
fn stored_messages_match_the_served_form_of_every_numbered_kind() {
    // Through the cache's entry point, conversion kinds included (those take
    // the `Value` path; the others are transcoded).
    for (i, kind) in builtin_kinds().into_iter().enumerate() {
        let strategy = stored_object_of(&kind);
        runner(8)
            .run(&strategy, |obj| {
                let rev = 1_000_000 + i as u64;
                let kv = kv(&serde_json::to_vec(&obj).expect("json"), rev);
                let served = Store::decode_served(&kind, &kv).expect("stored JSON");
                let expected = encode_message(&kind.schema, &served).expect("encodable");
                let got = stored_message(&kind, &kv).expect("encodable");
                prop_assert_eq!(&got[..], &expected[..]);
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{}: {e}", kind.kind));
    }
}

fn event_schema() -> Schema {
    kinds::event::schema()
}

#[test]
fn the_revision_replaces_a_stored_one_in_place_or_comes_last() {
    let schema = event_schema();
    let meta = |m: Value| {
        let json = serde_json::to_vec(&json!({"apiVersion": "v1", "kind": "Event", "metadata": m}))
            .expect("json");
        let bytes = transcoded(&schema, &kv(&json, 42)).expect("placed");
        let mut r = wire::Reader::new(&bytes);
        let Some((1, wire::Field::Bytes(inner))) = r.next_field().expect("ok") else {
            panic!("metadata first");
        };
        let mut fields = Vec::new();
        let mut r = wire::Reader::new(inner);
        while let Some((n, f)) = r.next_field().expect("ok") {
            let wire::Field::Bytes(b) = f else {
                panic!("strings only")
            };
            fields.push((n, String::from_utf8(b.to_vec()).expect("utf-8")));
        }
        fields
    };
    // ObjectMeta: name=1, resourceVersion=6, uid=5.
    assert_eq!(
        meta(json!({"name": "a", "resourceVersion": "3", "uid": "u"})),
        [(1, "a".into()), (6, "42".into()), (5, "u".into())]
    );
    assert_eq!(
        meta(json!({"name": "a", "uid": "u"})),
        [(1, "a".into()), (5, "u".into()), (6, "42".into())]
    );
    assert_eq!(
        meta(json!({"resourceVersion": null})),
        [(6, "42".to_string())]
    );
}

#[test]
fn input_it_cannot_place_is_given_up_and_the_value_path_answers() {
    let schema = event_schema();
    let cases: [&[u8]; 9] = [
        b"",
        b"not json",
        b"[1, 2]",
        b"\"text\"",
        b"{\"metadata\": {\"name\": \"a\"}} trailing",
        b"{\"metadata\": {\"name\": \"a\"",
        // Repeated keys: the `Value` path keeps the last, in the first's place.
        b"{\"metadata\": {\"name\": \"a\"}, \"reason\": \"x\", \"metadata\": {\"name\": \"b\"}}",
        b"{\"count\": 1.5}",
        b"{\"count\": 18446744073709551615}",
    ];
    for json in cases {
        let kv = kv(json, 7);
        assert_eq!(
            transcoded(&schema, &kv),
            None,
            "{}",
            String::from_utf8_lossy(json)
        );
    }
    let kind = builtin_kinds()
        .into_iter()
        .find(|k| k.kind == "Event" && k.group.is_empty())
        .expect("Event");
    let duplicated = kv(cases[6], 7);
    assert_eq!(
        stored_message(&kind, &duplicated)
            .expect("encodable")
            .to_vec(),
        value_path(&schema, &duplicated).expect("encodable"),
    );
    assert!(matches!(
        stored_message(&kind, &kv(b"not json", 7)),
        Err(ApiError::Internal(_))
    ));
    assert!(matches!(
        stored_message(&kind, &kv(cases[7], 7)),
        Err(ApiError::NotAcceptable(_))
    ));
}

#[test]
fn escapes_free_form_fields_and_edge_numbers_come_out_alike() {
    let cases = [
        (
            event_schema(),
            json!({"apiVersion": "v1", "kind": "Event",
                "metadata": {"name": "a\"b\\c\u{1}\u{e9}\u{1f600}", "labels": {"k\n\u{2028}": "v\t"},
                    "annotations": {"": "", "x": null},
                    "managedFields": [{"manager": "m", "fieldsType": "FieldsV1",
                        "fieldsV1": {"f:a": {".": {}, "f:b\"": {}}, "n": [1, -2, 0.5, 1e300, null]},
                        "time": "2024-05-01T10:00:00.123+02:00"}]},
                "count": -1, "firstTimestamp": "1970-01-01T00:00:00Z",
                "eventTime": "2024-05-01T10:00:00.999999999Z", "unknown": null}),
        ),
        (
            config_map::schema(),
            json!({"metadata": {"generation": 9_223_372_036_854_775_807_i64},
                "binaryData": {"b": "", "c": "AAEC/w=="}, "immutable": true}),
        ),
    ];
    for (schema, obj) in cases {
        let kv = kv(&serde_json::to_vec(&obj).expect("json"), 5);
        let expected = value_path(&schema, &kv);
        assert!(expected.is_some(), "{obj}");
        assert_eq!(transcoded(&schema, &kv), expected, "{obj}");
    }
}

#[test]
fn pods_with_empty_free_form_objects_and_quantities_transcode() {
    let schema = crate::api::kinds::pod::schema();
    let pod = br#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","resourceVersion":"1"},
        "spec":{"securityContext":{},"containers":[{"name":"c","resources":{"limits":{"cpu":2,"memory":"1Gi"}}}]},
        "status":{"phase":"Pending"}}"#;
    let stored = kv(pod, 7);
    let fast = transcoded(&schema, &stored).expect("transcodable");
    assert_eq!(Some(fast), value_path(&schema, &stored));
    // A free-form value with content is given up, as the value path fails.
    let probed =
        br#"{"metadata":{"name":"p"},"spec":{"securityContext":{"runAsUser":1},"containers":[]}}"#;
    let refused = kv(probed, 8);
    assert_eq!(transcoded(&schema, &refused), None);
    assert_eq!(value_path(&schema, &refused), None);
}
