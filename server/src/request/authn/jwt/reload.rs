//! Re-reading `--authentication-config` while serving: the file's
//! modification time and length are polled; a changed file that validates
//! replaces the JWT authenticators, one that does not keeps the old ones
//! and the log says why, in one line.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::JwtAuthenticators;
use crate::config::authn::{Context, load};
use crate::util::file_watch::FileWatch;
pub use crate::util::file_watch::POLL_INTERVAL;

/// Watches `path` every `interval` until `authenticators` is dropped.
pub fn watch(
    path: PathBuf,
    ctx: Context,
    authenticators: &Arc<JwtAuthenticators>,
    interval: Duration,
) -> tokio::task::JoinHandle<()> {
    let weak = Arc::downgrade(authenticators);
    let mut file = FileWatch::new(&path);
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(interval).await;
            let Some(authenticators) = weak.upgrade() else {
                return;
            };
            if !file.changed() {
                continue;
            }
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
