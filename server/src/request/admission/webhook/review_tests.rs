//! AdmissionReview requests and the meaning of answers.

use serde_json::json;

use super::*;
use crate::api::kind::KindSpec;
use crate::api::schema::Schema;
use crate::api::store::WriteOptions;

fn answer_of(response: Value) -> Result<Result<Answer, ApiError>, String> {
    let doc = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response});
    answer("h.example.com", doc.to_string().as_bytes(), "u-1")
}

#[test]
fn denials_carry_the_webhooks_code_and_message() {
    let denied = |status: Value| match answer_of(
        json!({"uid": "u-1", "allowed": false, "status": status}),
    ) {
        Ok(Err(e)) => (e.code(), e.to_string(), e.status()),
        other => panic!("not a denial: {other:?}"),
    };
    let (code, message, status) = denied(json!({"message": "no"}));
    assert_eq!(code, 403);
    assert_eq!(
        message,
        "admission webhook \"h.example.com\" denied the request: no"
    );
    assert!(status.get("reason").is_none(), "{status}");
    assert_eq!(denied(json!({"code": 422, "reason": "Odd"})).0, 422);
    assert_eq!(
        denied(json!({"code": 200, "reason": "Odd"})).1,
        "admission webhook \"h.example.com\" denied the request: Odd"
    );
    assert_eq!(
        denied(Value::Null).1,
        "admission webhook \"h.example.com\" denied the request without explanation"
    );
}

#[test]
fn patches_warnings_and_bad_answers() {
    let patch = STANDARD.encode(r#"[{"op":"add","path":"/a","value":1}]"#);
    let ok = answer_of(json!({"uid": "u-1", "allowed": true, "patchType": "JSONPatch", "patch": patch, "warnings": ["careful"]}))
        .expect("usable")
        .expect("allowed");
    assert_eq!(
        ok.patch.as_deref(),
        Some(br#"[{"op":"add","path":"/a","value":1}]"#.as_slice())
    );
    assert_eq!(ok.warnings, ["careful"]);
    let wrong_uid = answer_of(json!({"uid": "other", "allowed": true})).unwrap_err();
    assert_eq!(wrong_uid, "expected response.uid=\"u-1\", got \"other\"");
    let bad_type = answer_of(json!({"uid": "u-1", "allowed": true, "patch": patch})).unwrap_err();
    assert!(bad_type.contains("invalid patchType"), "{bad_type}");
    assert!(answer("h", b"not json", "u").is_err());
}

#[test]
fn the_request_names_the_write() {
    let kind = KindSpec::new(
        "",
        "v1",
        "ConfigMap",
        "configmaps",
        true,
        Schema::resource::<[(&str, Schema); 0], &str>([]),
    );
    let opts = WriteOptions {
        dry_run: true,
        field_manager: Some("kubectl".into()),
        ..WriteOptions::default()
    };
    let old = json!({"metadata": {"name": "c"}});
    let attrs = Attributes::update(&kind, Some("ns"), "c", &opts, &old);
    let new = json!({"metadata": {"name": "c", "labels": {"a": "b"}}});
    let seen = Seen {
        kind: &kind,
        object: Some(&new),
        old: Some(&old),
    };
    let review = request(&attrs, &seen, "k8s.io", "v1beta1", "u-2");
    assert_eq!(review["apiVersion"], "admission.k8s.io/v1beta1");
    let r = &review["request"];
    assert_eq!(r["uid"], "u-2");
    assert_eq!(r["operation"], "UPDATE");
    assert_eq!(
        r["kind"],
        json!({"group": "", "version": "v1", "kind": "ConfigMap"})
    );
    assert_eq!(r["requestResource"], r["resource"]);
    assert_eq!((&r["name"], &r["namespace"]), (&json!("c"), &json!("ns")));
    assert_eq!(r["object"], new);
    assert_eq!(r["oldObject"], old);
    assert_eq!(r["dryRun"], true);
    assert_eq!(
        r["options"],
        json!({"apiVersion": "meta.k8s.io/v1", "kind": "UpdateOptions", "dryRun": ["All"], "fieldManager": "kubectl"})
    );
}
