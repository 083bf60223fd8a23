//! The secure port's authorizer chain, from `--authorization-mode` (or
//! `--authorization-config`): `system:masters` first, as Kubernetes puts
//! its privileged group before every mode, then each mode in order. RBAC's
//! caches are started whatever the modes, because escalation prevention
//! on roles and bindings reads them.

use std::sync::Arc;

use tokio::sync::watch;

use super::always::{AlwaysAllow, AlwaysDeny};
use super::configured;
use super::counted::Counted;
use super::privileged::PrivilegedGroups;
use super::rbac::{Rbac, informers};
use super::{Authorizer, Authorizers};
use crate::api::registry::Registry;
use crate::config::Config;
use crate::storage::Storage;

/// The chain and the RBAC authorizer it may contain.
pub struct Authorization {
    pub authorizers: Arc<Authorizers>,
    pub rbac: Rbac,
}

/// The RBAC API group at the configured domain.
#[must_use]
pub fn rbac_group(domain: &str) -> String {
    format!("rbac.authorization.{domain}")
}

/// Builds the chain the flags describe; an error is one line naming the flag.
pub async fn authorization(
    config: &Config,
    storage: &Arc<dyn Storage>,
    registry: &Registry,
    stop: &watch::Receiver<bool>,
) -> Result<Authorization, String> {
    let modes = config.authorization.modes()?;
    let rbac = informers::start(storage, registry, &rbac_group(&config.api_domain), stop).await;
    let masters: Arc<dyn Authorizer> = Arc::new(PrivilegedGroups::masters());
    let mut chain: Vec<Arc<dyn Authorizer>> = vec![Arc::clone(&masters)];
    if let Some(path) = &config.authorization.authorization_config {
        let rbac_authorizer: Arc<dyn Authorizer> = Arc::new(rbac.clone());
        chain.extend(configured::load(
            path,
            &config.api_domain,
            Arc::clone(&rbac_authorizer),
        )?);
        let authorizers = Arc::new(Authorizers::new(chain));
        configured::spawn_reload(
            path.clone(),
            config.api_domain.clone(),
            rbac_authorizer,
            Arc::clone(&authorizers),
            vec![masters],
            stop.clone(),
        );
        return Ok(Authorization { authorizers, rbac });
    }
    // Modes are counted under kube's names for them: the mode in lower
    // case, `webhook` for the legacy webhook.
    for mode in &modes {
        let (kind, authorizer): (&'static str, Arc<dyn Authorizer>) = match mode.as_str() {
            "RBAC" => ("RBAC", Arc::new(rbac.clone())),
            "AlwaysAllow" => ("AlwaysAllow", Arc::new(AlwaysAllow)),
            "AlwaysDeny" => ("AlwaysDeny", Arc::new(AlwaysDeny)),
            "Webhook" => (
                "Webhook",
                configured::legacy_webhook(&config.authorization, &config.api_domain)?,
            ),
            other => {
                return Err(format!(
                    "--authorization-mode: mode {other:?} is not available in this build"
                ));
            }
        };
        let name = if kind == "Webhook" {
            configured::LEGACY_WEBHOOK_NAME.to_string()
        } else {
            kind.to_ascii_lowercase()
        };
        chain.push(Counted::wrap(kind, &name, authorizer));
    }
    Ok(Authorization {
        authorizers: Arc::new(Authorizers::new(chain)),
        rbac,
    })
}
