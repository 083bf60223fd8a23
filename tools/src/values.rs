//! Stored values as they were written: every value a command shows passes
//! through the store's value transformers, as the server reads them — with
//! `--encryption-provider-config`, the server's encryption configuration.
//! A value encrypted by a key the tool does not have (no configuration, a
//! key since removed, or a KMS provider, which needs its plugin and so
//! cannot be used offline) is shown as encrypted: its prefix, then
//! `<encrypted, N bytes>`.

use std::borrow::Cow;
use std::collections::HashSet;

use cairn_transform::{ENCRYPTED_MARK, Transformers, written_by};

use crate::encode::text;
use crate::error::{CliError, Result};

/// The value transformers of a data directory.
pub struct Values {
    transformers: Transformers,
    /// The `provider:keyname` of every key the tool can decrypt with.
    readable: HashSet<String>,
}

impl Values {
    pub fn new(transformers: Transformers) -> Values {
        Values {
            transformers,
            readable: HashSet::new(),
        }
    }

    /// Transformers that decrypt values written by the keys `readable`.
    pub fn decrypting(transformers: Transformers, readable: HashSet<String>) -> Values {
        Values {
            transformers,
            readable,
        }
    }

    /// The value stored under `key` at `revision`, as written.
    pub fn plain<'a>(&self, key: &[u8], revision: u64, stored: &'a [u8]) -> Result<Cow<'a, [u8]>> {
        if stored.starts_with(ENCRYPTED_MARK)
            && !self.readable.contains(written_by(stored).as_ref())
        {
            return Ok(Cow::Owned(shown_encrypted(stored).into_bytes()));
        }
        self.transformers
            .transform_from_storage(key, stored)
            .map(|p| p.value)
            .map_err(|e| CliError::Unreadable {
                key: text(key),
                revision,
                reason: e.reason,
            })
    }
}

/// An encrypted value as shown: `k8s:enc:aesgcm:v1:key1:<encrypted, N bytes>`.
pub fn shown_encrypted(stored: &[u8]) -> String {
    // The prefix ends at its fifth colon (`k8s:enc:<provider>:<v>:<name>:`).
    let end = stored
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b':')
        .nth(4)
        .map_or(ENCRYPTED_MARK.len(), |(i, _)| i + 1);
    format!(
        "{}<encrypted, {} bytes>",
        String::from_utf8_lossy(&stored[..end]),
        stored.len() - end
    )
}
