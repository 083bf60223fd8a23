//! The admission flags, kube-apiserver's names: which plugins run and the
//! AdmissionConfiguration file that configures them.

use std::path::PathBuf;

use clap::Args;

#[derive(Args, Debug, Clone)]
pub struct AdmissionFlags {
    /// Admission plugins to enable besides the default ones, comma-separated
    /// (kube-apiserver's names; they run in kube's fixed order whatever the
    /// order given).
    #[arg(long, value_delimiter = ',')]
    pub enable_admission_plugins: Vec<String>,
    /// Admission plugins to disable, even default ones, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub disable_admission_plugins: Vec<String>,
    /// AdmissionConfiguration file (YAML or JSON): each plugin's own
    /// configuration, inline or by a path relative to this file.
    #[arg(long)]
    pub admission_control_config_file: Option<PathBuf>,
    /// Seconds a pod tolerates its node's `not-ready` taint, given to every
    /// pod without such a toleration (DefaultTolerationSeconds).
    #[arg(long, default_value_t = DEFAULT_TOLERATION_SECONDS)]
    pub default_not_ready_toleration_seconds: i64,
    /// Seconds a pod tolerates its node's `unreachable` taint, likewise.
    #[arg(long, default_value_t = DEFAULT_TOLERATION_SECONDS)]
    pub default_unreachable_toleration_seconds: i64,
}

/// kube-apiserver's default for both toleration flags.
const DEFAULT_TOLERATION_SECONDS: i64 = 300;

impl Default for AdmissionFlags {
    fn default() -> Self {
        AdmissionFlags {
            enable_admission_plugins: Vec::new(),
            disable_admission_plugins: Vec::new(),
            admission_control_config_file: None,
            default_not_ready_toleration_seconds: DEFAULT_TOLERATION_SECONDS,
            default_unreachable_toleration_seconds: DEFAULT_TOLERATION_SECONDS,
        }
    }
}
