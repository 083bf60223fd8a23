//! One policy's verdict on a write, for one binding and one param: its
//! match conditions, validations and audit annotations, with the
//! variables they name evaluated when first named, as kube evaluates them. A
//! false validation fails with its `messageExpression`, else its
//! `message`, else `failed expression: <expression>`; an expression that
//! cannot be evaluated fails too unless the policy's `failurePolicy` is
//! Ignore.

use std::collections::HashMap;
use std::sync::Arc;

use cel::Value as Cel;
use cel::objects::{Key, Map};
use serde_json::Value;

use super::compiled::Policy;
use crate::api::cel::expression::all_match;
use crate::api::cel::{AuthorizerBinding, Expression};

/// What the expressions see.
pub struct Inputs<'a> {
    pub object: &'a Value,
    pub old_object: &'a Value,
    pub request: &'a Value,
    pub params: &'a Value,
    pub namespace_object: &'a Value,
    pub authorizer: Option<&'a AuthorizerBinding>,
}

/// A failed validation (or one that could not be evaluated).
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    /// `Invalid` unless the validation chose another reason.
    pub reason: &'static str,
    /// The validation's place in `spec.validations`, when it is one.
    pub index: Option<usize>,
}

/// A policy's verdict.
#[derive(Debug, Default)]
pub struct Verdict {
    /// Its match conditions left the write alone.
    pub skipped: bool,
    pub failures: Vec<Failure>,
    /// (key, value) of its audit annotations.
    pub annotations: Vec<(String, String)>,
}

fn reason(r: Option<&str>) -> &'static str {
    match r {
        Some("Forbidden") => "Forbidden",
        Some("Unauthorized") => "Unauthorized",
        Some("RequestEntityTooLarge") => "RequestEntityTooLarge",
        _ => "Invalid",
    }
}

struct Evaluator<'a> {
    json: [(&'static str, &'a Value); 5],
    /// The policy's variables, evaluated when an expression first names one.
    declared: &'a [(String, Result<Expression, String>)],
    variables: HashMap<Key, Cel>,
    /// Variables that failed, with why.
    failed: HashMap<String, String>,
    /// Variables being evaluated (one naming itself fails, not loops).
    evaluating: Vec<String>,
    authorizer: Option<&'a AuthorizerBinding>,
    budget: u64,
}

/// kube's error for an expression whose variable fails.
fn composited(name: &str, error: &str) -> String {
    format!("composited variable {name:?} fails to evaluate: {error}")
}

impl Evaluator<'_> {
    /// Evaluates the variables `expression` names that are not known yet,
    /// each once, as kube's composition evaluates them: lazily, so what no
    /// expression names costs nothing and cannot fail.
    fn prepare(&mut self, expression: &Expression) -> Result<(), String> {
        let declared = self.declared;
        for name in expression.selected_fields("variables") {
            let key = Key::String(Arc::new(name.clone()));
            if self.variables.contains_key(&key) {
                continue;
            }
            if let Some(e) = self.failed.get(&name) {
                return Err(composited(&name, e));
            }
            let Some((_, compiled)) = declared.iter().find(|(n, _)| *n == name) else {
                continue;
            };
            if self.evaluating.contains(&name) {
                return Err(composited(&name, "it names itself"));
            }
            self.evaluating.push(name.clone());
            let outcome = match compiled {
                Ok(variable) => self.run(variable),
                Err(e) => Err(format!("compilation failed: {e}")),
            };
            self.evaluating.pop();
            match outcome {
                Ok(value) => {
                    self.variables.insert(key, value);
                }
                Err(e) => {
                    let refusal = composited(&name, &e);
                    self.failed.insert(name, e);
                    return Err(refusal);
                }
            }
        }
        Ok(())
    }

    fn run(&mut self, expression: &Expression) -> Result<Cel, String> {
        self.prepare(expression)?;
        let variables = Cel::Map(Map {
            map: Arc::new(self.variables.clone()),
        });
        let mut bound: Vec<(&str, &Cel)> = vec![("variables", &variables)];
        if let Some(a) = self.authorizer {
            bound.push(("authorizer", &a.authorizer));
            bound.push(("authorizer.requestResource", &a.request_resource));
        }
        expression.evaluate_with(&self.json, &bound, &mut self.budget)
    }
}

/// The message of a false validation's `messageExpression`, when it
/// yields a usable one line.
fn message_of(evaluator: &mut Evaluator<'_>, expression: &Expression) -> Option<String> {
    match evaluator.run(expression) {
        Ok(Cel::String(s)) if !s.trim().is_empty() && !s.contains(['\n', '\r']) => {
            Some(s.trim().to_string())
        }
        _ => None,
    }
}

/// Evaluates `policy` over `inputs`.
#[must_use]
pub fn evaluate(policy: &Policy, inputs: &Inputs<'_>) -> Verdict {
    let mut verdict = Verdict::default();
    let mut evaluator = Evaluator {
        json: [
            ("object", inputs.object),
            ("oldObject", inputs.old_object),
            ("request", inputs.request),
            ("params", inputs.params),
            ("namespaceObject", inputs.namespace_object),
        ],
        declared: &policy.variables,
        variables: HashMap::new(),
        failed: HashMap::new(),
        evaluating: Vec::new(),
        authorizer: inputs.authorizer,
        budget: crate::api::cel::RUNTIME_CEL_COST_BUDGET,
    };
    let error = |verdict: &mut Verdict, message: String, index: Option<usize>| {
        if !policy.ignore_failures {
            verdict.failures.push(Failure {
                message,
                reason: "Invalid",
                index,
            });
        }
    };
    let conditions: Vec<&Expression> = policy
        .match_conditions
        .iter()
        .filter_map(|c| c.as_ref().ok())
        .collect();
    match all_match(conditions, |c| evaluator.run(c)) {
        Ok(true) => {}
        Ok(false) => {
            verdict.skipped = true;
            return verdict;
        }
        Err(e) => {
            error(&mut verdict, e, None);
            return verdict;
        }
    }
    for (i, validation) in policy.validations.iter().enumerate() {
        let expression = match &validation.expression {
            Ok(e) => e,
            Err(e) => {
                error(&mut verdict, format!("compilation failed: {e}"), Some(i));
                continue;
            }
        };
        match evaluator.run(expression) {
            Ok(Cel::Bool(true)) => {}
            Ok(Cel::Bool(false)) => {
                let from_expression = validation
                    .message_expression
                    .as_ref()
                    .and_then(|m| m.as_ref().ok())
                    .and_then(|m| message_of(&mut evaluator, m));
                let message = from_expression
                    .or_else(|| validation.message.clone())
                    .unwrap_or_else(|| format!("failed expression: {}", expression.source()));
                verdict.failures.push(Failure {
                    message,
                    reason: reason(validation.reason.as_deref()),
                    index: Some(i),
                });
            }
            Ok(_) => error(
                &mut verdict,
                format!(
                    "expression '{}' resulted in error: no such overload",
                    expression.source()
                ),
                Some(i),
            ),
            Err(e) => error(
                &mut verdict,
                format!(
                    "expression '{}' resulted in error: {e}",
                    expression.source()
                ),
                Some(i),
            ),
        }
    }
    for (key, compiled) in &policy.audit_annotations {
        let Ok(expression) = compiled else { continue };
        match evaluator.run(expression) {
            Ok(Cel::String(s)) => verdict.annotations.push((key.clone(), s.to_string())),
            Ok(Cel::Null) => {}
            Ok(_) => error(
                &mut verdict,
                format!(
                    "valueExpression '{}' resulted in error: must evaluate to one of [string null_type]",
                    expression.source()
                ),
                None,
            ),
            Err(e) => error(
                &mut verdict,
                format!(
                    "valueExpression '{}' resulted in error: {e}",
                    expression.source()
                ),
                None,
            ),
        }
    }
    verdict
}
