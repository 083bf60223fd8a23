//! Serving TLS: the certificate material (given by flags, or generated
//! into the data directory at first start), the rustls configuration with
//! HTTP/2 and HTTP/1.1 by ALPN, the admin kubeconfig, and the client CA
//! that the x509 authenticator trusts.

pub mod client_auth;
pub mod kubeconfig;
pub mod pki;
mod resubject;
#[cfg(test)]
pub mod test_pki;
pub mod upstream;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::ServerConfig;

use crate::config::Config;

/// Why TLS could not be set up; each names the file or setting.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{0}: {1}")]
    Invalid(String, &'static str),
    #[error("cannot generate certificates: {0}")]
    Generate(String),
    #[error("TLS configuration: {0}")]
    Rustls(#[from] rustls::Error),
}

impl TlsError {
    fn io(path: &Path, error: std::io::Error) -> TlsError {
        TlsError::Io {
            path: path.to_path_buf(),
            error,
        }
    }

    fn generate(e: impl std::fmt::Display) -> TlsError {
        TlsError::Generate(e.to_string())
    }
}

/// The one crypto provider (ring): with two in the tree rustls would need
/// one chosen per process.
#[must_use]
pub fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Everything the secure port serves with.
pub struct Serving {
    pub config: Arc<ServerConfig>,
    /// The CA client certificates must chain to (PEM certificates, DER).
    pub client_cas: Vec<CertificateDer<'static>>,
    /// The cluster CA (always made: it signs the admin client certificate).
    pub cluster_ca: pki::ClusterCa,
    /// Whether the serving certificate is the cluster CA's (so the admin
    /// kubeconfig can name that CA as the one to trust).
    pub generated_serving: bool,
}

/// The names the generated serving certificate covers.
#[must_use]
pub fn serving_names(config: &Config) -> Vec<String> {
    let mut names: Vec<String> = [
        "localhost",
        "127.0.0.1",
        "::1",
        "kubernetes",
        "kubernetes.default",
        "kubernetes.default.svc",
        "kubernetes.default.svc.cluster.local",
    ]
    .iter()
    .map(|s| (*s).to_string())
    .collect();
    if let Some(host) = crate::util::host_name() {
        names.push(host);
    }
    if let Some(a) = config.advertise_address {
        names.push(a.to_string());
    }
    if !config.bind_address.is_unspecified() {
        names.push(config.bind_address.to_string());
    }
    names.extend(config.tls_sans.iter().cloned());
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    names
}

fn read(path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|e| TlsError::io(path, e))
}

/// The certificates of a PEM file; at least one.
pub fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let bytes = read(path)?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| TlsError::Invalid(path.display().to_string(), "not a PEM certificate file"))?;
    if certs.is_empty() {
        return Err(TlsError::Invalid(
            path.display().to_string(),
            "holds no PEM certificate",
        ));
    }
    Ok(certs)
}

fn private_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    let bytes = read(path)?;
    PrivateKeyDer::from_pem_slice(&bytes)
        .map_err(|_| TlsError::Invalid(path.display().to_string(), "holds no PEM private key"))
}

/// The secure port's TLS material from the flags, generating what is not
/// given into the data directory.
pub fn serving(config: &Config) -> Result<Serving, TlsError> {
    let cluster_ca = pki::ClusterCa::load_or_create(&config.data_dir)?;
    let (chain, key, generated_serving) =
        match (&config.tls_cert_file, &config.tls_private_key_file) {
            (Some(cert), Some(key)) => (certificates(cert)?, private_key(key)?, false),
            (None, None) => {
                let pair = cluster_ca.serving(&config.data_dir, &serving_names(config))?;
                let chain = CertificateDer::pem_slice_iter(pair.cert_pem.as_bytes())
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|_| TlsError::Generate("unreadable serving certificate".into()))?;
                let key = PrivateKeyDer::from_pem_slice(pair.key_pem.as_bytes())
                    .map_err(|_| TlsError::Generate("unreadable serving key".into()))?;
                (chain, key, true)
            }
            (Some(_), None) => {
                return Err(TlsError::Invalid(
                    "--tls-private-key-file".into(),
                    "required with --tls-cert-file",
                ));
            }
            (None, Some(_)) => {
                return Err(TlsError::Invalid(
                    "--tls-cert-file".into(),
                    "required with --tls-private-key-file",
                ));
            }
        };
    let client_cas = match &config.client_ca_file {
        Some(path) => certificates(path)?,
        None => CertificateDer::pem_slice_iter(cluster_ca.cert_pem.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| TlsError::Generate("unreadable cluster CA".into()))?,
    };
    let provider = provider();
    let verifier = Arc::new(client_auth::OfferedClientCerts::new(Arc::clone(&provider)));
    let mut server = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_client_cert_verifier(verifier)
        .with_single_cert(chain, key)
        .map_err(|e| match e {
            rustls::Error::General(_) | rustls::Error::InconsistentKeys(_) => TlsError::Invalid(
                "--tls-private-key-file".into(),
                "does not match the certificate of --tls-cert-file",
            ),
            other => TlsError::Rustls(other),
        })?;
    server.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Serving {
        config: Arc::new(server),
        client_cas,
        cluster_ca,
        generated_serving,
    })
}
