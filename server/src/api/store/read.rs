//! Get and list, with the resourceVersion semantics of spec 6.3 and chunked
//! lists whose pages all come from the first page's snapshot.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::api::error::ApiError;
use crate::api::index::{Attributes, exact_term};
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::selectors::{FieldSelector, LabelSelector, ShardSelector};
use crate::api::store::continue_token::{
    Continue, decode_continue, encode_continue, query_fingerprint,
};
use crate::api::store::list_index::ListRange;
use crate::api::store::list_tail::{ListTail, STREAM_PAGE};
use crate::api::store::{Store, parse_rv, storage_error};
use crate::storage::{KeyRange, KeyValue, RangeOptions, Revision, StorageError};

/// `resourceVersionMatch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResourceVersionMatch {
    Exact,
    NotOlderThan,
}

/// Parameters of a list.
#[derive(Default)]
pub struct ListOptions {
    pub label: Option<LabelSelector>,
    pub field: Option<FieldSelector>,
    pub shard: Option<ShardSelector>,
    pub limit: usize,
    pub continue_token: Option<String>,
    pub resource_version: Option<String>,
    pub rv_match: Option<ResourceVersionMatch>,
    /// The caller sends the list as it reads it: an unfiltered one without
    /// a limit may come as its first records and a [`ListTail`].
    pub streamed: bool,
}

/// One page of a list as stored records (served without parsing).
pub struct RawPage {
    pub items: Vec<KeyValue>,
    pub revision: Revision,
    pub continue_token: Option<String>,
    pub remaining: Option<u64>,
    /// The records after `items`, still to read (a streamed list).
    pub tail: Option<ListTail>,
}

/// One page of a list.
pub struct ListPage {
    pub items: Vec<Value>,
    pub revision: Revision,
    pub continue_token: Option<String>,
    pub remaining: Option<u64>,
}

/// At which revision a read is served.
pub(super) enum ReadAt {
    Latest,
    AtLeast(u64),
    Exact(u64),
}

fn forbidden_match(why: &str) -> ApiError {
    ApiError::BadRequest(format!("resourceVersionMatch: Forbidden: {why}"))
}

impl Store {
    /// GET of one object; `resourceVersion` unset reads the latest, `0`
    /// any recent copy (a cache's), any other value something not older
    /// than it.
    pub async fn get(
        &self,
        kind: &KindSpec,
        ns: Option<&str>,
        name: &str,
        rv: Option<&str>,
    ) -> Result<Value, ApiError> {
        Store::decode_served(kind, &self.get_raw(kind, ns, name, rv).await?)
    }

    /// GET as the stored record.
    pub async fn get_raw(
        &self,
        kind: &KindSpec,
        ns: Option<&str>,
        name: &str,
        rv: Option<&str>,
    ) -> Result<KeyValue, ApiError> {
        let key = keys::object_key(kind, ns, name);
        let read = match parse_rv(rv)? {
            // Not older than `min`: a cache that has reached it answers.
            Some(min) if self.storage.reached(Revision(min)) => self.storage.get_recent(&key),
            Some(min) => {
                self.wait_for_revision(min).await?;
                self.storage.get(&key, None)
            }
            None => self.storage.get(&key, None),
        };
        read.await
            .map_err(storage_error)?
            .kv
            .ok_or_else(|| kind.not_found(name))
    }

    /// The spec 6.3 list table: where to read, and the continue token in force.
    fn list_read_at(opts: &ListOptions) -> Result<(ReadAt, Option<Continue>), ApiError> {
        let rv_raw = opts.resource_version.as_deref().filter(|s| !s.is_empty());
        let rv = parse_rv(rv_raw)?;
        if let Some(token) = opts.continue_token.as_deref().filter(|t| !t.is_empty()) {
            if opts.rv_match.is_some() {
                return Err(forbidden_match(
                    "resourceVersionMatch is forbidden when continue is provided",
                ));
            }
            if rv.is_some_and(|r| r > 0) {
                return Err(ApiError::BadRequest(
                    "specifying resource version is not allowed when using continue".into(),
                ));
            }
            let c = decode_continue(token)?;
            return Ok((ReadAt::Exact(c.rv), Some(c)));
        }
        let at = match (opts.rv_match, rv) {
            (None, None) => ReadAt::Latest,
            // "Any": what a cache holds will do, as kube's watch cache serves it.
            (None, Some(0)) => ReadAt::AtLeast(0),
            (None, Some(n)) if opts.limit > 0 => ReadAt::Exact(n),
            (None, Some(n)) => ReadAt::AtLeast(n),
            (Some(_), None) => {
                return Err(forbidden_match(
                    "resourceVersionMatch is forbidden unless resourceVersion is provided",
                ));
            }
            (Some(ResourceVersionMatch::Exact), Some(0)) => {
                return Err(forbidden_match(
                    "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
                ));
            }
            (Some(ResourceVersionMatch::Exact), Some(n)) => ReadAt::Exact(n),
            (Some(ResourceVersionMatch::NotOlderThan), Some(n)) => ReadAt::AtLeast(n),
        };
        Ok((at, None))
    }

    /// LIST: one page of a collection (one namespace, or all when `ns` is `None`).
    pub async fn list(
        &self,
        kind: &Arc<KindSpec>,
        ns: Option<&str>,
        opts: &ListOptions,
    ) -> Result<ListPage, ApiError> {
        let raw = self.list_raw(kind, ns, opts).await?;
        let items = raw
            .items
            .iter()
            .map(|kv| Store::decode_served(kind, kv))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ListPage {
            items,
            revision: raw.revision,
            continue_token: raw.continue_token,
            remaining: raw.remaining,
        })
    }

    /// LIST: one page of a collection (one namespace, or all when `ns` is
    /// `None`), as stored records. Objects are parsed only to apply selectors.
    pub async fn list_raw(
        &self,
        kind: &Arc<KindSpec>,
        ns: Option<&str>,
        opts: &ListOptions,
    ) -> Result<RawPage, ApiError> {
        let (read_at, cont) = Store::list_read_at(opts)?;
        let mut not_older_than = None;
        let at = match &read_at {
            ReadAt::Latest => None,
            ReadAt::AtLeast(n) => {
                self.wait_for_revision(*n).await?;
                not_older_than = Some(Revision(*n));
                None
            }
            ReadAt::Exact(n) => {
                self.wait_for_revision(*n).await?;
                Some(Revision(*n))
            }
        };
        let prefix = keys::collection_prefix(kind, ns);
        let fingerprint = query_fingerprint(&prefix, opts);
        if cont.as_ref().is_some_and(|c| c.query != fingerprint) {
            return Err(ApiError::BadRequest(
                "invalid continue token: it was issued for a different query (collection or selectors); use it only with otherwise identical parameters".into(),
            ));
        }
        let range = KeyRange::prefix(&prefix);
        let mut start = prefix.clone();
        if let Some(c) = &cont {
            start.extend_from_slice(c.start.as_bytes());
        }
        let filtered = opts.label.as_ref().is_some_and(|l| !l.is_empty())
            || opts.field.as_ref().is_some_and(|f| !f.is_empty())
            || opts.shard.is_some();
        let term = filtered
            .then(|| exact_term(opts.label.as_ref(), opts.field.as_ref(), None, None))
            .flatten();
        let index = match &term {
            Some((family, _)) => self.list_indexes.of(&self.storage, kind, family).await,
            None => None,
        };
        if let (Some(index), Some(term)) = (&index, &term) {
            let where_ = ListRange {
                prefix: &prefix,
                start: &start,
                end: &range.end,
                query: fingerprint,
            };
            if let Some(page) = self
                .list_from_index(index, kind, opts, &read_at, &where_, term)
                .await
            {
                return page;
            }
        }
        let mut items = Vec::new();
        let mut revision = at;
        let mut last_key: Option<Vec<u8>> = None;
        let mut more;
        let mut remaining = None;
        let mut tail = None;
        let streamed =
            opts.streamed && opts.limit == 0 && !filtered && self.storage.pages_cheaply();
        loop {
            let want = if streamed {
                STREAM_PAGE
            } else if opts.limit == 0 {
                0
            } else {
                opts.limit - items.len()
            };
            let read = self.storage.range(
                KeyRange::between(&start, &range.end),
                RangeOptions {
                    at: revision,
                    not_older_than,
                    limit: want,
                    count_total: opts.limit > 0 && !filtered,
                    bulk: streamed,
                    ..RangeOptions::default()
                },
            );
            let page = match (read.await, &cont) {
                (Ok(page), _) => page,
                (Err(StorageError::Compacted { .. }), Some(c)) => {
                    return Err(self.expired_continue(&c.start, fingerprint).await);
                }
                (Err(e), _) => return Err(storage_error(e)),
            };
            revision = Some(page.revision);
            for kv in page.items {
                last_key = Some(kv.key.to_vec());
                let keep = match filtered {
                    false => true,
                    true => match Attributes::of_record(kind, &kv) {
                        Some(attrs) => attrs.selected_by(kind, opts),
                        // Unreadable: fail as an unfiltered read would.
                        None => {
                            return Err(Store::decode_served(kind, &kv).err().unwrap_or_else(
                                || ApiError::Internal("an object could not be read".into()),
                            ));
                        }
                    },
                };
                if keep {
                    items.push(kv);
                }
            }
            if page.more && !filtered {
                remaining = Some(page.count.saturating_sub(items.len() as u64));
            }
            more = page.more;
            if streamed && more {
                let last = last_key.as_deref().unwrap_or_default();
                let storage = Arc::clone(&self.storage);
                tail = Some(ListTail::after(storage, last, &range.end, page.revision));
                more = false;
            }
            if !more || opts.limit == 0 || items.len() >= opts.limit {
                break;
            }
            // Selectors dropped some items: keep reading after the last key seen.
            let mut next = last_key.clone().unwrap_or_default();
            next.push(0);
            start = next;
        }
        let revision = match revision {
            Some(r) => r,
            None => self.current_revision().await?,
        };
        let continue_token = match (more, &last_key) {
            (true, Some(k)) => {
                let rel = String::from_utf8_lossy(&k[prefix.len()..]).into_owned();
                Some(encode_continue(
                    revision.get(),
                    &format!("{rel}\u{0}"),
                    fingerprint,
                ))
            }
            _ => None,
        };
        let remaining = remaining.filter(|_| continue_token.is_some());
        Ok(RawPage {
            items,
            revision,
            continue_token,
            remaining,
            tail,
        })
    }

    /// 410 for a continue token whose snapshot was compacted away, carrying a
    /// fresh token that continues from the same key at the latest revision.
    async fn expired_continue(&self, start: &str, query: u64) -> ApiError {
        let rv = match self.current_revision().await {
            Ok(rv) => rv.get(),
            Err(e) => return e,
        };
        ApiError::Expired {
            message: "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.".into(),
            continue_token: Some(encode_continue(rv, start, query)),
        }
    }
}

fn matches_selectors(kind: &KindSpec, obj: &Value, opts: &ListOptions) -> bool {
    let labels = obj
        .get("metadata")
        .and_then(|m| m.get("labels"))
        .and_then(Value::as_object);
    let empty = Map::new();
    let labels = labels.unwrap_or(&empty);
    if let Some(l) = &opts.label
        && !l.matches(labels)
    {
        return false;
    }
    if let Some(f) = &opts.field
        && !f.matches(|field| field_value(kind, obj, field))
    {
        return false;
    }
    opts.shard.as_ref().is_none_or(|s| s.matches(obj))
}

/// A selectable field's value (`metadata.name`, `metadata.namespace`, or the kind's own).
#[must_use]
pub fn field_value(kind: &KindSpec, obj: &Value, field: &str) -> Option<String> {
    match field {
        "metadata.name" => Some(crate::api::object::name(obj).to_string()),
        "metadata.namespace" => Some(
            crate::api::object::namespace(obj)
                .unwrap_or_default()
                .to_string(),
        ),
        _ => (kind.field_value)(obj, field),
    }
}

/// Whether an object passes label and field selectors (watch filtering).
#[must_use]
pub fn selected(kind: &KindSpec, obj: &Value, opts: &ListOptions) -> bool {
    matches_selectors(kind, obj, opts)
}
