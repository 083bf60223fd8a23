//! A strategy made of data, for kinds whose rules are a few functions:
//! defaults, semantic checks, fields fixed at creation, and the status a
//! new object starts with (Kubernetes' strategies clear what a client sends
//! there on create).

use serde_json::{Value, json};

use super::checks::object_field;
use crate::api::error::Cause;
use crate::api::kind::{NameRule, Strategy};
use crate::api::schema::{self, Schema};

/// Fills in a kind's defaults.
pub type Defaults = fn(&mut Value);
/// A kind's semantic checks.
pub type Checks = fn(&Value) -> Vec<Cause>;
/// A kind's checks of an update (new, old) beyond `Checks`.
pub type UpdateChecks = fn(&Value, &Value) -> Vec<Cause>;

fn no_defaults(_: &mut Value) {}

fn no_checks(_: &Value) -> Vec<Cause> {
    Vec::new()
}

fn no_update_checks(_: &Value, _: &Value) -> Vec<Cause> {
    Vec::new()
}

/// Rules of one kind.
pub struct KindRules {
    pub defaults: Defaults,
    pub checks: Checks,
    /// Fields no update may change, as `spec.controller` paths.
    pub immutable: &'static [&'static str],
    pub update_checks: UpdateChecks,
    /// `Some(status schema)`: a new object's status is that schema's defaults.
    pub fresh_status: Option<Schema>,
    pub name_rule: NameRule,
}

impl Default for KindRules {
    fn default() -> KindRules {
        KindRules {
            defaults: no_defaults,
            checks: no_checks,
            immutable: &[],
            update_checks: no_update_checks,
            fresh_status: None,
            name_rule: NameRule::Subdomain,
        }
    }
}

/// The value at a dotted path (`spec.controller`).
fn at<'a>(obj: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(obj, |v, field| v.get(field))
}

/// Go's `%v`-like rendering of a changed value in "field is immutable".
fn shown(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => format!("{s:?}"),
        Some(Value::Null) | None => "\"\"".to_owned(),
        Some(other) => other.to_string(),
    }
}

/// `field is immutable` causes for every `paths` entry `new` changed.
#[must_use]
pub fn immutable_causes(new: &Value, old: &Value, paths: &[&str]) -> Vec<Cause> {
    paths
        .iter()
        .filter(|p| at(new, p) != at(old, p))
        .map(|p| {
            Cause::new(
                "FieldValueInvalid",
                *p,
                format!("Invalid value: {}: field is immutable", shown(at(new, p))),
            )
        })
        .collect()
}

impl Strategy for KindRules {
    fn prepare_for_create(&self, obj: &mut Value) {
        if let Some(status_schema) = &self.fresh_status
            && obj.is_object()
        {
            let mut status = json!({});
            schema::apply_defaults(status_schema, &mut status);
            *object_field(obj, "status") = status.as_object().cloned().unwrap_or_default();
        }
        // After the reset: some defaults are status (a new volume's phase).
        (self.defaults)(obj);
    }

    fn prepare_for_update(&self, new: &mut Value, _old: &Value) {
        (self.defaults)(new);
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        (self.checks)(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<Cause> {
        let mut out = (self.checks)(new);
        out.extend(immutable_causes(new, old, self.immutable));
        out.extend((self.update_checks)(new, old));
        out
    }

    fn name_rule(&self) -> NameRule {
        self.name_rule
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_fixed_field_is_named_with_its_new_value() {
        let old = json!({"spec": {"controller": "a.io/x"}});
        let new = json!({"spec": {"controller": "b.io/y"}});
        let rules = KindRules {
            immutable: &["spec.controller"],
            ..KindRules::default()
        };
        assert_eq!(
            super::super::cause_lines(&rules.validate_update(&new, &old)),
            ["spec.controller: Invalid value: \"b.io/y\": field is immutable"]
        );
        assert!(rules.validate_update(&old, &old).is_empty());
    }

    #[test]
    fn a_new_object_starts_with_a_fresh_status() {
        let rules = KindRules {
            fresh_status: Some(Schema::object([("phase", Schema::string())])),
            ..KindRules::default()
        };
        let mut obj = json!({"status": {"phase": "Bound"}});
        rules.prepare_for_create(&mut obj);
        assert_eq!(obj, json!({"status": {}}));
    }
}
