//! ResourceQuota's vocabulary: resource lists (amounts by resource name,
//! as `spec.hard`, `status.used` and an object's usage hold them), their
//! arithmetic, and kube's printing of them in admission's messages
//! (`pods=1,requests.cpu=500m`).

pub mod recount;
pub mod scopes;
pub mod usage;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::api::quantity::{Format, Quantity};

/// One resource's amount, printed in the format it was first written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Amount {
    pub quantity: Quantity,
    pub format: Format,
}

impl Amount {
    #[must_use]
    pub fn count(n: i64) -> Amount {
        Amount {
            quantity: Quantity::from_int(n),
            format: Format::DecimalSi,
        }
    }

    /// The amount a quantity's text says.
    #[must_use]
    pub fn parse(text: &str) -> Option<Amount> {
        Some(Amount {
            quantity: Quantity::parse(text).ok()?,
            format: Format::of(text),
        })
    }

    #[must_use]
    pub fn text(&self) -> String {
        self.quantity.canonical(self.format)
    }

    fn is_zero(&self) -> bool {
        self.quantity.sign() == 0
    }
}

/// Amounts by resource name, sorted as kube prints them.
pub type Resources = BTreeMap<String, Amount>;

/// A `ResourceList` object (`{"pods": "2", "requests.cpu": "1"}`); what is
/// not a quantity is left out.
#[must_use]
pub fn from_json(list: Option<&Value>) -> Resources {
    list.and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(name, v)| Some((name.clone(), Amount::parse(v.as_str()?)?)))
        .collect()
}

#[must_use]
pub fn to_json(list: &Resources) -> Value {
    Value::Object(
        list.iter()
            .map(|(name, amount)| (name.clone(), Value::String(amount.text())))
            .collect::<Map<String, Value>>(),
    )
}

/// Adds `more` into `into`, resource by resource.
pub fn add(into: &mut Resources, more: &Resources) {
    for (name, amount) in more {
        match into.get_mut(name) {
            Some(have) => {
                have.quantity = have.quantity.add(&amount.quantity).unwrap_or(have.quantity);
            }
            None => {
                into.insert(name.clone(), *amount);
            }
        }
    }
}

/// `a - b` per resource of `a`, never below zero (what an update adds).
#[must_use]
pub fn increase(a: &Resources, b: &Resources) -> Resources {
    a.iter()
        .filter_map(|(name, amount)| {
            let base = b.get(name).map_or(Quantity::from_int(0), |b| b.quantity);
            let diff = amount.quantity.sub(&base)?;
            (diff.sign() > 0).then(|| {
                (
                    name.clone(),
                    Amount {
                        quantity: diff,
                        format: amount.format,
                    },
                )
            })
        })
        .collect()
}

/// The entries of `list` whose names pass `keep`.
#[must_use]
pub fn mask(list: &Resources, keep: impl Fn(&str) -> bool) -> Resources {
    list.iter()
        .filter(|(name, _)| keep(name))
        .map(|(name, amount)| (name.clone(), *amount))
        .collect()
}

/// Without zero amounts.
#[must_use]
pub fn without_zeros(list: Resources) -> Resources {
    list.into_iter().filter(|(_, a)| !a.is_zero()).collect()
}

/// `name=amount` pairs joined by commas, sorted by name (kube's
/// `prettyPrint`).
#[must_use]
pub fn pretty(list: &Resources) -> String {
    list.iter()
        .map(|(name, amount)| format!("{name}={}", amount.text()))
        .collect::<Vec<_>>()
        .join(",")
}

/// The same resources in the same amounts (whatever their formats).
#[must_use]
pub fn same(a: &Resources, b: &Resources) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((na, va), (nb, vb))| na == nb && va.quantity.compare(&vb.quantity).is_eq())
}

/// The resources of `usage` that exceed `hard` (kube's `LessThanOrEqual`).
#[must_use]
pub fn exceeded(usage: &Resources, hard: &Resources) -> Vec<String> {
    usage
        .iter()
        .filter(|(name, amount)| {
            hard.get(*name)
                .is_some_and(|h| amount.quantity.compare(&h.quantity).is_gt())
        })
        .map(|(name, _)| name.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_add_and_print_in_their_formats() {
        let mut used = from_json(Some(&json!({"pods": "1", "requests.memory": "512Mi"})));
        add(
            &mut used,
            &from_json(Some(
                &json!({"pods": "1", "requests.memory": "512Mi", "cpu": "250m"}),
            )),
        );
        assert_eq!(pretty(&used), "cpu=250m,pods=2,requests.memory=1Gi");
        assert_eq!(
            to_json(&used),
            json!({"cpu": "250m", "pods": "2", "requests.memory": "1Gi"})
        );
    }

    #[test]
    fn increases_never_go_below_zero() {
        let new = from_json(Some(&json!({"requests.storage": "2Gi", "pods": "1"})));
        let old = from_json(Some(&json!({"requests.storage": "1Gi", "pods": "2"})));
        assert_eq!(pretty(&increase(&new, &old)), "requests.storage=1Gi");
    }

    #[test]
    fn exceeded_names_only_resources_over_their_limit() {
        let usage = from_json(Some(&json!({"pods": "3", "cpu": "1", "secrets": "9"})));
        let hard = from_json(Some(&json!({"pods": "2", "cpu": "1"})));
        assert_eq!(exceeded(&usage, &hard), vec!["pods".to_string()]);
        assert_eq!(
            pretty(&without_zeros(mask(&usage, |n| n != "secrets"))),
            "cpu=1,pods=3"
        );
    }
}
