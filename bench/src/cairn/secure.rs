//! The secure port's credentials: the cluster CA and the system:admin client
//! certificate from `<data-dir>/admin.kubeconfig`, and a static token file
//! the bench writes for `--token-auth-file`.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::path::Path;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ClientConfig, RootCertStore};
use serde::Deserialize;

use crate::Result;

/// The user the static token names; in system:masters, as system:admin is.
pub const TOKEN_USER: &str = "cairn-bench";
/// The user of the second static token: in no privileged group, so RBAC
/// decides its every request (the bench binds it as it binds the
/// service account).
pub const RBAC_USER: &str = "cairn-bench-rbac";

#[derive(Deserialize)]
struct Kubeconfig {
    clusters: Vec<NamedCluster>,
    users: Vec<NamedUser>,
}

#[derive(Deserialize)]
struct NamedCluster {
    cluster: Cluster,
}

#[derive(Deserialize)]
struct NamedUser {
    user: User,
}

#[derive(Deserialize)]
struct Cluster {
    #[serde(rename = "certificate-authority-data")]
    ca: String,
}

#[derive(Deserialize)]
struct User {
    #[serde(rename = "client-certificate-data")]
    cert: String,
    #[serde(rename = "client-key-data")]
    key: String,
}

/// TLS client configurations for the secure port.
pub struct Credentials {
    /// Presents the admin client certificate.
    pub client_cert: Arc<ClientConfig>,
    /// Presents none (for bearer tokens).
    pub no_cert: Arc<ClientConfig>,
}

fn pem(field: &str, data: &str) -> Result<Vec<u8>> {
    STANDARD
        .decode(data.trim())
        .map_err(|e| format!("admin.kubeconfig {field}: {e}").into())
}

impl Credentials {
    /// From the admin kubeconfig the server wrote into its data directory.
    pub fn from_kubeconfig(path: &Path) -> Result<Self> {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("read {}: {e}", path.display()))?;
        let doc: Kubeconfig =
            serde_saphyr::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let (Some(cluster), Some(user)) = (doc.clusters.first(), doc.users.first()) else {
            return Err(format!("{}: no cluster or no user", path.display()).into());
        };
        let ca = pem("certificate-authority-data", &cluster.cluster.ca)?;
        let cert = pem("client-certificate-data", &user.user.cert)?;
        let key = pem("client-key-data", &user.user.key)?;
        let mut roots = RootCertStore::empty();
        for c in CertificateDer::pem_slice_iter(&ca) {
            roots.add(c.map_err(|e| format!("cluster CA: {e}"))?)?;
        }
        let chain = CertificateDer::pem_slice_iter(&cert)
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| format!("admin client certificate: {e}"))?;
        let key =
            PrivateKeyDer::from_pem_slice(&key).map_err(|e| format!("admin client key: {e}"))?;
        let builder = || {
            ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .map(|b| b.with_root_certificates(roots.clone()))
        };
        // HTTP/1.1 only, as the create phase on the plain port (no ALPN h2).
        let mut client_cert = builder()?.with_client_auth_cert(chain, key)?;
        client_cert.alpn_protocols = vec![b"http/1.1".to_vec()];
        let mut no_cert = builder()?.with_no_client_auth();
        no_cert.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Self {
            client_cert: Arc::new(client_cert),
            no_cert: Arc::new(no_cert),
        })
    }
}

/// A fresh random token (128 bits from the standard library's hasher keys:
/// good enough for a server on loopback that lives as long as the run).
pub fn random_token() -> String {
    let mut out = String::new();
    for _ in 0..2 {
        let mut h = RandomState::new().build_hasher();
        h.write_u128(
            std::time::UNIX_EPOCH
                .elapsed()
                .unwrap_or_default()
                .as_nanos(),
        );
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out
}

/// The `--token-auth-file` line: `token,user,uid,"group1,group2"`.
pub fn token_file_line(token: &str) -> String {
    format!("{token},{TOKEN_USER},{TOKEN_USER}-uid,\"system:masters\"\n")
}

/// The line of the RBAC-decided user (no groups but the ones the server adds).
pub fn rbac_token_file_line(token: &str) -> String {
    format!("{token},{RBAC_USER},{RBAC_USER}-uid\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_differ_and_lines_are_kubernetes_csv() {
        let (a, b) = (random_token(), random_token());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert_eq!(
            token_file_line("t0k"),
            "t0k,cairn-bench,cairn-bench-uid,\"system:masters\"\n"
        );
    }
}
