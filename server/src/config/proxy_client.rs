//! `--proxy-client-cert-file` and `--proxy-client-key-file`: the client
//! certificate kube-apiserver presents to extension API servers and to
//! `https` proxy targets.

use std::path::PathBuf;

use clap::Args;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use crate::config::file_pair::FilePair;

#[derive(Args, Debug, Clone, Default)]
pub struct ProxyClientFlags {
    /// Client certificate (PEM) presented to aggregated API servers and
    /// https proxy targets.
    #[arg(long)]
    pub proxy_client_cert_file: Option<PathBuf>,
    /// Private key (PEM) of `--proxy-client-cert-file`.
    #[arg(long)]
    pub proxy_client_key_file: Option<PathBuf>,
}

/// The certificate chain and key, as PEM.
pub struct ProxyClientPem {
    pub cert: Vec<u8>,
    pub key: Vec<u8>,
}

impl ProxyClientFlags {
    /// Reads both files (`None` when neither flag is given); the error is
    /// one line naming the flag and never holds key material.
    pub fn load(&self) -> Result<Option<ProxyClientPem>, String> {
        let pair = FilePair {
            cert_flag: "--proxy-client-cert-file",
            cert: self.proxy_client_cert_file.as_deref(),
            key_flag: "--proxy-client-key-file",
            key: self.proxy_client_key_file.as_deref(),
        };
        let Some(read) = pair.read()? else {
            return Ok(None);
        };
        let (cert, key, cert_path, key_path) = (read.cert, read.key, read.cert_path, read.key_path);
        let chain = CertificateDer::pem_slice_iter(&cert).collect::<Result<Vec<_>, _>>();
        if !chain.is_ok_and(|c| !c.is_empty()) {
            return Err(format!(
                "--proxy-client-cert-file: {}: no PEM certificate",
                cert_path.display()
            ));
        }
        if PrivateKeyDer::from_pem_slice(&key).is_err() {
            return Err(format!(
                "--proxy-client-key-file: {}: no PEM private key",
                key_path.display()
            ));
        }
        Ok(Some(ProxyClientPem { cert, key }))
    }
}
