//! `--authentication-config` at start-up: the real binary refuses every
//! invalid AuthenticationConfiguration with a non-zero exit and one line on
//! stderr naming the field path and the rule, as kube-apiserver does. One
//! test per rule.

use serde_json::{Value, json};

/// A valid configuration with one JWT issuer.
fn valid() -> Value {
    json!({
        "apiVersion": "apiserver.config.k8s.io/v1",
        "kind": "AuthenticationConfiguration",
        "jwt": [{
            "issuer": {"url": "https://issuer.example", "audiences": ["cairn"]},
            "claimMappings": {"username": {"claim": "sub", "prefix": ""}}
        }]
    })
}

/// `valid()` with `jwt[0].<path>` set to `value`.
fn with(path: &[&str], value: Value) -> Value {
    let mut doc = valid();
    let mut at = &mut doc["jwt"][0];
    for p in path {
        at = &mut at[*p];
    }
    *at = value;
    doc
}

/// The refusal of `text` as `--authentication-config`.
fn refusal(text: &str) -> String {
    cairn_tests::start_refused("--authentication-config", text, &[])
}

/// The refusal of `text` ends with `line`.
fn refused_as(text: &str, line: &str) {
    let got = refusal(text);
    assert!(got.ends_with(line), "got: {got}\nwanted: {line}");
}

fn refused(doc: &Value, line: &str) {
    refused_as(&doc.to_string(), line);
}

#[test]
fn issuer_url_must_be_https() {
    refused(
        &with(&["issuer", "url"], json!("http://x")),
        "jwt[0].issuer.url: Invalid value: \"http://x\": URL scheme must be https",
    );
}

#[test]
fn issuer_url_is_required() {
    refused(
        &with(&["issuer", "url"], json!("")),
        "jwt[0].issuer.url: Required value",
    );
}

#[test]
fn issuer_url_has_no_query_fragment_or_userinfo() {
    refused(
        &with(&["issuer", "url"], json!("https://x?q=1")),
        "jwt[0].issuer.url: Invalid value: \"https://x?q=1\": URL must not contain a query",
    );
    refused(
        &with(&["issuer", "url"], json!("https://x#frag")),
        "jwt[0].issuer.url: Invalid value: \"https://x#frag\": URL must not contain a fragment",
    );
    refused(
        &with(&["issuer", "url"], json!("https://me@x")),
        "jwt[0].issuer.url: Invalid value: \"https://me@x\": URL must not contain a username or password",
    );
}

#[test]
fn discovery_url_differs_from_the_issuer_url() {
    refused(
        &with(&["issuer", "discoveryURL"], json!("https://issuer.example")),
        "jwt[0].issuer.discoveryURL: Invalid value: \"https://issuer.example\": discoveryURL must be different from URL",
    );
}

#[test]
fn issuer_urls_are_unique() {
    let mut doc = valid();
    let entry = doc["jwt"][0].clone();
    doc["jwt"].as_array_mut().expect("list").push(entry);
    refused(
        &doc,
        "jwt[1].issuer.url: Duplicate value: \"https://issuer.example\"",
    );
}

#[test]
fn discovery_urls_are_unique() {
    let mut doc = with(&["issuer", "discoveryURL"], json!("https://d.example/x"));
    let mut entry = doc["jwt"][0].clone();
    entry["issuer"]["url"] = json!("https://other.example");
    doc["jwt"].as_array_mut().expect("list").push(entry);
    refused(
        &doc,
        "jwt[1].issuer.discoveryURL: Duplicate value: \"https://d.example/x\"",
    );
}

#[test]
fn audiences_are_required() {
    refused(
        &with(&["issuer", "audiences"], json!([])),
        "jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required",
    );
}

#[test]
fn audiences_are_unique() {
    let mut doc = with(&["issuer", "audiences"], json!(["a", "a"]));
    doc["jwt"][0]["issuer"]["audienceMatchPolicy"] = json!("MatchAny");
    refused(&doc, "jwt[0].issuer.audiences[1]: Duplicate value: \"a\"");
}

#[test]
fn several_audiences_need_match_any() {
    refused(
        &with(&["issuer", "audiences"], json!(["a", "b"])),
        "jwt[0].issuer.audienceMatchPolicy: Invalid value: \"\": audienceMatchPolicy must be MatchAny for multiple audiences",
    );
}

#[test]
fn the_certificate_authority_must_hold_certificates() {
    refused(
        &with(&["issuer", "certificateAuthority"], json!("garbage")),
        "jwt[0].issuer.certificateAuthority: Invalid value: \"<omitted>\": data does not contain any valid RSA or ECDSA certificates",
    );
}

#[test]
fn claim_and_expression_are_exclusive() {
    refused(
        &with(
            &["claimMappings", "username"],
            json!({"claim": "sub", "expression": "claims.sub"}),
        ),
        "jwt[0].claimMappings.username: Invalid value: \"\": claim and expression can't both be set",
    );
    refused(
        &with(
            &["claimValidationRules"],
            json!([{"claim": "a", "expression": "true"}]),
        ),
        "jwt[0].claimValidationRules[0]: Invalid value: \"a\": claim and expression can't both be set",
    );
}

#[test]
fn a_username_claim_needs_a_prefix() {
    refused(
        &with(&["claimMappings", "username"], json!({"claim": "sub"})),
        "jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing",
    );
}

#[test]
fn an_expression_takes_no_prefix() {
    refused(
        &with(
            &["claimMappings", "username"],
            json!({"expression": "claims.sub", "prefix": "x:"}),
        ),
        "jwt[0].claimMappings.username.prefix: Invalid value: \"x:\": may not be specified when expression is set",
    );
}

#[test]
fn claims_email_needs_email_verified() {
    refused(
        &with(
            &["claimMappings", "username"],
            json!({"expression": "claims.email"}),
        ),
        "jwt[0].claimMappings.username.expression: Invalid value: \"claims.email\": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression",
    );
}

#[test]
fn extra_keys_are_domain_prefixed_lowercase_and_unique() {
    let extra = |v: Value| with(&["claimMappings", "extra"], v);
    refused(
        &extra(json!([{"key": "nodomain", "valueExpression": "claims.a"}])),
        "jwt[0].claimMappings.extra[0].key: Invalid value: \"nodomain\": must be a domain-prefixed path (such as \"acme.io/foo\")",
    );
    refused(
        &extra(json!([{"key": "example.com/Upper", "valueExpression": "claims.a"}])),
        "jwt[0].claimMappings.extra[0].key: Invalid value: \"example.com/Upper\": must be lowercase",
    );
    refused(
        &extra(json!([
            {"key": "example.com/a", "valueExpression": "claims.a"},
            {"key": "example.com/a", "valueExpression": "claims.b"}
        ])),
        "jwt[0].claimMappings.extra[1].key: Duplicate value: \"example.com/a\"",
    );
    refused(
        &extra(json!([{"key": "kubernetes.io/a", "valueExpression": "claims.a"}])),
        "jwt[0].claimMappings.extra[0].key: Invalid value: \"kubernetes.io/a\": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use",
    );
}

#[test]
fn cel_expressions_must_compile() {
    let doc = with(
        &["claimMappings", "groups"],
        json!({"expression": "claims.groups +"}),
    );
    let got = refusal(&doc.to_string());
    assert!(
        got.contains(
            "jwt[0].claimMappings.groups.expression: Invalid value: \"claims.groups +\": compilation failed: "
        ),
        "{got}"
    );
}

#[test]
fn claim_validation_expressions_must_be_boolean() {
    refused(
        &with(
            &["claimValidationRules"],
            json!([{"expression": "'yes'", "message": "m"}]),
        ),
        "jwt[0].claimValidationRules[0].expression: Invalid value: \"'yes'\": must evaluate to bool",
    );
}

#[test]
fn user_validation_rules_need_an_expression() {
    refused(
        &with(&["userValidationRules"], json!([{"message": "m"}])),
        "jwt[0].userValidationRules[0].expression: Required value",
    );
}

#[test]
fn anonymous_conditions_need_enabled() {
    let mut doc = valid();
    doc["anonymous"] = json!({"enabled": false, "conditions": [{"path": "/livez"}]});
    refused(
        &doc,
        "anonymous.conditions: Invalid value: []interface {}{\"/livez\"}: enabled should be set to true when conditions are defined",
    );
}

#[test]
fn unknown_fields_are_refused() {
    refused(
        &with(&["issuer", "colour"], json!("red")),
        "strict decoding error: unknown field \"jwt[0].issuer.colour\"",
    );
}

#[test]
fn the_api_version_follows_the_api_domain() {
    let mut doc = valid();
    doc["apiVersion"] = json!("apiserver.config.k8s.io/v2");
    refused(
        &doc,
        "no kind \"AuthenticationConfiguration\" is registered for version \"apiserver.config.k8s.io/v2\"",
    );
}

#[test]
fn yaml_is_read_too() {
    refused_as(
        "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt:\n- issuer:\n    url: http://yaml.example\n    audiences: [a]\n  claimMappings:\n    username: {claim: sub, prefix: ''}\n",
        "jwt[0].issuer.url: Invalid value: \"http://yaml.example\": URL scheme must be https",
    );
}
