//! The JWT authenticators against a real issuer served over HTTPS on
//! loopback with its own CA: accepted tokens, every refusal (a 401 through
//! the bearer authenticator), key rotation, discoveryURL, audiences,
//! an untrusted CA, and the reload of the configuration file.

use std::sync::Arc;
use std::time::Duration;

use http::{HeaderMap, Method};
use jsonwebtoken::Algorithm;
use serde_json::{Value, json};

use super::test_issuer::TestIssuer;
use super::{JwtAuthenticators, reload};
use crate::config::authn::{Context, load, parse};
use crate::request::authn::token::{Bearer, TokenAuthenticator, Tokens};
use crate::request::authn::{Authenticator, Authenticators, RequestHead};

fn ctx() -> Context {
    Context {
        api_domain: "k8s.io".into(),
        disallowed_issuers: Vec::new(),
    }
}

fn yaml_for(issuer: &TestIssuer, extra_issuer_fields: &str) -> String {
    let ca = issuer.ca_pem.replace('\n', "\n      ");
    format!(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt:\n- issuer:\n    url: {}\n    audiences: [cairn]\n{extra_issuer_fields}    certificateAuthority: |\n      {ca}\n  claimMappings:\n    username: {{claim: sub, prefix: 'oidc:'}}\n    groups: {{claim: groups, prefix: ''}}\n",
        issuer.url
    )
}

fn authenticators(yaml: &str) -> Arc<JwtAuthenticators> {
    let config = parse(yaml.as_bytes(), &ctx()).unwrap_or_else(|e| panic!("{e}"));
    JwtAuthenticators::new(&config.jwt, vec!["https://kubernetes.default.svc".into()])
        .expect("start")
}

/// Who the bearer chain says `token` is, or the status code.
async fn who(auth: &Arc<JwtAuthenticators>, token: &str) -> Result<(String, Vec<String>), u16> {
    let tokens = Arc::new(Tokens::new(vec![
        Arc::clone(auth) as Arc<dyn TokenAuthenticator>
    ]));
    let chain = Authenticators::new(
        vec![Arc::new(Bearer::new(tokens, Vec::new())) as Arc<dyn Authenticator>],
        None,
    );
    let mut headers = HeaderMap::new();
    headers.insert(
        http::header::AUTHORIZATION,
        format!("Bearer {token}").parse().expect("header"),
    );
    let head = RequestHead {
        method: &Method::GET,
        path: "/api",
        headers: &headers,
        peer: None,
    };
    chain
        .authenticate(&head)
        .await
        .map(|u| (u.name.clone(), u.groups.clone()))
        .map_err(|e| e.code())
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs()
}

#[tokio::test]
async fn a_token_of_the_issuer_maps_to_a_user() {
    let issuer = TestIssuer::start().await;
    let auth = authenticators(&yaml_for(&issuer, ""));
    let token = issuer.sign(&issuer.claims("cairn", &json!({"groups": ["dev"]})));
    assert_eq!(
        who(&auth, &token).await,
        Ok((
            "oidc:jane".into(),
            vec!["dev".into(), "system:authenticated".into()]
        ))
    );
    // `aud` as a single string is accepted too.
    let token = issuer.sign(&issuer.claims("cairn", &json!({"aud": "cairn"})));
    assert_eq!(
        who(&auth, &token).await.map(|u| u.0),
        Ok("oidc:jane".into())
    );
}

#[tokio::test]
async fn refused_tokens_answer_401() {
    let issuer = TestIssuer::start().await;
    let auth = authenticators(&yaml_for(&issuer, ""));
    let good = issuer.claims("cairn", &json!({}));
    assert!(who(&auth, &issuer.sign(&good)).await.is_ok());
    let t = now();
    let cases: [(&str, Value); 7] = [
        ("wrong audience", json!({"aud": ["other"]})),
        ("expired", json!({"exp": t - 5})),
        ("not yet valid", json!({"nbf": t + 600})),
        ("issued in the future", json!({"iat": t + 600})),
        ("no username claim", json!({"sub": null})),
        ("exp not a number", json!({"exp": "soon"})),
        ("groups not strings", json!({"groups": [1]})),
    ];
    for (what, change) in cases {
        let claims = issuer.claims("cairn", &change);
        assert_eq!(who(&auth, &issuer.sign(&claims)).await, Err(401), "{what}");
    }
    let mut no_exp = good.clone();
    no_exp.as_object_mut().expect("object").remove("exp");
    assert_eq!(who(&auth, &issuer.sign(&no_exp)).await, Err(401), "no exp");
    // A small clock skew on nbf is tolerated.
    let skewed = issuer.claims("cairn", &json!({"nbf": t + 20}));
    assert!(who(&auth, &issuer.sign(&skewed)).await.is_ok());
    assert_eq!(
        who(&auth, &issuer.forge(&good)).await,
        Err(401),
        "bad signature"
    );
    let signed = issuer.sign(&good);
    let tampered = {
        let parts: Vec<&str> = signed.split('.').collect();
        let mut claims = good.clone();
        claims["sub"] = json!("admin");
        use base64::Engine as _;
        let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(claims.to_string());
        format!("{}.{payload}.{}", parts[0], parts[2])
    };
    assert_eq!(who(&auth, &tampered).await, Err(401), "tampered payload");
}

#[tokio::test]
async fn tokens_of_other_issuers_are_not_ours() {
    let issuer = TestIssuer::start().await;
    let auth = authenticators(&yaml_for(&issuer, ""));
    let mut other = issuer.claims("cairn", &json!({}));
    other["iss"] = json!("https://elsewhere.example");
    let token = issuer.sign(&other);
    assert!(matches!(
        auth.authenticate_token(&token, &[]).resolve().await,
        Ok(None)
    ));
    assert!(matches!(
        auth.authenticate_token("opaque-static-token", &[])
            .resolve()
            .await,
        Ok(None)
    ));
    // Audiences asked for that miss the API's: not for this authenticator.
    let mine = issuer.sign(&issuer.claims("cairn", &json!({})));
    let elsewhere = ["vault".to_owned()];
    assert!(matches!(
        auth.authenticate_token(&mine, &elsewhere).resolve().await,
        Ok(None)
    ));
    let api = ["https://kubernetes.default.svc".to_owned()];
    let found = auth
        .authenticate_token(&mine, &api)
        .resolve()
        .await
        .expect("ok")
        .expect("user");
    assert_eq!(found.audiences, api);
}

#[tokio::test]
async fn a_rotated_key_is_fetched_when_a_token_names_it() {
    let issuer = TestIssuer::start().await;
    let auth = authenticators(&yaml_for(&issuer, ""));
    let claims = issuer.claims("cairn", &json!({}));
    assert!(who(&auth, &issuer.sign(&claims)).await.is_ok());
    let fetched = issuer.jwks_fetches();
    issuer.rotate("key-2", Algorithm::ES384);
    assert_eq!(
        who(&auth, &issuer.sign(&claims)).await.map(|u| u.0),
        Ok("oidc:jane".into())
    );
    assert_eq!(issuer.jwks_fetches(), fetched + 1);
    // Key ids nobody publishes: at most one refetch per second, and many
    // such tokens at once share one fetch.
    let forged = issuer.forge_as("never-published", &claims);
    let before = issuer.jwks_fetches();
    let attempts: Vec<_> = (0..8)
        .map(|_| {
            let (auth, forged) = (Arc::clone(&auth), forged.clone());
            tokio::spawn(async move { who(&auth, &forged).await })
        })
        .collect();
    for attempt in attempts {
        assert_eq!(attempt.await.expect("task"), Err(401));
    }
    let fetches = issuer.jwks_fetches() - before;
    assert!(
        fetches <= 2,
        "{fetches} fetches for 8 tokens of one unknown key id"
    );
}

#[tokio::test]
async fn rsa_keys_verify_rs_and_ps_signatures() {
    let issuer = TestIssuer::start().await;
    let auth = authenticators(&yaml_for(&issuer, ""));
    let claims = issuer.claims("cairn", &json!({}));
    for (kid, alg) in [
        ("rs256", Algorithm::RS256),
        ("rs512", Algorithm::RS512),
        ("ps256", Algorithm::PS256),
    ] {
        issuer.rotate(kid, alg);
        assert_eq!(
            who(&auth, &issuer.sign(&claims)).await.map(|u| u.0),
            Ok("oidc:jane".into()),
            "{kid}"
        );
    }
}

#[tokio::test]
async fn a_discovery_url_is_used_as_given() {
    let issuer = TestIssuer::start().await;
    let discovery = format!("    discoveryURL: {}/discovery\n", issuer.url);
    let auth = authenticators(&yaml_for(&issuer, &discovery));
    let token = issuer.sign(&issuer.claims("cairn", &json!({})));
    assert_eq!(
        who(&auth, &token).await.map(|u| u.0),
        Ok("oidc:jane".into())
    );
}

#[tokio::test]
async fn an_issuer_behind_an_untrusted_certificate_authenticates_no_one() {
    let issuer = TestIssuer::start().await;
    let impostor = TestIssuer::start().await;
    let yaml = yaml_for(&issuer, "").replace(
        &issuer.ca_pem.replace('\n', "\n      "),
        &impostor.ca_pem.replace('\n', "\n      "),
    );
    let auth = authenticators(&yaml);
    let token = issuer.sign(&issuer.claims("cairn", &json!({})));
    assert_eq!(who(&auth, &token).await, Err(401));
}

#[tokio::test]
async fn the_file_is_reloaded_when_it_changes_and_kept_when_invalid() {
    let first = TestIssuer::start().await;
    let second = TestIssuer::start().await;
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("authn.yaml");
    std::fs::write(&path, yaml_for(&first, "")).expect("write");
    let config = load(&path, &ctx()).expect("valid");
    let auth = JwtAuthenticators::new(&config.jwt, Vec::new()).expect("start");
    let watcher = reload::watch(path.clone(), ctx(), &auth, Duration::from_millis(50));
    let token = second.sign(&second.claims("cairn", &json!({})));
    assert_eq!(
        who(&auth, &token).await,
        Err(401),
        "unknown issuer, refused by the bearer chain"
    );
    std::fs::write(&path, yaml_for(&second, "")).expect("write");
    let mut waited = 0;
    while auth.issuers() != std::slice::from_ref(&second.url) {
        assert!(waited < 200, "not reloaded");
        tokio::time::sleep(Duration::from_millis(50)).await;
        waited += 1;
    }
    assert_eq!(
        who(&auth, &token).await.map(|u| u.0),
        Ok("oidc:jane".into())
    );
    std::fs::write(&path, "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt:\n- issuer: {url: 'http://insecure'}\n").expect("write");
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        auth.issuers(),
        std::slice::from_ref(&second.url),
        "the invalid file was not taken"
    );
    assert_eq!(
        who(&auth, &token).await.map(|u| u.0),
        Ok("oidc:jane".into())
    );
    watcher.abort();
}
