//! Values sealed under an unwrapped DEK source, as Kubernetes' KMS v2 does:
//! with a seed, every write draws 32 random bytes `info`, derives its own
//! AES-256-GCM key as HKDF-SHA256-Expand(seed, info) and stores
//! `info ‖ nonce ‖ ciphertext ‖ tag`; with a plain key (values written
//! before the KDF) the value is `nonce ‖ ciphertext ‖ tag`. The storage key
//! is the additional authenticated data, so a value moved elsewhere fails.

use ring::{aead, hkdf};

use super::proto::DekSourceType;

/// Size of a fresh seed (Kubernetes' minimum seed size).
pub const SEED_LEN: usize = 32;
/// Random bytes a seed is expanded with, per value.
const INFO_LEN: usize = 32;
const NONCE_LEN: usize = aead::NONCE_LEN;
const TAG_LEN: usize = 16;

/// An unwrapped DEK source. Its bytes stay inside ring's key types.
pub enum Dek {
    Seed(hkdf::Prk),
    /// Boxed: rare (values written before the KDF), and large.
    Key(Box<aead::LessSafeKey>),
}

impl Dek {
    /// The DEK source a plugin's Decrypt (or this start) produced.
    pub fn new(source_type: DekSourceType, bytes: &[u8]) -> Result<Dek, String> {
        match source_type {
            DekSourceType::HkdfSha256XnonceAesGcmSeed => {
                if bytes.len() < SEED_LEN {
                    return Err(format!(
                        "invalid seed length {} used for key generation",
                        bytes.len()
                    ));
                }
                Ok(Dek::Seed(hkdf::Prk::new_less_safe(
                    hkdf::HKDF_SHA256,
                    bytes,
                )))
            }
            DekSourceType::AesGcmKey => {
                let algorithm = match bytes.len() {
                    16 => &aead::AES_128_GCM,
                    32 => &aead::AES_256_GCM,
                    n => return Err(format!("invalid DEK length {n}")),
                };
                let key = aead::UnboundKey::new(algorithm, bytes)
                    .map_err(|_| "invalid DEK".to_string())?;
                Ok(Dek::Key(Box::new(aead::LessSafeKey::new(key))))
            }
        }
    }

    /// A fresh random seed: its bytes (to wrap) and the DEK source.
    pub fn generate_seed() -> Result<(Vec<u8>, Dek), String> {
        let mut seed = vec![0u8; SEED_LEN];
        getrandom::fill(&mut seed).map_err(|e| format!("failed to generate seed: {e}"))?;
        let dek = Dek::new(DekSourceType::HkdfSha256XnonceAesGcmSeed, &seed)?;
        Ok((seed, dek))
    }

    /// How many bytes sealing `plain_len` bytes appends.
    pub fn sealed_len(&self, plain_len: usize) -> usize {
        let info = if matches!(self, Dek::Seed(_)) {
            INFO_LEN
        } else {
            0
        };
        info + NONCE_LEN + plain_len + TAG_LEN
    }

    /// Appends `plain` sealed for storage under `aad` to `out`.
    pub fn seal_into(&self, aad: &[u8], plain: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        let mut random = [0u8; INFO_LEN + NONCE_LEN];
        getrandom::fill(&mut random).map_err(|e| format!("failed to generate nonce: {e}"))?;
        let (info, nonce) = random.split_at(INFO_LEN);
        let derived;
        let key = match self {
            Dek::Seed(prk) => {
                out.extend_from_slice(info);
                derived = derive(prk, info)?;
                &derived
            }
            Dek::Key(key) => key.as_ref(),
        };
        out.extend_from_slice(nonce);
        let start = out.len();
        out.extend_from_slice(plain);
        let nonce = aead::Nonce::try_assume_unique_for_key(nonce).map_err(|_| "bad nonce")?;
        let tag = key
            .seal_in_place_separate_tag(nonce, aead::Aad::from(aad), &mut out[start..])
            .map_err(|_| "failed to encrypt data".to_string())?;
        out.extend_from_slice(tag.as_ref());
        Ok(())
    }

    /// The plaintext of `sealed`, stored under `aad`.
    pub fn open(&self, aad: &[u8], sealed: &[u8]) -> Result<Vec<u8>, String> {
        let derived;
        let (key, rest) = match self {
            Dek::Seed(prk) => {
                if sealed.len() < INFO_LEN {
                    return Err("the stored data was shorter than the required size".into());
                }
                let (info, rest) = sealed.split_at(INFO_LEN);
                derived = derive(prk, info)?;
                (&derived, rest)
            }
            Dek::Key(key) => (key.as_ref(), sealed),
        };
        if rest.len() < NONCE_LEN + TAG_LEN {
            return Err("the stored data was shorter than the required size".into());
        }
        let (nonce, ciphertext) = rest.split_at(NONCE_LEN);
        let nonce = aead::Nonce::try_assume_unique_for_key(nonce).map_err(|_| "bad nonce")?;
        let mut buffer = ciphertext.to_vec();
        let plain_len = key
            .open_in_place(nonce, aead::Aad::from(aad), &mut buffer)
            .map_err(|_| "cipher: message authentication failed".to_string())?
            .len();
        buffer.truncate(plain_len);
        Ok(buffer)
    }
}

/// This value's AES-256-GCM key: HKDF-Expand only, the seed being uniformly
/// random already (as Kubernetes derives it).
fn derive(prk: &hkdf::Prk, info: &[u8]) -> Result<aead::LessSafeKey, String> {
    let info = [info];
    let okm = prk
        .expand(&info, &aead::AES_256_GCM)
        .map_err(|_| "failed to KDF expand seed with info".to_string())?;
    Ok(aead::LessSafeKey::new(aead::UnboundKey::from(okm)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_values_round_trip_and_bind_the_storage_key() {
        let (_, dek) = Dek::generate_seed().unwrap();
        let mut out = b"head".to_vec();
        dek.seal_into(b"/registry/secrets/a/b", b"plain text", &mut out)
            .unwrap();
        assert_eq!(out.len(), 4 + dek.sealed_len(10));
        let sealed = &out[4..];
        assert!(!sealed.windows(10).any(|w| w == b"plain text"));
        assert_eq!(
            dek.open(b"/registry/secrets/a/b", sealed).unwrap(),
            b"plain text"
        );
        let err = dek.open(b"/registry/secrets/a/c", sealed).unwrap_err();
        assert!(err.contains("authentication"), "{err}");
    }

    #[test]
    fn each_write_has_its_own_info_and_nonce() {
        let (_, dek) = Dek::generate_seed().unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        dek.seal_into(b"k", b"same", &mut a).unwrap();
        dek.seal_into(b"k", b"same", &mut b).unwrap();
        assert_ne!(a[..INFO_LEN + NONCE_LEN], b[..INFO_LEN + NONCE_LEN]);
    }

    #[test]
    fn derivation_matches_hkdf_expand_of_the_seed() {
        // HKDF-Expand(PRK = seed, info) computed by hand with HMAC-SHA256:
        // T(1) = HMAC(seed, info ‖ 0x01) is the whole 32-byte key.
        let seed = [7u8; SEED_LEN];
        let info = [9u8; INFO_LEN];
        let mac_key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &seed);
        let mut input = info.to_vec();
        input.push(1);
        let expected = ring::hmac::sign(&mac_key, &input);
        let by_hand = Dek::Key(Box::new(aead::LessSafeKey::new(
            aead::UnboundKey::new(&aead::AES_256_GCM, expected.as_ref()).unwrap(),
        )));
        let mut sealed = Vec::new();
        by_hand.seal_into(b"aad", b"value", &mut sealed).unwrap();
        let mut stored = info.to_vec();
        stored.extend_from_slice(&sealed);
        let seeded = Dek::new(DekSourceType::HkdfSha256XnonceAesGcmSeed, &seed).unwrap();
        assert_eq!(seeded.open(b"aad", &stored).unwrap(), b"value");
    }

    #[test]
    fn short_and_wrong_sized_inputs_are_refused() {
        assert!(Dek::new(DekSourceType::HkdfSha256XnonceAesGcmSeed, &[0; 16]).is_err());
        assert!(Dek::new(DekSourceType::AesGcmKey, &[0; 24]).is_err());
        let (_, dek) = Dek::generate_seed().unwrap();
        assert!(dek.open(b"k", &[0; 40]).unwrap_err().contains("shorter"));
    }
}
