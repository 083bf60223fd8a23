//! The service-account authenticator: expiry and clock skew, tokens of
//! other issuers and audiences, rotated verification keys, and tokens that
//! stop working when their ServiceAccount or bound object is deleted or
//! re-created.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use clap::Parser;

use super::claims::{KubernetesClaims, ObjectRef};
use super::fixture::{Fixture, eventually, start};
use super::{ServiceAccountAuthenticator, TokenIssuer};
use crate::config::{Config, Flags};
use crate::request::authn::token::TokenAuthenticator;

const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

/// What the authenticator makes of a token: the user name, "not ours"
/// (another authenticator may know it), or 401.
async fn verdict(
    auth: &ServiceAccountAuthenticator,
    token: &str,
    audiences: &[&str],
) -> Result<Option<String>, u16> {
    let audiences: Vec<String> = audiences.iter().map(|a| (*a).to_string()).collect();
    auth.authenticate_token(token, &audiences)
        .resolve()
        .await
        .map(|found| found.map(|u| u.user.name.clone()))
        .map_err(|e| e.code())
}

fn subject(sa: &str, uid: &str) -> KubernetesClaims {
    KubernetesClaims {
        namespace: "default".into(),
        serviceaccount: ObjectRef {
            name: sa.into(),
            uid: uid.into(),
        },
        ..KubernetesClaims::default()
    }
}

fn mint(
    issuer: &TokenIssuer,
    claims: KubernetesClaims,
    aud: &str,
    seconds: i64,
    at: SystemTime,
) -> String {
    issuer
        .mint(claims, vec![aud.into()], seconds, at)
        .expect("signed")
        .token
}

fn issuer_with(dir: &std::path::Path, flags: &[&str]) -> Arc<TokenIssuer> {
    let mut args = vec!["cairn-apiserver"];
    args.extend_from_slice(flags);
    let config = Config::from(Flags::parse_from(args));
    TokenIssuer::load(&config.service_accounts, dir).expect("keys")
}

#[tokio::test]
async fn expired_early_foreign_and_misaddressed_tokens() {
    let f = start(&[]).await;
    let uid = f.service_account("default", "default").await;
    let issuer = &f.state.token_issuer;
    let auth = &f.authenticator;
    let now = SystemTime::now();
    let user = Ok(Some("system:serviceaccount:default:default".to_string()));

    let fresh = mint(issuer, subject("default", &uid), ISSUER, 600, now);
    assert_eq!(verdict(auth, &fresh, &[]).await, user);
    // Expired 30s ago: within the minute of skew; 2 minutes ago: refused.
    let ago = |s: u64| now - Duration::from_secs(s);
    assert_eq!(
        verdict(
            auth,
            &mint(issuer, subject("default", &uid), ISSUER, 600, ago(630)),
            &[]
        )
        .await,
        user
    );
    assert_eq!(
        verdict(
            auth,
            &mint(issuer, subject("default", &uid), ISSUER, 600, ago(720)),
            &[]
        )
        .await,
        Err(401)
    );
    let later = mint(
        issuer,
        subject("default", &uid),
        ISSUER,
        600,
        now + Duration::from_secs(300),
    );
    assert_eq!(verdict(auth, &later, &[]).await, Err(401), "not valid yet");

    // Another audience: refused here, accepted where that audience is asked.
    let vault = mint(issuer, subject("default", &uid), "vault", 600, now);
    assert_eq!(verdict(auth, &vault, &[]).await, Err(401));
    assert_eq!(verdict(auth, &vault, &["vault", "other"]).await, user);
    let found = auth
        .authenticate_token(&vault, &["other".into(), "vault".into()])
        .resolve()
        .await
        .expect("valid")
        .expect("ours");
    assert_eq!(found.audiences, ["vault"]);

    // Another issuer's token is not ours; ours signed by an unknown key is refused.
    let elsewhere = tempfile::tempdir().expect("dir");
    let other = issuer_with(
        elsewhere.path(),
        &["--service-account-issuer=https://other.example"],
    );
    assert_eq!(
        verdict(
            auth,
            &mint(&other, subject("default", &uid), ISSUER, 600, now),
            &[]
        )
        .await,
        Ok(None)
    );
    let impostor = issuer_with(elsewhere.path(), &[]);
    assert_eq!(
        verdict(
            auth,
            &mint(&impostor, subject("default", &uid), ISSUER, 600, now),
            &[]
        )
        .await,
        Err(401)
    );
    assert_eq!(verdict(auth, "not-a-jwt", &[]).await, Ok(None));
}

#[tokio::test]
async fn rotated_keys_keep_verifying_old_tokens_while_listed() {
    let f = start(&[]).await;
    let uid = f.service_account("default", "default").await;
    let old_key = f.dir.path().join(super::keys::GENERATED_KEY_FILE);
    let old_token = mint(
        &f.state.token_issuer,
        subject("default", &uid),
        ISSUER,
        600,
        SystemTime::now(),
    );

    // A new signing key, the old one kept for verification.
    let next = tempfile::tempdir().expect("dir");
    let rotated = issuer_with(
        next.path(),
        &["--service-account-key-file", old_key.to_str().unwrap()],
    );
    assert_ne!(
        rotated.keys().signing.public.kid,
        f.state.token_issuer.keys().signing.public.kid
    );
    assert_eq!(rotated.keys().verifying.len(), 2);
    let rotated_auth =
        ServiceAccountAuthenticator::start(rotated.clone(), &f.state.store, &f.state.shutdown);
    let new_token = mint(
        &rotated,
        subject("default", &uid),
        ISSUER,
        600,
        SystemTime::now(),
    );
    let user = Ok(Some("system:serviceaccount:default:default".to_string()));
    assert_eq!(verdict(&rotated_auth, &old_token, &[]).await, user);
    assert_eq!(verdict(&rotated_auth, &new_token, &[]).await, user);

    // The old key dropped: its tokens stop working.
    let dropped = issuer_with(next.path(), &[]);
    let dropped_auth =
        ServiceAccountAuthenticator::start(dropped, &f.state.store, &f.state.shutdown);
    assert_eq!(verdict(&dropped_auth, &old_token, &[]).await, Err(401));
    assert_eq!(verdict(&dropped_auth, &new_token, &[]).await, user);
}

async fn refused_eventually(f: &Fixture, token: &str, what: &str) {
    eventually(what, || async {
        verdict(&f.authenticator, token, &[]).await == Err(401)
    })
    .await;
}

#[tokio::test]
async fn tokens_stop_working_when_their_objects_are_deleted_or_recreated() {
    let f = start(&[]).await;
    let uid = f.service_account("default", "default").await;
    let pod_uid = f.pod("default", "web", "default").await;
    let secret = f
        .create(
            "secrets",
            Some("default"),
            serde_json::json!({"metadata": {"name": "s"}}),
        )
        .await;
    let issuer = &f.state.token_issuer;
    let now = SystemTime::now();
    let bound_to_pod = KubernetesClaims {
        pod: Some(ObjectRef {
            name: "web".into(),
            uid: pod_uid.clone(),
        }),
        ..subject("default", &uid)
    };
    let pod_token = mint(issuer, bound_to_pod, ISSUER, 600, now);
    let bound_to_secret = KubernetesClaims {
        secret: Some(ObjectRef {
            name: "s".into(),
            uid: secret["metadata"]["uid"].as_str().unwrap().into(),
        }),
        ..subject("default", &uid)
    };
    let secret_token = mint(issuer, bound_to_secret, ISSUER, 600, now);
    let plain = mint(issuer, subject("default", &uid), ISSUER, 600, now);

    let found = f
        .authenticator
        .authenticate_token(&pod_token, &[])
        .resolve()
        .await
        .expect("valid")
        .expect("ours");
    assert_eq!(
        found
            .user
            .extra
            .get("authentication.kubernetes.io/pod-name"),
        Some(&vec!["web".to_string()])
    );
    assert_eq!(
        found.user.extra.get("authentication.kubernetes.io/pod-uid"),
        Some(&vec![pod_uid])
    );
    assert!(
        verdict(&f.authenticator, &secret_token, &[])
            .await
            .is_ok_and(|u| u.is_some())
    );

    f.delete("pods", Some("default"), "web").await;
    refused_eventually(&f, &pod_token, "a token of a deleted pod is refused").await;
    f.pod("default", "web", "default").await;
    refused_eventually(&f, &pod_token, "a token of a re-created pod is refused").await;
    f.delete("secrets", Some("default"), "s").await;
    refused_eventually(&f, &secret_token, "a token of a deleted secret is refused").await;
    assert!(
        verdict(&f.authenticator, &plain, &[])
            .await
            .is_ok_and(|u| u.is_some())
    );

    f.delete("serviceaccounts", Some("default"), "default")
        .await;
    refused_eventually(
        &f,
        &plain,
        "a token of a deleted service account is refused",
    )
    .await;
    f.service_account("default", "default").await;
    refused_eventually(
        &f,
        &plain,
        "a token of a re-created service account is refused",
    )
    .await;
}
