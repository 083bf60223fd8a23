//! The rest of a list read page by page at one revision: an unfiltered
//! list without a limit while its first pages are sent, an informer's list
//! while its controller takes them in. A list of a large collection holds
//! one page of records at a time, not the collection.

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
    /// Records per page (0: the rest in one read).
    page: usize,
}

impl ListTail {
    /// `[start, end)` at `at`, `page` records at a time (0: in one read).
    #[must_use]
    pub fn new(
        storage: Arc<dyn Storage>,
        start: &[u8],
        end: &[u8],
        at: Revision,
        page: usize,
    ) -> ListTail {
        ListTail {
            storage,
            next: start.to_vec(),
            end: end.to_vec(),
            at,
            page,
        }
    }

    /// The rest of `[.., end)` at `at` after `last`, in stream pages.
    #[must_use]
    pub fn after(storage: Arc<dyn Storage>, last: &[u8], end: &[u8], at: Revision) -> ListTail {
        let mut next = last.to_vec();
        next.push(0);
        ListTail::new(storage, &next, end, at, STREAM_PAGE)
    }

    /// The revision the list is read at.
    #[must_use]
    pub fn revision(&self) -> Revision {
        self.at
    }

    /// The next page, and what remains after it.
    pub async fn read(self) -> Result<(Vec<KeyValue>, Option<ListTail>), ApiError> {
        let page = self
            .storage
            .range(
                KeyRange::between(&self.next, &self.end),
                RangeOptions {
                    at: Some(self.at),
                    limit: self.page,
                    bulk: true,
                    ..RangeOptions::default()
                },
            )
            .await
            .map_err(storage_error)?;
        let rest = match page.items.last() {
            Some(last) if page.more => {
                let mut next = last.key.to_vec();
                next.push(0);
                Some(ListTail { next, ..self })
            }
            _ => None,
        };
        Ok((page.items, rest))
    }
}
