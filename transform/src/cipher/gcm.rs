//! `aesgcm`: AES in Galois/Counter mode with a random 12-byte nonce; the
//! stored bytes are the nonce then the sealed value (ciphertext and
//! 16-byte tag), authenticated with the storage key — Kubernetes' layout.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes128Gcm, Aes256Gcm, AesGcm as GcmMode, Nonce};

use super::{Cipher, random};
use crate::Error;

type Aes192Gcm = GcmMode<aes::Aes192, aes_gcm::aead::consts::U12>;

const NONCE: usize = 12;

/// One AES-GCM key (16, 24 or 32 bytes).
pub enum AesGcm {
    Aes128(Box<Aes128Gcm>),
    Aes192(Box<Aes192Gcm>),
    Aes256(Box<Aes256Gcm>),
}

impl AesGcm {
    /// The cipher of `key`; `None` for a size AES does not have.
    #[must_use]
    pub fn new(key: &[u8]) -> Option<AesGcm> {
        Some(match key.len() {
            16 => AesGcm::Aes128(Box::new(Aes128Gcm::new_from_slice(key).ok()?)),
            24 => AesGcm::Aes192(Box::new(Aes192Gcm::new_from_slice(key).ok()?)),
            32 => AesGcm::Aes256(Box::new(Aes256Gcm::new_from_slice(key).ok()?)),
            _ => return None,
        })
    }

    fn run(
        &self,
        nonce: &[u8],
        payload: Payload<'_, '_>,
        seal: bool,
    ) -> Result<Vec<u8>, aes_gcm::Error> {
        let nonce: [u8; NONCE] = nonce.try_into().expect("a nonce's size");
        let nonce = Nonce::from(nonce);
        match (self, seal) {
            (AesGcm::Aes128(c), true) => c.encrypt(&nonce, payload),
            (AesGcm::Aes128(c), false) => c.decrypt(&nonce, payload),
            (AesGcm::Aes192(c), true) => c.encrypt(&nonce, payload),
            (AesGcm::Aes192(c), false) => c.decrypt(&nonce, payload),
            (AesGcm::Aes256(c), true) => c.encrypt(&nonce, payload),
            (AesGcm::Aes256(c), false) => c.decrypt(&nonce, payload),
        }
    }
}

impl Cipher for AesGcm {
    fn seal(&self, key: &[u8], plain: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        let nonce = random::<NONCE>()?;
        let sealed = self
            .run(
                &nonce,
                Payload {
                    msg: plain,
                    aad: key,
                },
                true,
            )
            .map_err(|_| Error::new("aes-gcm encryption failed"))?;
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
        Ok(())
    }

    fn open(&self, key: &[u8], sealed: &[u8]) -> Result<Vec<u8>, Error> {
        if sealed.len() < NONCE {
            return Err(Error::new(
                "the stored data was shorter than the required size",
            ));
        }
        let (nonce, body) = sealed.split_at(NONCE);
        self.run(
            nonce,
            Payload {
                msg: body,
                aad: key,
            },
            false,
        )
        .map_err(|_| Error::new("cipher: message authentication failed"))
    }
}
