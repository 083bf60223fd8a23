//! The keys of service-account tokens: the one that signs (a PEM private
//! key, RSA or ECDSA, generated into the data directory when none is
//! given) and those that verify (every key of `--service-account-key-file`
//! plus the signing key's public half), each with the key id Kubernetes
//! gives it: the unpadded base64url SHA-256 of its SubjectPublicKeyInfo.

use std::fs;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey};
use rcgen::{KeyPair, PublicKeyData};
use serde_json::{Value, json};
use x509_parser::prelude::{FromDer, X509Certificate};
use x509_parser::public_key::PublicKey as ParsedKey;
use x509_parser::x509::SubjectPublicKeyInfo;

use super::der;
use crate::config::ServiceAccountConfig;

/// Where the generated signing key lives in the data directory.
pub const GENERATED_KEY_FILE: &str = "service-account.key";

const P256: &str = "1.2.840.10045.3.1.7";
const P384: &str = "1.3.132.0.34";

/// A key that verifies tokens.
#[derive(Clone)]
pub struct PublicKey {
    pub kid: String,
    pub algorithm: Algorithm,
    pub(super) decoding: DecodingKey,
    /// Its JSON Web Key, as `/openid/v1/jwks` lists it.
    pub jwk: Value,
}

/// The key that signs tokens.
pub struct SigningKey {
    pub(super) encoding: EncodingKey,
    pub public: PublicKey,
}

/// The signing key and every verification key (the signing key's public
/// half included, once).
pub struct Keys {
    pub signing: SigningKey,
    pub verifying: Vec<PublicKey>,
}

/// A key as a PEM block holds it, in one of the two normal forms.
enum PemKey {
    Private(Vec<u8>),
    Public(Vec<u8>),
}

impl Keys {
    /// Reads the configured keys, generating the signing key at first
    /// start when none is configured. The error is one line naming the
    /// flag and the file, never the key.
    pub fn load(config: &ServiceAccountConfig, data_dir: &Path) -> Result<Keys, String> {
        let signing = match &config.signing_key_file {
            Some(path) => signing_key_from_file("--service-account-signing-key-file", path)?,
            None => generated(data_dir)?,
        };
        let mut verifying = Vec::new();
        for path in &config.key_files {
            let flag = "--service-account-key-file";
            let keys = pem_keys(flag, path)?;
            if keys.is_empty() {
                return Err(fail(flag, path, "no public or private key found"));
            }
            for key in keys {
                let spki = match key {
                    PemKey::Public(spki) => spki,
                    PemKey::Private(pkcs8) => KeyPair::try_from(pkcs8.as_slice())
                        .map_err(|_| fail(flag, path, "not a valid RSA or ECDSA private key"))?
                        .subject_public_key_info(),
                };
                verifying.push(
                    public_key(&spki)
                        .ok_or_else(|| fail(flag, path, "not a supported RSA or ECDSA key"))?,
                );
            }
        }
        let signing_kid = signing.public.kid.clone();
        if !verifying.iter().any(|k| k.kid == signing_kid) {
            verifying.push(signing.public.clone());
        }
        Ok(Keys { signing, verifying })
    }

    /// The verification keys a token with `kid` may be signed by: those
    /// with that id, or every key when none has it.
    pub fn candidates(&self, kid: Option<&str>) -> Vec<&PublicKey> {
        let matching: Vec<&PublicKey> = self
            .verifying
            .iter()
            .filter(|k| Some(k.kid.as_str()) == kid)
            .collect();
        if matching.is_empty() {
            self.verifying.iter().collect()
        } else {
            matching
        }
    }
}

fn fail(flag: &str, path: &Path, why: &str) -> String {
    format!("{flag} {}: {why}", path.display())
}

/// The PEM blocks of a file that hold keys or certificates.
fn pem_keys(flag: &str, path: &Path) -> Result<Vec<PemKey>, String> {
    let bytes = fs::read(path).map_err(|e| fail(flag, path, &format!("cannot read: {e}")))?;
    let mut out = Vec::new();
    for block in x509_parser::pem::Pem::iter_from_buffer(&bytes) {
        let block = block.map_err(|_| fail(flag, path, "not a valid PEM file"))?;
        let invalid = || fail(flag, path, &format!("invalid {} block", block.label));
        out.push(match block.label.as_str() {
            "PRIVATE KEY" => PemKey::Private(block.contents.clone()),
            "RSA PRIVATE KEY" => PemKey::Private(der::pkcs8_from_pkcs1(&block.contents)),
            "EC PRIVATE KEY" => {
                PemKey::Private(der::pkcs8_from_sec1(&block.contents).ok_or_else(invalid)?)
            }
            "PUBLIC KEY" => PemKey::Public(block.contents.clone()),
            "RSA PUBLIC KEY" => PemKey::Public(der::spki_from_pkcs1_public(&block.contents)),
            "CERTIFICATE" => {
                let (_, cert) =
                    X509Certificate::from_der(&block.contents).map_err(|_| invalid())?;
                PemKey::Public(cert.public_key().raw.to_vec())
            }
            _ => continue,
        });
    }
    Ok(out)
}

/// The first private key of a file, as the signing key.
fn signing_key_from_file(flag: &str, path: &Path) -> Result<SigningKey, String> {
    let pkcs8 = pem_keys(flag, path)?
        .into_iter()
        .find_map(|k| match k {
            PemKey::Private(pkcs8) => Some(pkcs8),
            PemKey::Public(_) => None,
        })
        .ok_or_else(|| fail(flag, path, "no RSA or ECDSA private key found"))?;
    signing_key(&pkcs8).ok_or_else(|| fail(flag, path, "not a valid RSA or ECDSA private key"))
}

/// A PKCS#8 private key as a signing key.
fn signing_key(pkcs8: &[u8]) -> Option<SigningKey> {
    let pair = KeyPair::try_from(pkcs8).ok()?;
    let public = public_key(&pair.subject_public_key_info())?;
    let encoding = match public.algorithm {
        Algorithm::RS256 => EncodingKey::from_rsa_der(&der::pkcs1_in_pkcs8(pkcs8)?),
        _ => EncodingKey::from_ec_der(pkcs8),
    };
    Some(SigningKey { encoding, public })
}

/// The signing key of `<data-dir>/service-account.key`, made (ECDSA
/// P-256, mode 0600) when missing.
fn generated(data_dir: &Path) -> Result<SigningKey, String> {
    let path: PathBuf = data_dir.join(GENERATED_KEY_FILE);
    let flag = "generated service-account signing key";
    if !path.exists() {
        let pair = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)
            .map_err(|e| format!("cannot generate a service-account signing key: {e}"))?;
        fs::create_dir_all(data_dir).map_err(|e| fail(flag, data_dir, &e.to_string()))?;
        // Written beside, then renamed: a crash never leaves half a key.
        let partial = data_dir.join(format!("{GENERATED_KEY_FILE}.partial"));
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&partial)
            .map_err(|e| fail(flag, &partial, &format!("cannot write: {e}")))?;
        file.write_all(pair.serialize_pem().as_bytes())
            .and_then(|()| file.sync_all())
            .and_then(|()| fs::rename(&partial, &path))
            .map_err(|e| fail(flag, &path, &format!("cannot write: {e}")))?;
        tracing::info!(path = %path.display(), "generated the service-account signing key");
    }
    signing_key_from_file(flag, &path)
}

/// A SubjectPublicKeyInfo as a verification key: RSA (RS256) or ECDSA
/// P-256 (ES256) / P-384 (ES384).
pub(super) fn public_key(spki_der: &[u8]) -> Option<PublicKey> {
    let (_, spki) = SubjectPublicKeyInfo::from_der(spki_der).ok()?;
    let digest = ring::digest::digest(&ring::digest::SHA256, spki.raw);
    let kid = URL_SAFE_NO_PAD.encode(digest.as_ref());
    let b64 = |bytes: &[u8]| URL_SAFE_NO_PAD.encode(bytes);
    match spki.parsed().ok()? {
        ParsedKey::RSA(rsa) => {
            let n = strip_zeros(rsa.modulus);
            let e = strip_zeros(rsa.exponent);
            Some(PublicKey {
                jwk: json!({"use": "sig", "kty": "RSA", "kid": kid, "alg": "RS256", "n": b64(n), "e": b64(e)}),
                decoding: DecodingKey::from_rsa_raw_components(n, e),
                algorithm: Algorithm::RS256,
                kid,
            })
        }
        ParsedKey::EC(point) => {
            let curve = spki
                .algorithm
                .parameters
                .as_ref()?
                .as_oid()
                .ok()?
                .to_id_string();
            let (algorithm, crv, alg, size) = match curve.as_str() {
                P256 => (Algorithm::ES256, "P-256", "ES256", 32),
                P384 => (Algorithm::ES384, "P-384", "ES384", 48),
                _ => return None,
            };
            let data = point.data();
            if data.len() != 1 + 2 * size || data[0] != 0x04 {
                return None;
            }
            let (x, y) = data[1..].split_at(size);
            Some(PublicKey {
                jwk: json!({"use": "sig", "kty": "EC", "kid": kid, "crv": crv, "alg": alg, "x": b64(x), "y": b64(y)}),
                decoding: DecodingKey::from_ec_der(data),
                algorithm,
                kid,
            })
        }
        _ => None,
    }
}

fn strip_zeros(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| *b != 0)
        .unwrap_or(bytes.len().saturating_sub(1));
    &bytes[start..]
}

#[cfg(test)]
#[path = "keys_tests.rs"]
mod tests;
