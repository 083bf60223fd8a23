//! Tests' own servers over HTTPS (a webhook, an OIDC issuer): a fresh CA
//! and a `localhost`/`127.0.0.1` serving certificate from it.

use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair, SanType};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// A server configuration for loopback names, and its CA's PEM to trust.
#[must_use]
pub fn loopback_server() -> (rustls::ServerConfig, String) {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("params");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca =
        CertifiedIssuer::self_signed(ca_params, KeyPair::generate().expect("key")).expect("ca");
    let mut leaf = CertificateParams::new(vec!["localhost".to_owned()]).expect("params");
    leaf.subject_alt_names
        .push(SanType::IpAddress("127.0.0.1".parse().expect("ip")));
    let leaf_key = KeyPair::generate().expect("key");
    let cert = leaf.signed_by(&leaf_key, &ca).expect("leaf");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from(cert.der().to_vec())],
            PrivateKeyDer::from_pem_slice(leaf_key.serialize_pem().as_bytes()).expect("key"),
        )
        .expect("tls");
    (tls, ca.pem())
}
