//! Whether one set of rules covers another, as escalation prevention asks:
//! every permission the new role or binding would grant, broken down to
//! single verbs, groups, resources, names and paths, must be held already.

use super::rule::{ALL, PolicyRule, url_matches};

fn has(listed: &[String], wanted: &str) -> bool {
    listed.iter().any(|l| l == wanted)
}

fn has_all_or_star(listed: &[String], wanted: &[String]) -> bool {
    has(listed, ALL) || wanted.iter().all(|w| has(listed, w))
}

/// Resources (`r`, `r/sub`) covered by `owner`'s: `*`, exact, or `*/sub`.
fn resources_covered(owner: &[String], wanted: &[String]) -> bool {
    if has(owner, ALL) {
        return true;
    }
    wanted.iter().all(|w| {
        has(owner, w)
            || w.split_once('/')
                .is_some_and(|(_, sub)| has(owner, &format!("*/{sub}")))
    })
}

/// Whether `owner` grants everything `wanted` (one broken-down rule) does.
fn rule_covers(owner: &PolicyRule, wanted: &PolicyRule) -> bool {
    let verbs = has_all_or_star(&owner.verbs, &wanted.verbs);
    if !wanted.non_resource_urls.is_empty() {
        return verbs
            && wanted
                .non_resource_urls
                .iter()
                .all(|w| owner.non_resource_urls.iter().any(|o| url_matches(o, w)));
    }
    let names = owner.resource_names.is_empty()
        || (!wanted.resource_names.is_empty()
            && wanted
                .resource_names
                .iter()
                .all(|n| has(&owner.resource_names, n)));
    verbs
        && has_all_or_star(&owner.api_groups, &wanted.api_groups)
        && resources_covered(&owner.resources, &wanted.resources)
        && names
}

fn one(value: &str) -> Vec<String> {
    vec![value.to_string()]
}

/// A rule as single permissions: one verb, group, resource and name (or
/// one verb and path).
fn break_down(rule: &PolicyRule) -> Vec<PolicyRule> {
    let mut atoms = Vec::new();
    for verb in &rule.verbs {
        for group in &rule.api_groups {
            for resource in &rule.resources {
                if rule.resource_names.is_empty() {
                    atoms.push(PolicyRule {
                        verbs: one(verb),
                        api_groups: one(group),
                        resources: one(resource),
                        ..PolicyRule::default()
                    });
                }
                for name in &rule.resource_names {
                    atoms.push(PolicyRule {
                        verbs: one(verb),
                        api_groups: one(group),
                        resources: one(resource),
                        resource_names: one(name),
                        ..PolicyRule::default()
                    });
                }
            }
        }
        for url in &rule.non_resource_urls {
            atoms.push(PolicyRule {
                verbs: one(verb),
                non_resource_urls: one(url),
                ..PolicyRule::default()
            });
        }
    }
    atoms
}

/// The single permissions of `wanted` that `owner` does not hold (empty:
/// covered).
#[must_use]
pub fn uncovered(owner: &[PolicyRule], wanted: &[PolicyRule]) -> Vec<PolicyRule> {
    wanted
        .iter()
        .flat_map(break_down)
        .filter(|atom| !owner.iter().any(|o| rule_covers(o, atom)))
        .collect()
}

fn quoted(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|i| format!("{i:?}")).collect();
    format!("[{}]", inner.join(" "))
}

/// A rule as Kubernetes prints a missing permission:
/// `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`.
#[must_use]
pub fn compact(rule: &PolicyRule) -> String {
    let mut parts = Vec::new();
    if !rule.api_groups.is_empty() {
        parts.push(format!("APIGroups:{}", quoted(&rule.api_groups)));
    }
    if !rule.resources.is_empty() {
        parts.push(format!("Resources:{}", quoted(&rule.resources)));
    }
    if !rule.non_resource_urls.is_empty() {
        parts.push(format!(
            "NonResourceURLs:{}",
            quoted(&rule.non_resource_urls)
        ));
    }
    if !rule.resource_names.is_empty() {
        parts.push(format!("ResourceNames:{}", quoted(&rule.resource_names)));
    }
    parts.push(format!("Verbs:{}", quoted(&rule.verbs)));
    format!("{{{}}}", parts.join(", "))
}

/// Missing permissions as Kubernetes lists them: permissions differing
/// only in verb merged into one, printed compactly, sorted.
#[must_use]
pub fn describe(missing: &[PolicyRule]) -> Vec<String> {
    let mut merged: Vec<PolicyRule> = Vec::new();
    for atom in missing {
        let same = merged.iter_mut().find(|m| {
            m.non_resource_urls.is_empty()
                && atom.non_resource_urls.is_empty()
                && m.api_groups == atom.api_groups
                && m.resources == atom.resources
                && m.resource_names == atom.resource_names
        });
        match same {
            Some(m) if !m.verbs.contains(&atom.verbs[0]) => m.verbs.push(atom.verbs[0].clone()),
            Some(_) => {}
            None => merged.push(atom.clone()),
        }
    }
    let mut lines: Vec<String> = merged.iter().map(compact).collect();
    lines.sort();
    lines.dedup();
    lines
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rules(value: serde_json::Value) -> Vec<PolicyRule> {
        PolicyRule::all_of(&json!({ "rules": value }))
    }

    #[test]
    fn stars_cover_everything_of_their_kind() {
        let admin = rules(json!([{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}]));
        let wanted = rules(
            json!([{"verbs": ["get", "delete"], "apiGroups": ["", "apps"], "resources": ["pods", "pods/status"], "resourceNames": ["a"]}]),
        );
        assert!(uncovered(&admin, &wanted).is_empty());
        let paths = rules(json!([{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]));
        assert_eq!(
            uncovered(&admin, &paths).len(),
            1,
            "resource rules do not cover paths"
        );
    }

    #[test]
    fn each_missing_permission_is_reported_once_broken_down() {
        let reader =
            rules(json!([{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}]));
        let wanted = rules(
            json!([{"verbs": ["get", "delete"], "apiGroups": [""], "resources": ["pods", "secrets"]}]),
        );
        let missing = uncovered(&reader, &wanted);
        assert_eq!(missing.len(), 3);
        assert_eq!(
            describe(&missing),
            [
                r#"{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}"#,
                r#"{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}"#,
            ]
        );
    }

    #[test]
    fn names_subresources_and_paths_narrow_as_in_matching() {
        let owner = rules(json!([
            {"verbs": ["get"], "apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["a", "b"]},
            {"verbs": ["update"], "apiGroups": ["*"], "resources": ["*/scale"]},
            {"verbs": ["get"], "nonResourceURLs": ["/apis/*"]},
        ]));
        let named = rules(
            json!([{"verbs": ["get"], "apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["a"]}]),
        );
        assert!(uncovered(&owner, &named).is_empty());
        let every_name =
            rules(json!([{"verbs": ["get"], "apiGroups": [""], "resources": ["configmaps"]}]));
        assert_eq!(uncovered(&owner, &every_name).len(), 1);
        let scale = rules(
            json!([{"verbs": ["update"], "apiGroups": ["apps"], "resources": ["deployments/scale"]}]),
        );
        assert!(uncovered(&owner, &scale).is_empty());
        let main = rules(
            json!([{"verbs": ["update"], "apiGroups": ["apps"], "resources": ["deployments"]}]),
        );
        assert_eq!(uncovered(&owner, &main).len(), 1);
        let path = rules(json!([{"verbs": ["get"], "nonResourceURLs": ["/apis/apps"]}]));
        assert!(uncovered(&owner, &path).is_empty());
    }
}
