//! Every validation rule of AuthenticationConfiguration, each with the one
//! line kube-apiserver prints for it; decoding and the anonymous section.

use serde_json::{Value, json};

use super::{ClaimRule, Context, PrefixedMapping, Problem, parse};

fn ctx() -> Context {
    Context {
        api_domain: "k8s.io".into(),
        disallowed_issuers: vec!["https://kubernetes.default.svc".into()],
    }
}

/// A valid one-issuer configuration.
fn base() -> Value {
    json!({
        "apiVersion": "apiserver.config.k8s.io/v1",
        "kind": "AuthenticationConfiguration",
        "jwt": [{
            "issuer": {"url": "https://issuer.example", "audiences": ["cairn"]},
            "claimMappings": {"username": {"claim": "sub", "prefix": ""}}
        }]
    })
}

fn with(path: &[&str], value: Value) -> Value {
    let mut doc = base();
    let mut at = &mut doc["jwt"][0];
    for p in &path[..path.len() - 1] {
        at = &mut at[*p];
    }
    at[path[path.len() - 1]] = value;
    doc
}

fn line(doc: &Value) -> String {
    match parse(doc.to_string().as_bytes(), &ctx()) {
        Ok(_) => "ok".into(),
        Err(Problem::Invalid(l) | Problem::Load(l)) => l,
    }
}

#[test]
fn a_valid_configuration_is_read_in_yaml_and_json() {
    assert_eq!(line(&base()), "ok");
    let yaml = "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt:\n- issuer:\n    url: https://a.example\n    audiences: [aud-1, aud-2]\n    audienceMatchPolicy: MatchAny\n  claimMappings:\n    username:\n      expression: \"'u:' + claims.sub\"\n    groups:\n      claim: groups\n      prefix: \"oidc:\"\n  claimValidationRules:\n  - claim: hd\n    requiredValue: example.com\nanonymous:\n  enabled: true\n  conditions:\n  - path: /livez\n";
    let config = parse(yaml.as_bytes(), &ctx()).expect("valid");
    let jwt = &config.jwt[0];
    assert_eq!(jwt.audiences, ["aud-1", "aud-2"]);
    assert!(matches!(jwt.username, PrefixedMapping::Expression(_)));
    assert!(
        matches!(&jwt.groups, Some(PrefixedMapping::Claim { claim, prefix }) if claim == "groups" && prefix == "oidc:")
    );
    assert!(
        matches!(&jwt.claim_rules[0], ClaimRule::Equals { claim, value } if claim == "hd" && value == "example.com")
    );
    let anonymous = config.anonymous.expect("anonymous");
    assert!(anonymous.enabled);
    assert_eq!(anonymous.conditions, ["/livez"]);
}

#[test]
fn the_type_and_strict_decoding() {
    let mut doc = base();
    doc["apiVersion"] = json!("apiserver.config.svc.io/v1");
    assert_eq!(
        line(&doc),
        "no kind \"AuthenticationConfiguration\" is registered for version \"apiserver.config.svc.io/v1\""
    );
    let svc = Context {
        api_domain: "svc.io".into(),
        ..ctx()
    };
    assert!(parse(doc.to_string().as_bytes(), &svc).is_ok());
    let mut doc = base();
    doc["kind"] = json!("AuthorizationConfiguration");
    assert!(line(&doc).starts_with("no kind \"AuthorizationConfiguration\""));
    assert_eq!(
        line(&with(&["issuer", "colour"], json!("red"))),
        "strict decoding error: unknown field \"jwt[0].issuer.colour\""
    );
    let mut doc = base();
    doc["extra"] = json!(1);
    assert_eq!(line(&doc), "strict decoding error: unknown field \"extra\"");
    assert_eq!(
        line(&with(&["claimMappings", "uid", "prefix"], json!("x"))),
        "strict decoding error: unknown field \"jwt[0].claimMappings.uid.prefix\""
    );
    assert_eq!(
        line(&with(&["issuer", "audiences"], json!("cairn"))),
        "strict decoding error: jwt[0].issuer.audiences: cannot unmarshal string into a value of type array"
    );
    assert!(matches!(
        parse(b"  \n", &ctx()),
        Err(Problem::Load(l)) if l == "empty config data"
    ));
}

#[test]
fn issuer_url_rules() {
    let cases = [
        ("", "jwt[0].issuer.url: Required value"),
        (
            "http://x",
            "jwt[0].issuer.url: Invalid value: \"http://x\": URL scheme must be https",
        ),
        (
            "https://u:p@x",
            "jwt[0].issuer.url: Invalid value: \"https://u:p@x\": URL must not contain a username or password",
        ),
        (
            "https://x?a=b",
            "jwt[0].issuer.url: Invalid value: \"https://x?a=b\": URL must not contain a query",
        ),
        (
            "https://x#f",
            "jwt[0].issuer.url: Invalid value: \"https://x#f\": URL must not contain a fragment",
        ),
        (
            "https://kubernetes.default.svc",
            "jwt[0].issuer.url: Invalid value: \"https://kubernetes.default.svc\": URL must not overlap with disallowed issuers: [https://kubernetes.default.svc]",
        ),
    ];
    for (url, want) in cases {
        assert_eq!(line(&with(&["issuer", "url"], json!(url))), want, "{url}");
    }
}

#[test]
fn discovery_url_rules() {
    assert_eq!(
        line(&with(
            &["issuer", "discoveryURL"],
            json!("https://issuer.example/")
        )),
        "jwt[0].issuer.discoveryURL: Invalid value: \"https://issuer.example/\": discoveryURL must be different from URL"
    );
    assert_eq!(
        line(&with(
            &["issuer", "discoveryURL"],
            json!("http://d.example/x")
        )),
        "jwt[0].issuer.discoveryURL: Invalid value: \"http://d.example/x\": URL scheme must be https"
    );
}

#[test]
fn issuers_and_discovery_urls_are_unique() {
    let mut doc = base();
    let first = doc["jwt"][0].clone();
    doc["jwt"].as_array_mut().expect("list").push(first);
    assert_eq!(
        line(&doc),
        "jwt[1].issuer.url: Duplicate value: \"https://issuer.example\""
    );
    let mut doc = with(&["issuer", "discoveryURL"], json!("https://d.example/o"));
    let mut second = doc["jwt"][0].clone();
    second["issuer"]["url"] = json!("https://other.example");
    doc["jwt"].as_array_mut().expect("list").push(second);
    assert_eq!(
        line(&doc),
        "jwt[1].issuer.discoveryURL: Duplicate value: \"https://d.example/o\""
    );
}

#[test]
fn audience_rules() {
    assert_eq!(
        line(&with(&["issuer", "audiences"], json!([]))),
        "jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required"
    );
    assert_eq!(
        line(&with(&["issuer", "audiences"], json!(["a", ""]))),
        "[jwt[0].issuer.audiences[1]: Required value, jwt[0].issuer.audienceMatchPolicy: Invalid value: \"\": audienceMatchPolicy must be MatchAny for multiple audiences]"
    );
    let mut doc = with(&["issuer", "audiences"], json!(["a", "a"]));
    doc["jwt"][0]["issuer"]["audienceMatchPolicy"] = json!("MatchAny");
    assert_eq!(
        line(&doc),
        "jwt[0].issuer.audiences[1]: Duplicate value: \"a\""
    );
    assert_eq!(
        line(&with(&["issuer", "audienceMatchPolicy"], json!("MatchAll"))),
        "jwt[0].issuer.audienceMatchPolicy: Invalid value: \"MatchAll\": audienceMatchPolicy must be empty or MatchAny for single audience"
    );
}

#[test]
fn certificate_authority_and_egress_rules() {
    assert_eq!(
        line(&with(
            &["issuer", "certificateAuthority"],
            json!("not a pem")
        )),
        "jwt[0].issuer.certificateAuthority: Invalid value: \"<omitted>\": data does not contain any valid RSA or ECDSA certificates"
    );
    assert_eq!(
        line(&with(&["issuer", "egressSelectorType"], json!("etcd"))),
        "jwt[0].issuer.egressSelectorType: Invalid value: \"etcd\": egress selector must be either controlplane or cluster"
    );
    assert_eq!(
        line(&with(&["issuer", "egressSelectorType"], json!("cluster"))),
        "ok"
    );
}

#[test]
fn claim_validation_rules() {
    let rule = |r: Value| line(&with(&["claimValidationRules"], json!([r])));
    assert_eq!(
        rule(json!({"claim": "hd", "expression": "true"})),
        "jwt[0].claimValidationRules[0]: Invalid value: \"hd\": claim and expression can't both be set"
    );
    assert_eq!(
        rule(json!({})),
        "jwt[0].claimValidationRules[0]: Required value: claim or expression is required"
    );
    assert_eq!(
        rule(json!({"claim": "hd", "message": "m"})),
        "jwt[0].claimValidationRules[0].message: Invalid value: \"m\": may not be specified when claim is set"
    );
    assert_eq!(
        rule(json!({"expression": "claims.hd == 'x'", "requiredValue": "v"})),
        "jwt[0].claimValidationRules[0].requiredValue: Invalid value: \"v\": may not be specified when expression is set"
    );
    assert_eq!(
        rule(json!({"expression": "claims.hd +"}))
            .split(": compilation failed:")
            .next(),
        Some("jwt[0].claimValidationRules[0].expression: Invalid value: \"claims.hd +\"")
    );
    assert_eq!(
        rule(json!({"expression": "'text'"})),
        "jwt[0].claimValidationRules[0].expression: Invalid value: \"'text'\": must evaluate to bool"
    );
    assert!(
        rule(json!({"expression": "user.username == 'a'"}))
            .ends_with("compilation failed: ERROR: <input>:1:1: undeclared reference to 'user' (in container '')")
    );
    let twice = |r: Value| line(&with(&["claimValidationRules"], json!([r.clone(), r])));
    assert_eq!(
        twice(json!({"claim": "hd"})),
        "jwt[0].claimValidationRules[1].claim: Duplicate value: \"hd\""
    );
    assert_eq!(
        twice(json!({"expression": "has(claims.hd)"})),
        "jwt[0].claimValidationRules[1].expression: Duplicate value: \"has(claims.hd)\""
    );
}

#[test]
fn username_and_groups_mapping_rules() {
    let username = |m: Value| line(&with(&["claimMappings", "username"], m));
    assert_eq!(
        username(json!({"claim": "sub", "expression": "claims.sub"})),
        "jwt[0].claimMappings.username: Invalid value: \"\": claim and expression can't both be set"
    );
    assert_eq!(
        username(json!({})),
        "jwt[0].claimMappings.username: Required value: claim or expression is required"
    );
    assert_eq!(
        username(json!({"claim": "sub"})),
        "jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing"
    );
    assert_eq!(
        username(json!({"expression": "claims.sub", "prefix": "p:"})),
        "jwt[0].claimMappings.username.prefix: Invalid value: \"p:\": may not be specified when expression is set"
    );
    assert_eq!(
        username(json!({"expression": "claims.email"})),
        "jwt[0].claimMappings.username.expression: Invalid value: \"claims.email\": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression"
    );
    assert_eq!(
        username(json!({"expression": "claims.email_verified ? claims.email : ''"})),
        "ok"
    );
    let mut doc = with(
        &["claimMappings", "username"],
        json!({"expression": "claims.email"}),
    );
    doc["jwt"][0]["claimValidationRules"] =
        json!([{"expression": "claims.email_verified == true"}]);
    assert_eq!(line(&doc), "ok");
    assert_eq!(
        line(&with(
            &["claimMappings", "groups"],
            json!({"claim": "groups"})
        )),
        "jwt[0].claimMappings.groups.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing"
    );
    assert_eq!(
        line(&with(
            &["claimMappings", "uid"],
            json!({"claim": "sub", "expression": "claims.sub"})
        )),
        "jwt[0].claimMappings.uid: Invalid value: \"\": claim and expression can't both be set"
    );
}

#[test]
fn extra_mapping_rules() {
    let extra = |key: &str| {
        line(&with(
            &["claimMappings", "extra"],
            json!([{"key": key, "valueExpression": "claims.sub"}]),
        ))
    };
    assert_eq!(extra("example.com/team"), "ok");
    assert_eq!(
        extra("team"),
        "jwt[0].claimMappings.extra[0].key: Invalid value: \"team\": must be a domain-prefixed path (such as \"acme.io/foo\")"
    );
    assert_eq!(
        extra("example.com/Team"),
        "jwt[0].claimMappings.extra[0].key: Invalid value: \"example.com/Team\": must be lowercase"
    );
    assert_eq!(
        extra("example.com/a b"),
        "jwt[0].claimMappings.extra[0].key: Invalid value: \"a b\": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"
    );
    assert_eq!(
        extra("authentication.k8s.io/x"),
        "jwt[0].claimMappings.extra[0].key: Invalid value: \"authentication.k8s.io/x\": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use"
    );
    assert!(extra("Example.com/x").contains("a lowercase RFC 1123 subdomain must consist"));
    assert_eq!(
        line(&with(
            &["claimMappings", "extra"],
            json!([{"key": "a.io/x", "valueExpression": "'1'"}, {"key": "a.io/x", "valueExpression": "'2'"}])
        )),
        "jwt[0].claimMappings.extra[1].key: Duplicate value: \"a.io/x\""
    );
    assert_eq!(
        line(&with(
            &["claimMappings", "extra"],
            json!([{"key": "a.io/x"}])
        )),
        "jwt[0].claimMappings.extra[0].valueExpression: Required value"
    );
}

#[test]
fn user_validation_rules() {
    let rules = |r: Value| line(&with(&["userValidationRules"], r));
    assert_eq!(
        rules(json!([{"message": "m"}])),
        "jwt[0].userValidationRules[0].expression: Required value"
    );
    let rule = json!({"expression": "!user.username.startsWith('system:')"});
    assert_eq!(rules(json!([rule])), "ok");
    assert_eq!(
        rules(json!([rule, rule])),
        "jwt[0].userValidationRules[1].expression: Duplicate value: \"!user.username.startsWith('system:')\""
    );
    assert!(
        rules(json!([{"expression": "claims.sub == 'a'"}]))
            .ends_with("undeclared reference to 'claims' (in container '')")
    );
}

#[test]
fn anonymous_rules() {
    let mut doc = base();
    doc["anonymous"] = json!({"enabled": false, "conditions": [{"path": "/livez"}]});
    assert_eq!(
        line(&doc),
        "anonymous.conditions: Invalid value: []interface {}{\"/livez\"}: enabled should be set to true when conditions are defined"
    );
    doc["anonymous"] = json!({"enabled": true});
    let config = parse(doc.to_string().as_bytes(), &ctx()).expect("valid");
    assert_eq!(
        super::check_anonymous_flag(&config, true),
        Err("anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file".into())
    );
    assert_eq!(super::check_anonymous_flag(&config, false), Ok(()));
}

#[test]
fn too_many_authenticators() {
    let mut doc = base();
    let one = doc["jwt"][0].clone();
    doc["jwt"] = Value::Array(vec![one; 65]);
    assert_eq!(line(&doc), "jwt: Too many: 65: must have at most 64 items");
}
