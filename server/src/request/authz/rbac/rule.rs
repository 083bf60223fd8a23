//! One RBAC policy rule and whether it allows a request, as Kubernetes
//! matches them: `*` for any verb, group, resource or path; `*/sub` for a
//! subresource of any resource; a trailing `*` on a path for a prefix;
//! names only narrow when listed.

use serde_json::Value;

use crate::request::authz::rules::{NonResourceRule, ResourceRule};
use crate::request::info::RequestInfo;

/// Matches everything where a rule lists it.
pub const ALL: &str = "*";

/// A `rules[]` entry of a Role or ClusterRole.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PolicyRule {
    pub verbs: Vec<String>,
    pub api_groups: Vec<String>,
    pub resources: Vec<String>,
    pub resource_names: Vec<String>,
    pub non_resource_urls: Vec<String>,
}

/// The strings of a JSON array (others skipped; absent: none).
#[must_use]
pub fn string_list(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

impl PolicyRule {
    /// A rule as stored (the kind's validation has checked its shape).
    #[must_use]
    pub fn from_json(rule: &Value) -> PolicyRule {
        PolicyRule {
            verbs: string_list(rule.get("verbs")),
            api_groups: string_list(rule.get("apiGroups")),
            resources: string_list(rule.get("resources")),
            resource_names: string_list(rule.get("resourceNames")),
            non_resource_urls: string_list(rule.get("nonResourceURLs")),
        }
    }

    /// The `rules` of a role object.
    #[must_use]
    pub fn all_of(role: &Value) -> Vec<PolicyRule> {
        role.get("rules")
            .and_then(Value::as_array)
            .map(|rules| rules.iter().map(PolicyRule::from_json).collect())
            .unwrap_or_default()
    }

    /// Whether this rule allows `info`'s request with `verb`.
    #[must_use]
    pub fn allows(&self, info: &RequestInfo) -> bool {
        if !verb_matches(&self.verbs, &info.verb) {
            return false;
        }
        match &info.resource {
            Some(r) => {
                contains_or_all(&self.api_groups, &r.group)
                    && resource_matches(&self.resources, &r.resource, r.subresource.as_deref())
                    && (self.resource_names.is_empty()
                        || self.resource_names.iter().any(|n| n == info.name()))
            }
            None => self
                .non_resource_urls
                .iter()
                .any(|url| url_matches(url, &info.path)),
        }
    }

    /// The rule as SelfSubjectRulesReview reports it: its resource part,
    /// its non-resource part, or both.
    #[must_use]
    pub fn reported(&self) -> (Option<ResourceRule>, Option<NonResourceRule>) {
        let resource = (!self.resources.is_empty()).then(|| ResourceRule {
            verbs: self.verbs.clone(),
            api_groups: self.api_groups.clone(),
            resources: self.resources.clone(),
            resource_names: self.resource_names.clone(),
        });
        let non_resource = (!self.non_resource_urls.is_empty()).then(|| NonResourceRule {
            verbs: self.verbs.clone(),
            non_resource_urls: self.non_resource_urls.clone(),
        });
        (resource, non_resource)
    }
}

fn contains_or_all(listed: &[String], wanted: &str) -> bool {
    listed.iter().any(|l| l == ALL || l == wanted)
}

/// Verbs match by name or `*`.
#[must_use]
pub fn verb_matches(verbs: &[String], verb: &str) -> bool {
    contains_or_all(verbs, verb)
}

/// `resource` (with `/subresource`) against a rule's resources: exact,
/// `*`, or `*/subresource`.
#[must_use]
pub fn resource_matches(resources: &[String], resource: &str, subresource: Option<&str>) -> bool {
    resources.iter().any(|listed| {
        if listed == ALL {
            return true;
        }
        match subresource {
            None => listed == resource,
            Some(sub) => match listed.split_once('/') {
                Some((res, listed_sub)) => listed_sub == sub && (res == resource || res == ALL),
                None => false,
            },
        }
    })
}

/// A path against a rule's URL: exact, `*`, or a prefix ending in `*`.
#[must_use]
pub fn url_matches(listed: &str, path: &str) -> bool {
    if listed == ALL || listed == path {
        return true;
    }
    listed
        .strip_suffix('*')
        .is_some_and(|prefix| path.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use http::Method;
    use serde_json::json;

    use super::*;

    fn request(method: Method, path: &str) -> RequestInfo {
        RequestInfo::new(&method, path.to_string(), None, None)
    }

    fn rule(value: Value) -> PolicyRule {
        PolicyRule::from_json(&value)
    }

    #[test]
    fn verbs_groups_and_resources_match_by_name_or_star() {
        let pods =
            rule(json!({"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}));
        assert!(pods.allows(&request(Method::GET, "/api/v1/namespaces/a/pods/p")));
        assert!(pods.allows(&request(Method::GET, "/api/v1/pods")));
        assert!(!pods.allows(&request(Method::DELETE, "/api/v1/namespaces/a/pods/p")));
        assert!(!pods.allows(&request(Method::GET, "/apis/apps/v1/namespaces/a/pods/p")));
        assert!(!pods.allows(&request(Method::GET, "/api/v1/namespaces/a/secrets/s")));
        let every = rule(json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}));
        assert!(every.allows(&request(Method::DELETE, "/apis/x.io/v1/things")));
        assert!(every.allows(&request(Method::PUT, "/api/v1/namespaces/a/pods/p/status")));
        assert!(
            !every.allows(&request(Method::GET, "/healthz")),
            "resources are not paths"
        );
    }

    #[test]
    fn subresources_need_their_own_entry_or_a_star() {
        let status =
            rule(json!({"verbs": ["update"], "apiGroups": [""], "resources": ["pods/status"]}));
        assert!(status.allows(&request(Method::PUT, "/api/v1/namespaces/a/pods/p/status")));
        assert!(!status.allows(&request(Method::PUT, "/api/v1/namespaces/a/pods/p")));
        let pods = rule(json!({"verbs": ["update"], "apiGroups": [""], "resources": ["pods"]}));
        assert!(!pods.allows(&request(Method::PUT, "/api/v1/namespaces/a/pods/p/status")));
        let scale = rule(json!({"verbs": ["get"], "apiGroups": ["*"], "resources": ["*/scale"]}));
        assert!(scale.allows(&request(
            Method::GET,
            "/apis/apps/v1/namespaces/a/deployments/d/scale"
        )));
        assert!(!scale.allows(&request(
            Method::GET,
            "/apis/apps/v1/namespaces/a/deployments/d"
        )));
        assert!(!scale.allows(&request(Method::GET, "/api/v1/namespaces/a/pods/p/status")));
    }

    #[test]
    fn resource_names_narrow_to_the_listed_names() {
        let one = rule(
            json!({"verbs": ["get", "list"], "apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["cfg"]}),
        );
        assert!(one.allows(&request(Method::GET, "/api/v1/namespaces/a/configmaps/cfg")));
        assert!(!one.allows(&request(
            Method::GET,
            "/api/v1/namespaces/a/configmaps/other"
        )));
        assert!(
            !one.allows(&request(Method::GET, "/api/v1/namespaces/a/configmaps")),
            "a list names nothing"
        );
        let pinned = RequestInfo::new(
            &Method::GET,
            "/api/v1/namespaces/a/configmaps".into(),
            None,
            Some("metadata.name=cfg"),
        );
        assert!(
            one.allows(&pinned),
            "a list pinned to the name by a field selector"
        );
    }

    #[test]
    fn paths_match_exactly_or_by_star_prefix() {
        let health = rule(json!({"verbs": ["get"], "nonResourceURLs": ["/healthz", "/apis/*"]}));
        assert!(health.allows(&request(Method::GET, "/healthz")));
        assert!(!health.allows(&request(Method::GET, "/healthz/ping")));
        assert!(health.allows(&request(Method::GET, "/apis/x.io")));
        assert!(!health.allows(&request(Method::GET, "/api")));
        assert!(!health.allows(&request(Method::POST, "/healthz")));
        let any = rule(json!({"verbs": ["*"], "nonResourceURLs": ["*"]}));
        assert!(any.allows(&request(Method::GET, "/metrics")));
    }
}
