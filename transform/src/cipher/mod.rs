//! The local ciphers of encryption at rest (`aesgcm`, `aescbc`,
//! `secretbox`), each one key of a provider: a value is stored as
//! Kubernetes stores it, `k8s:enc:<provider>:v1:<keyname>:` then the
//! cipher's bytes, so a data file is decryptable by the same rules.

mod cbc;
mod gcm;
mod secretbox;

use std::borrow::Cow;

use crate::{Error, Plain, Transformer};

pub use cbc::AesCbc;
pub use gcm::AesGcm;
pub use secretbox::Secretbox;

/// One cipher keyed once: seals and opens a value's bytes (no prefix).
pub trait Cipher: Send + Sync {
    /// `plain` sealed, bound to `key` where the cipher authenticates data.
    fn seal(&self, key: &[u8], plain: &[u8], out: &mut Vec<u8>) -> Result<(), Error>;
    /// The plain bytes of `sealed`.
    fn open(&self, key: &[u8], sealed: &[u8]) -> Result<Vec<u8>, Error>;
}

/// A cipher under its stored prefix: the transformer of one configured key.
pub struct Prefixed<C> {
    prefix: Vec<u8>,
    cipher: C,
}

impl<C: Cipher> Prefixed<C> {
    /// `cipher` writing values that start with `prefix`.
    pub fn new(prefix: impl Into<Vec<u8>>, cipher: C) -> Prefixed<C> {
        Prefixed {
            prefix: prefix.into(),
            cipher,
        }
    }
}

impl<C: Cipher> Transformer for Prefixed<C> {
    fn transform_to_storage<'a>(
        &self,
        key: &[u8],
        plain: &'a [u8],
    ) -> Result<Cow<'a, [u8]>, Error> {
        let mut out = Vec::with_capacity(self.prefix.len() + plain.len() + 48);
        out.extend_from_slice(&self.prefix);
        self.cipher.seal(key, plain, &mut out)?;
        Ok(Cow::Owned(out))
    }

    fn transform_from_storage<'a>(&self, key: &[u8], stored: &'a [u8]) -> Result<Plain<'a>, Error> {
        let sealed = stored
            .strip_prefix(self.prefix.as_slice())
            .ok_or_else(|| Error::new("the value does not carry this provider's prefix"))?;
        Ok(Plain {
            value: Cow::Owned(self.cipher.open(key, sealed)?),
            stale: false,
        })
    }
}

/// `n` random bytes (nonces, initialisation vectors).
fn random<const N: usize>() -> Result<[u8; N], Error> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| Error::new(format!("no random bytes: {e}")))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests;
