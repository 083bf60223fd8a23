//! The rest of an unfiltered list without a limit, read page by page at
//! the list's revision while the first pages are sent: a list of a large
//! collection holds one page of records at a time, not the collection.

use std::sync::Arc;

use crate::api::error::ApiError;
use crate::api::store::storage_error;
use crate::storage::{KeyRange, KeyValue, RangeOptions, Revision, Storage};

/// Records read per page of a streamed list.
pub const STREAM_PAGE: usize = 1024;

/// What remains of a streamed list after the records read so far.
pub struct ListTail {
    storage: Arc<dyn Storage>,
    next: Vec<u8>,
    end: Vec<u8>,
    at: Revision,
}

impl ListTail {
    /// The rest of `[.., end)` at `at` after `last`.
    #[must_use]
    pub fn after(storage: Arc<dyn Storage>, last: &[u8], end: &[u8], at: Revision) -> ListTail {
        let mut next = last.to_vec();
        next.push(0);
        ListTail {
            storage,
            next,
            end: end.to_vec(),
            at,
        }
    }

    /// The next page, and what remains after it.
    pub async fn read(self) -> Result<(Vec<KeyValue>, Option<ListTail>), ApiError> {
        let page = self
            .storage
            .range(
                KeyRange::between(&self.next, &self.end),
                RangeOptions {
                    at: Some(self.at),
                    limit: STREAM_PAGE,
                    bulk: true,
                    ..RangeOptions::default()
                },
            )
            .await
            .map_err(storage_error)?;
        let rest = match page.items.last() {
            Some(last) if page.more => Some(ListTail::after(
                Arc::clone(&self.storage),
                &last.key,
                &self.end,
                self.at,
            )),
            _ => None,
        };
        Ok((page.items, rest))
    }
}
