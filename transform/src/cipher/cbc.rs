//! `aescbc`: AES-256 in cipher-block-chaining mode; the stored bytes are a
//! random 16-byte initialisation vector then the PKCS#7-padded ciphertext
//! (unauthenticated, as in Kubernetes).

use aes::Aes256;
use aes::cipher::block_padding::Pkcs7;
use aes::cipher::{BlockDecryptMut, BlockEncryptMut, KeyInit, KeyIvInit};

use super::{Cipher, random};
use crate::Error;

const BLOCK: usize = 16;

/// One AES-CBC key (32 bytes).
pub struct AesCbc {
    key: [u8; 32],
}

impl AesCbc {
    /// The cipher of `key`; `None` unless it is 32 bytes.
    #[must_use]
    pub fn new(key: &[u8]) -> Option<AesCbc> {
        // Checked once here so that every later keying succeeds.
        Aes256::new_from_slice(key).ok()?;
        Some(AesCbc {
            key: key.try_into().ok()?,
        })
    }
}

impl Cipher for AesCbc {
    fn seal(&self, _key: &[u8], plain: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        let iv = random::<BLOCK>()?;
        let sealed = cbc::Encryptor::<Aes256>::new(&self.key.into(), &iv.into())
            .encrypt_padded_vec_mut::<Pkcs7>(plain);
        out.extend_from_slice(&iv);
        out.extend_from_slice(&sealed);
        Ok(())
    }

    fn open(&self, _key: &[u8], sealed: &[u8]) -> Result<Vec<u8>, Error> {
        if sealed.len() < BLOCK {
            return Err(Error::new(
                "the stored data was shorter than the required size",
            ));
        }
        let (iv, body) = sealed.split_at(BLOCK);
        if body.len() % BLOCK != 0 {
            return Err(Error::new(
                "the stored data is not a multiple of the block size",
            ));
        }
        let iv: [u8; BLOCK] = iv.try_into().expect("split at the block size");
        cbc::Decryptor::<Aes256>::new(&self.key.into(), &iv.into())
            .decrypt_padded_vec_mut::<Pkcs7>(body)
            .map_err(|_| Error::new("invalid PKCS7 data (empty or not padded)"))
    }
}
