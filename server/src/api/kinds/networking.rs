//! `networking.{domain}/v1` (Ingress, IngressClass, NetworkPolicy) and
//! `policy/v1` PodDisruptionBudget as data: schemas from the generator,
//! rules from `ingress_rules` and `budget_rules`, kubectl's columns.

use std::sync::Arc;

use serde_json::{Value, json};

use super::checks::{default_field, object_field, str_at};
use super::generated::resource;
use super::kind_rules::KindRules;
use super::{budget_rules, ingress_rules, networking_table};
use crate::api::error::Cause;
use crate::api::kind::{KindSpec, Subresources};
use crate::api::registry::Registry;
use crate::config::Config;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_string()).collect()
}

fn with_status() -> Subresources {
    Subresources {
        status: true,
        ..Subresources::default()
    }
}

/// An IngressClass names its controller, a domain-prefixed path fixed at
/// creation.
fn ingress_class_checks(obj: &Value) -> Vec<Cause> {
    let controller = str_at(obj, "/spec/controller");
    if controller.is_empty() {
        return vec![Cause::required("spec.controller")];
    }
    let domain = controller.split_once('/').map(|(d, _)| d);
    if controller.len() > 250 {
        return vec![Cause::new(
            "FieldValueTooLong",
            "spec.controller",
            "Too long: may not be more than 250 bytes",
        )];
    }
    if !domain.is_some_and(crate::api::meta::is_subdomain) {
        return vec![Cause::invalid(
            "spec.controller",
            controller,
            "must be a domain-prefixed path (such as \"acme.io/foo\")",
        )];
    }
    Vec::new()
}

/// `policyTypes` as Kubernetes defaults them (Ingress, plus Egress when
/// egress rules exist) and TCP for ports without a protocol.
fn network_policy_defaults(obj: &mut Value) {
    let spec = object_field(obj, "spec");
    for direction in ["ingress", "egress"] {
        let rules = spec.get_mut(direction).and_then(Value::as_array_mut);
        for rule in rules.into_iter().flatten() {
            let ports = rule.get_mut("ports").and_then(Value::as_array_mut);
            for port in ports.into_iter().flatten().filter_map(Value::as_object_mut) {
                default_field(port, "protocol", json!("TCP"));
            }
        }
    }
    let has_egress = spec
        .get("egress")
        .and_then(Value::as_array)
        .is_some_and(|e| !e.is_empty());
    let types_unset = spec
        .get("policyTypes")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty);
    if types_unset {
        let mut types = vec![json!("Ingress")];
        if has_egress {
            types.push(json!("Egress"));
        }
        spec.insert("policyTypes".into(), Value::Array(types));
    }
}

fn status_of(schema: &crate::api::schema::Schema) -> crate::api::schema::Schema {
    schema.property("status").cloned().unwrap_or_default()
}

/// Registers `networking.{domain}/v1` and `policy/v1` PodDisruptionBudget.
pub fn add_networking(r: &Registry, config: &Config) {
    let group = format!("networking.{}", config.api_domain);
    let ingress = resource("io.k8s.api.networking.v1.Ingress");
    r.add(KindSpec {
        short_names: names(&["ing"]),
        strategy: Arc::new(KindRules {
            checks: ingress_rules::checks,
            fresh_status: Some(status_of(&ingress)),
            ..KindRules::default()
        }),
        subresources: with_status(),
        columns: networking_table::ingress_columns(),
        tracks_generation: true,
        ..KindSpec::new(&group, "v1", "Ingress", "ingresses", true, ingress)
    });
    r.add(KindSpec {
        strategy: Arc::new(KindRules {
            checks: ingress_class_checks,
            immutable: &["spec.controller"],
            ..KindRules::default()
        }),
        columns: networking_table::ingress_class_columns(),
        tracks_generation: true,
        ..KindSpec::new(
            &group,
            "v1",
            "IngressClass",
            "ingressclasses",
            false,
            resource("io.k8s.api.networking.v1.IngressClass"),
        )
    });
    r.add(KindSpec {
        short_names: names(&["netpol"]),
        strategy: Arc::new(KindRules {
            defaults: network_policy_defaults,
            checks: budget_rules::network_policy_checks,
            ..KindRules::default()
        }),
        columns: networking_table::network_policy_columns(),
        tracks_generation: true,
        ..KindSpec::new(
            &group,
            "v1",
            "NetworkPolicy",
            "networkpolicies",
            true,
            resource("io.k8s.api.networking.v1.NetworkPolicy"),
        )
    });
    let pdb = resource("io.k8s.api.policy.v1.PodDisruptionBudget");
    r.add(KindSpec {
        short_names: names(&["pdb"]),
        strategy: Arc::new(KindRules {
            checks: budget_rules::checks,
            fresh_status: Some(status_of(&pdb)),
            ..KindRules::default()
        }),
        subresources: with_status(),
        columns: networking_table::pod_disruption_budget_columns(),
        tracks_generation: true,
        ..KindSpec::new(
            "policy",
            "v1",
            "PodDisruptionBudget",
            "poddisruptionbudgets",
            true,
            pdb,
        )
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_types_default_from_the_rules() {
        let mut only_ingress =
            json!({"spec": {"podSelector": {}, "ingress": [{"ports": [{"port": 80}]}]}});
        network_policy_defaults(&mut only_ingress);
        assert_eq!(only_ingress["spec"]["policyTypes"], json!(["Ingress"]));
        assert_eq!(
            only_ingress["spec"]["ingress"][0]["ports"][0]["protocol"],
            "TCP"
        );
        let mut both = json!({"spec": {"egress": [{}]}});
        network_policy_defaults(&mut both);
        assert_eq!(both["spec"]["policyTypes"], json!(["Ingress", "Egress"]));
        let mut chosen = json!({"spec": {"egress": [{}], "policyTypes": ["Egress"]}});
        network_policy_defaults(&mut chosen);
        assert_eq!(chosen["spec"]["policyTypes"], json!(["Egress"]));
    }

    #[test]
    fn an_ingress_class_names_a_domain_prefixed_controller() {
        assert!(
            ingress_class_checks(&json!({"spec": {"controller": "example.com/ingress"}}))
                .is_empty()
        );
        assert_eq!(
            super::super::cause_lines(&ingress_class_checks(&json!({"spec": {}}))),
            ["spec.controller: Required value"]
        );
        assert_eq!(
            ingress_class_checks(&json!({"spec": {"controller": "nginx"}})).len(),
            1
        );
    }
}
