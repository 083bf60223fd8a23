//! HTTPS to the server under test: a blocking rustls client that trusts a
//! given CA and may present a client certificate, and the admin identity
//! the server wrote into `<data-dir>/admin.kubeconfig`.

use std::net::TcpStream;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};
use serde_json::Value;

use crate::client::{Response, request_on};

/// A certificate and key, PEM.
#[derive(Clone, Debug)]
pub struct Identity {
    pub cert_pem: String,
    pub key_pem: String,
}

/// Who connects and whom they trust.
#[derive(Clone)]
pub struct TlsClient {
    config: Arc<ClientConfig>,
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

impl TlsClient {
    /// Trusts `ca_pem`; presents `identity` when given.
    #[must_use]
    pub fn new(ca_pem: &str, identity: Option<&Identity>) -> TlsClient {
        let mut roots = RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
            roots.add(cert.expect("CA PEM")).expect("CA certificate");
        }
        let builder = ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_root_certificates(roots);
        let mut config = match identity {
            None => builder.with_no_client_auth(),
            Some(id) => {
                let chain = CertificateDer::pem_slice_iter(id.cert_pem.as_bytes())
                    .collect::<Result<Vec<_>, _>>()
                    .expect("client certificate PEM");
                let key = PrivateKeyDer::from_pem_slice(id.key_pem.as_bytes()).expect("client key");
                builder
                    .with_client_auth_cert(chain, key)
                    .expect("client certificate")
            }
        };
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        TlsClient {
            config: Arc::new(config),
        }
    }

    /// One HTTP/1.1 request on a fresh TLS connection to `127.0.0.1:port`
    /// (the server name checked is `localhost`'s address, 127.0.0.1).
    pub fn request(
        &self,
        port: u16,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&[u8]>,
    ) -> std::io::Result<Response> {
        let tcp = TcpStream::connect(("127.0.0.1", port))?;
        tcp.set_read_timeout(Some(Duration::from_secs(30)))?;
        let name = ServerName::try_from("127.0.0.1").expect("server name");
        let conn =
            ClientConnection::new(Arc::clone(&self.config), name).map_err(std::io::Error::other)?;
        request_on(StreamOwned::new(conn, tcp), method, path, headers, body)
    }
}

/// A CA certificate file (in `dir`) for servers that share one etcd to
/// publish as their root CA (`--root-ca-file`): each would otherwise
/// publish its own cluster CA, and a change of leader would rewrite
/// every namespace's `kube-root-ca.crt`.
#[must_use]
pub fn shared_root_ca(dir: &Path) -> String {
    let path = dir.join("shared-root-ca.crt");
    std::fs::write(&path, make::ca("shared-root").cert_pem).expect("write the root CA");
    path.display().to_string()
}

/// The CA and admin identity of a kubeconfig the server wrote.
#[must_use]
pub fn kubeconfig_identity(path: &Path) -> (String, Identity) {
    let text = std::fs::read_to_string(path).expect("kubeconfig");
    let doc: Value = serde_saphyr::from_str(&text).expect("kubeconfig YAML");
    let field = |v: &Value| {
        let b64 = v.as_str().expect("base64 field");
        String::from_utf8(STANDARD.decode(b64).expect("base64")).expect("PEM")
    };
    let ca = field(&doc["clusters"][0]["cluster"]["certificate-authority-data"]);
    let user = &doc["users"][0]["user"];
    let identity = Identity {
        cert_pem: field(&user["client-certificate-data"]),
        key_pem: field(&user["client-key-data"]),
    };
    (ca, identity)
}

/// The protocol the server picks by ALPN when offered `offers`.
#[must_use]
pub fn negotiated_protocol(port: u16, ca_pem: &str, offers: &[&[u8]]) -> Option<Vec<u8>> {
    let mut config = (*TlsClient::new(ca_pem, None).config).clone();
    config.alpn_protocols = offers.iter().map(|p| p.to_vec()).collect();
    let mut tcp = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let name = ServerName::try_from("127.0.0.1").expect("server name");
    let mut conn = ClientConnection::new(Arc::new(config), name).expect("client");
    while conn.is_handshaking() {
        conn.complete_io(&mut tcp).expect("handshake");
    }
    conn.alpn_protocol().map(<[u8]>::to_vec)
}

/// Certificates a test makes: a CA of its own, and leaves it signs with
/// chosen names, organisations and validity.
pub mod make {
    use rcgen::{
        BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose,
        IsCa, Issuer, KeyPair, KeyUsagePurpose, SanType,
    };
    use time::{Duration, OffsetDateTime};

    use super::Identity;

    /// A new key and a PEM certificate request for `cn` in organisation
    /// `org`, naming `names` (IP addresses or DNS names).
    #[must_use]
    pub fn request(cn: &str, org: Option<&str>, names: &[&str]) -> (KeyPair, String) {
        request_in(cn, org.as_slice(), names)
    }

    /// As `request`, in up to two organisations: rcgen keeps one value per
    /// attribute type, so the second is written under the same OID
    /// (2.5.4.10) as a custom type.
    #[must_use]
    pub fn request_in(cn: &str, orgs: &[&str], names: &[&str]) -> (KeyPair, String) {
        assert!(orgs.len() <= 2, "at most two organisations");
        let key = KeyPair::generate().expect("key");
        let mut params = CertificateParams::default();
        params.distinguished_name = DistinguishedName::new();
        params.distinguished_name.push(DnType::CommonName, cn);
        let types = [
            DnType::OrganizationName,
            DnType::CustomDnType(vec![2, 5, 4, 10]),
        ];
        for (org, ty) in orgs.iter().zip(types) {
            params.distinguished_name.push(ty, *org);
        }
        params.subject_alt_names = names
            .iter()
            .map(|n| match n.parse() {
                Ok(ip) => SanType::IpAddress(ip),
                Err(_) => SanType::DnsName((*n).try_into().expect("DNS name")),
            })
            .collect();
        let request = params.serialize_request(&key).expect("request");
        (key, request.pem().expect("PEM"))
    }

    /// A new self-signed CA.
    #[must_use]
    pub fn ca(name: &str) -> Identity {
        let key = KeyPair::generate().expect("key");
        let mut params = CertificateParams::default();
        params.distinguished_name = DistinguishedName::new();
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let cert = params.self_signed(&key).expect("CA");
        Identity {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        }
    }

    /// What a leaf certificate says.
    pub struct Leaf<'a> {
        pub common_name: &'a str,
        pub organization: Option<&'a str>,
        /// Names for a serving certificate; empty for a client one.
        pub dns_or_ip: &'a [&'a str],
        /// Validity relative to now.
        pub from: Duration,
        pub until: Duration,
    }

    impl Leaf<'_> {
        /// A client certificate for `cn` valid from an hour ago for a day.
        #[must_use]
        pub fn client(cn: &str) -> Leaf<'_> {
            Leaf {
                common_name: cn,
                organization: None,
                dns_or_ip: &[],
                from: Duration::hours(-1),
                until: Duration::days(1),
            }
        }
    }

    /// `leaf`, signed by `ca`.
    #[must_use]
    pub fn signed(ca: &Identity, leaf: &Leaf<'_>) -> Identity {
        let ca_key = KeyPair::from_pem(&ca.key_pem).expect("CA key");
        let issuer = Issuer::from_ca_cert_pem(&ca.cert_pem, ca_key).expect("issuer");
        let key = KeyPair::generate().expect("key");
        let names: Vec<String> = leaf.dns_or_ip.iter().map(|s| (*s).to_string()).collect();
        let mut params = CertificateParams::new(names).expect("names");
        params.distinguished_name = DistinguishedName::new();
        params
            .distinguished_name
            .push(DnType::CommonName, leaf.common_name);
        if let Some(o) = leaf.organization {
            params.distinguished_name.push(DnType::OrganizationName, o);
        }
        let now = OffsetDateTime::now_utc();
        params.not_before = now + leaf.from;
        params.not_after = now + leaf.until;
        params.extended_key_usages = vec![if leaf.dns_or_ip.is_empty() {
            ExtendedKeyUsagePurpose::ClientAuth
        } else {
            ExtendedKeyUsagePurpose::ServerAuth
        }];
        let cert = params.signed_by(&key, &issuer).expect("sign");
        Identity {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        }
    }
}
