//! The built-in API group versions, as `--runtime-config` checks its keys
//! against them before anything is opened, and the switch from that flag
//! to what the registry serves.

use crate::api::registry::Registry;
use crate::config::Config;
use crate::config::runtime_config::Enablement;

/// Every built-in group/version: the group's name before the API domain
/// (empty for the core group) and the version.
const BUILT_IN: &[(&str, &str)] = &[
    ("", "v1"),
    ("events", "v1"),
    ("coordination", "v1"),
    ("rbac.authorization", "v1"),
    ("apiextensions", "v1"),
    ("authentication", "v1"),
    ("authentication", "v1beta1"),
    ("authentication", "v1alpha1"),
    ("authorization", "v1"),
    ("flowcontrol.apiserver", "v1"),
    ("networking", "v1"),
    ("networking", "v1beta1"),
    ("discovery", "v1"),
    ("storage", "v1"),
    ("storage", "v1beta1"),
    ("storage", "v1alpha1"),
    ("scheduling", "v1"),
    ("node", "v1"),
    ("admissionregistration", "v1"),
    ("apiregistration", "v1"),
    ("certificates", "v1"),
    ("certificates", "v1alpha1"),
];

/// Versions Kubernetes 1.32 still registers but serves nothing in: a
/// `--runtime-config` key may name them, and turning them on adds nothing.
const WITHOUT_RESOURCES: &[(&str, &str)] =
    &[("networking", "v1alpha1"), ("certificates", "v1beta1")];

/// Built-in groups whose names carry no API domain (Kubernetes' `apps`,
/// `batch`), with their versions.
const WITHOUT_DOMAIN: &[(&str, &str)] = &[
    ("apps", "v1"),
    ("batch", "v1"),
    ("policy", "v1"),
    ("autoscaling", "v2"),
    ("autoscaling", "v1"),
];

/// The built-in group versions under `api_domain`.
#[must_use]
pub fn group_versions(api_domain: &str) -> Vec<(String, String)> {
    let suffixed = BUILT_IN
        .iter()
        .chain(WITHOUT_RESOURCES)
        .map(|(prefix, version)| {
            let group = if prefix.is_empty() {
                String::new()
            } else {
                format!("{prefix}.{api_domain}")
            };
            (group, (*version).to_string())
        });
    let plain = WITHOUT_DOMAIN
        .iter()
        .map(|(group, version)| ((*group).to_string(), (*version).to_string()));
    suffixed.chain(plain).collect()
}

/// What `--runtime-config` serves; the error names the flag.
pub fn enablement(config: &Config) -> Result<Enablement, String> {
    config
        .runtime_config
        .resolve(&group_versions(&config.api_domain))
        .map_err(|e| format!("--runtime-config: {e}"))
}

/// An empty registry serving what `--runtime-config` says (checked at
/// start-up, before any registry is made).
#[must_use]
pub fn registry(config: &Config) -> Registry {
    Registry::with_enablement(enablement(config).expect("--runtime-config is checked at start-up"))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use clap::Parser;
    use serde_json::Value;

    use super::*;
    use crate::api::error::ApiError;
    use crate::api::kind::{Answerer, Question};
    use crate::api::kinds::{authentication, authorization, builtin};
    use crate::config::Flags;
    use crate::util::maybe_async::MaybeAsync;

    struct Echo;

    impl Answerer for Echo {
        fn answer<'a>(
            &'a self,
            _: Question<'a>,
            body: Value,
        ) -> MaybeAsync<'a, Result<Value, ApiError>> {
            MaybeAsync::ready(Ok(body))
        }
    }

    fn every_kind(runtime_config: &str) -> Registry {
        let flags = Flags::parse_from([
            "cairn-apiserver",
            "--runtime-config",
            runtime_config,
            "--feature-gates",
            "ClusterTrustBundle=true",
        ]);
        let config = Config::from(flags);
        let r = builtin(&config);
        let echo = || Arc::new(Echo) as Arc<dyn Answerer>;
        authentication::add(&r, &config.api_domain, echo(), echo());
        authorization::add(
            &r,
            &config.api_domain,
            authorization::Answerers {
                subject_access_review: echo(),
                self_subject_access_review: echo(),
                local_subject_access_review: echo(),
                self_subject_rules_review: echo(),
            },
        );
        r
    }

    fn served(r: &Registry) -> BTreeSet<(String, String)> {
        r.snapshot()
            .iter()
            .map(|k| (k.group.clone(), k.version.clone()))
            .collect()
    }

    #[test]
    fn the_table_names_every_built_in_group_version() {
        let empty: Vec<_> = WITHOUT_RESOURCES
            .iter()
            .map(|(prefix, version)| (format!("{prefix}.k8s.io"), (*version).to_string()))
            .collect();
        let table: BTreeSet<_> = group_versions("k8s.io")
            .into_iter()
            .filter(|gv| !empty.contains(gv))
            .collect();
        assert_eq!(served(&every_kind("api/all=true")), table);
    }

    #[test]
    fn turned_off_kinds_are_unserved_but_known() {
        let r = every_kind("events.k8s.io/v1=false,v1/configmaps=false");
        assert!(r.served("events.k8s.io", "v1", "events").is_none());
        assert!(r.lookup("events.k8s.io", "v1", "events").is_some());
        assert!(r.served("", "v1", "configmaps").is_none());
        assert!(r.served("", "v1", "secrets").is_some());
        assert!(
            r.served("authentication.k8s.io", "v1beta1", "selfsubjectreviews")
                .is_none()
        );
        assert!(
            r.storage_kinds()
                .iter()
                .any(|k| k.group.is_empty() && k.resource == "configmaps"),
            "a namespace's deletion still reaches them"
        );
        let groups = r.groups();
        assert!(!groups.iter().any(|(g, _)| g == "events.k8s.io"));
        let authn = groups.iter().find(|(g, _)| g == "authentication.k8s.io");
        assert_eq!(authn.map(|(_, v)| v.clone()), Some(vec!["v1".to_string()]));
    }

    #[test]
    fn only_served_deprecated_versions_count_as_deprecated_requests() {
        use crate::api::deprecation::requested_is_deprecated;
        let ssr = ("authentication.k8s.io", "selfsubjectreviews");
        let off = every_kind("api/all=true,authentication.k8s.io/v1beta1=false");
        assert!(!requested_is_deprecated(&off, ssr.0, "v1beta1", ssr.1));
        let on = every_kind("authentication.k8s.io/v1beta1=true");
        assert!(requested_is_deprecated(&on, ssr.0, "v1beta1", ssr.1));
        assert!(!requested_is_deprecated(&on, ssr.0, "v1", ssr.1));
    }
}
