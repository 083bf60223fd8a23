//! Tests of selector grammar, error texts and matching.

use std::collections::BTreeMap;

use serde_json::json;

use super::*;

fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn selects(selector: &str, pairs: &[(&str, &str)]) -> bool {
    LabelSelector::parse(selector)
        .unwrap_or_else(|e| panic!("{selector}: {e}"))
        .matches(&labels(pairs))
}

fn label_error(selector: &str) -> String {
    LabelSelector::parse(selector).expect_err(selector)
}

#[test]
fn label_operators_parse_to_requirements() {
    let s = LabelSelector::parse(
        "x in (b, a, b), !gone, env==prod, tier!=web, app=api, has, n>5, m<7, y notin (c)",
    )
    .unwrap();
    assert_eq!(
        s.to_string(),
        "app=api,env==prod,!gone,has,m<7,n>5,tier!=web,x in (a,b),y notin (c)"
    );
    let x = s.requirements().iter().find(|r| r.key == "x").unwrap();
    assert_eq!(
        (x.operator, x.values.clone()),
        (Operator::In, vec!["a".to_owned(), "b".to_owned()])
    );
    assert!(!s.is_empty());
    assert!(LabelSelector::parse("").unwrap().is_empty());
    assert!(LabelSelector::parse("  ").unwrap().is_empty());
}

#[test]
fn label_whitespace_is_tolerated() {
    let a = LabelSelector::parse("  a = b ,c  in(d ,e),  !f ").unwrap();
    let b = LabelSelector::parse("a=b,c in (d,e),!f").unwrap();
    assert_eq!(a, b);
}

#[test]
fn label_empty_values() {
    assert_eq!(
        LabelSelector::parse("a=").unwrap().requirements()[0].values,
        [""]
    );
    for empty in ["a in ()", "a notin ()", "a in ( )"] {
        assert!(
            LabelSelector::parse(empty)
                .unwrap_err()
                .contains("values set can't be empty"),
            "{empty}"
        );
    }
    assert_eq!(
        LabelSelector::parse("a in (,b)").unwrap().requirements()[0].values,
        ["", "b"]
    );
    assert_eq!(
        LabelSelector::parse("a in (b,)").unwrap().requirements()[0].values,
        ["", "b"]
    );
    assert_eq!(
        LabelSelector::parse("a in (b,,c)").unwrap().requirements()[0].values,
        ["", "b", "c"]
    );
    // `in` and `notin` are plain words where a value is expected.
    assert_eq!(
        LabelSelector::parse("a in (in, notin)")
            .unwrap()
            .requirements()[0]
            .values,
        ["in", "notin"]
    );
    assert_eq!(
        LabelSelector::parse("a=in").unwrap().requirements()[0].values,
        ["in"]
    );
}

#[test]
fn label_equality_and_sets_match() {
    assert!(selects("app=web", &[("app", "web")]));
    assert!(selects("app==web", &[("app", "web"), ("x", "y")]));
    assert!(!selects("app=web", &[("app", "api")]));
    assert!(!selects("app=web", &[]));
    assert!(selects("app in (web, api)", &[("app", "api")]));
    assert!(!selects("app in (web, api)", &[("app", "db")]));
    assert!(!selects("app in (web)", &[]));
    assert!(selects("a=", &[("a", "")]));
    assert!(!selects("a=", &[]));
    assert!(selects(
        "app=web,tier=front",
        &[("app", "web"), ("tier", "front")]
    ));
    assert!(!selects(
        "app=web,tier=front",
        &[("app", "web"), ("tier", "back")]
    ));
}

#[test]
fn label_negations_match_objects_without_the_label() {
    assert!(selects("app!=web", &[]));
    assert!(selects("app!=web", &[("app", "api")]));
    assert!(!selects("app!=web", &[("app", "web")]));
    assert!(selects("app notin (web, api)", &[]));
    assert!(selects("app notin (web, api)", &[("app", "db")]));
    assert!(!selects("app notin (web, api)", &[("app", "api")]));
}

#[test]
fn label_existence_matches() {
    assert!(selects("app", &[("app", "")]));
    assert!(!selects("app", &[("other", "x")]));
    assert!(selects("!app", &[("other", "x")]));
    assert!(!selects("!app", &[("app", "x")]));
    assert!(selects("example.com/team", &[("example.com/team", "a")]));
}

#[test]
fn label_numeric_comparisons() {
    assert!(selects("n>5", &[("n", "6")]));
    assert!(!selects("n>5", &[("n", "5")]));
    assert!(selects("n<5", &[("n", "-1")]));
    assert!(!selects("n<5", &[("n", "abc")]));
    assert!(!selects("n>5", &[]));
    assert!(selects("n>0", &[("n", "+1")]));
    // As in Kubernetes, a negative bound is not a valid label value.
    assert!(label_error("n>-3").contains("a valid label must be an empty string"));
}

#[test]
fn label_matching_reads_json_labels_and_objects() {
    let s = LabelSelector::parse("app=web,!debug").unwrap();
    let obj = json!({"metadata": {"labels": {"app": "web"}}});
    assert!(s.matches(obj["metadata"]["labels"].as_object().unwrap()));
    assert!(s.matches_object(&obj));
    assert!(!s.matches_object(&json!({"metadata": {}})));
    assert!(
        LabelSelector::parse("!app")
            .unwrap()
            .matches_object(&json!({}))
    );
    let mut hashed = std::collections::HashMap::new();
    hashed.insert("app".to_owned(), "web".to_owned());
    assert!(s.matches(&hashed));
}

#[test]
fn label_exact_match_is_reported() {
    let s = LabelSelector::parse("a=1,b in (2),c in (3,4),d!=5").unwrap();
    assert_eq!(s.requires_exact_match("a"), Some("1"));
    assert_eq!(s.requires_exact_match("b"), Some("2"));
    assert_eq!(s.requires_exact_match("c"), None);
    assert_eq!(s.requires_exact_match("d"), None);
}

#[test]
fn label_grammar_errors_read_like_kubernetes() {
    let cases = [
        ("a=b,", "found '', expected: identifier after ','"),
        ("a=b,,c", "found ',', expected: identifier after ','"),
        ("a=b c", "found 'c', expected: ',' or 'end of string'"),
        (
            "=a",
            "found '=', expected: !, identifier, or 'end of string'",
        ),
        (
            "(a)",
            "found '(', expected: !, identifier, or 'end of string'",
        ),
        (
            "!",
            "unable to parse requirement: found '', expected: identifier",
        ),
        (
            "!=a",
            "found '!=', expected: !, identifier, or 'end of string'",
        ),
        ("!a=b", "found '=', expected: ',' or 'end of string'"),
        (
            "a b",
            "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt",
        ),
        (
            "a in b",
            "unable to parse requirement: found 'b' expected: '('",
        ),
        (
            "a in (b",
            "unable to parse requirement: found '', expected: ',' or ')'",
        ),
        (
            "a in (b c)",
            "unable to parse requirement: found 'c', expected: ',' or ')'",
        ),
        (
            "a in (=)",
            "unable to parse requirement: found '=', expected: ',', ')' or identifier",
        ),
        (
            "a in (b,=)",
            "unable to parse requirement: found '=', expected: ',', or identifier",
        ),
        (
            "a==(",
            "unable to parse requirement: found '(', expected: identifier",
        ),
        (
            "a in",
            "unable to parse requirement: found '' expected: '('",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(label_error(input), want, "{input}");
    }
}

#[test]
fn label_key_and_value_syntax_is_checked() {
    assert_eq!(
        label_error("a/b/c"),
        "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
    );
    assert!(label_error("-app=x").starts_with(
        "unable to parse requirement: <nil>: Invalid value: \"-app\": name part must consist of"
    ));
    assert!(
        label_error(&format!("{}=x", "k".repeat(64)))
            .ends_with("name part must be no more than 63 characters")
    );
    assert!(label_error("Bad.Prefix/app").contains("prefix part a lowercase RFC 1123 subdomain"));
    assert!(
        label_error("app=a@b")
            .starts_with("unable to parse requirement: values[0]: Invalid value: \"a@b\": a valid label must be an empty string")
    );
    assert!(
        label_error(&format!("app={}", "v".repeat(64)))
            .ends_with("must be no more than 63 characters")
    );
    assert!(
        label_error("app in (ok, -bad)")
            .starts_with("unable to parse requirement: values[0]: Invalid value: \"-bad\"")
    );
}

#[test]
fn label_comparisons_need_integers() {
    assert_eq!(
        label_error("n>abc"),
        "unable to parse requirement: values[0]: Invalid value: \"abc\": for 'Gt', 'Lt' operators, the value must be an integer"
    );
    assert_eq!(
        label_error("n<"),
        "unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an integer"
    );
    // Two problems with one value are aggregated.
    assert!(
        label_error("n>-x").starts_with(
            "unable to parse requirement: [values[0]: Invalid value: \"-x\": for 'Gt'"
        )
    );
}

#[test]
fn field_selectors_parse_and_match() {
    let s = FieldSelector::parse("involvedObject.kind=Pod,type!=Normal,metadata.name==e1").unwrap();
    assert_eq!(s.fields(), ["involvedObject.kind", "metadata.name", "type"]);
    assert_eq!(
        s.to_string(),
        "involvedObject.kind=Pod,metadata.name=e1,type!=Normal"
    );
    let event = |kind: &str, ty: Option<&str>| {
        let (kind, ty) = (kind.to_owned(), ty.map(str::to_owned));
        move |f: &str| match f {
            "involvedObject.kind" => Some(kind.clone()),
            "metadata.name" => Some("e1".to_owned()),
            "type" => ty.clone(),
            _ => None,
        }
    };
    assert!(s.matches(event("Pod", Some("Warning"))));
    assert!(!s.matches(event("Pod", Some("Normal"))));
    assert!(!s.matches(event("Node", Some("Warning"))));
    // A missing field reads as "": it differs from "Normal" and equals "".
    assert!(s.matches(event("Pod", None)));
    assert!(
        FieldSelector::parse("type=")
            .unwrap()
            .matches(|_| None::<&str>)
    );
    assert_eq!(s.requires_exact_match("metadata.name"), Some("e1"));
    assert_eq!(s.requires_exact_match("type"), None);
}

#[test]
fn field_selector_empty_forms_select_everything() {
    for input in ["", ",", ",,"] {
        let s = FieldSelector::parse(input).unwrap();
        assert!(s.is_empty() && s.matches(|_| None::<&str>), "{input:?}");
    }
}

#[test]
fn field_selector_values_unescape() {
    let s = FieldSelector::parse(r"a=x\,y\=z\\w,b!=\\").unwrap();
    assert_eq!(s.terms()[0].value, r"x,y=z\w");
    assert_eq!(
        s.terms()[1],
        FieldTerm {
            field: "b".into(),
            negated: true,
            value: "\\".into()
        }
    );
    assert_eq!(s.to_string(), r"a=x\,y\=z\\w,b!=\\");
    // The first operator splits; spaces are part of names and values.
    let spaced = FieldSelector::parse("a = b").unwrap();
    assert_eq!(
        (
            spaced.terms()[0].field.as_str(),
            spaced.terms()[0].value.as_str()
        ),
        ("a ", " b")
    );
}

#[test]
fn field_selector_errors_read_like_kubernetes() {
    assert_eq!(
        FieldSelector::parse("a").unwrap_err(),
        "invalid selector: 'a'; can't understand 'a'"
    );
    assert_eq!(
        FieldSelector::parse("x=1,bad").unwrap_err(),
        "invalid selector: 'x=1,bad'; can't understand 'bad'"
    );
    assert_eq!(
        FieldSelector::parse("a!b").unwrap_err(),
        "invalid selector: 'a!b'; can't understand 'a!b'"
    );
    assert_eq!(
        FieldSelector::parse("a=b=c").unwrap_err(),
        "invalid field selector: unescaped character in value: ="
    );
    assert_eq!(
        FieldSelector::parse("a!==c").unwrap_err(),
        "invalid field selector: unescaped character in value: ="
    );
    assert_eq!(
        FieldSelector::parse(r"a=\x").unwrap_err(),
        r"invalid field selector: invalid escape sequence: \x"
    );
    assert_eq!(
        FieldSelector::parse(r"a=b\").unwrap_err(),
        r"invalid field selector: invalid escape sequence: \"
    );
}
