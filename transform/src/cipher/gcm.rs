//! `aesgcm`: AES in Galois/Counter mode with a random 12-byte nonce; the
//! stored bytes are the nonce then the sealed value (ciphertext and
//! 16-byte tag), authenticated with the storage key — Kubernetes' layout.
//! 128- and 256-bit keys run on ring (hardware AES and GHASH); ring has no
//! 192-bit AES, so those keys use the RustCrypto implementation.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{AesGcm as GcmMode, Nonce};
use ring::aead::{AES_128_GCM, AES_256_GCM, Aad, LessSafeKey, Nonce as RingNonce, UnboundKey};

use super::{Cipher, random};
use crate::Error;

type Aes192Gcm = GcmMode<aes::Aes192, aes_gcm::aead::consts::U12>;

const NONCE: usize = 12;

/// One AES-GCM key (16, 24 or 32 bytes).
pub enum AesGcm {
    /// A 16- or 32-byte key.
    Ring(Box<LessSafeKey>),
    Aes192(Box<Aes192Gcm>),
}

impl AesGcm {
    /// The cipher of `key`; `None` for a size AES does not have.
    #[must_use]
    pub fn new(key: &[u8]) -> Option<AesGcm> {
        let ring = |alg| {
            let key = LessSafeKey::new(UnboundKey::new(alg, key).ok()?);
            Some(AesGcm::Ring(Box::new(key)))
        };
        match key.len() {
            16 => ring(&AES_128_GCM),
            24 => Some(AesGcm::Aes192(Box::new(
                Aes192Gcm::new_from_slice(key).ok()?,
            ))),
            32 => ring(&AES_256_GCM),
            _ => None,
        }
    }
}

impl Cipher for AesGcm {
    fn seal(&self, key: &[u8], plain: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        let nonce = random::<NONCE>()?;
        let failed = |_| Error::new("aes-gcm encryption failed");
        out.extend_from_slice(&nonce);
        match self {
            AesGcm::Ring(k) => {
                let start = out.len();
                out.extend_from_slice(plain);
                let tag = k
                    .seal_in_place_separate_tag(
                        RingNonce::assume_unique_for_key(nonce),
                        Aad::from(key),
                        &mut out[start..],
                    )
                    .map_err(|_| Error::new("aes-gcm encryption failed"))?;
                out.extend_from_slice(tag.as_ref());
            }
            AesGcm::Aes192(c) => {
                let payload = Payload {
                    msg: plain,
                    aad: key,
                };
                out.extend_from_slice(&c.encrypt(&Nonce::from(nonce), payload).map_err(failed)?);
            }
        }
        Ok(())
    }

    fn open(&self, key: &[u8], sealed: &[u8]) -> Result<Vec<u8>, Error> {
        if sealed.len() < NONCE {
            return Err(Error::new(
                "the stored data was shorter than the required size",
            ));
        }
        let failed = || Error::new("cipher: message authentication failed");
        let (nonce, body) = sealed.split_at(NONCE);
        let nonce: [u8; NONCE] = nonce.try_into().map_err(|_| failed())?;
        match self {
            AesGcm::Ring(k) => {
                let mut buf = body.to_vec();
                let plain_len = k
                    .open_in_place(
                        RingNonce::assume_unique_for_key(nonce),
                        Aad::from(key),
                        &mut buf,
                    )
                    .map_err(|_| failed())?
                    .len();
                buf.truncate(plain_len);
                Ok(buf)
            }
            AesGcm::Aes192(c) => c
                .decrypt(
                    &Nonce::from(nonce),
                    Payload {
                        msg: body,
                        aad: key,
                    },
                )
                .map_err(|_| failed()),
        }
    }
}
