//! Stored values as they were written: every value a command shows passes
//! through the store's value transformers (identity today; decryption once
//! encryption at rest is configured), as the server reads them.

use std::borrow::Cow;

use cairn_transform::Transformers;

use crate::encode::text;
use crate::error::{CliError, Result};

/// The value transformers of a data directory.
pub struct Values {
    transformers: Transformers,
}

impl Values {
    pub fn new(transformers: Transformers) -> Values {
        Values { transformers }
    }

    /// The value stored under `key` at `revision`, as written.
    pub fn plain<'a>(&self, key: &[u8], revision: u64, stored: &'a [u8]) -> Result<Cow<'a, [u8]>> {
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
