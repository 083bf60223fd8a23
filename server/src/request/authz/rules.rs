//! What an authorizer would allow a user, as rules: the answer of
//! SelfSubjectRulesReview and the permissions escalation checks compare.

/// Rules about resources: the verbs allowed on resources of groups,
/// perhaps only on some names. `*` matches everything where it appears.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceRule {
    pub verbs: Vec<String>,
    pub api_groups: Vec<String>,
    /// `resource`, `resource/subresource`, `*`, `*/subresource`.
    pub resources: Vec<String>,
    /// Empty: every name.
    pub resource_names: Vec<String>,
}

/// Rules about other paths (`/healthz`, `/apis/*`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NonResourceRule {
    pub verbs: Vec<String>,
    /// Paths; a trailing `*` matches every path with that prefix.
    pub non_resource_urls: Vec<String>,
}

/// What one authorizer, or the chain, would allow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RulesFor {
    pub resource_rules: Vec<ResourceRule>,
    pub non_resource_rules: Vec<NonResourceRule>,
    /// The authorizer's policy cannot be listed whole (a webhook), or
    /// parts of it could not be read.
    pub incomplete: bool,
    /// Why parts could not be read (a binding to a missing role).
    pub evaluation_error: String,
}

impl RulesFor {
    /// Nothing known: an authorizer that cannot list its policy.
    #[must_use]
    pub fn incomplete() -> RulesFor {
        RulesFor {
            incomplete: true,
            ..RulesFor::default()
        }
    }

    /// Adds another authorizer's answer to this one.
    pub fn absorb(&mut self, other: RulesFor) {
        self.resource_rules.extend(other.resource_rules);
        self.non_resource_rules.extend(other.non_resource_rules);
        self.incomplete |= other.incomplete;
        if !other.evaluation_error.is_empty() {
            if !self.evaluation_error.is_empty() {
                self.evaluation_error.push_str("; ");
            }
            self.evaluation_error.push_str(&other.evaluation_error);
        }
    }
}
