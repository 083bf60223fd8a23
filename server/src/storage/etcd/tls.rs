//! TLS to etcd: `--etcd-cafile` names the authority etcd's certificate must
//! chain to (the system's roots without it), `--etcd-certfile` and
//! `--etcd-keyfile` the client certificate etcd may ask for. HTTP/2 only.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ClientConfig, RootCertStore};

/// Where Debian-like systems keep their trusted roots.
const SYSTEM_BUNDLE: &str = "/etc/ssl/certs/ca-certificates.crt";

/// The client configuration; each error is one line naming the flag, never
/// key material.
pub fn client_config(
    ca_file: Option<&Path>,
    cert_file: Option<&Path>,
    key_file: Option<&Path>,
) -> Result<ClientConfig, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS setup: {e}"))?
        .with_root_certificates(roots(ca_file)?);
    let mut config = match (cert_file, key_file) {
        (Some(cert), Some(key)) => {
            let pem = read(cert, "--etcd-certfile")?;
            let chain = CertificateDer::pem_slice_iter(&pem)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| format!("--etcd-certfile: {} is not PEM", cert.display()))?;
            if chain.is_empty() {
                return Err(format!(
                    "--etcd-certfile: {} holds no certificate",
                    cert.display()
                ));
            }
            let key_pem = read(key, "--etcd-keyfile")?;
            let key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|_| {
                format!("--etcd-keyfile: {} is not a PEM private key", key.display())
            })?;
            builder
                .with_client_auth_cert(chain, key)
                .map_err(|_| "--etcd-keyfile: the key does not fit --etcd-certfile".to_string())?
        }
        (None, None) => builder.with_no_client_auth(),
        (Some(_), None) => return Err("--etcd-certfile needs --etcd-keyfile".into()),
        (None, Some(_)) => return Err("--etcd-keyfile needs --etcd-certfile".into()),
    };
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(config)
}

fn read(path: &Path, flag: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{flag}: cannot read {}: {e}", path.display()))
}

fn roots(ca_file: Option<&Path>) -> Result<RootCertStore, String> {
    let (bundle, flag) = match ca_file {
        Some(path) => (read(path, "--etcd-cafile")?, "--etcd-cafile"),
        None => (
            read(Path::new(SYSTEM_BUNDLE), "system roots")?,
            "system roots",
        ),
    };
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&bundle) {
        let cert = cert.map_err(|e| format!("{flag}: bad certificate: {e}"))?;
        // A root rustls cannot use is skipped, as Go skips it.
        let _ = roots.add(cert);
    }
    if roots.is_empty() {
        return Err(format!("{flag}: no usable certificate"));
    }
    Ok(roots)
}
