//! The cluster's own certificate authority and what the server signs with
//! it: the serving certificate (when none is given) and the admin client
//! certificate. Kept in `<data-dir>/pki/`, reused across starts, and made
//! again when missing, unreadable, expiring soon, or (for the serving
//! certificate) no longer covering the names it must.

use std::fs;
use std::io::Write;
use std::net::IpAddr;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, PublicKeyData, SanType,
};
use time::OffsetDateTime;
use x509_parser::prelude::{FromDer, GeneralName, X509Certificate};

use crate::tls::TlsError;

const CA_LIFETIME: Duration = Duration::from_secs(10 * 365 * 24 * 3600);
const LEAF_LIFETIME: Duration = Duration::from_secs(365 * 24 * 3600);
/// Certificates with less left than this are made again at start.
const RENEW_BEFORE: Duration = Duration::from_secs(30 * 24 * 3600);

/// The cluster CA: its certificate (PEM) and signing key.
pub struct ClusterCa {
    pub cert_pem: String,
    key: KeyPair,
}

/// A certificate and its key, both PEM.
pub struct Pair {
    pub cert_pem: String,
    pub key_pem: String,
}

fn pki_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("pki")
}

/// Writes `contents` to `path` readable by the owner only, replacing it
/// atomically.
pub fn write_private(path: &Path, contents: &[u8]) -> Result<(), TlsError> {
    let tmp = path.with_extension("partial");
    let io = |e| TlsError::io(path, e);
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(io)?;
    f.write_all(contents).map_err(io)?;
    f.sync_all().map_err(io)?;
    fs::rename(&tmp, path).map_err(io)
}

/// Remaining validity of the first certificate in `pem`, or `None` when it
/// cannot be read or is not yet valid.
fn remaining(pem: &str) -> Option<Duration> {
    let der = first_der(pem)?;
    let (_, cert) = X509Certificate::from_der(&der).ok()?;
    let validity = cert.validity();
    let now = OffsetDateTime::now_utc().unix_timestamp();
    if validity.not_before.timestamp() > now {
        return None;
    }
    u64::try_from(validity.not_after.timestamp() - now)
        .ok()
        .map(Duration::from_secs)
}

fn first_der(pem: &str) -> Option<Vec<u8>> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    CertificateDer::pem_slice_iter(pem.as_bytes())
        .next()?
        .ok()
        .map(|c| c.to_vec())
}

fn fresh(pem: &str) -> bool {
    remaining(pem).is_some_and(|left| left > RENEW_BEFORE)
}

fn validity(params: &mut CertificateParams, lifetime: Duration) {
    let now = OffsetDateTime::now_utc();
    // Backdated a little so clocks slightly behind ours accept it.
    params.not_before = now - Duration::from_secs(300);
    params.not_after = now + lifetime;
}

fn serial(params: &mut CertificateParams) -> Result<(), TlsError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| TlsError::Generate(e.to_string()))?;
    bytes[0] &= 0x7f;
    params.serial_number = Some(bytes.to_vec().into());
    Ok(())
}

impl ClusterCa {
    /// The CA in `<data-dir>/pki`, made when missing or expiring.
    pub fn load_or_create(data_dir: &Path) -> Result<ClusterCa, TlsError> {
        let dir = pki_dir(data_dir);
        fs::create_dir_all(&dir).map_err(|e| TlsError::io(&dir, e))?;
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))
            .map_err(|e| TlsError::io(&dir, e))?;
        let (cert_path, key_path) = (dir.join("ca.crt"), dir.join("ca.key"));
        if let (Ok(cert_pem), Ok(key_pem)) = (
            fs::read_to_string(&cert_path),
            fs::read_to_string(&key_path),
        ) && fresh(&cert_pem)
        {
            let key = KeyPair::from_pem(&key_pem).map_err(|_| {
                TlsError::Invalid(key_path.display().to_string(), "not a private key")
            })?;
            return Ok(ClusterCa { cert_pem, key });
        }
        let key = KeyPair::generate().map_err(TlsError::generate)?;
        let mut params = CertificateParams::default();
        let mut name = DistinguishedName::new();
        name.push(DnType::CommonName, "cairn-ca");
        params.distinguished_name = name;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        validity(&mut params, CA_LIFETIME);
        serial(&mut params)?;
        let cert = params.self_signed(&key).map_err(TlsError::generate)?;
        write_private(&key_path, key.serialize_pem().as_bytes())?;
        write_private(&cert_path, cert.pem().as_bytes())?;
        tracing::info!(path = %cert_path.display(), "generated the cluster certificate authority");
        Ok(ClusterCa {
            cert_pem: cert.pem(),
            key,
        })
    }

    /// A CA given as PEM (`--cluster-signing-*`); the error says what is
    /// wrong without quoting the key.
    pub fn from_pem(cert_pem: &str, key_pem: &str) -> Result<ClusterCa, &'static str> {
        let der = first_der(cert_pem).ok_or("no PEM certificate")?;
        let (_, cert) = X509Certificate::from_der(&der).map_err(|_| "not an X.509 certificate")?;
        if !cert.is_ca() {
            return Err("the certificate is not a CA");
        }
        let key = KeyPair::from_pem(key_pem).map_err(|_| "no PEM private key")?;
        if cert.public_key().raw != key.subject_public_key_info().as_slice() {
            return Err("the private key does not match the certificate");
        }
        let ca = ClusterCa {
            cert_pem: cert_pem.to_string(),
            key,
        };
        ca.issuer().map_err(|_| "the certificate cannot sign")?;
        Ok(ca)
    }

    fn issuer(&self) -> Result<Issuer<'_, &KeyPair>, TlsError> {
        Issuer::from_ca_cert_pem(&self.cert_pem, &self.key).map_err(TlsError::generate)
    }

    fn sign(&self, mut params: CertificateParams) -> Result<Pair, TlsError> {
        let key = KeyPair::generate().map_err(TlsError::generate)?;
        validity(&mut params, LEAF_LIFETIME);
        serial(&mut params)?;
        let cert = params
            .signed_by(&key, &self.issuer()?)
            .map_err(TlsError::generate)?;
        Ok(Pair {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        })
    }

    /// The serving certificate in `<data-dir>/pki`, made again when it is
    /// missing, expiring, not signed by this CA, or lacks one of `names`.
    pub fn serving(&self, data_dir: &Path, names: &[String]) -> Result<Pair, TlsError> {
        let dir = pki_dir(data_dir);
        let (cert_path, key_path) = (dir.join("serving.crt"), dir.join("serving.key"));
        if let (Ok(cert_pem), Ok(key_pem)) = (
            fs::read_to_string(&cert_path),
            fs::read_to_string(&key_path),
        ) && fresh(&cert_pem)
            && covers(&cert_pem, names)
            && signed_by(&cert_pem, &self.cert_pem)
        {
            return Ok(Pair { cert_pem, key_pem });
        }
        let mut params = CertificateParams::default();
        let mut subject = DistinguishedName::new();
        subject.push(DnType::CommonName, "cairn-apiserver");
        params.distinguished_name = subject;
        params.subject_alt_names = names.iter().map(|n| san(n)).collect::<Result<_, _>>()?;
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let pair = self.sign(params)?;
        write_private(&key_path, pair.key_pem.as_bytes())?;
        write_private(&cert_path, pair.cert_pem.as_bytes())?;
        tracing::info!(path = %cert_path.display(), names = ?names, "generated the serving certificate");
        Ok(pair)
    }

    /// Whether the certificate (PEM) was signed by this CA.
    #[must_use]
    pub fn signed(&self, pem: &str) -> bool {
        signed_by(pem, &self.cert_pem)
    }

    /// The certificate (PEM) for a signing request's key and the
    /// parameters a signer chose for it, valid for `lifetime`, with the
    /// request's `subject` (DER) as it is.
    pub fn issue(
        &self,
        request: &mut rcgen::CertificateSigningRequestParams,
        subject: &[u8],
        lifetime: Duration,
    ) -> Result<String, TlsError> {
        validity(&mut request.params, lifetime);
        serial(&mut request.params)?;
        let cert = request
            .signed_by(&self.issuer()?)
            .map_err(TlsError::generate)?;
        let der = super::resubject::with_subject(cert.der(), subject, &self.key).ok_or(
            TlsError::Invalid("certificate".into(), "cannot be re-signed"),
        )?;
        Ok(pem::encode(&pem::Pem::new("CERTIFICATE", der)))
    }

    /// A client certificate for `user` in `groups` (one organisation each;
    /// rcgen writes one value per attribute, so only the first group).
    pub fn client(&self, user: &str, group: Option<&str>) -> Result<Pair, TlsError> {
        let mut params = CertificateParams::default();
        let mut subject = DistinguishedName::new();
        subject.push(DnType::CommonName, user);
        if let Some(g) = group {
            subject.push(DnType::OrganizationName, g);
        }
        params.distinguished_name = subject;
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        self.sign(params)
    }
}

/// Whether a certificate (PEM) has long enough left to be kept: a reused
/// client certificate is replaced as the serving one is.
#[must_use]
pub fn still_fresh(pem: &str) -> bool {
    fresh(pem)
}

fn san(name: &str) -> Result<SanType, TlsError> {
    Ok(match name.parse::<IpAddr>() {
        Ok(ip) => SanType::IpAddress(ip),
        Err(_) => SanType::DnsName(
            name.to_string()
                .try_into()
                .map_err(|_| TlsError::Invalid(name.to_string(), "not a DNS name or IP address"))?,
        ),
    })
}

fn covers(pem: &str, names: &[String]) -> bool {
    let Some(der) = first_der(pem) else {
        return false;
    };
    let Ok((_, cert)) = X509Certificate::from_der(&der) else {
        return false;
    };
    let Ok(Some(sans)) = cert.subject_alternative_name() else {
        return false;
    };
    let present: Vec<String> = sans
        .value
        .general_names
        .iter()
        .filter_map(|n| match n {
            GeneralName::DNSName(d) => Some((*d).to_string()),
            GeneralName::IPAddress(b) => match b.len() {
                4 => <[u8; 4]>::try_from(*b)
                    .ok()
                    .map(|a| IpAddr::from(a).to_string()),
                16 => <[u8; 16]>::try_from(*b)
                    .ok()
                    .map(|a| IpAddr::from(a).to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    names.iter().all(|n| {
        let canonical = n
            .parse::<IpAddr>()
            .map_or_else(|_| n.clone(), |ip| ip.to_string());
        present.contains(&canonical)
    })
}

fn signed_by(pem: &str, ca_pem: &str) -> bool {
    let (Some(der), Some(ca_der)) = (first_der(pem), first_der(ca_pem)) else {
        return false;
    };
    let (Ok((_, cert)), Ok((_, ca))) = (
        X509Certificate::from_der(&der),
        X509Certificate::from_der(&ca_der),
    ) else {
        return false;
    };
    cert.verify_signature(Some(ca.public_key())).is_ok()
}
