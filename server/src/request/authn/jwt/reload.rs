//! Re-reading `--authentication-config` while serving: the file's
//! modification time and length are polled; a changed file that validates
//! replaces the JWT authenticators, one that does not keeps the old ones
//! and the log says why, in one line.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::JwtAuthenticators;
use crate::config::authn::{Context, load};

/// How often the file is looked at.
pub const POLL_INTERVAL: Duration = Duration::from_secs(2);

/// Watches `path` every `interval` until `authenticators` is dropped.
pub fn watch(
    path: PathBuf,
    ctx: Context,
    authenticators: &Arc<JwtAuthenticators>,
    interval: Duration,
) -> tokio::task::JoinHandle<()> {
    let weak = Arc::downgrade(authenticators);
    let mut seen = stamp(&path);
    let mut contents = std::fs::read(&path).ok();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(interval).await;
            let Some(authenticators) = weak.upgrade() else {
                return;
            };
            let now = stamp(&path);
            if now == seen {
                continue;
            }
            seen = now;
            let fresh = std::fs::read(&path).ok();
            if fresh.is_some() && fresh == contents {
                continue;
            }
            contents = fresh;
            match load(&path, &ctx).and_then(|config| authenticators.replace(&config.jwt)) {
                Ok(()) => tracing::info!(
                    path = %path.display(),
                    issuers = ?authenticators.issuers(),
                    "authentication configuration reloaded"
                ),
                Err(e) => tracing::warn!(
                    path = %path.display(),
                    "authentication configuration not reloaded, the previous one stays: {e}"
                ),
            }
        }
    })
}

fn stamp(path: &PathBuf) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}
