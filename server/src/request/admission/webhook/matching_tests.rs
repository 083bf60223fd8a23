//! Rule, selector and index matching.

use serde_json::json;

use super::*;
use crate::api::kind::KindSpec;
use crate::api::schema::Schema;
use crate::api::store::WriteOptions;
use crate::request::admission::webhook::hook::compile;

fn kind(group: &str, resource: &str, namespaced: bool) -> KindSpec {
    KindSpec::new(
        group,
        "v1",
        "Thing",
        resource,
        namespaced,
        Schema::resource::<[(&str, Schema); 0], &str>([]),
    )
}

fn hook(rules: serde_json::Value) -> Arc<Hook> {
    Arc::new(compile(&json!({
        "name": "h.example.com",
        "clientConfig": {"url": "https://127.0.0.1:1/"},
        "rules": rules,
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"]
    })))
}

fn names(hooks: &[Matched]) -> usize {
    hooks.len()
}

#[test]
fn rules_match_operation_resource_subresource_and_scope() {
    let configmaps = kind("", "configmaps", true);
    let opts = WriteOptions::default();
    let create = Attributes::create(&configmaps, Some("ns"), "c", &opts);
    let on = |rules| Index::new(vec![hook(rules)]).candidates(&create, &[]);
    let rule = |ops: &[&str], res: &[&str], scope: &str| json!([{"operations": ops, "apiGroups": [""], "apiVersions": ["v1"], "resources": res, "scope": scope}]);
    assert_eq!(names(&on(rule(&["CREATE"], &["configmaps"], "*"))), 1);
    assert_eq!(names(&on(rule(&["UPDATE"], &["configmaps"], "*"))), 0);
    assert_eq!(names(&on(rule(&["*"], &["*"], "Namespaced"))), 1);
    assert_eq!(names(&on(rule(&["*"], &["*"], "Cluster"))), 0);
    assert_eq!(names(&on(rule(&["*"], &["configmaps/status"], "*"))), 0);
    assert_eq!(names(&on(rule(&["*"], &["secrets"], "*"))), 0);
    let status = WriteOptions {
        subresource: Some(crate::api::store::Subresource::Status),
        ..WriteOptions::default()
    };
    let old = json!({});
    let update = Attributes::update(&configmaps, Some("ns"), "c", &status, &old);
    let index = Index::new(vec![hook(rule(&["UPDATE"], &["*/status"], "*"))]);
    assert_eq!(names(&index.candidates(&update, &[])), 1);
    let index = Index::new(vec![hook(rule(&["UPDATE"], &["configmaps"], "*"))]);
    assert_eq!(names(&index.candidates(&update, &[])), 0);
}

#[test]
fn the_index_skips_unrelated_kinds() {
    let index = Index::new(vec![hook(
        json!([{"operations": ["*"], "apiGroups": [""], "apiVersions": ["*"], "resources": ["configmaps"]}]),
    )]);
    assert!(
        index
            .by_resource
            .contains_key(&(String::new(), "configmaps".into()))
    );
    assert!(index.everywhere.is_empty());
    let events = kind("", "events", true);
    let opts = WriteOptions::default();
    assert!(
        index
            .candidates(&Attributes::create(&events, Some("ns"), "e", &opts), &[])
            .is_empty()
    );
}

#[test]
fn selectors_read_object_and_namespace_labels() {
    let mut h = compile(&json!({"name": "s.example.com", "clientConfig": {"url": "https://x/"}}));
    h.object_selector = json!({"matchLabels": {"hook": "yes"}});
    h.namespace_selector =
        json!({"matchExpressions": [{"key": "env", "operator": "In", "values": ["prod"]}]});
    let labelled = json!({"metadata": {"labels": {"hook": "yes"}}});
    assert!(object_selected(&h.object_selector, Some(&labelled), None));
    assert!(object_selected(
        &h.object_selector,
        Some(&json!({})),
        Some(&labelled)
    ));
    assert!(!object_selected(&h.object_selector, Some(&json!({})), None));
    let configmaps = kind("", "configmaps", true);
    let opts = WriteOptions::default();
    let attrs = Attributes::create(&configmaps, Some("ns"), "c", &opts);
    let prod = |_: &str| Some(json!({"env": "prod"}).as_object().cloned().unwrap());
    let dev = |_: &str| Some(json!({"env": "dev"}).as_object().cloned().unwrap());
    assert!(namespace_selected(
        &h.namespace_selector,
        &attrs,
        None,
        &prod
    ));
    assert!(!namespace_selected(
        &h.namespace_selector,
        &attrs,
        None,
        &dev
    ));
    let namespaces = kind("", "namespaces", false);
    let own = json!({"metadata": {"labels": {"env": "prod"}}});
    let ns_attrs = Attributes::create(&namespaces, None, "p", &opts);
    assert!(namespace_selected(
        &h.namespace_selector,
        &ns_attrs,
        Some(&own),
        &dev
    ));
}

#[test]
fn equivalent_versions_match_unless_the_policy_is_exact() {
    let v2 = KindSpec::new(
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        true,
        Schema::resource::<[(&str, Schema); 0], &str>([]),
    );
    let v1 = Arc::new(KindSpec::new(
        "autoscaling",
        "v1",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        true,
        Schema::resource::<[(&str, Schema); 0], &str>([]),
    ));
    let opts = WriteOptions::default();
    let create = Attributes::create(&v2, Some("ns"), "h", &opts);
    let rule = json!([{"operations": ["CREATE"], "apiGroups": ["autoscaling"], "apiVersions": ["v1"], "resources": ["horizontalpodautoscalers"]}]);
    let equivalent = Index::new(vec![hook(rule.clone())]);
    let matched = equivalent.candidates(&create, std::slice::from_ref(&v1));
    assert_eq!(matched.len(), 1);
    assert_eq!(
        matched[0].via.as_ref().map(|k| k.version.as_str()),
        Some("v1")
    );
    assert!(equivalent.candidates(&create, &[]).is_empty());
    let exact = compile(&json!({
        "name": "x.example.com", "clientConfig": {"url": "https://127.0.0.1:1/"},
        "rules": rule, "matchPolicy": "Exact"
    }));
    assert!(!exact.equivalent);
    let exact = Index::new(vec![Arc::new(exact)]);
    assert!(exact.candidates(&create, &[v1]).is_empty());
    let own = Index::new(vec![hook(
        json!([{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["v2"], "resources": ["*"]}]),
    )]);
    let matched = own.candidates(&create, &[]);
    assert!(matched.len() == 1 && matched[0].via.is_none());
}
