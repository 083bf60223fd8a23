//! The TLS side of a webhook connection: rustls on ring, trusting the
//! kubeconfig's CA (or the system's roots), presenting its client
//! certificate, or — when the kubeconfig says `insecure-skip-tls-verify` —
//! accepting any server certificate while still checking the handshake's
//! signatures.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};

use super::kubeconfig::Settings;

/// Where Debian-like systems keep their trusted roots.
const SYSTEM_BUNDLE: &str = "/etc/ssl/certs/ca-certificates.crt";

/// The client configuration `settings` describe; the error is one line
/// and never contains key material.
pub fn client_config(settings: &Settings) -> Result<ClientConfig, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS setup: {e}"))?;
    let builder = if settings.insecure {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AnyCertificate { provider }))
    } else {
        builder.with_root_certificates(roots(settings.ca_pem.as_deref())?)
    };
    let mut config = match (&settings.client_cert_pem, &settings.client_key_pem) {
        (Some(cert), Some(key)) => {
            let chain = CertificateDer::pem_slice_iter(cert)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| "the client certificate is not PEM".to_string())?;
            let key = PrivateKeyDer::from_pem_slice(key)
                .map_err(|_| "the client key is not a PEM private key".to_string())?;
            builder
                .with_client_auth_cert(chain, key)
                .map_err(|_| "the client certificate and key do not fit together".to_string())?
        }
        _ => builder.with_no_client_auth(),
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

fn roots(ca_pem: Option<&[u8]>) -> Result<RootCertStore, String> {
    let bundle = match ca_pem {
        Some(pem) => pem.to_vec(),
        None => {
            let path = std::env::var("SSL_CERT_FILE").unwrap_or_else(|_| SYSTEM_BUNDLE.into());
            std::fs::read(&path).map_err(|e| format!("cannot read the system roots {path}: {e}"))?
        }
    };
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&bundle) {
        let cert = cert.map_err(|e| format!("bad certificate in the CA bundle: {e}"))?;
        // A root rustls cannot use is skipped, as Go skips it.
        let _ = roots.add(cert);
    }
    if roots.is_empty() {
        return Err("the certificate authority holds no usable certificate".into());
    }
    Ok(roots)
}

/// `insecure-skip-tls-verify`: the server's certificate is not checked.
#[derive(Debug)]
struct AnyCertificate {
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}
