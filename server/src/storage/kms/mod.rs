//! KMS v2 providers of encryption at rest: a data-encryption key per server
//! start, wrapped by a key-management plugin over gRPC on a unix socket.
//!
//! The interface the encryption configuration builds on; the client itself
//! lands with issue 21's KMS work.

use std::sync::Arc;
use std::time::Duration;

/// A `kms` provider with `apiVersion: v2`, as the configuration names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KmsSpec {
    /// `name`: unique among the configuration's KMS providers.
    pub name: String,
    /// `endpoint`: `unix:///path/to/socket`.
    pub endpoint: String,
    /// `timeout` (default 3 s).
    pub timeout: Duration,
}

/// A connected KMS v2 provider: a `cairn_transform::Transformer` for the
/// values of the resources it covers, and the health of its plugin.
pub struct KmsV2 {
    spec: KmsSpec,
}

impl KmsV2 {
    /// Connects to the plugin named by `spec` and obtains this start's
    /// data-encryption key.
    pub async fn connect(spec: &KmsSpec) -> Result<Arc<KmsV2>, String> {
        Err(format!(
            "kms provider {:?}: KMS v2 is not available in this build",
            spec.name
        ))
    }

    /// The provider's `name`.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The plugin's health as its latest `Status` call reported it (the
    /// `kms-providers` check of /readyz and /healthz).
    pub fn health(&self) -> Result<(), String> {
        Ok(())
    }
}

impl cairn_transform::Transformer for KmsV2 {
    fn transform_to_storage<'a>(
        &self,
        _key: &[u8],
        _plain: &'a [u8],
    ) -> Result<std::borrow::Cow<'a, [u8]>, cairn_transform::Error> {
        Err(cairn_transform::Error::new("KMS v2 is not available"))
    }

    fn transform_from_storage<'a>(
        &self,
        _key: &[u8],
        _stored: &'a [u8],
    ) -> Result<cairn_transform::Plain<'a>, cairn_transform::Error> {
        Err(cairn_transform::Error::new("KMS v2 is not available"))
    }
}
