//! Claim rules and mappings, without a network: claims straight into
//! `user_from_claims` under configurations read from YAML.

use std::sync::Arc;

use serde_json::{Value, json};

use super::mapping::user_from_claims;
use crate::config::authn::{Context, JwtIssuerConfig, parse};

/// The first issuer of a configuration whose jwt[0] has `body` (YAML
/// lines indented under the entry) besides its issuer.
fn issuer(body: &str) -> Arc<JwtIssuerConfig> {
    let doc = format!(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt:\n- issuer:\n    url: https://issuer.example\n    audiences: [cairn]\n{body}"
    );
    let ctx = Context {
        api_domain: "k8s.io".into(),
        disallowed_issuers: Vec::new(),
    };
    let config = parse(doc.as_bytes(), &ctx).unwrap_or_else(|e| panic!("{e}: {doc}"));
    Arc::clone(&config.jwt[0])
}

fn user(
    config: &JwtIssuerConfig,
    claims: &Value,
) -> Result<(String, String, Vec<String>, Value), String> {
    user_from_claims(config, claims).map(|u| {
        (
            u.name,
            u.uid,
            u.groups,
            serde_json::to_value(&u.extra).expect("extra"),
        )
    })
}

#[test]
fn username_claim_with_prefix_and_groups_as_string_or_list() {
    let config = issuer(
        "  claimMappings:\n    username: {claim: sub, prefix: 'oidc:'}\n    groups: {claim: groups, prefix: 'g:'}\n    uid: {claim: uid}\n",
    );
    let (name, uid, groups, _) = user(
        &config,
        &json!({"sub": "jane", "uid": "42", "groups": ["dev", "ops"]}),
    )
    .expect("user");
    assert_eq!((name.as_str(), uid.as_str()), ("oidc:jane", "42"));
    assert_eq!(groups, ["g:dev", "g:ops", "system:authenticated"]);
    let (_, _, groups, _) = user(
        &config,
        &json!({"sub": "jane", "uid": "42", "groups": "dev"}),
    )
    .expect("user");
    assert_eq!(groups, ["g:dev", "system:authenticated"]);
    let (_, _, groups, _) = user(&config, &json!({"sub": "jane", "uid": "42"})).expect("user");
    assert_eq!(groups, ["system:authenticated"]);
    assert!(user(&config, &json!({"sub": "jane", "uid": "42", "groups": 3})).is_err());
    assert!(
        user(&config, &json!({"uid": "42"})).is_err(),
        "no username claim"
    );
    assert!(
        user(&config, &json!({"sub": 7, "uid": "42"})).is_err(),
        "username not a string"
    );
    assert!(
        user(&config, &json!({"sub": "jane"})).is_err(),
        "uid claim missing"
    );
}

#[test]
fn the_email_claim_needs_email_verified_true_when_present() {
    let config = issuer("  claimMappings:\n    username: {claim: email, prefix: ''}\n");
    assert_eq!(
        user(&config, &json!({"email": "j@x.io", "email_verified": true})).map(|u| u.0),
        Ok("j@x.io".into())
    );
    assert_eq!(
        user(&config, &json!({"email": "j@x.io"})).map(|u| u.0),
        Ok("j@x.io".into())
    );
    assert_eq!(
        user(
            &config,
            &json!({"email": "j@x.io", "email_verified": false})
        ),
        Err("oidc: email not verified".into())
    );
}

#[test]
fn claim_validation_rules_by_value_and_by_expression() {
    let config = issuer(
        "  claimValidationRules:\n  - {claim: hd, requiredValue: example.com}\n  - {claim: tenant}\n  - expression: \"claims.level > 2\"\n    message: level too low\n  claimMappings:\n    username: {claim: sub, prefix: ''}\n",
    );
    let good = json!({"sub": "jane", "hd": "example.com", "tenant": "", "level": 3});
    assert!(user(&config, &good).is_ok());
    let mut wrong = good.clone();
    wrong["hd"] = json!("evil.com");
    assert!(
        user(&config, &wrong)
            .unwrap_err()
            .contains("required claim hd value does not match")
    );
    let mut missing = good.clone();
    missing.as_object_mut().expect("object").remove("tenant");
    assert_eq!(
        user(&config, &missing),
        Err("oidc: required claim tenant not present in ID token".into())
    );
    let mut low = good;
    low["level"] = json!(1);
    assert_eq!(
        user(&config, &low),
        Err("oidc: error evaluating claim validation expression: level too low".into())
    );
}

#[test]
fn cel_mappings_for_every_field() {
    let config = issuer(
        "  claimMappings:\n    username:\n      expression: \"'cel:' + claims.sub\"\n    groups:\n      expression: \"claims.roles.map(r, 'role:' + r)\"\n    uid:\n      expression: \"claims.sub + '-uid'\"\n    extra:\n    - key: example.com/tenant\n      valueExpression: claims.tenant\n    - key: example.com/empty\n      valueExpression: \"['', '']\"\n    - key: example.com/none\n      valueExpression: \"null\"\n",
    );
    let (name, uid, groups, extra) = user(
        &config,
        &json!({"sub": "jane", "roles": ["a", "b"], "tenant": "t1"}),
    )
    .expect("user");
    assert_eq!(name, "cel:jane");
    assert_eq!(uid, "jane-uid");
    assert_eq!(groups, ["role:a", "role:b", "system:authenticated"]);
    assert_eq!(extra, json!({"example.com/tenant": ["t1"]}));
    // A username expression that fails or is not a string refuses the token.
    assert!(user(&config, &json!({"roles": []})).is_err());
    let empty = issuer("  claimMappings:\n    username:\n      expression: \"''\"\n");
    assert_eq!(
        user(&empty, &json!({})),
        Err("oidc: empty username via CEL expression is not allowed".into())
    );
}

#[test]
fn user_validation_rules_see_the_mapped_user() {
    let config = issuer(
        "  claimMappings:\n    username: {claim: sub, prefix: ''}\n  userValidationRules:\n  - expression: \"!user.username.startsWith('system:')\"\n    message: username cannot use reserved system prefix\n  - expression: \"!('system:authenticated' in user.groups)\"\n",
    );
    assert!(user(&config, &json!({"sub": "jane"})).is_ok());
    assert_eq!(
        user(&config, &json!({"sub": "system:admin"})),
        Err("oidc: error evaluating user info validation rule: username cannot use reserved system prefix".into())
    );
}

#[test]
fn expressions_run_under_a_cost_limit() {
    let config = issuer(
        "  claimMappings:\n    username: {claim: sub, prefix: ''}\n    groups:\n      expression: \"claims.xs.map(a, claims.xs.map(b, claims.xs.map(c, 'g'))).size() > 0 ? ['g'] : []\"\n",
    );
    let xs: Vec<u32> = (0..200).collect();
    let refused = user(&config, &json!({"sub": "jane", "xs": xs})).unwrap_err();
    assert!(refused.contains("cost"), "{refused}");
    assert!(user(&config, &json!({"sub": "jane", "xs": [1, 2]})).is_ok());
}
