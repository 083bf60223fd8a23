//! cairn-transform: value transformers — what a value becomes on its way
//! into storage and back, chosen by key prefix or by the resource a key
//! names (as kube-apiserver chooses encryption providers by resource):
//! encryption at rest's configuration (`config`), its local ciphers
//! (`cipher`) and the provider chains that pick a reader by prefix.
//!
//! Both directions borrow: a transformer that leaves a value alone returns
//! it `Cow::Borrowed`, so callers holding shared or memory-mapped bytes keep
//! them without a copy.
//!
//! ```
//! use std::borrow::Cow;
//! use cairn_transform::Transformers;
//!
//! let t = Transformers::identity();
//! let stored = t.transform_to_storage(b"/registry/secrets/ns/a", b"{}").unwrap();
//! assert!(matches!(stored, Cow::Borrowed(_)));
//! let read = t.transform_from_storage(b"/registry/secrets/ns/a", &stored).unwrap();
//! assert_eq!(&read.value[..], b"{}");
//! assert!(!read.stale);
//! ```

mod chain;
pub mod cipher;
pub mod config;
mod resources;
mod routes;
mod xor;

use std::borrow::Cow;

pub use chain::{Chain, ENCRYPTED_MARK, Link, written_by};
pub use resources::{GroupResource, ResourceRoutes, group_resource};
pub use routes::Transformers;
pub use xor::{XOR_MARK, Xor};

/// A value a transformer could not turn around (a wrong key, damaged
/// ciphertext, an unavailable key service).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct Error {
    /// What went wrong, without the value.
    pub reason: String,
}

impl Error {
    /// An error with its reason.
    pub fn new(reason: impl Into<String>) -> Error {
        Error {
            reason: reason.into(),
        }
    }
}

/// A value read back from storage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plain<'a> {
    /// The value as written by the caller.
    pub value: Cow<'a, [u8]>,
    /// Whether the stored form is not what a write would store now (e.g.
    /// encrypted with an older key); a migration rewrites such values.
    pub stale: bool,
}

/// One transformation between the caller's bytes and the stored bytes.
/// `key` is the storage key, which a cipher binds the value to (as
/// kube-apiserver authenticates ciphertext with it).
pub trait Transformer: Send + Sync {
    /// The bytes to store for `plain` under `key`.
    fn transform_to_storage<'a>(&self, key: &[u8], plain: &'a [u8])
    -> Result<Cow<'a, [u8]>, Error>;

    /// The caller's bytes for what is stored under `key`.
    fn transform_from_storage<'a>(&self, key: &[u8], stored: &'a [u8]) -> Result<Plain<'a>, Error>;

    /// Whether values pass unchanged, so callers may skip the calls.
    fn is_identity(&self) -> bool {
        false
    }
}

/// Values stored as they are.
#[derive(Clone, Copy, Debug, Default)]
pub struct Identity;

impl Transformer for Identity {
    fn transform_to_storage<'a>(
        &self,
        _key: &[u8],
        plain: &'a [u8],
    ) -> Result<Cow<'a, [u8]>, Error> {
        Ok(Cow::Borrowed(plain))
    }

    fn transform_from_storage<'a>(
        &self,
        _key: &[u8],
        stored: &'a [u8],
    ) -> Result<Plain<'a>, Error> {
        Ok(Plain {
            value: Cow::Borrowed(stored),
            stale: false,
        })
    }

    fn is_identity(&self) -> bool {
        true
    }
}
