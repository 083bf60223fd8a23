//! The providers of one resource, in order: the first writes, every one
//! reads the values that carry its prefix, and a value without Kubernetes'
//! `k8s:enc:` prefix reads as stored (identity).

use std::borrow::Cow;
use std::sync::Arc;

use crate::{Error, Plain, Transformer};

/// What every encrypted value starts with.
pub const ENCRYPTED_MARK: &[u8] = b"k8s:enc:";

/// One provider key of a chain: the prefix of the values it wrote
/// (empty for identity) and its transformer (which reads and writes whole
/// stored values, prefix included).
#[derive(Clone)]
pub struct Link {
    pub prefix: Vec<u8>,
    pub transformer: Arc<dyn Transformer>,
}

impl Link {
    /// Whether this link stores values as they are.
    #[must_use]
    pub fn is_identity(&self) -> bool {
        self.prefix.is_empty()
    }
}

/// See the module docs. Never "identity" as a whole, even with identity
/// first: an encrypted value no listed key can read must fail, not pass.
#[derive(Clone)]
pub struct Chain {
    links: Vec<Link>,
}

impl Chain {
    /// A chain of at least one link.
    #[must_use]
    pub fn new(links: Vec<Link>) -> Chain {
        assert!(!links.is_empty(), "a provider chain has a first provider");
        Chain { links }
    }

    /// The links in order.
    #[must_use]
    pub fn links(&self) -> &[Link] {
        &self.links
    }
}

/// The `provider:keyname` a stored value names in its prefix
/// (`aesgcm:key1`, `kms:name`), or `identity` for a value without one.
#[must_use]
pub fn written_by(stored: &[u8]) -> Cow<'_, str> {
    let Some(rest) = stored.strip_prefix(ENCRYPTED_MARK) else {
        return Cow::Borrowed("identity");
    };
    // `<provider>:<version>:<name>:`
    let mut parts = rest.splitn(4, |b| *b == b':');
    let (Some(provider), Some(_version), Some(name), Some(_)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Cow::Borrowed("unknown");
    };
    Cow::Owned(format!(
        "{}:{}",
        String::from_utf8_lossy(provider),
        String::from_utf8_lossy(name)
    ))
}

impl Transformer for Chain {
    fn transform_to_storage<'a>(
        &self,
        key: &[u8],
        plain: &'a [u8],
    ) -> Result<Cow<'a, [u8]>, Error> {
        self.links[0].transformer.transform_to_storage(key, plain)
    }

    fn transform_from_storage<'a>(&self, key: &[u8], stored: &'a [u8]) -> Result<Plain<'a>, Error> {
        let first_is_identity = self.links[0].is_identity();
        if !stored.starts_with(ENCRYPTED_MARK) {
            return Ok(Plain {
                value: Cow::Borrowed(stored),
                stale: !first_is_identity,
            });
        }
        let Some((at, link)) = self
            .links
            .iter()
            .enumerate()
            .find(|(_, l)| !l.is_identity() && stored.starts_with(&l.prefix))
        else {
            return Err(Error::new(format!(
                "no provider of the encryption configuration can read a value written by {}",
                written_by(stored)
            )));
        };
        let mut read = link.transformer.transform_from_storage(key, stored)?;
        read.stale |= at != 0;
        Ok(read)
    }
}
