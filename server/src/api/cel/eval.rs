//! Running the rules: `validate_rules` walks a schema and a value (and the
//! old value, for transition rules) together and evaluates every rule at
//! every node under one cost budget; `validate_rules_by` does so for a
//! write, binding `authorizer` to its writer.

use cel::common::types::CelOptional as Optional;
use cel::common::value::Val;
use cel::{Context, ExecutionError, Value as Cel};
use serde_json::Value;

use super::authz::{self, Requester};
use super::authz_types::AUTHORIZER_VARIABLE;
use super::bind::to_val;
use super::compile::ENV;
use super::cost::estimate;
use super::library;
use super::rule::Rule;
use super::shape::Shape;
use super::{PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET};
use crate::api::schema::{ErrorType, FieldError, Schema, SchemaType};

/// Every failed rule of `new` (and `old`, for transition rules), with the
/// path of the node the rule sits on, or of its `fieldPath`. There is no
/// writer (a CRD's defaults are checked): rules using `authorizer` are not
/// run.
#[must_use]
pub fn validate_rules(schema: &Schema, new: &Value, old: Option<&Value>) -> Vec<FieldError> {
    run_rules(schema, new, old, None)
}

/// `validate_rules` for a write by `requester`, whom the rules'
/// `authorizer` checks as.
#[must_use]
pub fn validate_rules_by(
    schema: &Schema,
    new: &Value,
    old: Option<&Value>,
    requester: &Requester<'_>,
) -> Vec<FieldError> {
    run_rules(schema, new, old, Some(requester))
}

fn run_rules(
    schema: &Schema,
    new: &Value,
    old: Option<&Value>,
    requester: Option<&Requester<'_>>,
) -> Vec<FieldError> {
    let mut run = Run {
        budget: RUNTIME_CEL_COST_BUDGET,
        errors: Vec::new(),
        stopped: false,
        requester,
        authorizer: None,
    };
    run.node(schema, new, old, "");
    run.errors
}

struct Run<'r> {
    budget: u64,
    errors: Vec<FieldError>,
    /// Set when the budget ran out: no further rule is evaluated.
    stopped: bool,
    requester: Option<&'r Requester<'r>>,
    /// The `authorizer` value, made on first use.
    authorizer: Option<Cel>,
}

fn child(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

impl Run<'_> {
    fn node(&mut self, schema: &Schema, value: &Value, old: Option<&Value>, path: &str) {
        if self.stopped || value.is_null() {
            return;
        }
        if !schema.rules.is_empty() {
            self.rules(schema, value, old.filter(|o| !o.is_null()), path);
        }
        match value {
            Value::Object(fields) => {
                let values = schema.additional_properties.as_deref();
                let atomic = schema.map_type.as_deref() == Some("atomic");
                for (key, v) in fields {
                    let old_v = old.and_then(|o| o.get(key)).filter(|_| !atomic);
                    match (schema.property(key), values) {
                        (Some(prop), _) => self.node(prop, v, old_v, &child(path, key)),
                        (None, Some(values)) => {
                            self.node(values, v, old_v, &format!("{path}[{key}]"))
                        }
                        _ => {}
                    }
                }
            }
            Value::Array(items) => {
                let Some(item_schema) = schema.items.as_deref() else {
                    return;
                };
                for (i, item) in items.iter().enumerate() {
                    let old_item = old.and_then(|o| correlated_item(schema, item, o));
                    self.node(item_schema, item, old_item, &format!("{path}[{i}]"));
                }
            }
            _ => {}
        }
    }

    fn rules(&mut self, schema: &Schema, value: &Value, old: Option<&Value>, path: &str) {
        let ty = Value::from(schema.ty.map_or("", SchemaType::as_str));
        let self_shape = Shape::of_value(schema, value);
        let old_shape = old.map_or(Shape::Scalar, |o| Shape::of_value(schema, o));
        let self_cel = to_val(Some(schema), value);
        let old_cel = old.map(|o| to_val(Some(schema), o));
        for rule in &schema.rules {
            if self.stopped {
                return;
            }
            if rule.uses_old_self && old.is_none() && !rule.optional_old_self {
                continue;
            }
            if rule.uses_authorizer && self.requester.is_none() {
                continue;
            }
            let vars = [("self", self_shape.clone()), ("oldSelf", old_shape.clone())];
            if !self.charge(rule, rule.program.expression(), &vars, &ty, path) {
                return;
            }
            let authorizer = self.authorizer(rule.uses_authorizer);
            let outcome = evaluate(
                rule,
                &rule.program,
                self_cel.as_ref(),
                old_cel.as_deref(),
                authorizer.as_ref(),
            );
            let at = rule_path(path, rule);
            match outcome {
                Ok(Cel::Bool(true)) => {}
                Ok(Cel::Bool(false)) => {
                    let detail =
                        self.message(rule, &vars, self_cel.as_ref(), old_cel.as_deref(), &ty, path);
                    if self.stopped {
                        return;
                    }
                    self.errors.push(reason_error(rule.reason, at, &ty, detail));
                }
                Ok(_) => self.errors.push(FieldError::invalid(
                    at,
                    ty.clone(),
                    format!("rule did not evaluate to a bool: {}", rule.rule.trim()),
                )),
                Err(ExecutionError::NoSuchOverload(e)) => self.errors.push(FieldError::invalid(
                    at,
                    ty.clone(),
                    format!(
                        "'{e}': call arguments did not match a supported operator, function or macro signature for rule: {}",
                        rule.rule.trim()
                    ),
                )),
                // A function's own error reads as its message alone, as
                // Kubernetes words it ("path must not be empty").
                Err(ExecutionError::FunctionError { message, .. }) => {
                    self.errors.push(FieldError::invalid(
                        at,
                        ty.clone(),
                        format!("{message} evaluating rule: {}", rule.rule.trim()),
                    ));
                }
                Err(e) => self.errors.push(FieldError::invalid(
                    at,
                    ty.clone(),
                    format!("{e} evaluating rule: {}", rule.rule.trim()),
                )),
            }
        }
    }

    /// The `authorizer` value for an expression that `uses` it, when the
    /// run has a writer.
    fn authorizer(&mut self, uses: bool) -> Option<Cel> {
        if !uses {
            return None;
        }
        let requester = self.requester?;
        Some(
            self.authorizer
                .get_or_insert_with(|| requester.value())
                .clone(),
        )
    }

    /// Charges the cost bound of `expr` against the actual values to the
    /// budget; `false` (with the error recorded) when it cannot be afforded.
    fn charge(
        &mut self,
        rule: &Rule,
        expr: &cel::IdedExpr,
        vars: &[(&str, Shape)],
        ty: &Value,
        path: &str,
    ) -> bool {
        let cost = estimate(expr, vars, false).map_or(u64::MAX, |e| e.cost);
        if cost > PER_CALL_LIMIT {
            self.errors.push(FieldError::invalid(
                path,
                ty.clone(),
                format!(
                    "'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: {}",
                    rule.rule.trim()
                ),
            ));
            self.stopped = true;
            return false;
        }
        match self.budget.checked_sub(cost) {
            Some(left) => {
                self.budget = left;
                true
            }
            None => {
                self.errors.push(FieldError::invalid(
                    path,
                    ty.clone(),
                    "validation failed due to running out of cost budget, no further validation rules will be run",
                ));
                self.stopped = true;
                false
            }
        }
    }

    /// The text of a failed rule: its `messageExpression` when that yields a
    /// usable string, else its `message`, else `failed rule: <rule>`.
    fn message(
        &mut self,
        rule: &Rule,
        vars: &[(&str, Shape)],
        self_cel: &dyn Val,
        old_cel: Option<&dyn Val>,
        ty: &Value,
        path: &str,
    ) -> String {
        let fallback = rule
            .message
            .clone()
            .filter(|m| !m.trim().is_empty())
            .unwrap_or_else(|| format!("failed rule: {}", rule.rule.trim()));
        let Some(program) = &rule.message_program else {
            return fallback;
        };
        if !self.charge(rule, program.expression(), vars, ty, path) {
            return fallback;
        }
        let authorizer = self.authorizer(program.references().has_variable(AUTHORIZER_VARIABLE));
        match evaluate(rule, program, self_cel, old_cel, authorizer.as_ref()) {
            Ok(Cel::String(s)) if !s.trim().is_empty() && !s.contains(['\n', '\r']) => {
                s.trim().to_owned()
            }
            _ => fallback,
        }
    }
}

fn evaluate(
    rule: &Rule,
    program: &cel::Program,
    self_cel: &dyn Val,
    old: Option<&dyn Val>,
    authorizer: Option<&Cel>,
) -> Result<Cel, ExecutionError> {
    let mut ctx = Context::with_env(ENV.clone());
    library::register(&mut ctx);
    if let Some(authorizer) = authorizer {
        authz::register(&mut ctx);
        ctx.add_variable_from_value(AUTHORIZER_VARIABLE, authorizer.clone());
    }
    ctx.add_variable_as_val("self", self_cel.clone_as_boxed());
    match (old, rule.optional_old_self) {
        (Some(o), false) => ctx.add_variable_as_val("oldSelf", o.clone_as_boxed()),
        (None, false) => ctx.add_variable_from_value("oldSelf", Cel::Null),
        // `optionalOldSelf`: oldSelf is an optional, empty on create.
        (Some(o), true) => {
            ctx.add_variable_as_val("oldSelf", Box::new(Optional::of(o.clone_as_boxed())));
        }
        (None, true) => ctx.add_variable_as_val("oldSelf", Box::new(Optional::none())),
    }
    program.execute(&ctx)
}

/// The error path: the node, or the node joined with the rule's `fieldPath`
/// (`.x` is a field, `['k']` a map key, `[0]` a list index).
fn rule_path(node: &str, rule: &Rule) -> String {
    let Some(field_path) = &rule.field_path else {
        return node.to_owned();
    };
    let mut out = node.to_owned();
    let mut rest = field_path.as_str();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            out = child(&out, &after[..end]);
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix("['") {
            let end = after.find("']").unwrap_or(after.len());
            out = format!("{out}[{}]", &after[..end]);
            rest = after.get(end + 2..).unwrap_or("");
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']').unwrap_or(after.len());
            out = format!("{out}[{}]", &after[..end]);
            rest = after.get(end + 1..).unwrap_or("");
        } else {
            break;
        }
    }
    out
}

/// The FieldError for a failed rule of this `reason`.
fn reason_error(reason: ErrorType, at: String, ty: &Value, detail: String) -> FieldError {
    match reason {
        ErrorType::Forbidden => FieldError::forbidden(at, detail),
        ErrorType::Required => FieldError::required(at, detail),
        ErrorType::Duplicate => FieldError::duplicate(at, ty.clone()),
        _ => FieldError::invalid(at, ty.clone(), detail),
    }
}

/// The old element a new list element corresponds to: same key values in a
/// `map` list; none in other lists (their elements have no identity).
fn correlated_item<'a>(schema: &Schema, item: &Value, old: &'a Value) -> Option<&'a Value> {
    if schema.list_type.as_deref() != Some("map") {
        return None;
    }
    let keys = &schema.list_map_keys;
    old.as_array()?
        .iter()
        .find(|o| keys.iter().all(|k| o.get(k) == item.get(k)))
}
