//! A webhook's `matchConditions`: CEL over `object`, `oldObject` and
//! `request` (the AdmissionReview request). A false condition skips the
//! webhook; an error is the webhook's failure, under its failure policy.

use cel::Value as Cel;
use serde_json::Value;

use super::hook::Hook;
use crate::api::cel::RUNTIME_CEL_COST_BUDGET;

/// Whether every condition holds for `request` (a review's `request`).
pub fn hold(hook: &Hook, request: &Value) -> Result<bool, String> {
    if hook.match_conditions.is_empty() {
        return Ok(true);
    }
    let object = &request["object"];
    let old = &request["oldObject"];
    let variables = [("object", object), ("oldObject", old), ("request", request)];
    let mut budget = RUNTIME_CEL_COST_BUDGET;
    let mut errors = Vec::new();
    for condition in &hook.match_conditions {
        match condition.evaluate(&variables, &mut budget) {
            Ok(Cel::Bool(true)) => {}
            Ok(Cel::Bool(false)) => return Ok(false),
            Ok(_) => errors.push(format!(
                "cel evaluation error: expression '{}' did not evaluate to a boolean",
                condition.source()
            )),
            Err(e) => errors.push(format!(
                "cel evaluation error: expression '{}' resulted in error: {e}",
                condition.source()
            )),
        }
    }
    if errors.is_empty() {
        Ok(true)
    } else {
        Err(errors.join(", "))
    }
}
