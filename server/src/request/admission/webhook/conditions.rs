//! A webhook's `matchConditions`: CEL over `object`, `oldObject` and
//! `request` (the AdmissionReview request). A false condition skips the
//! webhook; an error is the webhook's failure, under its failure policy.

use serde_json::Value;

use super::hook::Hook;
use crate::api::cel::RUNTIME_CEL_COST_BUDGET;
use crate::api::cel::expression::all_match;

/// Whether every condition holds for `request` (a review's `request`).
pub fn hold(hook: &Hook, request: &Value) -> Result<bool, String> {
    if hook.match_conditions.is_empty() {
        return Ok(true);
    }
    let object = &request["object"];
    let old = &request["oldObject"];
    let variables = [("object", object), ("oldObject", old), ("request", request)];
    let mut budget = RUNTIME_CEL_COST_BUDGET;
    all_match(&hook.match_conditions, |condition| {
        condition.evaluate(&variables, &mut budget)
    })
}
