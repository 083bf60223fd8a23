//! LimitRanger's arithmetic: the requests and limits of a container, a
//! pod (its containers' sum, raised to any init container's, plus the
//! overhead) or a claim, held to one LimitRange item's `min`, `max` and
//! `maxLimitRequestRatio`, each breach in kube's words.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::api::kinds::checks::items_at;
use crate::api::quantity::{Quantity, canonical_text};

/// Quantities by resource name, with the text each was written as.
pub type Amounts = BTreeMap<String, (Quantity, String)>;

pub fn amounts(v: Option<&Value>) -> Amounts {
    v.and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| {
            let text = v.as_str()?;
            Some((k.clone(), (Quantity::parse(text).ok()?, text.to_string())))
        })
        .collect()
}

/// A pod's requests and limits as kube's LimitRanger totals them: the
/// containers' sum, raised to any init container's, plus the overhead.
pub fn pod_totals(pod: &Value) -> (Amounts, Amounts) {
    let total = |field: &str| {
        let mut sum = Amounts::new();
        for c in items_at(pod, "/spec/containers") {
            for (k, (q, text)) in amounts(c.pointer(&format!("/resources/{field}"))) {
                let entry = sum.entry(k).or_insert((Quantity::from_int(0), text));
                entry.0 = entry.0.add(&q).unwrap_or(entry.0);
            }
        }
        for c in items_at(pod, "/spec/initContainers") {
            for (k, (q, text)) in amounts(c.pointer(&format!("/resources/{field}"))) {
                let entry = sum.entry(k).or_insert((q, text));
                if q.compare(&entry.0).is_gt() {
                    entry.0 = q;
                }
            }
        }
        for (k, (q, _)) in amounts(pod.pointer("/spec/overhead")) {
            if let Some(entry) = sum.get_mut(&k) {
                entry.0 = entry.0.add(&q).unwrap_or(entry.0);
            }
        }
        for (q, text) in sum.values_mut() {
            *text = q.canonical(crate::api::quantity::Format::of(text));
        }
        sum
    };
    (total("requests"), total("limits"))
}

/// `min`, `max` and `maxLimitRequestRatio` of one item against one set of
/// requests and limits; `claim`: `max` bounds the request (claims).
pub fn bounds(
    item: &Value,
    per: &str,
    requests: &Amounts,
    limits: &Amounts,
    claim: bool,
    errors: &mut Vec<String>,
) {
    let shown = |a: &Amounts, k: &str| a.get(k).map(|(q, t)| (*q, canonical_text(t)));
    for (key, (min, min_text)) in amounts(item.get("min")) {
        let min_text = canonical_text(&min_text);
        match (shown(requests, &key), shown(limits, &key)) {
            (None, _) => errors.push(format!(
                "minimum {key} usage per {per} is {min_text}.  No request is specified"
            )),
            (Some((r, text)), _) if r.compare(&min).is_lt() => {
                errors.push(format!(
                    "minimum {key} usage per {per} is {min_text}, but request is {text}"
                ));
            }
            (_, Some((l, text))) if l.compare(&min).is_lt() => {
                errors.push(format!(
                    "minimum {key} usage per {per} is {min_text}, but limit is {text}"
                ));
            }
            _ => {}
        }
    }
    for (key, (max, max_text)) in amounts(item.get("max")) {
        let max_text = canonical_text(&max_text);
        let (request, limit) = (shown(requests, &key), shown(limits, &key));
        if claim {
            match request {
                None => errors.push(format!(
                    "maximum {key} usage per {per} is {max_text}.  No request is specified"
                )),
                Some((r, text)) if r.compare(&max).is_gt() => {
                    errors.push(format!(
                        "maximum {key} usage per {per} is {max_text}, but request is {text}"
                    ));
                }
                Some(_) => {}
            }
            continue;
        }
        match (request, limit) {
            (_, None) => errors.push(format!(
                "maximum {key} usage per {per} is {max_text}.  No limit is specified"
            )),
            (_, Some((l, text))) if l.compare(&max).is_gt() => {
                errors.push(format!(
                    "maximum {key} usage per {per} is {max_text}, but limit is {text}"
                ));
            }
            (Some((r, text)), _) if r.compare(&max).is_gt() => {
                errors.push(format!(
                    "maximum {key} usage per {per} is {max_text}, but request is {text}"
                ));
            }
            _ => {}
        }
    }
    for (key, (ratio, ratio_text)) in amounts(item.get("maxLimitRequestRatio")) {
        let ratio_text = canonical_text(&ratio_text);
        let request = requests
            .get(&key)
            .map(|(q, _)| q.as_f64())
            .filter(|v| *v != 0.0);
        let limit = limits
            .get(&key)
            .map(|(q, _)| q.as_f64())
            .filter(|v| *v != 0.0);
        match (request, limit) {
            (None, _) => errors.push(format!(
                "{key} max limit to request ratio per {per} is {ratio_text}, but no request is specified or request is 0"
            )),
            (_, None) => errors.push(format!(
                "{key} max limit to request ratio per {per} is {ratio_text}, but no limit is specified or limit is 0"
            )),
            (Some(r), Some(l)) if l / r > ratio.as_f64() => errors.push(format!(
                "{key} max limit to request ratio per {per} is {ratio_text}, but provided ratio is {:.6}",
                l / r
            )),
            _ => {}
        }
    }
}
