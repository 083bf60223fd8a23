//! Type checking of the authorizer library when a rule is compiled: the
//! `cel` crate checks no types, so each call of the library is matched
//! here against its overloads (receiver type, argument count, literal
//! argument types), as Kubernetes' checker does, and a value of one of the
//! library's types may not be used with any other function or field.
//! Expressions whose type cannot be known here (fields of `self`) pass.

use cel::Program;
use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

use super::authz::{
    AUTHORIZER_TYPE, DECISION_TYPE, GROUP_CHECK_TYPE, PATH_CHECK_TYPE, RESOURCE_CHECK_TYPE,
};
use super::compile::position;

/// The name of the variable the library hangs off.
pub const AUTHORIZER_VARIABLE: &str = "authorizer";
/// The one field of `authorizer` (admission policies bind it).
const REQUEST_RESOURCE_FIELD: &str = "requestResource";

/// What is known of an expression's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Authorizer,
    PathCheck,
    GroupCheck,
    ResourceCheck,
    Decision,
    /// A literal's type (`string`, `int`, ...).
    Literal(&'static str),
    /// Not known here.
    Dyn,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Authorizer => AUTHORIZER_TYPE,
            Ty::PathCheck => PATH_CHECK_TYPE,
            Ty::GroupCheck => GROUP_CHECK_TYPE,
            Ty::ResourceCheck => RESOURCE_CHECK_TYPE,
            Ty::Decision => DECISION_TYPE,
            Ty::Literal(name) => name,
            Ty::Dyn => "dyn",
        }
    }

    fn is_library(self) -> bool {
        !matches!(self, Ty::Literal(_) | Ty::Dyn)
    }

    /// May be passed where a string is declared.
    fn fits_string(self) -> bool {
        matches!(self, Ty::Literal("string") | Ty::Dyn)
    }
}

/// The library's overloads: function, receiver, string arguments, result.
const OVERLOADS: &[(&str, Ty, usize, Ty)] = &[
    ("path", Ty::Authorizer, 1, Ty::PathCheck),
    ("group", Ty::Authorizer, 1, Ty::GroupCheck),
    ("serviceAccount", Ty::Authorizer, 2, Ty::Authorizer),
    ("resource", Ty::GroupCheck, 1, Ty::ResourceCheck),
    ("subresource", Ty::ResourceCheck, 1, Ty::ResourceCheck),
    ("namespace", Ty::ResourceCheck, 1, Ty::ResourceCheck),
    ("name", Ty::ResourceCheck, 1, Ty::ResourceCheck),
    ("check", Ty::PathCheck, 1, Ty::Decision),
    ("check", Ty::ResourceCheck, 1, Ty::Decision),
    ("allowed", Ty::Decision, 0, Ty::Literal("bool")),
    ("errored", Ty::Decision, 0, Ty::Literal("bool")),
    ("reason", Ty::Decision, 0, Ty::Literal("string")),
    ("error", Ty::Decision, 0, Ty::Literal("string")),
];

fn is_library_function(name: &str) -> bool {
    OVERLOADS.iter().any(|(f, ..)| *f == name)
}

/// Checks every use of the library in `program`; the error is the text
/// after `compilation failed: `.
pub fn check_library_calls(program: &Program, source: &str) -> Result<(), String> {
    let mut checker = Checker {
        shadowed: Vec::new(),
    };
    checker
        .ty(program.expression())
        .map(|_| ())
        .map_err(|(id, message)| {
            let (line, column) = position(program, id);
            format!("ERROR: <input>:{line}:{column}: {message}\n | {source}")
        })
}

/// A problem: the expression's id and the message.
type Problem = (u64, String);

struct Checker {
    /// Comprehension variables in scope (one may hide `authorizer`).
    shadowed: Vec<String>,
}

impl Checker {
    fn ty(&mut self, e: &IdedExpr) -> Result<Ty, Problem> {
        Ok(match &e.expr {
            Expr::Literal(literal) => Ty::Literal(match literal {
                LiteralValue::String(_) => "string",
                LiteralValue::Int(_) => "int",
                LiteralValue::UInt(_) => "uint",
                LiteralValue::Double(_) => "double",
                LiteralValue::Boolean(_) => "bool",
                LiteralValue::Bytes(_) => "bytes",
                LiteralValue::Null => "null_type",
            }),
            Expr::Ident(name)
                if name == AUTHORIZER_VARIABLE && !self.shadowed.iter().any(|s| s == name) =>
            {
                Ty::Authorizer
            }
            Expr::Ident(_) | Expr::Unspecified => Ty::Dyn,
            Expr::Select(select) => {
                let operand = self.ty(&select.operand)?;
                if operand == Ty::Authorizer && select.field == REQUEST_RESOURCE_FIELD {
                    return Ok(Ty::ResourceCheck);
                }
                if operand.is_library() {
                    return Err((
                        e.id,
                        format!("type '{}' does not support field selection", operand.name()),
                    ));
                }
                Ty::Dyn
            }
            Expr::Call(call) => {
                let target = match &call.target {
                    Some(t) => Some(self.ty(t)?),
                    None => None,
                };
                let mut args = Vec::with_capacity(call.args.len());
                for arg in &call.args {
                    args.push(self.ty(arg)?);
                }
                self.call(e.id, &call.func_name, target, &args)?
            }
            Expr::List(list) => {
                for item in &list.elements {
                    self.ty(item)?;
                }
                Ty::Dyn
            }
            Expr::Map(map) => {
                for entry in &map.entries {
                    if let EntryExpr::MapEntry(m) = &entry.expr {
                        self.ty(&m.key)?;
                        self.ty(&m.value)?;
                    }
                }
                Ty::Dyn
            }
            Expr::Struct(_) => Ty::Dyn,
            Expr::Comprehension(c) => {
                self.ty(&c.iter_range)?;
                self.ty(&c.accu_init)?;
                let depth = self.shadowed.len();
                self.shadowed.push(c.iter_var.clone());
                self.shadowed.extend(c.iter_var2.clone());
                self.shadowed.push(c.accu_var.clone());
                self.ty(&c.loop_cond)?;
                self.ty(&c.loop_step)?;
                let result = self.ty(&c.result);
                self.shadowed.truncate(depth);
                result?;
                Ty::Dyn
            }
        })
    }

    /// The result type of a call, or the checker's "no matching overload".
    fn call(&self, id: u64, name: &str, target: Option<Ty>, args: &[Ty]) -> Result<Ty, Problem> {
        let library_operand = target
            .into_iter()
            .chain(args.iter().copied())
            .any(Ty::is_library);
        if !is_library_function(name) {
            if library_operand && !matches!(name, "_==_" | "_!=_" | "_?_:_" | "type" | "dyn") {
                return Err((id, no_overload(name, target, args)));
            }
            return Ok(Ty::Dyn);
        }
        let Some(receiver) = target else {
            return Err((id, no_overload(name, None, args)));
        };
        if !args.iter().all(|a| a.fits_string()) {
            return Err((id, no_overload(name, target, args)));
        }
        if receiver == Ty::Dyn {
            // Kubernetes would know the receiver's type; here any value of
            // the library's types is accepted and checked at run time.
            return Ok(Ty::Dyn);
        }
        OVERLOADS
            .iter()
            .find(|(f, on, arity, _)| *f == name && *on == receiver && *arity == args.len())
            .map(|(.., result)| *result)
            .ok_or_else(|| (id, no_overload(name, target, args)))
    }
}

/// Kubernetes' checker message for a call no overload accepts.
fn no_overload(name: &str, target: Option<Ty>, args: &[Ty]) -> String {
    let args = args.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ");
    let signature = match target {
        Some(t) => format!("{}.({args})", t.name()),
        None => format!("({args})"),
    };
    format!("found no matching overload for '{name}' applied to '{signature}'")
}
