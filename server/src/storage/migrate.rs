//! Moving a cluster's objects between backends (`cairn-store migrate`): every
//! key under `/registry/` read at one revision of the source and created in
//! an empty target, each in a transaction of its own so every object gets a
//! resourceVersion of its own there; then both compared key by key. Values
//! are copied as stored (encrypted ones stay encrypted under the same keys);
//! keys that had a TTL (Events) get `leased_ttl` afresh, as the target's
//! leases cannot carry the source's remaining time.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;

use super::{Guard, KeyRange, KeyValue, RangeOptions, Revision, Storage, StorageError, Txn};

/// Everything cairn stores lives under this.
const ROOT: &[u8] = b"/registry/";
/// Keys read per page.
const PAGE: usize = 500;
/// Creates in flight at once, so a networked target is not paced by its
/// round trip nor a local one by its sync.
const IN_FLIGHT: usize = 64;

/// What a copy did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Copied {
    /// The source's revision the copy was read at.
    pub source_revision: Revision,
    pub keys: u64,
    pub value_bytes: u64,
    /// The target's revisions before and after the copy.
    pub target_before: Revision,
    pub target_after: Revision,
}

/// Why a migration stopped; one line for the tool to print.
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("the {side}: {source}")]
    Storage {
        side: &'static str,
        source: StorageError,
    },
    #[error("the target already holds {0} objects: migrate into an empty store")]
    TargetNotEmpty(u64),
    #[error("{key}: {why}")]
    Differs { key: String, why: String },
}

fn source_error(source: StorageError) -> MigrateError {
    MigrateError::Storage {
        side: "source",
        source,
    }
}

fn target_error(source: StorageError) -> MigrateError {
    MigrateError::Storage {
        side: "target",
        source,
    }
}

/// Copies every object of `from` into `to`, which must hold none.
pub async fn copy(
    from: &dyn Storage,
    to: &Arc<dyn Storage>,
    leased_ttl: Duration,
) -> Result<Copied, MigrateError> {
    let held = count(to.as_ref()).await.map_err(target_error)?;
    if held > 0 {
        return Err(MigrateError::TargetNotEmpty(held));
    }
    let source_revision = from.current_revision().await.map_err(source_error)?;
    let target_before = to.current_revision().await.map_err(target_error)?;
    let mut copied = Copied {
        source_revision,
        target_before,
        ..Copied::default()
    };
    let mut start = ROOT.to_vec();
    loop {
        let (items, more) = page(from, &start, source_revision)
            .await
            .map_err(source_error)?;
        if let Some(last) = items.last() {
            start = next_key(&last.key);
        }
        copied.keys += items.len() as u64;
        copied.value_bytes += items.iter().map(|kv| kv.value.len() as u64).sum::<u64>();
        let mut creates = JoinSet::new();
        for kv in items {
            if creates.len() >= IN_FLIGHT {
                joined(creates.join_next().await)?;
            }
            creates.spawn(create(Arc::clone(to), kv, leased_ttl));
        }
        while let Some(done) = creates.join_next().await {
            joined(Some(done))?;
        }
        if !more {
            break;
        }
    }
    copied.target_after = to.current_revision().await.map_err(target_error)?;
    Ok(copied)
}

/// Compares every object of `from` at `at` with the latest of `to`: the
/// same keys with the same bytes. Returns how many were compared.
pub async fn compare(
    from: &dyn Storage,
    at: Revision,
    to: &dyn Storage,
) -> Result<u64, MigrateError> {
    let target_at = to.current_revision().await.map_err(target_error)?;
    let mut start = ROOT.to_vec();
    let mut compared = 0u64;
    loop {
        let (ours, more) = page(from, &start, at).await.map_err(source_error)?;
        let Some(last) = ours.last() else { break };
        let end = next_key(&last.key);
        let theirs = to
            .range(
                KeyRange::between(&start, &end),
                RangeOptions {
                    at: Some(target_at),
                    ..RangeOptions::default()
                },
            )
            .await
            .map_err(target_error)?
            .items;
        same_page(&ours, &theirs)?;
        compared += ours.len() as u64;
        start = end;
        if !more {
            break;
        }
    }
    let total = count(to).await.map_err(target_error)?;
    if total != compared {
        return Err(MigrateError::Differs {
            key: String::from_utf8_lossy(ROOT).into_owned(),
            why: format!("the target holds {total} objects, the source {compared}"),
        });
    }
    Ok(compared)
}

/// The outcome of one finished create.
fn joined(
    done: Option<Result<Result<(), MigrateError>, tokio::task::JoinError>>,
) -> Result<(), MigrateError> {
    match done {
        Some(Ok(outcome)) => outcome,
        Some(Err(e)) => Err(target_error(StorageError::Internal(e.to_string()))),
        None => Ok(()),
    }
}

/// Compares one page of both sides, both in key order, as a merge: the
/// first key that differs is named with how.
fn same_page(ours: &[KeyValue], theirs: &[KeyValue]) -> Result<(), MigrateError> {
    let differs = |key: &[u8], why: &str| MigrateError::Differs {
        key: String::from_utf8_lossy(key).into_owned(),
        why: why.into(),
    };
    let (mut i, mut j) = (0, 0);
    while i < ours.len() || j < theirs.len() {
        match (ours.get(i), theirs.get(j)) {
            (Some(a), Some(b)) if a.key == b.key => {
                if a.value != b.value {
                    return Err(differs(&a.key, "the target's value differs"));
                }
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a.key < b.key => {
                return Err(differs(&a.key, "missing from the target"));
            }
            (Some(a), None) => return Err(differs(&a.key, "missing from the target")),
            (_, Some(b)) => return Err(differs(&b.key, "in the target only")),
            (None, None) => break,
        }
    }
    Ok(())
}

/// Creates `kv` in `to`, refusing to overwrite.
async fn create(
    to: Arc<dyn Storage>,
    kv: KeyValue,
    leased_ttl: Duration,
) -> Result<(), MigrateError> {
    let key = kv.key.to_vec();
    let value = kv.value.to_vec();
    let txn = Txn::new().guard(Guard::Absent(key.clone()));
    let txn = match kv.lease {
        Some(_) => txn.put_with_ttl(key, value, leased_ttl),
        None => txn.put(key, value),
    };
    to.commit(txn).await.map(|_| ()).map_err(target_error)
}

async fn page(
    storage: &dyn Storage,
    start: &[u8],
    at: Revision,
) -> Result<(Vec<KeyValue>, bool), StorageError> {
    let range = KeyRange::between(start, &super::prefix_end(ROOT));
    let opts = RangeOptions {
        at: Some(at),
        limit: PAGE,
        ..RangeOptions::default()
    };
    let result = storage.range(range, opts).await?;
    Ok((result.items, result.more))
}

async fn count(storage: &dyn Storage) -> Result<u64, StorageError> {
    let opts = RangeOptions {
        count_only: true,
        ..RangeOptions::default()
    };
    Ok(storage.range(KeyRange::prefix(ROOT), opts).await?.count)
}

/// The smallest key after `key`.
fn next_key(key: &[u8]) -> Vec<u8> {
    let mut next = key.to_vec();
    next.push(0);
    next
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::embedded::Embedded;

    fn store(dir: &std::path::Path) -> Arc<dyn Storage> {
        Arc::new(Embedded::open(dir).expect("open"))
    }

    async fn put(s: &Arc<dyn Storage>, key: &str, value: &str) {
        s.commit(Txn::new().put(key.as_bytes(), value.as_bytes()))
            .await
            .expect("commit");
    }

    #[tokio::test]
    async fn copies_every_object_once_and_the_comparison_catches_any_difference() {
        let dirs = [(); 2].map(|()| tempfile::tempdir().expect("tempdir"));
        let (from, to) = (store(dirs[0].path()), store(dirs[1].path()));
        for i in 0..1_200 {
            put(&from, &format!("/registry/configmaps/ns/cm-{i:04}"), "v").await;
        }
        put(&from, "/registry/configmaps/ns/cm-0007", "changed").await;
        from.commit(Txn::new().put_with_ttl(
            &b"/registry/events/ns/e"[..],
            &b"ev"[..],
            Duration::from_secs(60),
        ))
        .await
        .expect("event");

        let copied = copy(from.as_ref(), &to, Duration::from_secs(3600))
            .await
            .expect("copy");
        assert_eq!(copied.keys, 1_201);
        assert_eq!(
            copied.target_after.get() - copied.target_before.get(),
            1_201
        );
        let at = copied.source_revision;
        assert_eq!(
            compare(from.as_ref(), at, to.as_ref()).await.expect("same"),
            1_201
        );
        let event = to
            .get(b"/registry/events/ns/e", None)
            .await
            .expect("get")
            .kv
            .expect("event");
        assert!(event.lease.is_some(), "the Event keeps a TTL");

        assert!(matches!(
            copy(from.as_ref(), &to, Duration::from_secs(1)).await,
            Err(MigrateError::TargetNotEmpty(1_201))
        ));

        put(&to, "/registry/configmaps/ns/cm-0500", "tampered").await;
        let differs = compare(from.as_ref(), at, to.as_ref()).await.unwrap_err();
        assert!(
            differs
                .to_string()
                .contains("cm-0500: the target's value differs"),
            "{differs}"
        );
        put(&to, "/registry/configmaps/ns/cm-0500", "v").await;
        put(&to, "/registry/configmaps/ns/zz-extra", "v").await;
        let extra = compare(from.as_ref(), at, to.as_ref()).await.unwrap_err();
        assert!(
            extra.to_string().contains("zz-extra: in the target only"),
            "{extra}"
        );
        to.commit(Txn::new().delete(&b"/registry/configmaps/ns/cm-0001"[..]))
            .await
            .expect("delete");
        let missing = compare(from.as_ref(), at, to.as_ref()).await.unwrap_err();
        assert!(missing.to_string().contains("cm-0001"), "{missing}");
    }
}
