//! JSON and YAML decoding: key order, duplicates, number kinds, YAML 1.1
//! scalars, limits, and exact array sizes.

use serde_json::json;

use super::presize::array_lengths;
use super::*;

fn yaml(text: &str) -> Decoded {
    parse_yaml(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
}

fn json(text: &str) -> Decoded {
    parse_json(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn json_keeps_key_order_and_number_kinds() {
    let d = json(
        r#"{"z": 1, "a": -2, "m": 1.5, "big": 18446744073709551615, "f": 1.0, "s": "x", "n": null, "b": true}"#,
    );
    let keys: Vec<&String> = d.value.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["z", "a", "m", "big", "f", "s", "n", "b"]);
    assert!(d.value["z"].is_u64() && d.value["a"].is_i64() && d.value["m"].is_f64());
    assert_eq!(d.value["big"].as_u64(), Some(u64::MAX));
    // JSON `1.0` stays a float: Go rejects it for integer fields, and so does validation.
    assert!(d.value["f"].is_f64());
    assert!(d.duplicates.is_empty());
}

#[test]
fn json_duplicates_keep_the_last_value_and_first_position() {
    let d =
        json(r#"{"kind": "A", "metadata": {"name": "a", "labels": {}, "name": "b"}, "kind": "B"}"#);
    assert_eq!(
        d.value,
        json!({"kind": "B", "metadata": {"name": "b", "labels": {}}})
    );
    assert_eq!(d.duplicates, ["metadata.name", "kind"]);
    let keys: Vec<&String> = d.value.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["kind", "metadata"]);
}

#[test]
fn json_duplicates_are_found_at_depth_and_inside_arrays() {
    let d = json(
        r#"{"spec": {"containers": [{"name": "a"}, {"name": "b", "ports": [{"p": 1, "p": 2}], "name": "c"}],
            "foo": 1, "foo": {"x": 1, "x": 2}}}"#,
    );
    assert_eq!(
        d.duplicates,
        [
            "spec.containers[1].ports[0].p",
            "spec.containers[1].name",
            "spec.foo.x",
            "spec.foo"
        ]
    );
    assert_eq!(d.value["spec"]["containers"][1]["name"], "c");
    assert_eq!(d.value["spec"]["foo"], json!({"x": 2}));
    // A key repeated three times is reported twice.
    assert_eq!(json(r#"{"a": 1, "a": 2, "a": 3}"#).duplicates, ["a", "a"]);
    // Equal keys in different objects are not duplicates.
    assert!(json(r#"[{"a": 1}, {"a": 1}]"#).duplicates.is_empty());
}

#[test]
fn json_errors_are_one_line_with_position() {
    let cases = [
        (
            "{\"a\": tru}",
            "invalid JSON: expected ident at line 1 column 10",
        ),
        (
            "{\"a\": 1",
            "invalid JSON: EOF while parsing an object at line 1 column 7",
        ),
        (
            "{} x",
            "invalid JSON: trailing characters at line 1 column 4",
        ),
        (
            "",
            "invalid JSON: EOF while parsing a value at line 1 column 0",
        ),
        (
            "{\"a\":\n  [1,]}",
            "invalid JSON: trailing comma at line 2 column 6",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(
            parse_json(input.as_bytes()).unwrap_err().to_string(),
            want,
            "{input}"
        );
    }
    assert!(
        parse_json(b"\xff")
            .unwrap_err()
            .to_string()
            .starts_with("invalid JSON: ")
    );
}

#[test]
fn array_lengths_follow_the_order_arrays_open_in() {
    let text = br#"{"a": [1, [2, 3], "x,]", {"b": [], "c": [{"d": [true]}]}], "e": ["\"[", 4]}"#;
    assert_eq!(array_lengths(text), Some(vec![4, 2, 0, 1, 1, 2]));
    assert_eq!(array_lengths(b"[[], [[]], [ ]]"), Some(vec![3, 0, 1, 0, 0]));
    assert_eq!(array_lengths(b"[1, 2"), Some(vec![0]));
    assert_eq!(array_lengths(b"]"), None);
    assert_eq!(array_lengths(br#"["unterminated"#), None);
    // A large body is read with its arrays sized exactly, to the same value.
    let big = format!(
        "{{\"a\": [{}], \"b\": [[1], [], \"]\"]}}",
        vec!["0"; 40_000].join(",")
    );
    let parsed = parse_json(big.as_bytes()).expect("valid");
    assert_eq!(parsed.value["a"].as_array().map(Vec::len), Some(40_000));
    assert_eq!(
        parsed.value["a"].as_array().map(Vec::capacity),
        Some(40_000)
    );
    assert_eq!(parsed.value["b"], json!([[1], [], "]"]));
}

#[test]
fn json_accepts_any_top_level_value() {
    assert_eq!(json("[1, 2]").value, json!([1, 2]));
    assert_eq!(json(" \"x\" ").value, json!("x"));
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let deep = "[".repeat(200) + &"]".repeat(200);
    assert!(
        parse_json(deep.as_bytes())
            .unwrap_err()
            .to_string()
            .contains("recursion limit")
    );
    // YAML stops at serde-saphyr's default depth, 64 levels.
    let nested = |n: usize| format!("a: {}{}", "[".repeat(n), "]".repeat(n));
    assert!(parse_yaml(nested(63).as_bytes()).is_ok());
    let msg = parse_yaml(nested(200).as_bytes()).unwrap_err().to_string();
    assert!(msg.starts_with("invalid YAML: "), "{msg}");
}

#[test]
fn yaml_matches_json_for_the_same_document() {
    let from_yaml = yaml(
        "apiVersion: v1\nkind: Event\nmetadata:\n  name: e1\n  labels: {app: web}\ncount: 3\nratio: 0.25\n\
         involvedObject:\n  kind: Pod\n  name: p\nrelated: null\ntags:\n- a\n- \"b\"\n",
    );
    let from_json = json(
        r#"{"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1", "labels": {"app": "web"}},
            "count": 3, "ratio": 0.25, "involvedObject": {"kind": "Pod", "name": "p"}, "related": null,
            "tags": ["a", "b"]}"#,
    );
    assert_eq!(from_yaml, from_json);
    let keys: Vec<&String> = from_yaml.value.as_object().unwrap().keys().collect();
    assert_eq!(keys[..3], ["apiVersion", "kind", "metadata"]);
}

#[test]
fn yaml_duplicates_are_reported_by_path() {
    let d = yaml(
        "metadata:\n  name: a\n  name: b\nspec:\n  items:\n  - x: 1\n    x: 2\nmetadata:\n  name: c\n",
    );
    assert_eq!(
        d.duplicates,
        ["metadata.name", "spec.items[0].x", "metadata"]
    );
    assert_eq!(
        d.value,
        json!({"metadata": {"name": "c"}, "spec": {"items": [{"x": 2}]}})
    );
}

#[test]
fn yaml_scalars_resolve_as_kubernetes_yaml_does() {
    let d = yaml(
        "a: yes\nb: on\nc: off\nd: 012\ne: 0x1F\nf: 1_000\ng: 2024-01-01T00:00:00Z\nh: ~\ni: 1.5\n\
         j: 'on'\nk: \"012\"\nl: 5.0\nm: 1e3\nhuge: 99999999999999999999999\ny: n\n",
    );
    assert_eq!(
        d.value,
        json!({"a": true, "b": true, "c": false, "d": 10, "e": 31, "f": 1000, "g": "2024-01-01T00:00:00Z",
               "h": null, "i": 1.5, "j": "on", "k": "012", "l": 5, "m": 1000, "huge": 1e23,
               "true": false})
    );
    assert!(d.value["l"].is_u64() && d.value["i"].is_f64());
}

#[test]
fn yaml_non_string_keys_become_strings() {
    let d = yaml("1: x\ntrue: t\n2.5: z\n\"1\": w\n");
    assert_eq!(d.value, json!({"1": "w", "true": "t", "2.5": "z"}));
    // `1` and `"1"` collide once both are JSON keys.
    assert_eq!(d.duplicates, ["1"]);
    // YAML 1.1 reads a bare `on:` key as true, as Kubernetes does.
    assert_eq!(yaml("on: push\n").value, json!({"true": "push"}));
}

#[test]
fn yaml_anchors_and_merge_keys_expand() {
    let d = yaml("base: &b {x: 1}\nuse: *b\nmerged:\n  <<: *b\n  z: 2\n");
    assert_eq!(
        d.value,
        json!({"base": {"x": 1}, "use": {"x": 1}, "merged": {"z": 2, "x": 1}})
    );
}

#[test]
fn yaml_rejects_more_than_one_document_and_non_mappings() {
    assert_eq!(
        parse_yaml(b"a: 1\n---\nb: 2\n"),
        Err(DecodeError::MultipleDocuments)
    );
    assert_eq!(
        DecodeError::MultipleDocuments.to_string(),
        "invalid YAML: expected a single document, found more than one"
    );
    assert_eq!(
        parse_yaml(b""),
        Err(DecodeError::NotAMapping("an empty document"))
    );
    assert_eq!(
        parse_yaml(b"- a\n"),
        Err(DecodeError::NotAMapping("a sequence"))
    );
    assert_eq!(
        parse_yaml(b"just text\n"),
        Err(DecodeError::NotAMapping("a string"))
    );
    assert_eq!(
        parse_yaml(b"42").unwrap_err().to_string(),
        "invalid YAML: expected a mapping at the top level, found a number"
    );
    // A leading document marker is still one document.
    assert_eq!(yaml("---\na: 1\n").value, json!({"a": 1}));
}

#[test]
fn yaml_syntax_errors_are_one_line() {
    for bad in [
        "a: [1, 2\n",
        "a: b: c\n",
        "a:\n\t- x\n",
        "a: .inf\n",
        "a: *nope\n",
    ] {
        let msg = parse_yaml(bad.as_bytes()).unwrap_err().to_string();
        assert!(
            msg.starts_with("invalid YAML: ") && !msg.contains('\n'),
            "{bad:?}: {msg}"
        );
    }
    assert_eq!(
        parse_yaml(b"a: [1, 2\n").unwrap_err().to_string(),
        "invalid YAML: unclosed bracket '[' at line 1, column 4"
    );
    assert!(parse_yaml(b"a: \xff\n").is_err());
}
