//! Which webhooks a write calls: an index from (group, resource) to the
//! webhooks whose rules could match it, built once per change of the
//! configurations, so a write of a kind no webhook names looks at none;
//! then each candidate's rules (operation, group, version, resource and
//! subresource, scope) and its namespace and object selectors. A webhook
//! with `matchPolicy: Equivalent` whose rules miss the write's own version
//! is called with the first equivalent one they match (the same stored
//! objects served at another version or group), as kube does.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::hook::{Hook, Rule};
use crate::api::kind::KindSpec;
use crate::api::kinds::label_selector;
use crate::request::admission::Attributes;

/// The webhooks of every configuration, in configuration-name order, and
/// where to find the candidates of a (group, resource).
#[derive(Default)]
pub struct Index {
    hooks: Vec<Arc<Hook>>,
    by_resource: HashMap<(String, String), Vec<usize>>,
    /// The resources `by_resource` names, in any group: a write of another
    /// resource (or an equivalent of one) has no candidates there.
    resources: std::collections::HashSet<String>,
    /// Webhooks with a rule naming every group or every resource.
    everywhere: Vec<usize>,
}

impl Index {
    /// The index of `hooks` (already in call order).
    #[must_use]
    pub fn new(hooks: Vec<Arc<Hook>>) -> Index {
        let mut index = Index::default();
        for (i, hook) in hooks.iter().enumerate() {
            let mut wide = false;
            let mut keys = Vec::new();
            for rule in &hook.rules {
                for resource in &rule.resources {
                    let base = resource.split('/').next().unwrap_or_default();
                    for group in &rule.groups {
                        if group == "*" || base == "*" {
                            wide = true;
                        } else {
                            keys.push((group.clone(), base.to_string()));
                        }
                    }
                }
            }
            if wide {
                index.everywhere.push(i);
                continue;
            }
            keys.sort();
            keys.dedup();
            for key in keys {
                index.resources.insert(key.1.clone());
                index.by_resource.entry(key).or_default().push(i);
            }
        }
        index.hooks = hooks;
        index
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// Whether some webhook could match a write of `resource` (in any
    /// group or version): without one, no candidates need looking for.
    #[must_use]
    pub fn may_match(&self, resource: &str) -> bool {
        !self.everywhere.is_empty() || self.resources.contains(resource)
    }

    /// The webhooks whose rules match the write, in call order, each with
    /// the version it is called with; `equivalents` are the other kinds
    /// serving the write's stored objects.
    #[must_use]
    pub fn candidates(
        &self,
        attrs: &Attributes<'_>,
        equivalents: &[Arc<KindSpec>],
    ) -> Vec<Matched> {
        let named = |kind: &KindSpec| {
            let key = (kind.group.clone(), kind.resource.clone());
            self.by_resource.get(&key).map_or(&[][..], Vec::as_slice)
        };
        let mut positions: Vec<usize> = self.everywhere.clone();
        positions.extend(named(attrs.kind));
        for kind in equivalents {
            positions.extend(named(kind));
        }
        if positions.is_empty() {
            return Vec::new();
        }
        positions.sort_unstable();
        positions.dedup();
        positions
            .into_iter()
            .filter_map(|i| {
                let hook = &self.hooks[i];
                let matches =
                    |kind: &KindSpec| hook.rules.iter().any(|r| rule_matches(r, kind, attrs));
                let via = if matches(attrs.kind) {
                    None
                } else if hook.equivalent {
                    Some(Arc::clone(equivalents.iter().find(|k| matches(k))?))
                } else {
                    return None;
                };
                Some(Matched {
                    hook: Arc::clone(hook),
                    via,
                    position: i,
                })
            })
            .collect()
    }
}

/// A webhook a write calls.
#[derive(Clone)]
pub struct Matched {
    pub hook: Arc<Hook>,
    /// The equivalent kind the webhook is called with, when its rules
    /// match only that one; `None`: the write's own.
    pub via: Option<Arc<KindSpec>>,
    /// Its place among every configured webhook of the plugin (the
    /// `index` of kube's audit annotations).
    pub position: usize,
}

fn listed(list: &[String], value: &str) -> bool {
    list.iter().any(|v| v == "*" || v == value)
}

/// Whether `rule` covers the write, seen as a write of `kind`.
#[must_use]
pub fn rule_matches(rule: &Rule, kind: &KindSpec, attrs: &Attributes<'_>) -> bool {
    let subresource = attrs.subresource.unwrap_or("");
    listed(&rule.operations, attrs.operation.as_str())
        && listed(&rule.groups, &kind.group)
        && listed(&rule.versions, &kind.version)
        && rule.resources.iter().any(|r| {
            let (base, sub) = r.split_once('/').unwrap_or((r, ""));
            (base == "*" || base == kind.resource) && (sub == "*" || sub == subresource)
        })
        && match rule.scope.as_str() {
            "Cluster" => !kind.namespaced,
            "Namespaced" => kind.namespaced,
            _ => true,
        }
}

fn labels(obj: Option<&Value>) -> Option<&Map<String, Value>> {
    obj?.pointer("/metadata/labels").and_then(Value::as_object)
}

/// Whether the object selector matches the new or the old object.
#[must_use]
pub fn object_selected(selector: &Value, object: Option<&Value>, old: Option<&Value>) -> bool {
    if selector.is_null() || label_selector::is_empty(selector) {
        return true;
    }
    [object, old]
        .into_iter()
        .flatten()
        .any(|o| label_selector::matches(selector, labels(Some(o))))
}

/// Whether the namespace selector matches the labels of the write's
/// namespace (`namespace_labels`), or of a Namespace object itself.
#[must_use]
pub fn namespace_selected(
    selector: &Value,
    attrs: &Attributes<'_>,
    object: Option<&Value>,
    namespace_labels: &dyn Fn(&str) -> Option<Map<String, Value>>,
) -> bool {
    if selector.is_null() || label_selector::is_empty(selector) {
        return true;
    }
    let kind = attrs.kind;
    if kind.group.is_empty() && kind.resource == "namespaces" {
        let own = labels(object.or(attrs.old_object));
        return label_selector::matches(selector, own);
    }
    match attrs.namespace.filter(|_| kind.namespaced) {
        Some(ns) => label_selector::matches(selector, namespace_labels(ns).as_ref()),
        None => true,
    }
}

#[cfg(test)]
#[path = "matching_tests.rs"]
mod tests;
