//! `--encryption-provider-config`: the EncryptionConfiguration file (spec
//! 2.7) read as Kubernetes reads it (`decode`), validated with its rules
//! and words (`validate`) and built into [`Transformers`] (`build`). Pure:
//! no I/O but reading the file, so the server and `cairn-store` share it;
//! KMS providers are handed to the caller, which alone can reach a plugin.

mod build;
mod decode;
mod validate;

#[cfg(test)]
mod tests;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::Transformer;
use crate::resources::GroupResource;

pub use build::{keyed_prefix, kms_prefix};
pub use validate::go_duration;

/// A KMS provider's `timeout` when the file does not say.
pub const DEFAULT_KMS_TIMEOUT: Duration = Duration::from_secs(3);

const KIND: &str = "EncryptionConfiguration";

/// A validated configuration: its `resources[]` entries in order.
#[derive(Debug)]
pub struct EncryptionConfig {
    pub resources: Vec<ResourceConfig>,
}

/// One `resources[]` entry.
#[derive(Debug)]
pub struct ResourceConfig {
    pub resources: Vec<GroupResource>,
    pub providers: Vec<Provider>,
}

/// One `providers[]` element.
#[derive(Debug)]
pub enum Provider {
    AesGcm(Vec<Key>),
    AesCbc(Vec<Key>),
    Secretbox(Vec<Key>),
    Identity,
    Kms(KmsProvider),
}

/// A named key; its bytes never appear in `Debug`.
pub struct Key {
    pub name: String,
    secret: Vec<u8>,
}

impl Key {
    #[must_use]
    pub fn new(name: String, secret: Vec<u8>) -> Key {
        Key { name, secret }
    }

    /// The key's bytes (for building its cipher).
    #[must_use]
    pub fn secret(&self) -> &[u8] {
        &self.secret
    }
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Key({:?}, REDACTED)", self.name)
    }
}

/// A `kms` provider (`apiVersion: v2`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KmsProvider {
    pub name: String,
    /// `unix:///path/to/socket`.
    pub endpoint: String,
    pub timeout: Duration,
}

/// Reads and validates the file at `path` (apiVersion
/// `apiserver.config.<domain>/v1`); the error is one line.
pub fn load(path: &Path, domain: &str) -> Result<EncryptionConfig, String> {
    let data = std::fs::read(path).map_err(|e| {
        format!(
            "error reading encryption provider configuration file {:?}: {e}",
            path.display().to_string()
        )
    })?;
    parse(&data, domain).map_err(|e| match e {
        Problem::Decode(why) => format!(
            "error decoding encryption provider configuration file {:?}: {why}",
            path.display().to_string()
        ),
        Problem::Invalid(why) => format!("error while parsing file: {why}"),
    })
}

/// Why a document is refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Problem {
    /// It cannot be read as an EncryptionConfiguration.
    Decode(String),
    /// It breaks a rule; every problem, aggregated as Kubernetes does.
    Invalid(String),
}

/// Reads and validates a document (YAML or JSON).
pub fn parse(data: &[u8], domain: &str) -> Result<EncryptionConfig, Problem> {
    let doc = decode::document(data).map_err(Problem::Decode)?;
    let raw = decode::decode(&doc).map_err(Problem::Decode)?;
    check_type(&raw.api_version, &raw.kind, domain).map_err(Problem::Decode)?;
    let mut errors = Vec::new();
    let resources = validate::validate(raw, domain, &mut errors);
    if errors.is_empty() {
        let config = EncryptionConfig { resources };
        build::check_masking(&config).map_err(Problem::Invalid)?;
        Ok(config)
    } else if let [one] = errors.as_slice() {
        Err(Problem::Invalid(one.clone()))
    } else {
        Err(Problem::Invalid(format!("[{}]", errors.join(", "))))
    }
}

fn check_type(api_version: &str, kind: &str, domain: &str) -> Result<(), String> {
    if kind.is_empty() {
        return Err("Object 'Kind' is missing".into());
    }
    if api_version.is_empty() {
        return Err(format!("Object 'apiVersion' is missing in kind {kind:?}"));
    }
    if api_version != format!("apiserver.config.{domain}/v1") || kind != KIND {
        return Err(format!(
            "no kind {kind:?} is registered for version {api_version:?}"
        ));
    }
    Ok(())
}

impl EncryptionConfig {
    /// Every KMS provider, in order of appearance.
    pub fn kms_providers(&self) -> impl Iterator<Item = &KmsProvider> {
        self.resources
            .iter()
            .flat_map(|r| &r.providers)
            .filter_map(|p| match p {
                Provider::Kms(k) => Some(k),
                _ => None,
            })
    }

    /// The transformers of this configuration; `kms` gives the transformer
    /// of each KMS provider (which writes and reads its own prefix,
    /// [`kms_prefix`]).
    pub fn transformers(
        &self,
        kms: &mut dyn FnMut(&KmsProvider) -> Arc<dyn Transformer>,
    ) -> crate::Transformers {
        build::transformers(self, kms)
    }
}
