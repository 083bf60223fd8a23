//! FlowSchema and PriorityLevelConfiguration defaults and validation, as
//! kube-apiserver 1.32 applies them to flowcontrol/v1 objects: a Limited
//! level's `nominalConcurrencyShares` becomes 30 only when unspecified (an
//! explicit 0 stays 0), `lendablePercent` 0, queuing 64 queues, hand size
//! 8, queue length 50; a schema's `matchingPrecedence` 1000. The mandatory
//! objects' specs are fixed.

use serde_json::{Map, Value};

use super::flowcontrol_bootstrap::Bootstrap;
use super::flowcontrol_rules::{flow_schema_causes, priority_level_causes};
use crate::api::error::Cause;
use crate::api::kind::Strategy;

/// Sets `field` of `obj` to `value` when absent (or null; or, with
/// `zero_too`, 0).
fn default_int(obj: &mut Map<String, Value>, field: &str, value: i64, zero_too: bool) {
    let unset = match obj.get(field) {
        None | Some(Value::Null) => true,
        Some(v) => zero_too && v.as_i64() == Some(0),
    };
    if unset {
        obj.insert(field.into(), value.into());
    }
}

/// kube's flowcontrol/v1 defaults of a FlowSchema.
pub fn default_flow_schema(obj: &mut Value) {
    if let Some(spec) = obj.get_mut("spec").and_then(Value::as_object_mut) {
        default_int(spec, "matchingPrecedence", 1000, true);
    }
}

/// kube's flowcontrol/v1 defaults of a PriorityLevelConfiguration.
pub fn default_priority_level(obj: &mut Value) {
    let Some(spec) = obj.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    if let Some(limited) = spec.get_mut("limited").and_then(Value::as_object_mut) {
        default_int(limited, "nominalConcurrencyShares", 30, false);
        default_int(limited, "lendablePercent", 0, false);
        if let Some(queuing) = limited
            .get_mut("limitResponse")
            .and_then(|r| r.get_mut("queuing"))
            .and_then(Value::as_object_mut)
        {
            default_int(queuing, "handSize", 8, true);
            default_int(queuing, "queues", 64, true);
            default_int(queuing, "queueLengthLimit", 50, true);
        }
    }
    if let Some(exempt) = spec.get_mut("exempt").and_then(Value::as_object_mut) {
        default_int(exempt, "nominalConcurrencyShares", 0, false);
        default_int(exempt, "lendablePercent", 0, false);
    }
}

/// The cause of a mandatory object whose spec is not the fixed one.
fn fixed_spec_cause(bootstrap: &Bootstrap, kind: &str, obj: &Value) -> Option<Cause> {
    let name = obj.pointer("/metadata/name").and_then(Value::as_str)?;
    let fixed = bootstrap.mandatory_spec(kind, name)?;
    (obj.get("spec") != Some(&fixed)).then(|| {
        Cause::new(
            "FieldValueInvalid",
            "spec",
            format!("Invalid value: \"object\": spec of '{name}' must equal the fixed value"),
        )
    })
}

/// FlowSchema's rules.
pub struct FlowSchemaStrategy {
    pub bootstrap: Bootstrap,
}

impl Strategy for FlowSchemaStrategy {
    fn prepare_for_create(&self, obj: &mut Value) {
        default_flow_schema(obj);
    }
    fn prepare_for_update(&self, new: &mut Value, _old: &Value) {
        default_flow_schema(new);
    }
    fn validate(&self, obj: &Value) -> Vec<Cause> {
        let mut causes = flow_schema_causes(obj);
        causes.extend(fixed_spec_cause(&self.bootstrap, "FlowSchema", obj));
        causes
    }
}

/// PriorityLevelConfiguration's rules.
pub struct PriorityLevelStrategy {
    pub bootstrap: Bootstrap,
}

impl Strategy for PriorityLevelStrategy {
    fn prepare_for_create(&self, obj: &mut Value) {
        default_priority_level(obj);
    }
    fn prepare_for_update(&self, new: &mut Value, _old: &Value) {
        default_priority_level(new);
    }
    fn validate(&self, obj: &Value) -> Vec<Cause> {
        let mut causes = priority_level_causes(obj);
        causes.extend(fixed_spec_cause(
            &self.bootstrap,
            "PriorityLevelConfiguration",
            obj,
        ));
        causes
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn limited(limited: Value) -> Value {
        json!({"metadata": {"name": "p"}, "spec": {"type": "Limited", "limited": limited}})
    }

    #[test]
    fn shares_default_to_30_only_when_unspecified() {
        let mut unset = limited(json!({"limitResponse": {"type": "Reject"}}));
        default_priority_level(&mut unset);
        assert_eq!(unset["spec"]["limited"]["nominalConcurrencyShares"], 30);
        assert_eq!(unset["spec"]["limited"]["lendablePercent"], 0);
        let mut zero =
            limited(json!({"nominalConcurrencyShares": 0, "limitResponse": {"type": "Reject"}}));
        default_priority_level(&mut zero);
        assert_eq!(zero["spec"]["limited"]["nominalConcurrencyShares"], 0);
    }

    #[test]
    fn queuing_and_precedence_get_kube_defaults() {
        let mut queued =
            limited(json!({"limitResponse": {"type": "Queue", "queuing": {"queues": 0}}}));
        default_priority_level(&mut queued);
        assert_eq!(
            queued["spec"]["limited"]["limitResponse"]["queuing"],
            json!({"queues": 64, "handSize": 8, "queueLengthLimit": 50})
        );
        let mut schema = json!({"spec": {"priorityLevelConfiguration": {"name": "p"}}});
        default_flow_schema(&mut schema);
        assert_eq!(schema["spec"]["matchingPrecedence"], 1000);
    }

    #[test]
    fn bootstrap_objects_are_stored_as_defaulted_and_valid() {
        let bootstrap = Bootstrap::new("k8s.io");
        let schemas = FlowSchemaStrategy {
            bootstrap: Bootstrap::new("k8s.io"),
        };
        let levels = PriorityLevelStrategy {
            bootstrap: Bootstrap::new("k8s.io"),
        };
        for obj in bootstrap
            .mandatory_flow_schemas()
            .into_iter()
            .chain(bootstrap.suggested_flow_schemas())
        {
            let mut defaulted = obj.clone();
            default_flow_schema(&mut defaulted);
            assert_eq!(defaulted, obj);
            assert_eq!(schemas.validate(&obj), Vec::new(), "{obj}");
        }
        for obj in bootstrap
            .mandatory_priority_levels()
            .into_iter()
            .chain(bootstrap.suggested_priority_levels())
        {
            let mut defaulted = obj.clone();
            default_priority_level(&mut defaulted);
            assert_eq!(defaulted, obj);
            assert_eq!(levels.validate(&obj), Vec::new(), "{obj}");
        }
        let mut changed = bootstrap.mandatory_priority_levels()[1].clone();
        changed["spec"]["limited"]["nominalConcurrencyShares"] = json!(6);
        let causes = levels.validate(&changed);
        assert_eq!(causes.len(), 1);
        assert!(
            causes[0]
                .message
                .ends_with("spec of 'catch-all' must equal the fixed value")
        );
    }
}
