//! Authorizers from configuration: the ordered chain an
//! AuthorizationConfiguration file describes (re-read while serving, a
//! valid new file replacing the chain and an invalid one logged and
//! ignored), and mode `Webhook` of `--authorization-mode`, built from the
//! legacy `--authorization-webhook-*` flags as Kubernetes builds it: a
//! 30 s timeout and no opinion when the webhook fails.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use super::always::{AlwaysAllow, AlwaysDeny};
use super::counted::Counted;
use super::webhook::Webhook;
use super::{Authorizer, Authorizers};
use crate::config::AuthorizationFlags;
use crate::config::authz::{
    self, AuthorizationConfig, AuthorizerKind, Connection, FailurePolicy, ReviewVersion,
    WebhookConfig,
};
use crate::util::file_watch::{FileWatch, POLL_INTERVAL};

/// The name Kubernetes gives the webhook of mode `Webhook`.
pub const LEGACY_WEBHOOK_NAME: &str = "webhook";
/// The timeout Kubernetes gives the webhook of mode `Webhook`.
const LEGACY_WEBHOOK_TIMEOUT: Duration = Duration::from_secs(30);

/// The chain the file at `path` describes, in order; `RBAC` entries are
/// `rbac`. The error is one line (the file's first problem, or a webhook
/// whose kubeconfig cannot be used).
pub fn load(
    path: &Path,
    domain: &str,
    rbac: Arc<dyn Authorizer>,
) -> Result<Vec<Arc<dyn Authorizer>>, String> {
    let config = authz::load(path, domain)?;
    build(&config, domain, &rbac)
}

fn build(
    config: &AuthorizationConfig,
    domain: &str,
    rbac: &Arc<dyn Authorizer>,
) -> Result<Vec<Arc<dyn Authorizer>>, String> {
    config
        .authorizers
        .iter()
        .map(|entry| -> Result<Arc<dyn Authorizer>, String> {
            let (kind, authorizer): (&'static str, Arc<dyn Authorizer>) = match &entry.kind {
                AuthorizerKind::Rbac => ("RBAC", Arc::clone(rbac)),
                AuthorizerKind::AlwaysAllow => ("AlwaysAllow", Arc::new(AlwaysAllow)),
                AuthorizerKind::AlwaysDeny => ("AlwaysDeny", Arc::new(AlwaysDeny)),
                AuthorizerKind::Webhook(settings) => (
                    "Webhook",
                    Arc::new(
                        Webhook::new(Arc::clone(settings), domain)
                            .map_err(|e| format!("webhook authorizer {:?}: {e}", entry.name))?,
                    ),
                ),
            };
            Ok(Counted::wrap(kind, &entry.name, authorizer))
        })
        .collect()
}

/// Watches the file at `path` until `stop` turns true: when its contents
/// change and validate, `target` becomes `keep_first` (the privileged
/// groups) followed by the new chain; when they do not, the old chain
/// stays and the log says why.
pub fn spawn_reload(
    path: PathBuf,
    domain: String,
    rbac: Arc<dyn Authorizer>,
    target: Arc<Authorizers>,
    keep_first: Vec<Arc<dyn Authorizer>>,
    stop: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    let reload = Reload {
        domain,
        rbac,
        target,
        keep_first,
    };
    tokio::spawn(reload.run(FileWatch::new(&path), POLL_INTERVAL, stop))
}

struct Reload {
    domain: String,
    rbac: Arc<dyn Authorizer>,
    target: Arc<Authorizers>,
    keep_first: Vec<Arc<dyn Authorizer>>,
}

impl Reload {
    async fn run(self, mut file: FileWatch, interval: Duration, mut stop: watch::Receiver<bool>) {
        loop {
            tokio::select! {
                () = tokio::time::sleep(interval) => {}
                changed = stop.changed() => {
                    if changed.is_err() || *stop.borrow() {
                        return;
                    }
                }
            }
            if file.changed() {
                self.apply(file.path());
            }
        }
    }

    fn apply(&self, path: &Path) {
        match load(path, &self.domain, Arc::clone(&self.rbac)) {
            Ok(chain) => {
                let count = chain.len();
                let mut all = self.keep_first.clone();
                all.extend(chain);
                self.target.replace(all);
                tracing::info!(path = %path.display(), authorizers = count, "authorization configuration reloaded");
            }
            Err(e) => tracing::warn!(
                path = %path.display(),
                "authorization configuration not reloaded, the previous one stays: {e}"
            ),
        }
    }
}

/// The authorizer of mode `Webhook`: `--authorization-webhook-config-file`
/// (a kubeconfig), the review version and the cache TTLs (0 turns a cache
/// off) from the flags.
pub fn legacy_webhook(
    flags: &AuthorizationFlags,
    domain: &str,
) -> Result<Arc<dyn Authorizer>, String> {
    let file = flags
        .authorization_webhook_config_file
        .clone()
        .ok_or("--authorization-mode Webhook requires --authorization-webhook-config-file")?;
    let version = ReviewVersion::parse(&flags.authorization_webhook_version).ok_or_else(|| {
        format!(
            "--authorization-webhook-version: {:?} is not v1 or v1beta1",
            flags.authorization_webhook_version
        )
    })?;
    let ttl = |d: Duration| Some(d).filter(|d| !d.is_zero());
    let settings = WebhookConfig {
        name: LEGACY_WEBHOOK_NAME.into(),
        timeout: LEGACY_WEBHOOK_TIMEOUT,
        authorized_ttl: ttl(flags.authorization_webhook_cache_authorized_ttl),
        unauthorized_ttl: ttl(flags.authorization_webhook_cache_unauthorized_ttl),
        review_version: version,
        failure_policy: FailurePolicy::NoOpinion,
        connection: Connection::KubeConfigFile(file),
        match_conditions: Vec::new(),
    };
    let webhook = Webhook::new(Arc::new(settings), domain)
        .map_err(|e| format!("--authorization-webhook-config-file: {e}"))?;
    Ok(Arc::new(webhook))
}

/// Checks the authorization flags at start-up, before anything is
/// written: the mode list, the configuration file and every webhook's
/// connection. The error is one line.
pub fn check(flags: &AuthorizationFlags, domain: &str) -> Result<(), String> {
    let modes = flags.modes()?;
    if let Some(path) = &flags.authorization_config {
        // RBAC's place is all that matters here; nothing is asked.
        load(path, domain, Arc::new(AlwaysDeny))?;
    } else if modes.iter().any(|m| m == "Webhook") {
        legacy_webhook(flags, domain)?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "configured_tests.rs"]
mod tests;
