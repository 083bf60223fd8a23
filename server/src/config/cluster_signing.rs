//! kube-controller-manager's `--cluster-signing-cert-file`,
//! `--cluster-signing-key-file` and `--cluster-signing-duration`: the CA the
//! CertificateSigningRequest signer issues with (the cluster CA when not
//! given) and the longest certificate it issues.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::util::duration;

#[derive(Args, Debug, Clone)]
pub struct ClusterSigningFlags {
    /// PEM CA certificate the CertificateSigningRequest signer issues
    /// certificates with (default: the cluster CA).
    #[arg(long)]
    pub cluster_signing_cert_file: Option<PathBuf>,
    /// PEM private key of `--cluster-signing-cert-file`.
    #[arg(long)]
    pub cluster_signing_key_file: Option<PathBuf>,
    /// Longest validity of a signed certificate; a request's
    /// `spec.expirationSeconds` may only shorten it.
    #[arg(long, default_value = "8760h0m0s", value_parser = positive_duration)]
    pub cluster_signing_duration: Duration,
}

impl Default for ClusterSigningFlags {
    fn default() -> Self {
        ClusterSigningFlags {
            cluster_signing_cert_file: None,
            cluster_signing_key_file: None,
            cluster_signing_duration: Duration::from_secs(8760 * 3600),
        }
    }
}

fn positive_duration(s: &str) -> Result<Duration, String> {
    let d = duration::parse(s)?;
    if d.is_zero() {
        return Err("must be greater than zero".into());
    }
    Ok(d)
}

/// The signing CA's certificate and key as PEM, read from the flags' files.
pub struct SigningCaPem {
    pub cert: String,
    pub key: String,
}

impl ClusterSigningFlags {
    /// Reads both files (`None` when neither flag is given: the cluster CA
    /// signs); the error is one line naming the flag, never key material.
    pub fn load(&self) -> Result<Option<SigningCaPem>, String> {
        let (cert_path, key_path) = match (
            &self.cluster_signing_cert_file,
            &self.cluster_signing_key_file,
        ) {
            (None, None) => return Ok(None),
            (Some(c), Some(k)) => (c, k),
            (Some(_), None) => {
                return Err(
                    "--cluster-signing-key-file: required with --cluster-signing-cert-file".into(),
                );
            }
            (None, Some(_)) => {
                return Err(
                    "--cluster-signing-cert-file: required with --cluster-signing-key-file".into(),
                );
            }
        };
        let cert = std::fs::read_to_string(cert_path)
            .map_err(|e| format!("--cluster-signing-cert-file: {}: {e}", cert_path.display()))?;
        let key = std::fs::read_to_string(key_path)
            .map_err(|e| format!("--cluster-signing-key-file: {}: {e}", key_path.display()))?;
        let pem = SigningCaPem { cert, key };
        crate::tls::pki::ClusterCa::from_pem(&pem.cert, &pem.key).map_err(|problem| {
            format!(
                "--cluster-signing-cert-file/--cluster-signing-key-file: {} and {}: {problem}",
                cert_path.display(),
                key_path.display()
            )
        })?;
        Ok(Some(pem))
    }
}
