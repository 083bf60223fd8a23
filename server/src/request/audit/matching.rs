//! Which rule of a policy a request meets (kube's policy checker): a
//! rule's users, groups, verbs and then either its resources and
//! namespaces or its non-resource URLs must all match; the first rule
//! that matches decides, and no match means level None.

use crate::request::info::RequestInfo;
use crate::request::user::UserInfo;

use super::policy::{GroupResources, Level, Policy, Rule, Stages};

/// What the policy asks for one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub level: Level,
    pub omit_stages: Stages,
    pub omit_managed_fields: bool,
}

impl Policy {
    /// The audit settings of a request by `user` (the authenticated user,
    /// before any impersonation, as kube evaluates it).
    #[must_use]
    pub fn evaluate(&self, user: &UserInfo, info: &RequestInfo) -> Decision {
        match self.rules.iter().find(|r| r.matches(user, info)) {
            Some(rule) => Decision {
                level: rule.level,
                omit_stages: self.omit_stages.union(rule.omit_stages),
                omit_managed_fields: rule.omit_managed_fields.unwrap_or(self.omit_managed_fields),
            },
            None => Decision {
                level: Level::None,
                omit_stages: self.omit_stages,
                omit_managed_fields: self.omit_managed_fields,
            },
        }
    }
}

fn has(list: &[String], s: &str) -> bool {
    list.iter().any(|x| x == s)
}

impl Rule {
    fn matches(&self, user: &UserInfo, info: &RequestInfo) -> bool {
        if !self.users.is_empty() && !has(&self.users, &user.name) {
            return false;
        }
        if !self.user_groups.is_empty() && !user.groups.iter().any(|g| has(&self.user_groups, g)) {
            return false;
        }
        if !self.verbs.is_empty() && !has(&self.verbs, &info.verb) {
            return false;
        }
        if !self.namespaces.is_empty() || !self.resources.is_empty() {
            return self.matches_resource(info);
        }
        if !self.non_resource_urls.is_empty() {
            return info.resource.is_none()
                && self
                    .non_resource_urls
                    .iter()
                    .any(|spec| path_matches(&info.path, spec));
        }
        true
    }

    fn matches_resource(&self, info: &RequestInfo) -> bool {
        let Some(target) = &info.resource else {
            return false;
        };
        // Cluster-scoped requests have the namespace "".
        if !self.namespaces.is_empty() && !has(&self.namespaces, info.namespace()) {
            return false;
        }
        if self.resources.is_empty() {
            return true;
        }
        self.resources
            .iter()
            .filter(|g| g.group == target.group)
            .any(|g| g.matches(&target.resource, target.subresource.as_deref(), info.name()))
    }
}

impl GroupResources {
    fn matches(&self, resource: &str, subresource: Option<&str>, name: &str) -> bool {
        if self.resources.is_empty() {
            return true;
        }
        if !self.resource_names.is_empty() && !has(&self.resource_names, name) {
            return false;
        }
        let combined = match subresource {
            Some(sub) => format!("{resource}/{sub}"),
            None => resource.to_string(),
        };
        self.resources.iter().any(|spec| {
            spec == "*"
                || *spec == combined
                || subresource.is_some_and(|sub| spec.strip_prefix("*/") == Some(sub))
                || spec.strip_suffix("/*") == Some(resource)
        })
    }
}

/// `*`, the exact path, or a prefix ending in `*`.
fn path_matches(path: &str, spec: &str) -> bool {
    spec == "*"
        || spec == path
        || spec
            .strip_suffix('*')
            .is_some_and(|prefix| path.starts_with(prefix.trim_end_matches('*')))
}

#[cfg(test)]
#[path = "matching_tests.rs"]
mod tests;
