//! `Rule`: one `x-kubernetes-validations` entry, checked and compiled when a
//! schema is read (`compile_rules`), with Kubernetes' error wording.

use std::fmt;
use std::sync::Arc;

use cel::Program;
use serde_json::{Map, Value};

use super::authz_types::{AUTHORIZER_VARIABLE, check_library_calls};
use super::compile::{compile, position};
use super::cost::{UndefinedField, estimate};
use super::expression::TYPE_IDENTS;
use super::shape::Shape;
use crate::api::schema::{ErrorType, FieldError, Schema};

/// A compiled validation rule.
#[derive(Clone)]
pub struct Rule {
    pub rule: String,
    pub message: Option<String>,
    pub message_expression: Option<String>,
    pub field_path: Option<String>,
    /// `reason`: `Invalid` (the default), `Forbidden`, `Required` or `Duplicate`.
    pub reason: ErrorType,
    pub optional_old_self: bool,
    /// The rule names `oldSelf`: a transition rule, run on updates only.
    pub uses_old_self: bool,
    /// The rule names `authorizer`: it can only run for a write, checking
    /// as its writer.
    pub uses_authorizer: bool,
    /// Estimated cost of one evaluation against the worst case the schema allows.
    pub estimated_cost: u64,
    pub message_estimated_cost: u64,
    pub(super) program: Arc<Program>,
    pub(super) message_program: Option<Arc<Program>>,
}

impl PartialEq for Rule {
    fn eq(&self, other: &Rule) -> bool {
        (
            &self.rule,
            &self.message,
            &self.message_expression,
            &self.field_path,
            self.reason,
            self.optional_old_self,
        ) == (
            &other.rule,
            &other.message,
            &other.message_expression,
            &other.field_path,
            other.reason,
            other.optional_old_self,
        )
    }
}

impl fmt::Debug for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rule")
            .field("rule", &self.rule)
            .field("message", &self.message)
            .field("message_expression", &self.message_expression)
            .field("field_path", &self.field_path)
            .field("reason", &self.reason)
            .field("estimated_cost", &self.estimated_cost)
            .finish_non_exhaustive()
    }
}

const REASONS: [&str; 4] = [
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
];

/// The variables a rule may use (besides type names, `TYPE_IDENTS`).
const RULE_VARIABLES: &[&str] = &["self", "oldSelf", AUTHORIZER_VARIABLE];

/// Reads and compiles the rules of `schema` (`doc` is the keyword's value,
/// `at` its path). Problems are appended to `errors`.
pub fn compile_rules(
    doc: &Value,
    at: &str,
    schema: &Schema,
    errors: &mut Vec<FieldError>,
) -> Vec<Rule> {
    let Value::Array(entries) = doc else {
        errors.push(FieldError::type_invalid(at, "array", doc));
        return Vec::new();
    };
    let self_shape = Shape::of_schema(schema);
    let mut rules = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let at = format!("{at}[{i}]");
        let Value::Object(fields) = entry else {
            errors.push(FieldError::type_invalid(&at, "object", entry));
            continue;
        };
        if let Some(rule) = compile_one(fields, entry, &at, schema, &self_shape, errors) {
            rules.push(rule);
        }
    }
    rules
}

fn text(fields: &Map<String, Value>, key: &str) -> Option<String> {
    fields.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn has_newline(s: &str) -> bool {
    s.contains(['\n', '\r'])
}

fn compile_one(
    fields: &Map<String, Value>,
    entry: &Value,
    at: &str,
    schema: &Schema,
    self_shape: &Shape,
    errors: &mut Vec<FieldError>,
) -> Option<Rule> {
    let before = errors.len();
    let field = |name: &str| format!("{at}.{name}");
    for key in fields.keys() {
        if !matches!(
            key.as_str(),
            "rule" | "message" | "messageExpression" | "fieldPath" | "reason" | "optionalOldSelf"
        ) {
            errors.push(FieldError::forbidden(
                field(key),
                format!("unknown field {key:?}"),
            ));
        }
    }
    let rule = text(fields, "rule").unwrap_or_default();
    let message = text(fields, "message");
    let message_expression = text(fields, "messageExpression");
    let field_path = text(fields, "fieldPath");
    let trimmed_message = message.as_deref().map(str::trim);
    if rule.trim().is_empty() {
        errors.push(FieldError::required(field("rule"), "rule is not specified"));
    } else if message.as_deref().is_some_and(|m| !m.is_empty()) && trimmed_message == Some("") {
        errors.push(FieldError::invalid(
            field("message"),
            Value::from(message.clone()),
            "message must be non-empty if specified",
        ));
    } else if trimmed_message.is_some_and(has_newline) {
        errors.push(FieldError::invalid(
            field("message"),
            Value::from(message.clone()),
            "message must not contain line breaks",
        ));
    } else if has_newline(rule.trim()) && trimmed_message.is_none_or(str::is_empty) {
        errors.push(FieldError::required(
            field("message"),
            "message must be specified if rule contains line breaks",
        ));
    }
    if message_expression
        .as_deref()
        .is_some_and(|m| !m.is_empty() && m.trim().is_empty())
    {
        errors.push(FieldError::required(
            field("messageExpression"),
            "messageExpression must be non-empty if specified",
        ));
    }
    let reason = match text(fields, "reason").as_deref() {
        None | Some("FieldValueInvalid") => ErrorType::Invalid,
        Some("FieldValueForbidden") => ErrorType::Forbidden,
        Some("FieldValueRequired") => ErrorType::Required,
        Some("FieldValueDuplicate") => ErrorType::Duplicate,
        Some(other) => {
            errors.push(FieldError::not_supported(
                field("reason"),
                Value::from(other),
                &REASONS.map(Value::from),
            ));
            ErrorType::Invalid
        }
    };
    if let Some(path) = &field_path {
        if path.trim().is_empty() {
            errors.push(FieldError::invalid(
                field("fieldPath"),
                Value::from(path.as_str()),
                "fieldPath must be non-empty if specified",
            ));
        } else if has_newline(path) {
            errors.push(FieldError::invalid(
                field("fieldPath"),
                Value::from(path.as_str()),
                "fieldPath must not contain line breaks",
            ));
        } else if !field_path_valid(schema, path) {
            errors.push(FieldError::invalid(
                field("fieldPath"),
                Value::from(path.as_str()),
                "fieldPath must be a valid path",
            ));
        }
    }
    let optional_old_self = fields.get("optionalOldSelf") == Some(&Value::Bool(true));
    if errors.len() > before {
        return None;
    }
    let vars = [
        ("self", self_shape.clone()),
        ("oldSelf", self_shape.clone()),
        (AUTHORIZER_VARIABLE, Shape::Scalar),
    ];
    let program = match compile(&rule).and_then(|p| check(&p, &rule, &vars).map(|cost| (p, cost))) {
        Ok(p) => p,
        Err(detail) => {
            errors.push(FieldError::invalid(
                field("rule"),
                entry.clone(),
                format!("compilation failed: {detail}"),
            ));
            return None;
        }
    };
    let (program, estimated_cost) = program;
    let uses_old_self = program.references().has_variable("oldSelf");
    let uses_authorizer = program.references().has_variable(AUTHORIZER_VARIABLE);
    if fields.contains_key("optionalOldSelf") && !uses_old_self {
        errors.push(FieldError::invalid(
            field("optionalOldSelf"),
            fields["optionalOldSelf"].clone(),
            "may not be set if oldSelf is not used in rule",
        ));
    }
    let mut message_program = None;
    let mut message_estimated_cost = 0;
    if let Some(source) = message_expression
        .as_deref()
        .filter(|m| !m.trim().is_empty())
    {
        match compile(source).and_then(|p| check(&p, source, &vars).map(|cost| (p, cost))) {
            Ok((p, cost)) => {
                message_program = Some(p);
                message_estimated_cost = cost;
            }
            Err(detail) => errors.push(FieldError::invalid(
                field("messageExpression"),
                entry.clone(),
                format!("messageExpression compilation failed: {detail}"),
            )),
        }
    }
    Some(Rule {
        rule,
        message,
        message_expression,
        field_path,
        reason,
        optional_old_self,
        uses_old_self,
        uses_authorizer,
        estimated_cost,
        message_estimated_cost,
        program,
        message_program,
    })
}

/// What a type checker would catch that the parser does not: names that are
/// not declared, fields the schema does not have, misuse of the authorizer
/// library. Returns the estimate.
fn check(program: &Program, source: &str, vars: &[(&str, Shape)]) -> Result<u64, String> {
    let references = program.references();
    let comprehension_vars = comprehension_variables(program.expression());
    for name in references.variables() {
        if !RULE_VARIABLES.contains(&name)
            && !TYPE_IDENTS.contains(&name)
            && !comprehension_vars.iter().any(|v| v == name)
        {
            return Err(format!(
                "ERROR: <input>:1:1: undeclared reference to '{name}' (in container '')\n | {source}"
            ));
        }
    }
    check_library_calls(program, source)?;
    match estimate(program.expression(), vars, true) {
        Ok(e) => Ok(e.cost),
        Err(UndefinedField { expr_id, field }) => {
            let (line, column) = position(program, expr_id);
            Err(format!(
                "ERROR: <input>:{line}:{column}: undefined field '{field}'\n | {source}"
            ))
        }
    }
}

/// Names bound by the comprehensions (`all`, `map`, ...) of an expression.
fn comprehension_variables(e: &cel::IdedExpr) -> Vec<String> {
    use cel::common::ast::{EntryExpr, Expr};
    let mut found = Vec::new();
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match &e.expr {
            Expr::Comprehension(c) => {
                found.push(c.iter_var.clone());
                found.extend(c.iter_var2.clone());
                found.push(c.accu_var.clone());
                stack.extend([
                    &c.iter_range,
                    &c.accu_init,
                    &c.loop_cond,
                    &c.loop_step,
                    &c.result,
                ]);
            }
            Expr::Call(call) => {
                stack.extend(call.target.as_deref());
                stack.extend(call.args.iter());
            }
            Expr::Select(s) => stack.push(&s.operand),
            Expr::List(l) => stack.extend(l.elements.iter()),
            Expr::Map(m) => {
                for entry in &m.entries {
                    if let EntryExpr::MapEntry(me) = &entry.expr {
                        stack.push(&me.key);
                        stack.push(&me.value);
                    }
                }
            }
            _ => {}
        }
    }
    found
}

/// Whether `path` (`.spec.replicas`, `.metadata['name']`, `.list[0]`...)
/// names a place in `schema`: a declared field or an entry of a map or list.
fn field_path_valid(schema: &Schema, path: &str) -> bool {
    let mut node = schema;
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            let name = &after[..end];
            let Some(next) = node.field_schema(name) else {
                return false;
            };
            node = next;
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix("['") {
            let Some(end) = after.find("']") else {
                return false;
            };
            let Some(next) = node.field_schema(&after[..end]) else {
                return false;
            };
            node = next;
            rest = &after[end + 2..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let Some(end) = after.find(']') else {
                return false;
            };
            if !after[..end].bytes().all(|b| b.is_ascii_digit()) {
                return false;
            }
            let Some(items) = node.items.as_deref() else {
                return false;
            };
            node = items;
            rest = &after[end + 1..];
        } else {
            return false;
        }
    }
    true
}
