//! The admission flags, kube-apiserver's names: which plugins run and the
//! AdmissionConfiguration file that configures them.

use std::path::PathBuf;

use clap::Args;

#[derive(Args, Debug, Clone, Default)]
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
}
