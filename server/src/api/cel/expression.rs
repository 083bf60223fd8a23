//! A CEL expression outside CRD schemas (the claim mappings and rules of
//! AuthenticationConfiguration): compiled with its variables declared,
//! its cost bounded against the actual values before each evaluation and
//! charged to a budget the caller keeps.

use std::sync::Arc;

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue, operators};
use cel::{Context, Program, Value as Cel};
use serde_json::Value;

use super::PER_CALL_LIMIT;
use super::bind::{to_cel, to_cel_verbatim};
use super::compile::{ENV, compile, position};
use super::cost::{UndefinedField, estimate};
use super::library;
use super::shape::Shape;
use crate::api::schema::Schema;

/// Identifiers every expression may use besides its variables (type names);
/// CRD rules share them.
pub(super) const TYPE_IDENTS: &[&str] = &[
    "int",
    "uint",
    "double",
    "bool",
    "string",
    "bytes",
    "list",
    "map",
    "null_type",
    "type",
    "optional",
    "dyn",
];

/// One compiled expression.
pub struct Expression {
    source: String,
    program: Arc<Program>,
}

impl std::fmt::Debug for Expression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Expression").field(&self.source).finish()
    }
}

/// The type an expression evidently yields, when the tree alone says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evident {
    Bool,
    String,
    Number,
    List,
    Map,
    Null,
}

impl Evident {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Evident::Bool => "bool",
            Evident::String => "string",
            Evident::Number => "int",
            Evident::List => "list(dyn)",
            Evident::Map => "map(dyn, dyn)",
            Evident::Null => "null_type",
        }
    }
}

impl Expression {
    /// Compiles `source` where only `variables` (and comprehension
    /// variables) are declared. The error is one line, the text after
    /// `compilation failed: `.
    pub fn compile(source: &str, variables: &[&str]) -> Result<Expression, String> {
        let program = compile(source).map_err(|e| one_line(&e))?;
        let bound = comprehension_variables(program.expression());
        for name in program.references().variables() {
            if !variables.contains(&name)
                && !TYPE_IDENTS.contains(&name)
                && !bound.iter().any(|b| b == name)
            {
                return Err(format!(
                    "ERROR: <input>:1:1: undeclared reference to '{name}' (in container '')"
                ));
            }
        }
        Ok(Expression {
            source: source.to_owned(),
            program,
        })
    }

    #[must_use]
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the expression selects `operand.field` anywhere
    /// (`claims.email`, `has(claims.email)`, `claims.?email`).
    #[must_use]
    pub fn selects(&self, operand: &str, field: &str) -> bool {
        self.selected_fields(operand).iter().any(|f| f == field)
    }

    /// Every field the expression selects directly on the variable
    /// `operand` (`request.user`, `has(request.uid)`, `request.?extra`).
    #[must_use]
    pub fn selected_fields(&self, operand: &str) -> Vec<String> {
        let mut found = Vec::new();
        let mut stack = vec![self.program.expression()];
        while let Some(e) = stack.pop() {
            match &e.expr {
                Expr::Select(s) => {
                    if matches!(&s.operand.expr, Expr::Ident(n) if n == operand) {
                        found.push(s.field.clone());
                    }
                    stack.push(&s.operand);
                }
                Expr::Call(call) => {
                    if call.func_name == operators::OPT_SELECT
                        && let [target, name] = call.args.as_slice()
                        && matches!(&target.expr, Expr::Ident(n) if n == operand)
                        && let Expr::Literal(LiteralValue::String(s)) = &name.expr
                    {
                        found.push(s.inner().to_owned());
                    }
                    stack.extend(call.target.as_deref());
                    stack.extend(call.args.iter());
                }
                other => stack.extend(children(other)),
            }
        }
        found
    }

    /// What a type checker would say of the fields the expression selects
    /// on variables of known schemas (`typed`; other variables are
    /// dynamic): cel-go's error for the first field a closed schema does
    /// not declare, with its position.
    #[must_use]
    pub fn undeclared_field(&self, typed: &[(&str, &Schema)]) -> Option<String> {
        let vars: Vec<(&str, Shape)> = typed
            .iter()
            .map(|(name, schema)| (*name, Shape::of_schema(schema)))
            .collect();
        let Err(UndefinedField { expr_id, field }) =
            estimate(self.program.expression(), &vars, true)
        else {
            return None;
        };
        let (line, column) = position(&self.program, expr_id);
        let text = self.source.lines().nth(line - 1).unwrap_or_default();
        Some(format!(
            "ERROR: <input>:{line}:{column}: undefined field '{field}'\n | {text}\n | {}^",
            ".".repeat(column - 1)
        ))
    }

    /// The type the expression yields when evident without a type checker
    /// (a literal, a comparison, a logical operator); `None` for dynamic.
    #[must_use]
    pub fn evident_type(&self) -> Option<Evident> {
        evident(self.program.expression())
    }

    /// Evaluates with `variables` bound to JSON values, first charging the
    /// bound of its cost to `budget`. Errors are one line.
    pub fn evaluate(&self, variables: &[(&str, &Value)], budget: &mut u64) -> Result<Cel, String> {
        self.run(variables, budget, |v| to_cel(None, v))
    }

    /// As `evaluate`, with object keys bound as written rather than
    /// escaped: for variables that are Kubernetes types (the review spec
    /// of authorization match conditions), whose fields may be CEL words.
    pub fn evaluate_verbatim(
        &self,
        variables: &[(&str, &Value)],
        budget: &mut u64,
    ) -> Result<Cel, String> {
        self.run(variables, budget, to_cel_verbatim)
    }

    /// As `evaluate`, with more variables bound to CEL values as they are
    /// (an admission policy's evaluated `variables`, the `authorizer`).
    pub fn evaluate_with(
        &self,
        variables: &[(&str, &Value)],
        bound: &[(&str, &Cel)],
        budget: &mut u64,
    ) -> Result<Cel, String> {
        self.charge(variables, budget)?;
        let mut ctx = Context::with_env(ENV.clone());
        library::register(&mut ctx);
        super::authz::register(&mut ctx);
        for (name, value) in variables {
            ctx.add_variable_from_value(*name, to_cel(None, value));
        }
        for (name, value) in bound {
            ctx.add_variable_from_value(*name, (*value).clone());
        }
        self.program
            .execute(&ctx)
            .map_err(|e| one_line(&e.to_string()))
    }

    /// Charges the bound of the expression's cost to `budget`.
    fn charge(&self, variables: &[(&str, &Value)], budget: &mut u64) -> Result<(), String> {
        let shapes: Vec<(&str, Shape)> = variables
            .iter()
            .map(|(name, v)| (*name, Shape::of_json(v)))
            .collect();
        let cost = estimate(self.program.expression(), &shapes, false).map_or(u64::MAX, |e| e.cost);
        if cost > PER_CALL_LIMIT {
            return Err("operation cancelled: actual cost limit exceeded".into());
        }
        *budget = budget
            .checked_sub(cost)
            .ok_or_else(|| "operation cancelled: cost budget exhausted".to_owned())?;
        Ok(())
    }

    fn run(
        &self,
        variables: &[(&str, &Value)],
        budget: &mut u64,
        bind: fn(&Value) -> Cel,
    ) -> Result<Cel, String> {
        self.charge(variables, budget)?;
        let mut ctx = Context::with_env(ENV.clone());
        library::register(&mut ctx);
        for (name, value) in variables {
            ctx.add_variable_from_value(*name, bind(value));
        }
        self.program
            .execute(&ctx)
            .map_err(|e| one_line(&e.to_string()))
    }
}

fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn children(e: &Expr) -> Vec<&IdedExpr> {
    match e {
        Expr::Comprehension(c) => vec![
            &c.iter_range,
            &c.accu_init,
            &c.loop_cond,
            &c.loop_step,
            &c.result,
        ],
        Expr::Call(call) => call
            .target
            .as_deref()
            .into_iter()
            .chain(call.args.iter())
            .collect(),
        Expr::Select(s) => vec![&s.operand],
        Expr::List(l) => l.elements.iter().collect(),
        Expr::Map(m) => m
            .entries
            .iter()
            .flat_map(|entry| match &entry.expr {
                EntryExpr::MapEntry(me) => vec![&me.key, &me.value],
                EntryExpr::StructField(_) => Vec::new(),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Names bound by the comprehensions (`all`, `map`, ...) of an expression.
fn comprehension_variables(e: &IdedExpr) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        if let Expr::Comprehension(c) = &e.expr {
            found.push(c.iter_var.clone());
            found.extend(c.iter_var2.clone());
            found.push(c.accu_var.clone());
        }
        stack.extend(children(&e.expr));
    }
    found
}

fn evident(e: &IdedExpr) -> Option<Evident> {
    match &e.expr {
        Expr::Literal(LiteralValue::Boolean(_)) => Some(Evident::Bool),
        Expr::Literal(LiteralValue::String(_)) => Some(Evident::String),
        Expr::Literal(LiteralValue::Null) => Some(Evident::Null),
        Expr::Literal(LiteralValue::Bytes(_)) => None,
        Expr::Literal(_) => Some(Evident::Number),
        Expr::List(_) => Some(Evident::List),
        Expr::Map(_) => Some(Evident::Map),
        Expr::Call(call) => match call.func_name.as_str() {
            operators::LOGICAL_AND
            | operators::LOGICAL_OR
            | operators::LOGICAL_NOT
            | operators::EQUALS
            | operators::NOT_EQUALS
            | operators::LESS
            | operators::LESS_EQUALS
            | operators::GREATER
            | operators::GREATER_EQUALS
            | operators::IN
            | "startsWith"
            | "endsWith"
            | "contains"
            | "matches" => Some(Evident::Bool),
            "lowerAscii" | "upperAscii" | "trim" | "replace" | "substring" | "string" => {
                Some(Evident::String)
            }
            operators::CONDITIONAL => {
                let (a, b) = (evident(call.args.get(1)?)?, evident(call.args.get(2)?)?);
                (a == b).then_some(a)
            }
            operators::ADD => match (evident(call.args.first()?), evident(call.args.get(1)?)) {
                (Some(a), Some(b)) if a == b => Some(a),
                _ => None,
            },
            _ => None,
        },
        Expr::Comprehension(c) => match &c.result.expr {
            Expr::Ident(n) if *n == c.accu_var => evident(&c.accu_init),
            _ => None,
        },
        _ => None,
    }
}

/// Kubernetes' `matchConditions` rule, shared by admission and
/// authorization webhooks: the first condition that evaluates to false
/// decides "no match"; otherwise any error (or non-boolean) fails the whole
/// evaluation with every such error; all true is a match.
pub fn all_match<'a>(
    conditions: impl IntoIterator<Item = &'a Expression>,
    mut evaluate: impl FnMut(&Expression) -> Result<cel::Value, String>,
) -> Result<bool, String> {
    let mut errors = Vec::new();
    for condition in conditions {
        match evaluate(condition) {
            Ok(cel::Value::Bool(true)) => {}
            Ok(cel::Value::Bool(false)) => return Ok(false),
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
