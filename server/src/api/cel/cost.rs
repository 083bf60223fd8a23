//! The cost estimator: walks a compiled expression with the `Shape` of each
//! variable and returns an upper bound of its evaluation cost (see the model
//! in the module documentation) and the shape of its result. With shapes from
//! the schema it is the estimate checked when a CRD is read; with shapes of
//! the actual object it bounds the work an evaluation can do before it runs.

use cel::common::ast::{CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedExpr, LiteralValue};

use super::shape::{MAX_REQUEST_BYTES, Shape};

/// Fixed cost of building a list literal.
const LIST_LITERAL: u64 = 40;
/// Fixed cost of building a map literal.
const MAP_LITERAL: u64 = 30;
/// The assumed longest key of a map value: keys are not measured (Kubernetes
/// map keys — label keys, annotation keys — stay far below it).
const MAP_KEY_CHARS: u64 = 1024;
/// Operations that walk a string or list pay one unit per this many elements.
const TRAVERSAL_PER_UNIT: u64 = 10;
/// An authorization check (`check` of the authorizer library), Kubernetes'
/// fixed figure: it lets one evaluation (`PER_CALL_LIMIT`) make two checks.
pub const AUTHORIZATION_CHECK: u64 = 350_000;

/// The estimate of one expression.
#[derive(Debug)]
pub struct Estimate {
    pub cost: u64,
    pub shape: Shape,
}

/// Why an expression cannot be estimated (a field the schema does not have).
#[derive(Debug, PartialEq, Eq)]
pub struct UndefinedField {
    pub expr_id: u64,
    pub field: String,
}

/// Estimates `expr` with `vars` in scope. `strict` reports selections of
/// fields that a closed object shape does not declare.
pub fn estimate(
    expr: &IdedExpr,
    vars: &[(&str, Shape)],
    strict: bool,
) -> Result<Estimate, UndefinedField> {
    let mut scope: Vec<(String, Shape)> = vars
        .iter()
        .map(|(n, s)| ((*n).to_owned(), s.clone()))
        .collect();
    Walker { strict }.walk(expr, &mut scope)
}

struct Walker {
    strict: bool,
}

fn traverse(n: u64) -> u64 {
    n.div_ceil(TRAVERSAL_PER_UNIT).max(1)
}

fn est(cost: u64, shape: Shape) -> Estimate {
    Estimate { cost, shape }
}

impl Walker {
    fn walk(
        &self,
        e: &IdedExpr,
        scope: &mut Vec<(String, Shape)>,
    ) -> Result<Estimate, UndefinedField> {
        Ok(match &e.expr {
            Expr::Literal(LiteralValue::String(s)) => {
                est(0, Shape::Str(s.inner().chars().count() as u64))
            }
            Expr::Literal(LiteralValue::Bytes(_)) => est(0, Shape::Dyn(MAX_REQUEST_BYTES)),
            Expr::Literal(_) | Expr::Unspecified => est(0, Shape::Scalar),
            Expr::Ident(name) => {
                let shape = scope
                    .iter()
                    .rev()
                    .find(|(n, _)| n == name)
                    .map_or(Shape::Dyn(MAX_REQUEST_BYTES), |(_, s)| s.clone());
                est(1, shape)
            }
            Expr::Select(select) => {
                let operand = self.walk(&select.operand, scope)?;
                let cost = operand.cost.saturating_add(1);
                if select.test {
                    return Ok(est(cost, Shape::Scalar));
                }
                est(cost, self.field(e.id, operand.shape, &select.field)?)
            }
            Expr::List(list) => {
                let mut cost = LIST_LITERAL;
                let mut elem: Option<Shape> = None;
                for item in &list.elements {
                    let x = self.walk(item, scope)?;
                    cost = cost.saturating_add(x.cost);
                    elem = Some(match elem {
                        Some(s) => s.join(x.shape),
                        None => x.shape,
                    });
                }
                est(
                    cost,
                    Shape::List(
                        Box::new(elem.unwrap_or(Shape::Scalar)),
                        list.elements.len() as u64,
                    ),
                )
            }
            Expr::Map(map) => {
                let mut cost = MAP_LITERAL;
                let mut value: Option<Shape> = None;
                for entry in &map.entries {
                    if let EntryExpr::MapEntry(m) = &entry.expr {
                        cost = cost.saturating_add(self.walk(&m.key, scope)?.cost);
                        let v = self.walk(&m.value, scope)?;
                        cost = cost.saturating_add(v.cost);
                        value = Some(match value {
                            Some(s) => s.join(v.shape),
                            None => v.shape,
                        });
                    }
                }
                est(
                    cost,
                    Shape::Map(
                        Box::new(value.unwrap_or(Shape::Scalar)),
                        map.entries.len() as u64,
                    ),
                )
            }
            Expr::Struct(_) => est(MAP_LITERAL, Shape::Dyn(MAX_REQUEST_BYTES)),
            Expr::Call(call) => self.call(call, scope)?,
            Expr::Comprehension(c) => self.comprehension(c, scope)?,
        })
    }

    /// The shape of `operand.field`.
    fn field(&self, id: u64, operand: Shape, field: &str) -> Result<Shape, UndefinedField> {
        Ok(match operand {
            Shape::Object(fields, open) => match fields.into_iter().find(|(n, _)| n == field) {
                Some((_, s)) => s,
                None if open || !self.strict => Shape::Dyn(MAX_REQUEST_BYTES),
                None => {
                    return Err(UndefinedField {
                        expr_id: id,
                        field: field.to_owned(),
                    });
                }
            },
            Shape::Map(value, _) => *value,
            other => Shape::Dyn(other.size().max(1)),
        })
    }

    fn call(
        &self,
        call: &CallExpr,
        scope: &mut Vec<(String, Shape)>,
    ) -> Result<Estimate, UndefinedField> {
        let mut cost: u64 = 0;
        let mut shapes = Vec::with_capacity(call.args.len() + 1);
        if let Some(target) = &call.target {
            let t = self.walk(target, scope)?;
            cost = cost.saturating_add(t.cost);
            shapes.push(t.shape);
        }
        let conditional = call.func_name == "_?_:_";
        let mut branch_max = 0u64;
        for (i, arg) in call.args.iter().enumerate() {
            let a = self.walk(arg, scope)?;
            if conditional && i > 0 {
                branch_max = branch_max.max(a.cost);
            } else {
                cost = cost.saturating_add(a.cost);
            }
            shapes.push(a.shape);
        }
        let size = |i: usize| shapes.get(i).map_or(1, Shape::size);
        let (own, shape): (u64, Shape) = match call.func_name.as_str() {
            "_?_:_" => {
                let mut it = shapes.into_iter().skip(1);
                let a = it.next().unwrap_or(Shape::Scalar);
                let b = it.next().unwrap_or(Shape::Scalar);
                (branch_max, a.join(b))
            }
            "_&&_" | "_||_" | "!_" | "-_" | "@not_strictly_false" => (0, Shape::Scalar),
            "_==_" | "_!=_" => (traverse(size(0).min(size(1))), Shape::Scalar),
            "_<_" | "_<=_" | "_>_" | "_>=_" | "_*_" | "_/_" | "_%_" | "_-_" => (1, Shape::Scalar),
            "_+_" => match (shapes.first(), shapes.get(1)) {
                (Some(Shape::Str(a)), Some(Shape::Str(b))) => {
                    (traverse(a + b), Shape::Str(a.saturating_add(*b)))
                }
                (Some(Shape::List(x, a)), Some(Shape::List(y, b))) => {
                    let elem = (**x).clone().join((**y).clone());
                    (
                        traverse(a + b),
                        Shape::List(Box::new(elem), a.saturating_add(*b)),
                    )
                }
                _ => (1, Shape::Scalar),
            },
            "_[_]" | "_[?_]" => {
                let shape = match shapes.into_iter().next() {
                    Some(Shape::List(e, _) | Shape::Map(e, _)) => *e,
                    Some(Shape::Str(n)) => Shape::Str(n),
                    Some(other) => Shape::Dyn(other.size().max(1)),
                    None => Shape::Scalar,
                };
                (1, shape)
            }
            "@in" => (size(1).max(1), Shape::Scalar),
            "size" | "int" | "uint" | "double" | "bool" | "type" | "dyn" | "string" => (
                1,
                shapes
                    .into_iter()
                    .next()
                    .filter(|_| call.func_name == "string" || call.func_name == "dyn")
                    .unwrap_or(Shape::Scalar),
            ),
            "matches" | "find" => {
                let (input, pattern) = (size(0), size(1));
                (input.saturating_mul(pattern).max(1), Shape::Str(input))
            }
            "findAll" => {
                let (input, pattern) = (size(0), size(1));
                (
                    input.saturating_mul(pattern).max(1),
                    Shape::List(Box::new(Shape::Str(input)), input),
                )
            }
            "contains" | "startsWith" | "endsWith" | "indexOf" | "lastIndexOf" => {
                (traverse(size(0)), Shape::Scalar)
            }
            "min" | "max" | "isSorted" | "sum" => {
                let n = size(0).max(1);
                let elem = match shapes.into_iter().next() {
                    Some(Shape::List(e, _)) => *e,
                    _ => Shape::Scalar,
                };
                (n, elem)
            }
            "lowerAscii" | "upperAscii" | "trim" | "replace" | "substring" | "charAt"
            | "reverse" | "format" | "join" | "quote" => (
                traverse(size(0)),
                Shape::Str(shapes.iter().map(Shape::size).fold(0, u64::saturating_add)),
            ),
            "check" => (AUTHORIZATION_CHECK, Shape::Scalar),
            "allowed" | "errored" => (1, Shape::Scalar),
            "split" => (
                traverse(size(0)),
                Shape::List(Box::new(Shape::Str(size(0))), size(0)),
            ),
            _ => (1, Shape::Dyn(MAX_REQUEST_BYTES)),
        };
        Ok(est(cost.saturating_add(own), shape))
    }

    fn comprehension(
        &self,
        c: &ComprehensionExpr,
        scope: &mut Vec<(String, Shape)>,
    ) -> Result<Estimate, UndefinedField> {
        let range = self.walk(&c.iter_range, scope)?;
        let (n, first, second) = match range.shape {
            Shape::List(e, n) if c.iter_var2.is_some() => (n, Shape::Scalar, *e),
            Shape::List(e, n) => (n, *e, Shape::Scalar),
            Shape::Map(e, n) => (n, Shape::Str(MAP_KEY_CHARS), *e),
            Shape::Object(fields, _) => {
                let longest = fields
                    .iter()
                    .map(|(k, _)| k.len() as u64)
                    .max()
                    .unwrap_or(0);
                (
                    fields.len() as u64,
                    Shape::Str(longest),
                    Shape::Dyn(MAX_REQUEST_BYTES),
                )
            }
            other => (
                other.size().max(1),
                Shape::Dyn(MAX_REQUEST_BYTES),
                Shape::Dyn(MAX_REQUEST_BYTES),
            ),
        };
        let init = self.walk(&c.accu_init, scope)?;
        let depth = scope.len();
        scope.push((c.iter_var.clone(), first));
        if let Some(v2) = &c.iter_var2 {
            scope.push((v2.clone(), second));
        }
        scope.push((c.accu_var.clone(), init.shape.clone()));
        let step_once = self.walk(&c.loop_step, scope)?;
        // A list accumulator (map, filter) gains at most one element per turn.
        let accu = match step_once.shape {
            Shape::List(e, _) => Shape::List(e, n),
            other => other.join(init.shape),
        };
        let last = scope.len() - 1;
        scope[last].1 = accu.clone();
        let cond = self.walk(&c.loop_cond, scope)?;
        let step = self.walk(&c.loop_step, scope)?;
        scope.truncate(depth);
        scope.push((c.accu_var.clone(), accu));
        let result = self.walk(&c.result, scope)?;
        scope.truncate(depth);
        let per_turn = cond.cost.saturating_add(step.cost);
        let cost = range
            .cost
            .saturating_add(init.cost)
            .saturating_add(n.saturating_mul(per_turn))
            .saturating_add(result.cost);
        Ok(est(cost, result.shape))
    }
}
