//! The configuration files of spec 2.7 and the flag values read as text:
//! authentication and authorization configurations, the audit policy, the
//! static token file, feature gates and `--runtime-config`.

use cairn_apiserver::config::authn::{self, Context};
use cairn_apiserver::config::{FeatureGates, RuntimeConfig, authz, document};
use cairn_apiserver::request::audit::Policy;
use cairn_apiserver::request::authn::token_file::TokenFile;

use crate::mutate::run;

const DOMAIN: &str = "k8s.io";

#[test]
fn authentication_configurations_load_or_fail_cleanly() {
    let ctx = Context {
        api_domain: DOMAIN.into(),
        disallowed_issuers: vec!["https://kubernetes.default.svc".into()],
    };
    run("authn_config", |input| {
        let _ = authn::parse(input, &ctx);
    });
}

#[test]
fn authorization_configurations_load_or_fail_cleanly() {
    run("authz_config", |input| {
        let _ = authz::parse(input, DOMAIN);
    });
}

#[test]
fn audit_policies_load_or_fail_cleanly() {
    run("audit_policy", |input| {
        let _ = Policy::parse(input, DOMAIN);
        let _ = document::decode(input);
    });
}

#[test]
fn token_files_load_or_fail_cleanly() {
    run("token_file", |input| {
        let _ = TokenFile::parse(&String::from_utf8_lossy(input), "tokens.csv");
    });
}

#[test]
fn flag_values_parse_or_fail_cleanly() {
    run("flag_values", |input| {
        let text = String::from_utf8_lossy(input);
        let _ = FeatureGates::parse(&text);
        let _ = RuntimeConfig::parse(&text);
    });
}
