//! CEL: expressions compiled and evaluated against a bounded budget, and
//! CRD schemas (their `x-kubernetes-validations` rules compiled, costed and
//! run against objects).

use serde_json::Value;

use super::{fixtures, text};
use crate::api::cel::{Expression, RUNTIME_CEL_COST_BUDGET, validate_rules};
use crate::api::schema::Schema;

pub fn expression(input: &[u8]) {
    let Ok(expression) = Expression::compile(&text(input), &["claims", "user"]) else {
        return;
    };
    let fx = fixtures();
    let mut budget = RUNTIME_CEL_COST_BUDGET;
    let variables = [("claims", &fx.claims), ("user", &fx.user)];
    let _ = expression.evaluate(&variables, &mut budget);
    let _ = expression.evaluate_verbatim(&variables, &mut budget);
    assert!(budget <= RUNTIME_CEL_COST_BUDGET, "the budget only shrinks");
}

pub fn crd_schema(input: &[u8]) {
    let Ok(doc) = serde_json::from_slice::<Value>(input) else {
        return;
    };
    let Ok(schema) = Schema::from_openapi(&doc) else {
        return;
    };
    for obj in &fixtures().objects {
        let _ = validate_rules(&schema, obj, Some(obj));
        let _ = validate_rules(&schema, obj, None);
    }
}
