//! `--encryption-provider-config` for the tool: the server's configuration
//! file read by the same parser (`cairn_transform::config`). Its local keys
//! decrypt and encrypt offline; its KMS providers cannot (they need their
//! plugin, which only the server reaches), so the values they cover are
//! shown as encrypted and cannot be rewritten here.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use cairn_transform::config::{self, EncryptionConfig, Provider};
use cairn_transform::{Error, Plain, Transformer, Transformers};
use clap::Args;

use crate::error::{CliError, Result};
use crate::values::Values;

/// `--encryption-provider-config FILE --api-domain DOMAIN`.
#[derive(Args, Debug, Clone, Default)]
pub struct EncryptionArgs {
    /// The server's EncryptionConfiguration: decrypt values with its keys
    /// (KMS providers cannot be used offline: their values stay encrypted).
    #[arg(long, value_name = "FILE")]
    pub encryption_provider_config: Option<PathBuf>,
    /// The API domain of the configuration's apiVersion (`apiserver.config.<domain>/v1`).
    #[arg(long, value_name = "DOMAIN", default_value = "k8s.io")]
    pub api_domain: String,
}

/// A KMS provider offline: it can neither read nor write.
struct Offline(String);

impl Transformer for Offline {
    fn transform_to_storage<'a>(
        &self,
        _key: &[u8],
        _plain: &'a [u8],
    ) -> std::result::Result<std::borrow::Cow<'a, [u8]>, Error> {
        Err(Error::new(self.0.clone()))
    }

    fn transform_from_storage<'a>(
        &self,
        _key: &[u8],
        _stored: &'a [u8],
    ) -> std::result::Result<Plain<'a>, Error> {
        Err(Error::new(self.0.clone()))
    }
}

impl EncryptionArgs {
    /// The configuration, if one was given (a bad file is a usage error).
    pub fn config(&self) -> Result<Option<EncryptionConfig>> {
        self.encryption_provider_config
            .as_ref()
            .map(|path| config::load(path, &self.api_domain).map_err(CliError::Usage))
            .transpose()
    }

    /// The values as the configuration reads them (identity without one).
    pub fn values(&self) -> Result<Values> {
        Ok(match self.config()? {
            None => Values::new(Transformers::identity()),
            Some(c) => Values::decrypting(transformers(&c), readable_keys(&c)),
        })
    }
}

/// The configuration's transformers, its KMS providers offline.
pub fn transformers(config: &EncryptionConfig) -> Transformers {
    config.transformers(&mut |kms| {
        Arc::new(Offline(format!(
            "KMS provider {:?} cannot be used offline: only the server reaches its plugin",
            kms.name
        )))
    })
}

/// `provider:keyname` of every local key of the configuration.
pub fn readable_keys(config: &EncryptionConfig) -> HashSet<String> {
    let mut out = HashSet::new();
    for provider in config.resources.iter().flat_map(|r| &r.providers) {
        let (name, keys) = match provider {
            Provider::AesGcm(k) => ("aesgcm", k),
            Provider::AesCbc(k) => ("aescbc", k),
            Provider::Secretbox(k) => ("secretbox", k),
            Provider::Identity | Provider::Kms(_) => continue,
        };
        out.extend(keys.iter().map(|k| format!("{name}:{}", k.name)));
    }
    out
}
