//! kube-controller-manager's `--cluster-signing-cert-file`,
//! `--cluster-signing-key-file` and `--cluster-signing-duration`: the CA the
//! CertificateSigningRequest signer issues with (the cluster CA when not
//! given) and the longest certificate it issues.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::config::file_pair::FilePair;
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
        let pair = FilePair {
            cert_flag: "--cluster-signing-cert-file",
            cert: self.cluster_signing_cert_file.as_deref(),
            key_flag: "--cluster-signing-key-file",
            key: self.cluster_signing_key_file.as_deref(),
        };
        let Some(read) = pair.read()? else {
            return Ok(None);
        };
        let (cert_path, key_path) = (read.cert_path, read.key_path);
        let text = |bytes: Vec<u8>, flag: &str, path: &std::path::Path| {
            String::from_utf8(bytes)
                .map_err(|_| format!("{flag}: {}: not UTF-8 text", path.display()))
        };
        let cert = text(read.cert, "--cluster-signing-cert-file", cert_path)?;
        let key = text(read.key, "--cluster-signing-key-file", key_path)?;
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
