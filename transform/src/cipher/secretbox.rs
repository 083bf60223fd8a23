//! `secretbox`: NaCl's XSalsa20-Poly1305 with a random 24-byte nonce; the
//! stored bytes are the nonce then the box (tag first), as Kubernetes
//! stores them.

use crypto_secretbox::aead::{Aead, KeyInit};
use crypto_secretbox::{Nonce, XSalsa20Poly1305};

use super::{Cipher, random};
use crate::Error;

const NONCE: usize = 24;

/// One secretbox key (32 bytes).
pub struct Secretbox {
    cipher: Box<XSalsa20Poly1305>,
}

impl Secretbox {
    /// The cipher of `key`; `None` unless it is 32 bytes.
    #[must_use]
    pub fn new(key: &[u8]) -> Option<Secretbox> {
        Some(Secretbox {
            cipher: Box::new(XSalsa20Poly1305::new_from_slice(key).ok()?),
        })
    }
}

impl Cipher for Secretbox {
    fn seal(&self, _key: &[u8], plain: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        let nonce = random::<NONCE>()?;
        let sealed = self
            .cipher
            .encrypt(&Nonce::from(nonce), plain)
            .map_err(|_| Error::new("secretbox encryption failed"))?;
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
        Ok(())
    }

    fn open(&self, _key: &[u8], sealed: &[u8]) -> Result<Vec<u8>, Error> {
        if sealed.len() < NONCE {
            return Err(Error::new(
                "the stored data was shorter than the required size",
            ));
        }
        let (nonce, body) = sealed.split_at(NONCE);
        let nonce: [u8; NONCE] = nonce.try_into().expect("split at the nonce size");
        self.cipher
            .decrypt(&Nonce::from(nonce), body)
            .map_err(|_| Error::new("output array was not large enough for encryption"))
    }
}
