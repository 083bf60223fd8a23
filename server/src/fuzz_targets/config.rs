//! The configuration files of spec 2.7 and the flag values read as text:
//! authentication and authorization configurations, the audit policy, the
//! static token file, feature gates and `--runtime-config`; webhook
//! kubeconfigs; the encryption configuration (`--encryption-provider-config`).

use std::path::Path;
use std::sync::Arc;

use cairn_transform::config as encryption;
use cairn_transform::{Identity, Transformer};

use super::text;
use crate::config::authn::{self, Context};
use crate::config::{FeatureGates, RuntimeConfig, authz, document};
use crate::request::audit::Policy;
use crate::request::authn::token_file::TokenFile;
use crate::request::authz::webhook::kubeconfig;

const DOMAIN: &str = "k8s.io";

pub fn authn_config(input: &[u8]) {
    let ctx = Context {
        api_domain: DOMAIN.into(),
        disallowed_issuers: vec!["https://kubernetes.default.svc".into()],
    };
    let _ = authn::parse(input, &ctx);
}

pub fn authz_config(input: &[u8]) {
    let _ = authz::parse(input, DOMAIN);
}

pub fn audit_policy(input: &[u8]) {
    let _ = Policy::parse(input, DOMAIN);
    let _ = document::decode(input);
}

pub fn token_file(input: &[u8]) {
    let _ = TokenFile::parse(&text(input), "tokens.csv");
}

pub fn flag_values(input: &[u8]) {
    let text = text(input);
    let _ = FeatureGates::parse(&text);
    let _ = RuntimeConfig::parse(&text);
}

/// Files a kubeconfig may name that never end or are not files at all; an
/// input naming one is skipped rather than read.
const ENDLESS_FILES: &[&[u8]] = &[b"/dev", b"/proc", b"/sys"];

/// A webhook kubeconfig (authorization and admission webhooks read the
/// same way); its relative file references point nowhere, so reading them
/// fails cleanly. A token read from it never shows in `Debug`.
pub fn kubeconfig(input: &[u8]) {
    if ENDLESS_FILES
        .iter()
        .any(|f| input.windows(f.len()).any(|w| w == *f))
    {
        return;
    }
    let base = Path::new("/nonexistent/cairn-fuzz-kubeconfig");
    let Ok(settings) = kubeconfig::from_text(&text(input), base) else {
        return;
    };
    assert!(!settings.server.is_empty(), "a webhook needs a server");
    if let Some(token) = &settings.token
        && token.len() >= 8
        && !settings.server.contains(token.as_str())
    {
        assert!(
            !format!("{settings:?}").contains(token.as_str()),
            "the token shows in Debug"
        );
    }
}

/// Keys of resources the providers may or may not cover.
const KEYS: &[&[u8]] = &[
    b"/registry/secrets/ns/a",
    b"/registry/configmaps/ns/b",
    b"/registry/widgets.example.com/widgets/ns/c",
    b"/registry/events/ns/d",
];

/// An encryption configuration that loads gives transformers under which
/// every value reads back as written (KMS providers stand in as identity).
pub fn encryption_config(input: &[u8]) {
    let Ok(config) = encryption::parse(input, DOMAIN) else {
        return;
    };
    let identity: Arc<dyn Transformer> = Arc::new(Identity);
    let transformers = config.transformers(&mut |_| Arc::clone(&identity));
    let plain = b"{\"kind\":\"Secret\",\"data\":{\"k\":\"dg==\"}}";
    for key in KEYS {
        let stored = transformers
            .transform_to_storage(key, plain)
            .unwrap_or_else(|e| panic!("a configuration that loads stores values: {e}"));
        let read = transformers
            .transform_from_storage(key, &stored)
            .unwrap_or_else(|e| panic!("a stored value reads back: {e}"));
        assert_eq!(&read.value[..], &plain[..], "read back as written");
    }
}
