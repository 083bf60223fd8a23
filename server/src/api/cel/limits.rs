//! The estimated-cost limits of a schema's rules, checked when a CRD is
//! read (`check_costs`), with Kubernetes' wording.

use serde_json::Value;

use super::shape::{max_items, max_properties};
use super::{STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT};
use crate::api::schema::{FieldError, Schema};

fn child(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

/// The estimated-cost limits, checked once the whole schema is read: each
/// rule's estimate times the number of times it can run (the product of
/// `maxItems`/`maxProperties` above it), and the sum over the schema. Also
/// rejects transition rules where old and new values cannot be paired.
#[must_use]
pub fn check_costs(schema: &Schema) -> Vec<FieldError> {
    let mut check = CostCheck {
        total: 0,
        errors: Vec::new(),
        expensive: Vec::new(),
    };
    check.node(schema, "", 1, None);
    if check.total > STATIC_ESTIMATED_CRD_COST_LIMIT {
        check.expensive.sort_by_key(|e| std::cmp::Reverse(e.1));
        for (path, _) in check.expensive.iter().take(4) {
            check.errors.push(FieldError::forbidden(
                path.clone(),
                "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
            ));
        }
        check.errors.push(FieldError::forbidden(
            "",
            cost_message(
                "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                check.total,
                STATIC_ESTIMATED_CRD_COST_LIMIT,
            ),
        ));
    }
    check.errors
}

struct CostCheck {
    total: u64,
    errors: Vec<FieldError>,
    expensive: Vec<(String, u64)>,
}

impl CostCheck {
    fn node(&mut self, s: &Schema, at: &str, cardinality: u64, uncorrelatable: Option<&str>) {
        for (i, rule) in s.rules.iter().enumerate() {
            let base = child(at, &format!("x-kubernetes-validations[{i}]"));
            let rule_at = format!("{base}.rule");
            let cost = rule.estimated_cost.saturating_mul(cardinality);
            if cost > STATIC_ESTIMATED_COST_LIMIT {
                self.errors.push(FieldError::forbidden(
                    rule_at.clone(),
                    cost_message("estimated rule cost", cost, STATIC_ESTIMATED_COST_LIMIT),
                ));
            }
            self.total = self.total.saturating_add(cost);
            self.expensive.push((rule_at.clone(), cost));
            if rule.message_program.is_some() {
                let message_at = format!("{base}.messageExpression");
                let cost = rule.message_estimated_cost;
                if cost > STATIC_ESTIMATED_COST_LIMIT {
                    self.errors.push(FieldError::forbidden(
                        message_at.clone(),
                        cost_message(
                            "estimated messageExpression cost",
                            cost,
                            STATIC_ESTIMATED_COST_LIMIT,
                        ),
                    ));
                }
                self.total = self.total.saturating_add(cost);
                self.expensive.push((message_at, cost));
            }
            if rule.uses_old_self
                && let Some(within) = uncorrelatable
            {
                self.errors.push(FieldError::invalid(
                    rule_at,
                    Value::from(rule.rule.as_str()),
                    format!("oldSelf cannot be used on the uncorrelatable portion of the schema within {within}"),
                ));
            }
        }
        let atomic_map = s.map_type.as_deref() == Some("atomic");
        for (name, prop) in &s.properties {
            let here = if atomic_map {
                uncorrelatable.or(Some(at))
            } else {
                uncorrelatable
            };
            self.node(
                prop,
                &child(at, &format!("properties[{name}]")),
                cardinality,
                here,
            );
        }
        if let Some(values) = &s.additional_properties {
            let n = cardinality.saturating_mul(max_properties(s));
            self.node(
                values,
                &child(at, "additionalProperties"),
                n,
                uncorrelatable,
            );
        }
        if let Some(items) = &s.items {
            let n = cardinality.saturating_mul(max_items(s));
            let here = if s.list_type.as_deref() == Some("map") {
                uncorrelatable
            } else {
                uncorrelatable.or(Some(at))
            };
            self.node(items, &child(at, "items"), n, here);
        }
    }
}

/// Kubernetes' wording for a cost over its limit.
fn cost_message(what: &str, cost: u64, limit: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let factor = cost as f64 / limit as f64;
    let factor = if factor > 100.0 {
        "more than 100x".to_owned()
    } else if factor < 1.5 {
        format!("{factor:.6}x")
    } else {
        format!("{factor:.1}x")
    };
    format!(
        "{what} exceeds budget by factor of {factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )
}
