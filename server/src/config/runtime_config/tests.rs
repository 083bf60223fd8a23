//! `--runtime-config` parsing and resolution against kube-apiserver's rules.

use super::*;

fn known() -> Vec<(String, String)> {
    [
        ("", "v1"),
        ("events.k8s.io", "v1"),
        ("authentication.k8s.io", "v1"),
        ("authentication.k8s.io", "v1beta1"),
        ("authentication.k8s.io", "v1alpha1"),
    ]
    .iter()
    .map(|(g, v)| ((*g).to_string(), (*v).to_string()))
    .collect()
}

fn resolve(flag: &str) -> Result<Enablement, String> {
    RuntimeConfig::parse(flag).unwrap().resolve(&known())
}

const AUTHN: &str = "authentication.k8s.io";

#[test]
fn defaults_serve_ga_only() {
    let e = resolve("").unwrap();
    assert!(e.enabled("", "v1", "pods"));
    assert!(e.enabled("events.k8s.io", "v1", "events"));
    assert!(!e.enabled(AUTHN, "v1beta1", "selfsubjectreviews"));
    assert!(!e.enabled(AUTHN, "v1alpha1", "selfsubjectreviews"));
}

#[test]
fn group_version_keys_with_and_without_values() {
    let e = resolve("authentication.k8s.io/v1beta1,events.k8s.io/v1=false").unwrap();
    assert!(e.enabled(AUTHN, "v1beta1", "selfsubjectreviews"));
    assert!(!e.enabled("events.k8s.io", "v1", "events"));
    assert!(!e.enabled(AUTHN, "v1alpha1", "selfsubjectreviews"));
    let e = resolve("authentication.k8s.io/v1alpha1=t").unwrap();
    assert!(e.enabled(AUTHN, "v1alpha1", "selfsubjectreviews"));
}

#[test]
fn stage_keys_then_versions_then_resources() {
    let e = resolve("api/beta=true").unwrap();
    assert!(e.enabled(AUTHN, "v1beta1", "selfsubjectreviews"));
    assert!(!e.enabled(AUTHN, "v1alpha1", "selfsubjectreviews"));
    let e = resolve("api/alpha=true").unwrap();
    assert!(e.enabled(AUTHN, "v1alpha1", "selfsubjectreviews"));
    let e = resolve("api/all=true,authentication.k8s.io/v1alpha1=false").unwrap();
    assert!(e.enabled(AUTHN, "v1beta1", "x"));
    assert!(!e.enabled(AUTHN, "v1alpha1", "x"));
    let e = resolve("api/ga=false,v1=true").unwrap();
    assert!(e.enabled("", "v1", "pods"));
    assert!(!e.enabled("events.k8s.io", "v1", "events"));
    let e = resolve("api/all=false,v1/configmaps=true").unwrap();
    assert!(e.enabled("", "v1", "configmaps"));
    assert!(!e.enabled("", "v1", "pods"));
    let e = resolve("api/v1/configmaps=false,v1=true").unwrap();
    assert!(!e.enabled("", "v1", "configmaps"));
    assert!(e.enabled("", "v1", "secrets"));
    let e = resolve("/v1/secrets=false,api/legacy=false").unwrap();
    assert!(!e.enabled("", "v1", "secrets"));
    assert!(e.enabled("", "v1", "pods"));
    let e = resolve("events.k8s.io/v1=false,events.k8s.io/v1=true").unwrap();
    assert!(
        e.enabled("events.k8s.io", "v1", "events"),
        "the last key wins"
    );
}

#[test]
fn kube_apiserver_messages_for_bad_keys_and_values() {
    let cases = [
        ("api/all=false", "invalid key with only api/all=false"),
        ("foo", "runtime-config invalid key foo"),
        ("a/b/c/d", "runtime-config invalid key a/b/c/d"),
        ("apps/v1=false", "unknown api groups apps"),
        ("api/v2", "unknown api groups api"),
        ("api/beta=yes", "invalid value api/beta=yes"),
        ("api/all", "invalid value api/all="),
        (
            "authentication.k8s.io/v2",
            "group version authentication.k8s.io/v2 that has not been registered",
        ),
        ("v2=true", "runtime-config invalid key v2"),
        ("/v2", "group version v2 that has not been registered"),
        (
            "events.k8s.io/v1=maybe",
            "invalid value of events.k8s.io/v1: maybe, err: strconv.ParseBool: parsing \"maybe\": invalid syntax",
        ),
        (
            "v1/ConfigMaps=false",
            "invalid key /v1/ConfigMaps: group/version/resource and resource is always lowercase plural, not \"ConfigMaps\"",
        ),
    ];
    for (flag, want) in cases {
        assert_eq!(resolve(flag).unwrap_err(), want, "{flag}");
    }
}

#[test]
fn version_stages_by_name() {
    assert_eq!(stage("v1"), Some(Stage::Ga));
    assert_eq!(stage("v2beta3"), Some(Stage::Beta));
    assert_eq!(stage("v1alpha1"), Some(Stage::Alpha));
    assert_eq!(stage("v1beta"), None);
    assert_eq!(stage("foo"), None);
}

#[test]
fn repeated_flags_append() {
    let merged = RuntimeConfig::merged(&[
        RuntimeConfig::parse("events.k8s.io/v1=false").unwrap(),
        RuntimeConfig::parse("events.k8s.io/v1=true").unwrap(),
    ]);
    assert!(
        merged
            .resolve(&known())
            .unwrap()
            .enabled("events.k8s.io", "v1", "events")
    );
}
