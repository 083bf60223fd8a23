//! `encryption keys` and `encryption rewrite`: how many current values each
//! encryption key (`provider:keyname`, or `identity`) still holds, and the
//! offline rotation step — every value of a resource not written by its
//! first provider rewritten with it, as `kubectl replace` would (a new
//! revision per value; refused while the server holds the directory).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;
use std::time::SystemTime;

use cairn_engine::{Guard, KeyRange, RangeOptions, Txn};
use cairn_transform::{GroupResource, written_by};
use serde_json::json;

use crate::cli::Format;
use crate::commands::compact::open_writable;
use crate::commands::{ok, open_read_only};
use crate::encode::text;
use crate::encryption::{EncryptionArgs, transformers};
use crate::error::{CliError, Result};
use crate::output::{Out, table};

/// Puts per transaction of a rewrite.
const BATCH: usize = 256;

/// The storage prefix of `resource` (`secrets`, `crontabs.stable.example.com`).
fn resource_prefix(resource: &str) -> Vec<u8> {
    let gr = GroupResource::parse(resource);
    if gr.group.is_empty() {
        format!("/registry/{}/", gr.resource).into_bytes()
    } else {
        format!("/registry/{}/{}/", gr.group, gr.resource).into_bytes()
    }
}

/// Counts the current values under `prefix` by the key that wrote them.
pub fn keys(dir: &Path, prefix: &[u8], format: Format, out: &mut Out) -> Result<ExitCode> {
    let engine = open_read_only(dir)?;
    let range = if prefix.is_empty() {
        KeyRange::all()
    } else {
        KeyRange::prefix(prefix)
    };
    let found = engine.range(&range, RangeOptions::default())?;
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for kv in &found.items {
        *counts
            .entry(written_by(&kv.value).into_owned())
            .or_default() += 1;
    }
    if format == Format::Json {
        out.json(&json!({ "keys": counts }))?;
        return ok();
    }
    let mut t = table(&["KEY", "VALUES"], &[1]);
    for (key, n) in &counts {
        t.add_row(vec![key.clone(), n.to_string()]);
    }
    out.table(&t)?;
    ok()
}

/// Rewrites `resource`'s values that its first provider did not write.
pub fn rewrite(
    dir: &Path,
    resource: &str,
    encryption: &EncryptionArgs,
    format: Format,
    out: &mut Out,
) -> Result<ExitCode> {
    let config = encryption.config()?.ok_or_else(|| {
        CliError::Usage("encryption rewrite needs --encryption-provider-config".into())
    })?;
    let transformers = transformers(&config);
    let engine = open_writable(dir, "rewrite")?;
    let prefix = resource_prefix(resource);
    let found = engine.range(&KeyRange::prefix(&prefix), RangeOptions::default())?;
    let (mut rewritten, mut current) = (0u64, 0u64);
    let mut txn = Txn::new();
    let mut pending = 0;
    for kv in &found.items {
        let read = transformers
            .transform_from_storage(&kv.key, &kv.value)
            .map_err(|e| CliError::Unreadable {
                key: text(&kv.key),
                revision: kv.mod_revision.get(),
                reason: e.reason,
            })?;
        if !read.stale {
            current += 1;
            continue;
        }
        let stored = transformers
            .transform_to_storage(&kv.key, &read.value)
            .map_err(|e| CliError::Failed(format!("cannot rewrite {}: {e}", text(&kv.key))))?
            .into_owned();
        txn = txn.guard(Guard::ModRevision(kv.key.to_vec(), kv.mod_revision));
        txn = match kv.expires_at {
            Some(at) => txn.put_with_ttl(
                kv.key.to_vec(),
                stored,
                at.duration_since(SystemTime::now()).unwrap_or_default(),
            ),
            None => txn.put(kv.key.to_vec(), stored),
        };
        pending += 1;
        rewritten += 1;
        if pending == BATCH {
            engine.commit_blocking(std::mem::take(&mut txn))?;
            pending = 0;
        }
    }
    if pending > 0 {
        engine.commit_blocking(txn)?;
    }
    engine.close();
    if format == Format::Json {
        out.json(&json!({
            "resource": resource,
            "rewritten": rewritten,
            "already_current": current,
        }))?;
    } else {
        out.line(format!(
            "{resource}: {rewritten} values rewritten with the first provider, {current} already current"
        ))?;
    }
    ok()
}
