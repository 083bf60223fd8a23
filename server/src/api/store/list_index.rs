//! Lists with an exact-match selector answered from the kind's list index:
//! only the objects the index cannot rule out are read from storage (at the
//! list's revision, so pages and Exact reads keep their snapshot semantics)
//! and tested; the rest are never read or parsed. When the index cannot
//! answer for the revision asked, the caller reads storage as before.

use std::time::Duration;

use crate::api::error::ApiError;
use crate::api::index::{Attributes, KindIndex, Term};
use crate::api::kind::KindSpec;
use crate::api::store::Store;
use crate::api::store::continue_token::encode_continue;
use crate::api::store::read::{ListOptions, RawPage, ReadAt};
use crate::storage::{KeyValue, Revision};

/// How long a list waits for the index to reach a revision storage has
/// already reached (the moment between a commit and its publication).
const CATCH_UP_TRIES: u32 = 20;
const CATCH_UP_PAUSE: Duration = Duration::from_millis(1);

/// Where a list reads: `[start, end)` of the collection at `prefix`, and
/// the fingerprint of its query (for continue tokens).
pub(super) struct ListRange<'a> {
    pub prefix: &'a [u8],
    pub start: &'a [u8],
    pub end: &'a [u8],
    pub query: u64,
}

impl Store {
    /// The revision `index` answers `read_at` at, once it is current
    /// through it; `None` if it cannot be.
    async fn index_revision(&self, index: &KindIndex, read_at: &ReadAt) -> Option<Revision> {
        let mut synced = index.sync()?;
        let wanted = match read_at {
            ReadAt::Latest if synced.vouched => Revision::ZERO,
            // As far as storage is now: one question to a networked backend,
            // as a list without an index asks it.
            ReadAt::Latest => {
                // Only a backend that knows how far it is can catch up.
                if !self.storage.reached(Revision::ZERO) {
                    return None;
                }
                self.storage.current_revision().await.ok()?
            }
            ReadAt::AtLeast(n) | ReadAt::Exact(n) => Revision(*n),
        };
        if !synced.vouched && synced.through < wanted {
            if !self.storage.catch_up(wanted).await {
                return None;
            }
            synced = index.sync()?;
        }
        for _ in 0..CATCH_UP_TRIES {
            if synced.through >= wanted {
                break;
            }
            tokio::time::sleep(CATCH_UP_PAUSE).await;
            synced = index.sync()?;
        }
        if synced.through < wanted {
            return None;
        }
        Some(match read_at {
            ReadAt::Exact(_) => wanted,
            ReadAt::Latest | ReadAt::AtLeast(_) => synced.through,
        })
    }

    /// One page of a selected list read by index; `None` when the caller
    /// must read storage instead.
    pub(super) async fn list_from_index(
        &self,
        index: &KindIndex,
        kind: &KindSpec,
        opts: &ListOptions,
        read_at: &ReadAt,
        range: &ListRange<'_>,
        term: &Term,
    ) -> Option<Result<RawPage, ApiError>> {
        let at = self.index_revision(index, read_at).await?;
        if matches!(read_at, ReadAt::Exact(_)) {
            // Storage says how a read below its compaction fails.
            let status = self.storage.status().await.ok()?;
            if at <= status.compacted_revision {
                return None;
            }
        }
        let candidates = index.candidates(range.start, range.end, at, term)?;
        let mut items = Vec::new();
        let mut continue_token = None;
        for key in candidates {
            let Ok(got) = self.storage.get(&key, Some(at)).await else {
                return None;
            };
            let Some(kv) = got.kv else { continue };
            let keep = match Attributes::of_record(kind, &kv) {
                Some(attrs) => attrs.selected_by(kind, opts),
                // Unreadable: fail as an unfiltered read would.
                None => {
                    return Some(Err(Store::decode_served(kind, &kv).err().unwrap_or_else(
                        || ApiError::Internal("an object could not be read".into()),
                    )));
                }
            };
            if !keep {
                continue;
            }
            if opts.limit > 0 && items.len() == opts.limit {
                // More selected objects follow the page's last one.
                continue_token = items
                    .last()
                    .map(|last: &KeyValue| continue_after(range, &last.key, at));
                break;
            }
            items.push(kv);
        }
        Some(Ok(RawPage {
            items,
            revision: at,
            continue_token,
            remaining: None,
            tail: None,
        }))
    }
}

/// The continue token of a page whose last item is `last`.
fn continue_after(range: &ListRange<'_>, last: &[u8], at: Revision) -> String {
    let rel = String::from_utf8_lossy(last.get(range.prefix.len()..).unwrap_or_default());
    encode_continue(at.get(), &format!("{rel}\u{0}"), range.query)
}
