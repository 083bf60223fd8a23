//! HTTPS GET of an identity provider's JSON documents (discovery, JWKS):
//! rustls on ring, trusting the issuer's `certificateAuthority` or the
//! system's roots, HTTP/1.1 through hyper, bounded in time and size.

use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Empty, Limited};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use rustls::RootCertStore;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use crate::util::url::UrlTarget;

/// Largest document accepted from a provider.
const MAX_BODY_BYTES: usize = 1024 * 1024;
/// Longest a whole fetch may take.
const TIMEOUT: Duration = Duration::from_secs(10);
/// Where Debian-like systems keep their trusted roots.
const SYSTEM_BUNDLE: &str = "/etc/ssl/certs/ca-certificates.crt";

/// A client for one issuer's connections.
pub struct Fetcher {
    tls: TlsConnector,
}

impl Fetcher {
    /// Trusts `ca_pem` when given, else the system roots (`SSL_CERT_FILE`
    /// or the system bundle).
    pub fn new(ca_pem: Option<&str>) -> Result<Fetcher, String> {
        let bundle = match ca_pem {
            Some(pem) => pem.as_bytes().to_vec(),
            None => {
                let path = std::env::var("SSL_CERT_FILE").unwrap_or_else(|_| SYSTEM_BUNDLE.into());
                std::fs::read(&path)
                    .map_err(|e| format!("cannot read the system roots {path}: {e}"))?
            }
        };
        let mut roots = RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(&bundle) {
            let cert = cert.map_err(|e| format!("bad certificate in the CA bundle: {e}"))?;
            // A root that rustls cannot use is skipped, as Go skips it.
            let _ = roots.add(cert);
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS setup: {e}"))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Fetcher {
            tls: TlsConnector::from(Arc::new(config)),
        })
    }

    /// The JSON document at `url` (https only); any failure as one line.
    pub async fn get_json(&self, url: &str) -> Result<Value, String> {
        tokio::time::timeout(TIMEOUT, self.get(url))
            .await
            .map_err(|_| format!("GET {url}: timed out"))?
    }

    async fn get(&self, url: &str) -> Result<Value, String> {
        let target = UrlTarget::parse(url)?;
        if !target.https {
            return Err(format!("{url}: only https URLs are fetched"));
        }
        let tcp = TcpStream::connect((target.host.as_str(), target.port))
            .await
            .map_err(|e| format!("GET {url}: {e}"))?;
        let name = ServerName::try_from(target.host.clone())
            .map_err(|e| format!("GET {url}: bad host name: {e}"))?;
        let tls = self
            .tls
            .connect(name, tcp)
            .await
            .map_err(|e| format!("GET {url}: {e}"))?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
            .await
            .map_err(|e| format!("GET {url}: {e}"))?;
        tokio::spawn(async move {
            // The connection ends with the request; its error is the request's.
            let _ = conn.await;
        });
        let request = http::Request::get(&target.path_and_query)
            .header(http::header::HOST, &target.authority)
            .header(http::header::ACCEPT, "application/json")
            .body(Empty::<Bytes>::new())
            .map_err(|e| format!("GET {url}: {e}"))?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| format!("GET {url}: {e}"))?;
        let status = response.status();
        let body = Limited::new(response.into_body(), MAX_BODY_BYTES)
            .collect()
            .await
            .map_err(|e| format!("GET {url}: {e}"))?
            .to_bytes();
        if !status.is_success() {
            return Err(format!("GET {url}: {status}"));
        }
        serde_json::from_slice(&body).map_err(|e| format!("GET {url}: not JSON: {e}"))
    }
}
