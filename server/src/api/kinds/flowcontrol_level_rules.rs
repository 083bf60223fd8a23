//! kube-apiserver's semantic checks of PriorityLevelConfiguration specs,
//! in its words: the type and its section, shares and lending, the limit
//! response and queuing parameters.

use serde_json::Value;

use super::flowcontrol_rules::{int, invalid_raw, not_supported, required};
use crate::api::error::Cause;

fn shares_and_lending(causes: &mut Vec<Cause>, at: &str, body: &Value) {
    let shares = int(body.get("nominalConcurrencyShares"));
    if shares < 0 {
        causes.push(invalid_raw(
            &format!("{at}.nominalConcurrencyShares"),
            &shares.to_string(),
            "must be a non-negative integer",
        ));
    }
    let lendable = int(body.get("lendablePercent"));
    if !(0..=100).contains(&lendable) {
        causes.push(invalid_raw(
            &format!("{at}.lendablePercent"),
            &lendable.to_string(),
            "must be between 0 and 100, inclusive",
        ));
    }
}

fn queuing(causes: &mut Vec<Cause>, at: &str, q: &Value) {
    let length = int(q.get("queueLengthLimit"));
    if length <= 0 {
        causes.push(invalid_raw(
            &format!("{at}.queueLengthLimit"),
            &length.to_string(),
            "must be positive",
        ));
    }
    let queues = int(q.get("queues"));
    if queues <= 0 {
        causes.push(invalid_raw(
            &format!("{at}.queues"),
            &queues.to_string(),
            "must be positive",
        ));
    } else if queues > 10_000_000 {
        causes.push(invalid_raw(
            &format!("{at}.queues"),
            &queues.to_string(),
            "must not be greater than 10000000",
        ));
    }
    let hand = int(q.get("handSize"));
    if hand <= 0 {
        causes.push(invalid_raw(
            &format!("{at}.handSize"),
            &hand.to_string(),
            "must be positive",
        ));
    } else if hand > queues {
        causes.push(invalid_raw(
            &format!("{at}.handSize"),
            &hand.to_string(),
            &format!("should not be greater than queues ({queues})"),
        ));
    }
}

fn limited(causes: &mut Vec<Cause>, l: &Value) {
    let at = "spec.limited";
    shares_and_lending(causes, at, l);
    if let Some(borrowing) = l.get("borrowingLimitPercent").and_then(Value::as_i64)
        && borrowing < 0
    {
        causes.push(invalid_raw(
            &format!("{at}.borrowingLimitPercent"),
            &borrowing.to_string(),
            "if specified, must be a non-negative integer",
        ));
    }
    let response = l.get("limitResponse").unwrap_or(&Value::Null);
    let at = "spec.limited.limitResponse";
    let queued = response.get("queuing").filter(|q| !q.is_null());
    match response
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
    {
        "Reject" if queued.is_some() => causes.push(Cause::forbidden(
            format!("{at}.queuing"),
            "must be nil if limited.limitResponse.type is not Limited",
        )),
        "Reject" => {}
        "Queue" => match queued {
            None => causes.push(required(
                &format!("{at}.queuing"),
                "must not be empty if limited.limitResponse.type is Limited",
            )),
            Some(q) => queuing(causes, &format!("{at}.queuing"), q),
        },
        other => causes.push(not_supported(
            &format!("{at}.type"),
            &format!("{other:?}"),
            &["Queue", "Reject"],
        )),
    }
}

/// The semantic causes of a PriorityLevelConfiguration.
#[must_use]
pub fn priority_level_causes(obj: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let spec = obj.get("spec").unwrap_or(&Value::Null);
    let name = obj
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let kind = spec.get("type").and_then(Value::as_str).unwrap_or_default();
    let present = |field: &str| spec.get(field).is_some_and(|v| !v.is_null());
    if (name == "exempt") != (kind == "Exempt") {
        causes.push(Cause::invalid(
            "spec.type",
            kind,
            "type must be 'Exempt' if and only if name is 'exempt'",
        ));
    }
    match kind {
        "Exempt" => {
            if present("limited") {
                causes.push(Cause::forbidden(
                    "spec.limited",
                    "must be nil if the type is not Limited",
                ));
            }
            if let Some(exempt) = spec.get("exempt").filter(|v| !v.is_null()) {
                shares_and_lending(&mut causes, "spec.exempt", exempt);
            }
        }
        "Limited" => {
            if present("exempt") {
                causes.push(Cause::forbidden(
                    "spec.exempt",
                    "must be nil if the type is Limited",
                ));
            }
            match spec.get("limited").filter(|v| !v.is_null()) {
                None => causes.push(required(
                    "spec.limited",
                    "must not be empty when type is Limited",
                )),
                Some(l) => limited(&mut causes, l),
            }
        }
        other => causes.push(not_supported(
            "spec.type",
            &format!("{other:?}"),
            &["Exempt", "Limited"],
        )),
    }
    causes
}
