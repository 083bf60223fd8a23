//! The admission chain the server's store runs: kube's plugins in kube's
//! order, as `--enable-admission-plugins`, `--disable-admission-plugins`
//! and the AdmissionConfiguration select and configure them.

use std::sync::Arc;

use tokio::sync::watch;

use crate::api::registry::Registry;
use crate::request::admission::certificates::{
    CERTIFICATE_APPROVAL, CERTIFICATE_SIGNING, CERTIFICATE_SUBJECT_RESTRICTION,
    CLUSTER_TRUST_BUNDLE_ATTEST, CertificateAdmission,
};
use crate::request::admission::configuration::AdmissionSettings;
use crate::request::admission::plugins::Enabled;
use crate::request::admission::policy::{Policies, Setting as PolicySetting, VALIDATING_POLICY};
use crate::request::admission::webhook::{Setting as WebhookSetting, Webhooks};
use crate::request::admission::{self, namespace_lifecycle::NamespaceLifecycle};
use crate::request::authz::create_on_update::CreateOnUpdate;
use crate::request::authz::rbac::escalation::EscalationCheck;
use crate::request::authz::rbac::freshness::PolicyFreshness;
use crate::request::authz::setup::{self as authz_setup, Authorization};
use crate::storage::Storage;

/// The admission plugins every write passes, in order; RBAC's escalation
/// prevention when the authorizer chain is known.
#[must_use]
pub fn admission_chain(
    storage: &Arc<dyn Storage>,
    registry: &Arc<Registry>,
    authorization: Option<&Authorization>,
    domain: &str,
    settings: &AdmissionSettings,
    stop: Option<&watch::Receiver<bool>>,
) -> admission::Chain {
    let plugins = &settings.enabled;
    use admission::default_toleration_seconds::{
        DEFAULT_TOLERATION_SECONDS, DefaultTolerationSeconds,
    };
    use admission::limit_ranger::{LIMIT_RANGER, LimitRanger};
    use admission::plugins::{MUTATING_WEBHOOK, NAMESPACE_LIFECYCLE, VALIDATING_WEBHOOK};
    use admission::resource_quota::{RESOURCE_QUOTA, ResourceQuotaAdmission};
    use admission::service_account::{SERVICE_ACCOUNT, ServiceAccountAdmission};
    let namespaces = registry
        .lookup("", "v1", "namespaces")
        .expect("namespaces are built in");
    let webhooks = |plugin: &'static str, resource: &str| {
        let stop = stop.filter(|_| plugins.has(plugin))?;
        let group = format!("admissionregistration.{domain}");
        let kind = registry.lookup(&group, "v1", resource)?;
        let setting = WebhookSetting {
            storage: Arc::clone(storage),
            registry: Arc::clone(registry),
            namespaces_kind: Arc::clone(&namespaces),
            domain: domain.to_string(),
            credentials: settings.webhook_kubeconfigs.get(plugin).cloned(),
        };
        Some(Arc::new(Webhooks::start(plugin, &kind, &setting, stop)))
    };
    let accounts = registry
        .lookup("", "v1", "serviceaccounts")
        .expect("service accounts are built in");
    let service_accounts = plugins
        .has(SERVICE_ACCOUNT)
        .then(|| Arc::new(ServiceAccountAdmission::new(Arc::clone(storage), accounts)));
    let limit_ranger = plugins.has(LIMIT_RANGER).then(|| {
        let kind = registry
            .lookup("", "v1", "limitranges")
            .expect("limit ranges are built in");
        Arc::new(LimitRanger::new(Arc::clone(storage), kind))
    });
    let resource_quota = plugins.has(RESOURCE_QUOTA).then(|| {
        let kind = registry
            .lookup("", "v1", "resourcequotas")
            .expect("resource quotas are built in");
        Arc::new(ResourceQuotaAdmission::new(
            Arc::clone(storage),
            Arc::clone(registry),
            kind,
            settings.limited_resources.clone(),
        ))
    });
    let mut mutating: Vec<Arc<dyn admission::MutatingAdmission>> = Vec::new();
    if let Some(plugin) = &limit_ranger {
        mutating.push(plugin.clone());
    }
    if let Some(plugin) = &service_accounts {
        mutating.push(plugin.clone());
    }
    if plugins.has(DEFAULT_TOLERATION_SECONDS) {
        let (not_ready_seconds, unreachable_seconds) = plugins.toleration_seconds;
        mutating.push(Arc::new(DefaultTolerationSeconds {
            not_ready_seconds,
            unreachable_seconds,
        }));
    }
    if let Some(hooks) = webhooks(MUTATING_WEBHOOK, "mutatingwebhookconfigurations") {
        mutating.push(hooks);
    }
    let mut validating: Vec<Arc<dyn admission::ValidatingAdmission>> = Vec::new();
    if plugins.has(NAMESPACE_LIFECYCLE) {
        validating.push(Arc::new(NamespaceLifecycle::new(
            Arc::clone(storage),
            Arc::clone(&namespaces),
        )));
    }
    if let Some(plugin) = limit_ranger {
        validating.push(plugin);
    }
    if let Some(plugin) = service_accounts {
        validating.push(plugin);
    }
    if let Some(authorization) = authorization {
        validating.push(Arc::new(CreateOnUpdate::new(Arc::clone(
            &authorization.authorizers,
        ))));
        let certificates = [
            (
                CERTIFICATE_APPROVAL,
                CertificateAdmission::approval as fn(_) -> _,
            ),
            (CERTIFICATE_SIGNING, CertificateAdmission::signing),
            (CLUSTER_TRUST_BUNDLE_ATTEST, CertificateAdmission::attest),
            (
                CERTIFICATE_SUBJECT_RESTRICTION,
                CertificateAdmission::subject_restriction,
            ),
        ];
        for (name, plugin) in certificates {
            if plugins.has(name) {
                validating.push(Arc::new(plugin(Arc::clone(&authorization.authorizers))));
            }
        }
        validating.push(Arc::new(EscalationCheck::new(
            authorization.rbac.clone(),
            Arc::clone(&authorization.authorizers),
            &authz_setup::rbac_group(domain),
        )));
    }
    if let Some(policies) =
        validating_policies(storage, registry, authorization, domain, plugins, stop)
    {
        validating.push(policies);
    }
    if let Some(hooks) = webhooks(VALIDATING_WEBHOOK, "validatingwebhookconfigurations") {
        validating.push(hooks);
    }
    if let Some(plugin) = resource_quota {
        validating.push(plugin);
    }
    let chain = admission::Chain::new(mutating, validating);
    match authorization {
        Some(authorization) => chain.observed_by(Arc::new(PolicyFreshness::new(
            authorization.rbac.clone(),
            &authz_setup::rbac_group(domain),
        ))),
        None => chain,
    }
}

/// The ValidatingAdmissionPolicy plugin, when enabled (and running: it
/// follows the policies until `stop`).
fn validating_policies(
    storage: &Arc<dyn Storage>,
    registry: &Arc<Registry>,
    authorization: Option<&Authorization>,
    domain: &str,
    plugins: &Enabled,
    stop: Option<&watch::Receiver<bool>>,
) -> Option<Arc<dyn admission::ValidatingAdmission>> {
    let stop = stop.filter(|_| plugins.has(VALIDATING_POLICY))?;
    let group = format!("admissionregistration.{domain}");
    let setting = PolicySetting {
        storage: Arc::clone(storage),
        registry: Arc::clone(registry),
        policies_kind: registry.lookup(&group, "v1", "validatingadmissionpolicies")?,
        bindings_kind: registry.lookup(&group, "v1", "validatingadmissionpolicybindings")?,
        namespaces_kind: registry.lookup("", "v1", "namespaces")?,
        domain: domain.to_string(),
        authorizers: authorization.map(|a| Arc::clone(&a.authorizers)),
    };
    Some(Arc::new(Policies::start(&setting, stop)))
}
