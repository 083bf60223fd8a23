//! `migrate`: a data directory's objects into etcd, or etcd's into a data
//! directory, through the server's own storage backends (so the keys land
//! where a server on either backend looks for them), then every object
//! compared on both sides. The directory's other files (`pki/`,
//! `service-account.key`) are not objects and stay where they are.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use cairn_apiserver::config::etcd::EtcdFlags;
use cairn_apiserver::storage::Storage;
use cairn_apiserver::storage::embedded::Embedded;
use cairn_apiserver::storage::etcd::Etcd;
use cairn_apiserver::storage::migrate::{self, Copied};
use cairn_engine::{Error, lock_holder};
use serde_json::json;

use crate::cli::{Direction, Format};
use crate::commands::{data_dir, ok};
use crate::encode::size;
use crate::error::{CliError, Result};
use crate::output::{Out, fields};
use crate::progress;

/// How long to wait for etcd to answer at all.
const ETCD_PATIENCE: Duration = Duration::from_secs(10);

pub fn run(
    direction: Direction,
    dir: &Path,
    etcd: &EtcdFlags,
    event_ttl: Duration,
    format: Format,
    out: &mut Out,
) -> Result<ExitCode> {
    let Some(options) = etcd.options() else {
        return Err(CliError::Usage("--etcd-servers: required".into()));
    };
    Etcd::check(&options).map_err(CliError::Usage)?;
    if direction == Direction::ToEtcd {
        data_dir(dir)?;
    }
    if let Some(holder) = lock_holder(dir) {
        return Err(CliError::refused("cannot migrate")(Error::Locked {
            lock_file: dir.join("LOCK"),
            holder,
        }));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let spin = progress::spinner("migrating");
    let outcome = runtime.block_on(async {
        let etcd = Etcd::start(&options).map_err(CliError::Usage)?;
        etcd.wait_healthy(ETCD_PATIENCE)
            .await
            .map_err(|e| CliError::Failed(format!("cannot migrate: {e}")))?;
        let embedded = Embedded::open(dir)
            .map_err(|e| CliError::Failed(format!("cannot migrate: {}: {e}", dir.display())))?;
        let (embedded, etcd): (Arc<dyn Storage>, Arc<dyn Storage>) = (Arc::new(embedded), etcd);
        let (from, to) = match direction {
            Direction::ToEtcd => (&embedded, &etcd),
            Direction::FromEtcd => (&etcd, &embedded),
        };
        let moved = async {
            let copied = migrate::copy(from.as_ref(), to, event_ttl).await?;
            let compared =
                migrate::compare(from.as_ref(), copied.source_revision, to.as_ref()).await?;
            Ok::<_, migrate::MigrateError>((copied, compared))
        }
        .await;
        embedded.close();
        etcd.close();
        moved.map_err(|e| CliError::Failed(format!("cannot migrate: {e}")))
    });
    spin.finish_and_clear();
    let (copied, compared) = outcome?;
    report(direction, &copied, compared, format, out)
}

fn report(
    direction: Direction,
    copied: &Copied,
    compared: u64,
    format: Format,
    out: &mut Out,
) -> Result<ExitCode> {
    let (from, to) = match direction {
        Direction::ToEtcd => ("data directory", "etcd"),
        Direction::FromEtcd => ("etcd", "data directory"),
    };
    if format == Format::Json {
        out.json(&json!({
            "from": from,
            "to": to,
            "source_revision": copied.source_revision.get(),
            "objects": copied.keys,
            "value_bytes": copied.value_bytes,
            "target_revision_before": copied.target_before.get(),
            "target_revision_after": copied.target_after.get(),
            "objects_compared": compared,
        }))?;
        return ok();
    }
    out.table(&fields(vec![
        ("copied", format!("{from} → {to}")),
        ("source revision", copied.source_revision.to_string()),
        (
            "objects",
            format!("{} ({})", copied.keys, size(copied.value_bytes)),
        ),
        (
            "target revisions",
            format!(
                "{} → {} (each object's new resourceVersion)",
                copied.target_before, copied.target_after
            ),
        ),
        (
            "compared",
            format!("{compared} objects, every one identical on both sides"),
        ),
    ]))?;
    ok()
}
