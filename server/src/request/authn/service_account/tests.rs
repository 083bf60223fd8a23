//! TokenRequest over HTTP, the token it mints used on the next request,
//! Kubernetes' errors for missing or re-created objects, and the issuer's
//! discovery documents.

use std::time::{Duration, SystemTime};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

use super::fixture::{Fixture, start};
use crate::util::time::parse_rfc3339;

const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

fn token_path(ns: &str, sa: &str) -> String {
    format!("/api/v1/namespaces/{ns}/serviceaccounts/{sa}/token")
}

fn payload(token: &str) -> Value {
    let part = token.split('.').nth(1).expect("a JWT");
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).expect("base64url")).expect("claims")
}

async fn ask(f: &Fixture, ns: &str, sa: &str, spec: Value) -> (u16, Value) {
    let body =
        json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec});
    let answer = f
        .request("POST", &token_path(ns, sa), None, Some(&body))
        .await;
    (answer.code, answer.json())
}

#[tokio::test]
async fn a_requested_token_names_its_service_account_and_authenticates() {
    let f = start(&[]).await;
    let sa_uid = f.service_account("default", "builder").await;
    let (code, answer) = ask(&f, "default", "builder", json!({})).await;
    assert_eq!(code, 201, "{answer}");
    assert_eq!(answer["kind"], "TokenRequest");
    assert_eq!(answer["spec"]["audiences"], json!([ISSUER]));
    assert_eq!(answer["spec"]["expirationSeconds"], 3600);
    let token = answer["status"]["token"].as_str().expect("token");
    let expires = parse_rfc3339(
        answer["status"]["expirationTimestamp"]
            .as_str()
            .expect("time"),
    )
    .expect("RFC 3339");
    let in_an_hour = SystemTime::now() + Duration::from_secs(3600);
    assert!(expires <= in_an_hour && expires + Duration::from_secs(60) > in_an_hour);

    let claims = payload(token);
    assert_eq!(claims["iss"], ISSUER);
    assert_eq!(claims["sub"], "system:serviceaccount:default:builder");
    assert_eq!(claims["aud"], json!([ISSUER]));
    assert_eq!(
        claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(),
        3600
    );
    assert_eq!(claims["nbf"], claims["iat"]);
    assert_eq!(
        claims["kubernetes.io"],
        json!({"namespace": "default", "serviceaccount": {"name": "builder", "uid": sa_uid}})
    );
    let header: Value = serde_json::from_slice(
        &URL_SAFE_NO_PAD
            .decode(token.split('.').next().unwrap())
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["alg"], "ES256");
    assert_eq!(
        header["kid"],
        f.state.token_issuer.keys().signing.public.kid
    );

    let used = f.request("GET", "/api", Some(token), None).await;
    assert_eq!(used.code, 200, "{}", used.body);
    let user = f.last_user.lock().unwrap().clone().expect("a user");
    assert_eq!(user.name, "system:serviceaccount:default:builder");
    assert_eq!(user.uid, sa_uid);
    assert_eq!(
        user.groups,
        [
            "system:serviceaccounts",
            "system:serviceaccounts:default",
            "system:authenticated"
        ]
    );
    let jti = claims["jti"].as_str().expect("jti");
    assert_eq!(
        user.extra.get("authentication.kubernetes.io/credential-id"),
        Some(&vec![format!("JTI={jti}")])
    );
    // One signature character changed (not the last: its low bits may be
    // padding a decoder ignores).
    let at = token.len() - 10;
    let swapped = if &token[at..=at] == "A" { "B" } else { "A" };
    let forged = format!("{}{swapped}{}", &token[..at], &token[at + 1..]);
    let refused = f.request("GET", "/api", Some(&forged), None).await;
    assert_eq!(
        (refused.code, refused.json()["message"].as_str()),
        (401, Some("Unauthorized"))
    );
}

#[tokio::test]
async fn audiences_lifetime_and_a_bound_pod_are_as_asked() {
    let f = start(&["--service-account-max-token-expiration=2h"]).await;
    f.service_account("default", "default").await;
    let pod_uid = f.pod("default", "web", "default").await;
    let (code, answer) = ask(
        &f,
        "default",
        "default",
        json!({"audiences": ["vault"], "expirationSeconds": 86400,
               "boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "web", "uid": pod_uid}}),
    )
    .await;
    assert_eq!(code, 201, "{answer}");
    assert_eq!(
        answer["spec"]["expirationSeconds"], 7200,
        "cut to the maximum"
    );
    let claims = payload(answer["status"]["token"].as_str().unwrap());
    assert_eq!(claims["aud"], json!(["vault"]));
    assert_eq!(
        claims["kubernetes.io"]["pod"],
        json!({"name": "web", "uid": pod_uid})
    );
    let token = answer["status"]["token"].as_str().unwrap();
    // Not for this server's audience.
    assert_eq!(f.request("GET", "/api", Some(token), None).await.code, 401);
}

#[tokio::test]
async fn missing_or_recreated_objects_get_kubernetes_errors() {
    let f = start(&[]).await;
    let (code, answer) = ask(&f, "default", "nobody", json!({})).await;
    assert_eq!(
        (code, answer["message"].as_str()),
        (404, Some("serviceaccounts \"nobody\" not found"))
    );
    f.service_account("default", "default").await;
    let pod = |name: &str, uid: &str| json!({"boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": name, "uid": uid}});
    let (code, answer) = ask(&f, "default", "default", pod("gone", "")).await;
    assert_eq!(
        (code, answer["message"].as_str()),
        (404, Some("pods \"gone\" not found"))
    );
    f.pod("default", "web", "default").await;
    let (code, answer) = ask(&f, "default", "default", pod("web", "old-uid")).await;
    assert_eq!(code, 409);
    assert_eq!(
        answer["message"],
        "Operation cannot be fulfilled on Pod \"web\": the UID in the bound object reference (old-uid) does not match the UID in record. The object might have been deleted and then recreated"
    );
    f.service_account("default", "other").await;
    let (code, answer) = ask(&f, "default", "other", pod("web", "")).await;
    assert_eq!(
        (code, answer["message"].as_str()),
        (
            400,
            Some(
                "cannot bind token for serviceaccount \"other\" to pod running with different serviceaccount name."
            )
        )
    );
    let config_map =
        json!({"boundObjectRef": {"kind": "ConfigMap", "apiVersion": "v1", "name": "c"}});
    let (code, answer) = ask(&f, "default", "default", config_map).await;
    assert_eq!(
        (code, answer["message"].as_str()),
        (
            400,
            Some(
                "cannot bind token for serviceaccount \"default\" to object of type /v1, Kind=ConfigMap"
            )
        )
    );
    let (code, answer) = ask(&f, "default", "default", json!({"expirationSeconds": 60})).await;
    assert_eq!((code, answer["reason"].as_str()), (422, Some("Invalid")));
    let get = f
        .request("GET", &token_path("default", "default"), None, None)
        .await;
    assert_eq!(get.code, 405);
}

#[tokio::test]
async fn discovery_lists_the_token_subresource_and_the_issuer_documents_are_served() {
    let f = start(&[]).await;
    let resources = f.request("GET", "/api/v1", None, None).await.json();
    let token = resources["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "serviceaccounts/token")
        .cloned()
        .expect("serviceaccounts/token");
    assert_eq!(
        token,
        json!({"name": "serviceaccounts/token", "singularName": "", "namespaced": true,
               "kind": "TokenRequest", "verbs": ["create"], "group": "authentication.k8s.io", "version": "v1"})
    );

    let config = f
        .request("GET", "/.well-known/openid-configuration", None, None)
        .await;
    assert_eq!(config.code, 200);
    assert_eq!(config.header("content-type"), Some("application/json"));
    assert_eq!(config.header("cache-control"), Some("public, max-age=3600"));
    let doc = config.json();
    assert_eq!(doc["issuer"], ISSUER);
    assert_eq!(doc["response_types_supported"], json!(["id_token"]));
    assert_eq!(doc["subject_types_supported"], json!(["public"]));
    assert_eq!(
        doc["id_token_signing_alg_values_supported"],
        json!(["ES256"])
    );
    assert!(
        doc["jwks_uri"]
            .as_str()
            .unwrap()
            .ends_with("/openid/v1/jwks")
    );

    let jwks = f.request("GET", "/openid/v1/jwks", None, None).await;
    assert_eq!(jwks.code, 200);
    assert_eq!(
        jwks.header("content-type"),
        Some("application/jwk-set+json")
    );
    assert_eq!(jwks.header("cache-control"), Some("public, max-age=3600"));
    let keys = jwks.json()["keys"].as_array().cloned().unwrap();
    assert_eq!(keys.len(), 1);
    assert_eq!(
        keys[0]["kid"],
        f.state.token_issuer.keys().signing.public.kid
    );
    assert_eq!(
        (keys[0]["use"].as_str(), keys[0]["kty"].as_str()),
        (Some("sig"), Some("EC"))
    );

    let f = start(&[
        "--service-account-issuer=kubernetes/serviceaccount",
        "--service-account-jwks-uri=https://keys.example/jwks",
    ])
    .await;
    assert_eq!(
        f.request("GET", "/openid/v1/jwks", None, None).await.code,
        404
    );
    assert_eq!(
        f.state.token_issuer.openid_configuration("x:1")["jwks_uri"],
        "https://keys.example/jwks"
    );
}
