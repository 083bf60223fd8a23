//! The bad-input corpus: one table of malformed requests over every
//! endpoint shape that takes a body or parameters. Each must answer its 4xx
//! `Status` and change nothing (the store's revision stays where it was).

use cairn_tests::Server;
use serde_json::json;

use super::fixtures::{self, CM, CMS, EVENT, POD, WIDGET, WIDGETS};

/// One malformed request and the status Kubernetes (or the issue) gives it.
pub struct Case {
    pub id: String,
    pub method: &'static str,
    pub path: String,
    pub content_type: Option<&'static str>,
    pub body: Vec<u8>,
    pub want: u16,
}

const JSON: Option<&str> = Some("application/json");
const MERGE: Option<&str> = Some("application/merge-patch+json");
const JSON_PATCH: Option<&str> = Some("application/json-patch+json");
const APPLY: Option<&str> = Some("application/apply-patch+yaml");

fn case(
    id: impl Into<String>,
    method: &'static str,
    path: impl Into<String>,
    content_type: Option<&'static str>,
    body: impl Into<Vec<u8>>,
    want: u16,
) -> Case {
    Case {
        id: id.into(),
        method,
        path: path.into(),
        content_type,
        body: body.into(),
        want,
    }
}

/// DeleteOptions bodies that must not delete anything.
const BAD_DELETE_OPTIONS: [(&str, &str); 10] = [
    ("array", "[]"),
    ("string", "\"x\""),
    ("number", "5"),
    ("boolean", "true"),
    ("grace-string", r#"{"gracePeriodSeconds":"soon"}"#),
    ("grace-float", r#"{"gracePeriodSeconds":1.5}"#),
    ("precondition-uid-number", r#"{"preconditions":{"uid":5}}"#),
    (
        "precondition-rv-garbage",
        r#"{"preconditions":{"resourceVersion":"abc"}}"#,
    ),
    ("dryrun-string", r#"{"dryRun":"All"}"#),
    (
        "other-kind",
        r#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}"#,
    ),
];

fn delete_cases(out: &mut Vec<Case>) {
    let targets = [
        ("item", CM.to_string()),
        ("collection", CMS.to_string()),
        ("custom-item", WIDGET.to_string()),
        ("custom-collection", WIDGETS.to_string()),
    ];
    for (target, path) in targets {
        for (id, body) in BAD_DELETE_OPTIONS {
            out.push(case(
                format!("delete.{target}.{id}"),
                "DELETE",
                &path,
                JSON,
                body,
                400,
            ));
        }
    }
}

fn eviction_cases(out: &mut Vec<Case>) {
    let path = format!("{POD}/eviction");
    let bodies = [
        ("empty", "{}".to_string()),
        ("null", "null".into()),
        ("array", "[]".into()),
        ("other-name", r#"{"metadata":{"name":"q"}}"#.into()),
        (
            "other-namespace",
            r#"{"metadata":{"name":"p","namespace":"kube-system"}}"#.into(),
        ),
        (
            "dotdot-namespace",
            r#"{"metadata":{"name":"p","namespace":"../default"}}"#.into(),
        ),
        (
            "other-kind",
            r#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}"#.into(),
        ),
        ("metadata-string", r#"{"metadata":"p"}"#.into()),
        (
            "bad-delete-options",
            r#"{"metadata":{"name":"p"},"deleteOptions":{"gracePeriodSeconds":"soon"}}"#.into(),
        ),
        (
            "delete-options-array",
            r#"{"metadata":{"name":"p"},"deleteOptions":[]}"#.into(),
        ),
    ];
    for (id, body) in bodies {
        out.push(case(
            format!("eviction.{id}"),
            "POST",
            &path,
            JSON,
            body,
            400,
        ));
    }
}

fn custom_resource_cases(out: &mut Vec<Case>) {
    out.push(case("custom.put.empty", "PUT", WIDGET, JSON, "{}", 400));
    out.push(case(
        "custom.put-status.empty",
        "PUT",
        format!("{WIDGET}/status"),
        JSON,
        "{}",
        400,
    ));
    out.push(case(
        "custom.post.no-kind",
        "POST",
        WIDGETS,
        JSON,
        r#"{"metadata":{"name":"w9"}}"#,
        400,
    ));
    let unconditional = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {}});
    out.push(case(
        "custom.put.no-resource-version",
        "PUT",
        WIDGET,
        JSON,
        unconditional.to_string(),
        422,
    ));
    let huge = r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"big"},"spec":{"replicas":9223372036854775808}}"#;
    out.push(case(
        "custom.post.integer-beyond-int64",
        "POST",
        WIDGETS,
        JSON,
        huge,
        400,
    ));
    out.push(case(
        "custom.patch.integer-beyond-int64",
        "PATCH",
        WIDGET,
        MERGE,
        r#"{"spec":{"replicas":9223372036854775808}}"#,
        400,
    ));
    let scale = format!("{WIDGET}/scale");
    let scales = [
        ("null", "null", 400),
        ("empty", "{}", 400),
        ("array", "[]", 400),
        (
            "other-name",
            r#"{"metadata":{"name":"w2"},"spec":{"replicas":3}}"#,
            400,
        ),
        (
            "other-kind",
            r#"{"kind":"Pod","metadata":{"name":"w1"},"spec":{"replicas":3}}"#,
            400,
        ),
        (
            "other-api-version",
            r#"{"apiVersion":"v1","metadata":{"name":"w1"},"spec":{"replicas":3}}"#,
            400,
        ),
        (
            "other-namespace",
            r#"{"metadata":{"name":"w1","namespace":"kube-system"},"spec":{"replicas":3}}"#,
            400,
        ),
        (
            "dotdot-namespace",
            r#"{"metadata":{"name":"w1","namespace":"../default"},"spec":{"replicas":3}}"#,
            400,
        ),
        (
            "replicas-string",
            r#"{"metadata":{"name":"w1"},"spec":{"replicas":"3"}}"#,
            400,
        ),
        (
            "replicas-beyond-int32",
            r#"{"metadata":{"name":"w1"},"spec":{"replicas":4294967296}}"#,
            400,
        ),
        (
            "negative-replicas",
            r#"{"metadata":{"name":"w1"},"spec":{"replicas":-1}}"#,
            422,
        ),
    ];
    for (id, body, want) in scales {
        out.push(case(
            format!("scale.put.{id}"),
            "PUT",
            &scale,
            JSON,
            body,
            want,
        ));
    }
    let strict = format!("{scale}?fieldValidation=Strict");
    out.push(case(
        "scale.put.strict-unknown",
        "PUT",
        &strict,
        JSON,
        r#"{"metadata":{"name":"w1"},"spec":{"replicas":3,"extra":1}}"#,
        400,
    ));
    out.push(case(
        "scale.put.strict-duplicate",
        "PUT",
        &strict,
        JSON,
        r#"{"metadata":{"name":"w1"},"spec":{"replicas":3,"replicas":4}}"#,
        400,
    ));
    out.push(case(
        "scale.patch.force",
        "PATCH",
        format!("{scale}?force=true"),
        MERGE,
        r#"{"spec":{"replicas":3}}"#,
        400,
    ));
    out.push(case(
        "scale.patch.other-namespace",
        "PATCH",
        &scale,
        MERGE,
        r#"{"metadata":{"namespace":"kube-system"}}"#,
        400,
    ));
    out.push(case(
        "custom.patch.force",
        "PATCH",
        format!("{WIDGET}?force=true"),
        MERGE,
        r#"{"spec":{"replicas":3}}"#,
        400,
    ));
}

fn apply_cases(out: &mut Vec<Case>) {
    for (id, meta) in [
        ("string", "\"x\""),
        ("number", "5"),
        ("boolean", "true"),
        ("list", "[\"x\"]"),
    ] {
        let body = format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{meta},"data":{{"a":"2"}}}}"#
        );
        let existing = format!("{CM}?fieldManager=bad");
        out.push(case(
            format!("apply.metadata-{id}.existing"),
            "PATCH",
            existing,
            APPLY,
            body.clone(),
            400,
        ));
        let missing = format!("{CMS}/fresh?fieldManager=bad");
        out.push(case(
            format!("apply.metadata-{id}.create"),
            "PATCH",
            missing,
            APPLY,
            body,
            400,
        ));
    }
    // `data.a` is owned by the creator; a wrong type is an error before it is a conflict.
    let typed = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":5}}"#;
    out.push(case(
        "apply.type-error-before-conflict",
        "PATCH",
        format!("{CM}?fieldManager=other"),
        APPLY,
        typed,
        400,
    ));
    let typed = r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"replicas":"many"}}"#;
    out.push(case(
        "apply.custom-type-error-before-conflict",
        "PATCH",
        format!("{WIDGET}?fieldManager=other"),
        APPLY,
        typed,
        // A wrong type is a bad request for custom resources too (spec 7).
        400,
    ));
}

fn patch_cases(out: &mut Vec<Case>) {
    for (target, path) in [("core", CM.to_string()), ("custom", WIDGET.to_string())] {
        out.push(case(
            format!("patch.{target}.merge-namespace"),
            "PATCH",
            &path,
            MERGE,
            r#"{"metadata":{"namespace":"kube-system"}}"#,
            400,
        ));
        out.push(case(
            format!("patch.{target}.merge-uid"),
            "PATCH",
            &path,
            MERGE,
            r#"{"metadata":{"uid":"11111111-2222-3333-4444-555555555555"}}"#,
            422,
        ));
        out.push(case(
            format!("patch.{target}.json-uid"),
            "PATCH",
            &path,
            JSON_PATCH,
            r#"[{"op":"replace","path":"/metadata/uid","value":"x"}]"#,
            422,
        ));
        out.push(case(
            format!("patch.{target}.merge-name"),
            "PATCH",
            &path,
            MERGE,
            r#"{"metadata":{"name":"renamed"}}"#,
            400,
        ));
    }
    // Each copy doubles the list it copies into; Kubernetes stops at 3 MiB copied.
    let mut ops = vec![r#"{"op":"add","path":"/metadata/annotations","value":{"k":[["0123456789abcdef0123456789abcdef"]]}}"#.to_string()];
    for _ in 0..40 {
        ops.push(
            r#"{"op":"copy","from":"/metadata/annotations/k","path":"/metadata/annotations/k/-"}"#
                .into(),
        );
    }
    out.push(case(
        "patch.json.copy-bomb",
        "PATCH",
        CM,
        JSON_PATCH,
        format!("[{}]", ops.join(",")),
        422,
    ));
    let many = vec![r#"{"op":"test","path":"/data/a","value":"1"}"#; 10_001].join(",");
    out.push(case(
        "patch.json.too-many-operations",
        "PATCH",
        CM,
        JSON_PATCH,
        format!("[{many}]"),
        413,
    ));
}

fn list_cases(out: &mut Vec<Case>) {
    let shapes = [
        ("list", "GET", CMS.to_string()),
        ("custom-list", "GET", WIDGETS.to_string()),
        ("deletecollection", "DELETE", CMS.to_string()),
    ];
    for (shape, method, path) in shapes {
        let params = [
            ("timeout-word", "timeoutSeconds=soon", 400),
            (
                "timeout-overflow",
                "timeoutSeconds=99999999999999999999",
                400,
            ),
            ("send-initial-events", "sendInitialEvents=true", 422),
            ("label-in-empty", "labelSelector=a%20in%20()", 400),
            ("label-notin-empty", "labelSelector=a%20notin%20()", 400),
        ];
        for (id, query, want) in params {
            out.push(case(
                format!("{shape}.{id}"),
                method,
                format!("{path}?{query}"),
                None,
                "",
                want,
            ));
        }
    }
    out.push(case(
        "watch.label-in-empty",
        "GET",
        format!("{CMS}?watch=true&labelSelector=a%20in%20()"),
        None,
        "",
        400,
    ));
    out.push(case(
        "watch.timeout-word",
        "GET",
        format!("{CMS}?watch=true&timeoutSeconds=soon"),
        None,
        "",
        400,
    ));
}

/// A CBOR ConfigMap whose `data.a` is `undefined` (0xf7).
fn cbor_with_undefined(name: &str) -> Vec<u8> {
    let text = |s: &str| {
        let mut out = vec![0x60 + u8::try_from(s.len()).expect("short")];
        out.extend_from_slice(s.as_bytes());
        out
    };
    let mut out = vec![0xd9, 0xd9, 0xf7, 0xa4];
    for part in [
        text("apiVersion"),
        text("v1"),
        text("kind"),
        text("ConfigMap"),
        text("metadata"),
    ] {
        out.extend(part);
    }
    out.push(0xa1);
    out.extend(text("name"));
    out.extend(text(name));
    out.extend(text("data"));
    out.push(0xa1);
    out.extend(text("a"));
    out.push(0xf7);
    out
}

fn media_cases(out: &mut Vec<Case>) {
    let body = fixtures::config_map("ct").to_string();
    out.push(case(
        "content-type.semicolons.post",
        "POST",
        CMS,
        Some(";;;"),
        body.clone(),
        415,
    ));
    out.push(case(
        "content-type.semicolons.put",
        "PUT",
        CM,
        Some(";;;"),
        fixtures::config_map("cm").to_string(),
        415,
    ));
    out.push(case(
        "content-type.semicolons.patch",
        "PATCH",
        CM,
        Some(";;;"),
        "{}",
        415,
    ));
    out.push(case(
        "content-type.semicolons.event-put",
        "PUT",
        EVENT,
        Some(";;;"),
        fixtures::event("ev").to_string(),
        415,
    ));
    let cbor = Some("application/cbor");
    out.push(case(
        "cbor.undefined.post",
        "POST",
        CMS,
        cbor,
        cbor_with_undefined("cb"),
        400,
    ));
    out.push(case(
        "cbor.undefined.put",
        "PUT",
        CM,
        cbor,
        cbor_with_undefined("cm"),
        400,
    ));
    out.push(case(
        "cbor.undefined.apply",
        "PATCH",
        format!("{CM}?fieldManager=cb"),
        Some("application/apply-patch+cbor"),
        cbor_with_undefined("cm"),
        400,
    ));
}

/// Every case.
pub fn all() -> Vec<Case> {
    let mut out = Vec::new();
    delete_cases(&mut out);
    eviction_cases(&mut out);
    custom_resource_cases(&mut out);
    apply_cases(&mut out);
    patch_cases(&mut out);
    list_cases(&mut out);
    media_cases(&mut out);
    out
}

/// Sends one case; returns what went wrong, if anything.
pub fn check(s: &Server, c: &Case) -> Option<String> {
    let before = fixtures::revision(s);
    let mut headers = Vec::new();
    if let Some(ct) = c.content_type {
        headers.push(("Content-Type", ct));
    }
    let body = (!c.body.is_empty() || c.method != "GET").then_some(c.body.as_slice());
    let r = match cairn_tests::client::request(s.port, c.method, &c.path, &headers, body) {
        Ok(r) => r,
        Err(e) => {
            return Some(format!(
                "{} ({} {}): no answer: {e}",
                c.id, c.method, c.path
            ));
        }
    };
    let mut problems = Vec::new();
    if r.status != c.want {
        problems.push(format!(
            "status {} (want {}): {}",
            r.status,
            c.want,
            cut(&r.text())
        ));
    } else {
        let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap_or_default();
        if v["kind"] != "Status" || v["code"].as_u64() != Some(u64::from(c.want)) {
            problems.push(format!(
                "not a Status with code {}: {}",
                c.want,
                cut(&r.text())
            ));
        }
    }
    let after = fixtures::revision(s);
    if after != before {
        problems.push(format!("the store changed: revision {before} → {after}"));
    }
    (!problems.is_empty()).then(|| {
        format!(
            "{} ({} {}): {}",
            c.id,
            c.method,
            c.path,
            problems.join("; ")
        )
    })
}

fn cut(text: &str) -> String {
    text.chars().take(300).collect()
}
