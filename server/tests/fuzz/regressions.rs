//! Inputs the fuzz targets once crashed or mis-read, kept as named tests so
//! the fixes stay in place whatever the random streams reach.

use cairn_apiserver::api::decode::parse_json;
use cairn_apiserver::api::selectors::LabelSelector;

/// The lexer looked two bytes ahead for `!=`/`==` by slicing, which panics
/// when a symbol is followed by a multi-byte character.
#[test]
fn label_selector_symbol_before_multibyte_character_is_refused_not_panicked() {
    for input in [")\u{e9}E", "app=\u{fffd}eb", "!\u{1F600}", "x,\u{e9}"] {
        let _ = LabelSelector::parse(input);
    }
    let parsed = LabelSelector::parse("app=\u{e9}").map(|s| s.to_string());
    assert!(parsed.is_err(), "a label value is ASCII: {parsed:?}");
}

/// Integers beyond u64 become the nearest double, as Go's decoder makes
/// them; serde_json's default fast path was one ulp off for this one.
#[test]
fn integers_beyond_u64_read_as_the_nearest_double() {
    let decoded = parse_json(b"[9012345678901234567890]").expect("valid JSON");
    assert_eq!(
        decoded.value[0].as_f64(),
        Some(9_012_345_678_901_234_567_890_f64)
    );
    let text = serde_json::to_vec(&decoded.value).expect("serializable");
    assert_eq!(parse_json(&text).expect("own output").value, decoded.value);
}

/// CBOR nested deeper than the JSON decoder reads was converted to JSON
/// text that decoder then refused (as JSON); it is refused as CBOR now, and
/// the deepest nesting accepted converts to JSON that parses.
#[test]
fn cbor_nested_past_the_json_depth_is_refused_as_cbor() {
    use cairn_apiserver::http::cbor;
    let nested = |depth: usize| {
        let mut body = vec![0xd9, 0xd9, 0xf7];
        body.extend(std::iter::repeat_n(0x81, depth - 1));
        body.push(0x80);
        body
    };
    let deep = cbor::decode(&nested(128)).expect_err("too deep");
    assert_eq!(deep, "exceeded max nested level 127");
    let json = cbor::body_to_json(&nested(127)).expect("deepest accepted");
    parse_json(&json).expect("converted body parses");
}

/// Found by cargo-fuzz (`label_selector`): `a notin(,)` holds the empty
/// string as its only value and prints as `a notin ()`, which is refused
/// when read back (not checked against Kubernetes here); the
/// target's round-trip check failed on it.
#[test]
fn label_selector_of_only_empty_values_prints_a_form_that_is_refused() {
    let selector = LabelSelector::parse("a notin(,)").expect("empty values are values");
    let printed = selector.to_string();
    assert_eq!(printed, "a notin ()");
    assert!(LabelSelector::parse(&printed).is_err());
    let target = cairn_apiserver::fuzz_targets::target("label_selector").expect("target");
    (target.check)(b"a notin(,)");
}
