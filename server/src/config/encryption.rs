//! The encryption-at-rest flags, kube-apiserver's names.

use std::path::PathBuf;

use clap::Args;

#[derive(Args, Debug, Clone, Default)]
pub struct EncryptionFlags {
    /// EncryptionConfiguration file (YAML or JSON): the providers that
    /// encrypt each resource's values in storage.
    #[arg(long)]
    pub encryption_provider_config: Option<PathBuf>,
    /// Re-read `--encryption-provider-config` when it changes (an invalid
    /// new file is logged and the previous configuration stays).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", require_equals = false)]
    pub encryption_provider_config_automatic_reload: Option<bool>,
}

impl EncryptionFlags {
    /// Whether the file is re-read while serving.
    #[must_use]
    pub fn automatic_reload(&self) -> bool {
        self.encryption_provider_config_automatic_reload == Some(true)
    }
}
