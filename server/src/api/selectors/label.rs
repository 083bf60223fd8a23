//! Label selectors: the parsed form, its canonical text, and matching
//! against an object's labels (the grammar is in `label_parser`).

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use serde_json::{Map, Value};

use super::label_parser;

/// A selector operator (`selection.Operator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operator {
    Equals,
    DoubleEquals,
    NotEquals,
    In,
    NotIn,
    Exists,
    DoesNotExist,
    GreaterThan,
    LessThan,
}

/// One comma-separated term: `key op values`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    pub key: String,
    pub operator: Operator,
    /// Sorted and deduplicated, as Kubernetes keeps them.
    pub values: Vec<String>,
}

/// A parsed label selector: all requirements must hold. Empty selects everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

/// Read access to an object's labels.
pub trait Labels {
    fn label(&self, key: &str) -> Option<&str>;
}

impl Labels for Map<String, Value> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }
}

impl Labels for BTreeMap<String, String> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(String::as_str)
    }
}

impl<S: std::hash::BuildHasher> Labels for HashMap<String, String, S> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(String::as_str)
    }
}

impl LabelSelector {
    /// Parses `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`,
    /// `k>n`, `k<n`, joined by commas.
    pub fn parse(input: &str) -> Result<LabelSelector, String> {
        let mut requirements = label_parser::parse(input)?;
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(LabelSelector { requirements })
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    #[must_use]
    pub fn requirements(&self) -> &[Requirement] {
        &self.requirements
    }

    /// Whether labels satisfy every requirement.
    pub fn matches(&self, labels: &impl Labels) -> bool {
        self.requirements.iter().all(|r| r.matches(labels))
    }

    /// Matches an object by its `metadata.labels` (absent means none).
    #[must_use]
    pub fn matches_object(&self, obj: &Value) -> bool {
        match obj
            .get("metadata")
            .and_then(|m| m.get("labels"))
            .and_then(Value::as_object)
        {
            Some(labels) => self.matches(labels),
            None => self.matches(&Map::new()),
        }
    }

    /// The one value `key` must equal, when the selector pins it (`k=v`, `k in (v)`).
    #[must_use]
    pub fn requires_exact_match(&self, key: &str) -> Option<&str> {
        self.requirements
            .iter()
            .find_map(|r| match (r.operator, &r.values[..]) {
                (Operator::Equals | Operator::DoubleEquals | Operator::In, [v]) if r.key == key => {
                    Some(v.as_str())
                }
                _ => None,
            })
    }
}

impl Requirement {
    fn matches(&self, labels: &impl Labels) -> bool {
        let value = labels.label(&self.key);
        match self.operator {
            Operator::Equals | Operator::DoubleEquals | Operator::In => {
                value.is_some_and(|v| self.has(v))
            }
            // Kubernetes: an object without the label satisfies != and notin.
            Operator::NotEquals | Operator::NotIn => value.is_none_or(|v| !self.has(v)),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
            Operator::GreaterThan | Operator::LessThan => {
                let (Some(have), [want]) =
                    (value.and_then(|v| v.parse::<i64>().ok()), &self.values[..])
                else {
                    return false;
                };
                let Ok(want) = want.parse::<i64>() else {
                    return false;
                };
                if self.operator == Operator::GreaterThan {
                    have > want
                } else {
                    have < want
                }
            }
        }
    }

    fn has(&self, v: &str) -> bool {
        self.values.binary_search_by(|x| x.as_str().cmp(v)).is_ok()
    }
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = match self.operator {
            Operator::Exists => return f.write_str(&self.key),
            Operator::DoesNotExist => return write!(f, "!{}", self.key),
            Operator::Equals => "=",
            Operator::DoubleEquals => "==",
            Operator::NotEquals => "!=",
            Operator::GreaterThan => ">",
            Operator::LessThan => "<",
            Operator::In => " in ",
            Operator::NotIn => " notin ",
        };
        let values = self.values.join(",");
        match self.operator {
            Operator::In | Operator::NotIn => write!(f, "{}{op}({values})", self.key),
            _ => write!(f, "{}{op}{values}", self.key),
        }
    }
}

/// The canonical form, requirements sorted by key (`a=b,c in (d,e)`).
impl fmt::Display for LabelSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.requirements.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{r}")?;
        }
        Ok(())
    }
}
