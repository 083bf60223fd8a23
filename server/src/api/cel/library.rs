//! The Kubernetes CEL libraries the `cel` crate lacks, added to every
//! evaluation context: lists (`indexOf`, `lastIndexOf`, `min`, `max`, `sum`,
//! `isSorted`), regex (`find`, `findAll`) and quantity (`quantity`,
//! `isQuantity` and the members of a quantity).

use std::cmp::Ordering;
use std::sync::Arc;

use cel::extractors::{Arguments, This};
use cel::objects::Opaque;
use cel::{Context, ExecutionError, FunctionContext, Value};

use crate::api::quantity::Quantity;

type Result<T> = std::result::Result<T, ExecutionError>;

/// A quantity as a CEL value.
#[derive(Debug, PartialEq, Eq)]
pub struct CelQuantity(pub Quantity);

impl Opaque for CelQuantity {
    fn runtime_type_name(&self) -> &'static str {
        "kubernetes.Quantity"
    }
}

/// Adds the libraries to `ctx`. Names the standard environment already
/// declares are not touched.
pub fn register(ctx: &mut Context<'_, '_>) {
    // `add_function` only fails for names the environment declares as
    // overloads; these names are not among them.
    let _ = ctx.add_function("indexOf", index_of);
    let _ = ctx.add_function("lastIndexOf", last_index_of);
    let _ = ctx.add_function("min", list_min);
    let _ = ctx.add_function("max", list_max);
    let _ = ctx.add_function("sum", list_sum);
    let _ = ctx.add_function("isSorted", is_sorted);
    let _ = ctx.add_function("find", find);
    let _ = ctx.add_function("findAll", find_all);
    let _ = ctx.add_function("quantity", quantity);
    let _ = ctx.add_function("isQuantity", is_quantity);
    let _ = ctx.add_function("isInteger", is_integer);
    let _ = ctx.add_function("asInteger", as_integer);
    let _ = ctx.add_function("asApproximateFloat", as_approximate_float);
    let _ = ctx.add_function("sign", sign);
    let _ = ctx.add_function("add", add);
    let _ = ctx.add_function("sub", sub);
    let _ = ctx.add_function("isLessThan", is_less_than);
    let _ = ctx.add_function("isGreaterThan", is_greater_than);
    let _ = ctx.add_function("compareTo", compare_to);
}

fn list<'a>(ftx: &FunctionContext, v: &'a Value) -> Result<&'a Arc<Vec<Value>>> {
    match v {
        Value::List(items) => Ok(items),
        other => Err(ftx.error(format!("expected a list, got {}", type_name(other)))),
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::List(_) => "list",
        Value::Map(_) => "map",
        Value::Int(_) => "int",
        Value::UInt(_) => "uint",
        Value::Float(_) => "double",
        Value::String(_) => "string",
        Value::Bytes(_) => "bytes",
        Value::Bool(_) => "bool",
        Value::Null => "null_type",
        _ => "dyn",
    }
}

/// CEL's ordering of two values of one comparable type.
fn compare(ftx: &FunctionContext, a: &Value, b: &Value) -> Result<Ordering> {
    let ord = match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::UInt(x), Value::UInt(y)) => Some(x.cmp(y)),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        #[allow(clippy::cast_precision_loss)]
        (Value::Int(x), Value::Float(y)) => (*x as f64).partial_cmp(y),
        #[allow(clippy::cast_precision_loss)]
        (Value::Float(x), Value::Int(y)) => x.partial_cmp(&(*y as f64)),
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        (Value::Bytes(x), Value::Bytes(y)) => Some(x.cmp(y)),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        (Value::Duration(x), Value::Duration(y)) => Some(x.cmp(y)),
        (Value::Timestamp(x), Value::Timestamp(y)) => Some(x.cmp(y)),
        _ => None,
    };
    ord.ok_or_else(|| {
        ftx.error(format!(
            "no such overload: {} and {} are not comparable",
            type_name(a),
            type_name(b)
        ))
    })
}

/// `string.indexOf(substring)` and `list.indexOf(value)`: character index
/// or element index of the first occurrence, `-1` when absent.
fn index_of(ftx: &FunctionContext, This(this): This<Value>, needle: Value) -> Result<Value> {
    position(ftx, &this, &needle, false)
}

fn last_index_of(ftx: &FunctionContext, This(this): This<Value>, needle: Value) -> Result<Value> {
    position(ftx, &this, &needle, true)
}

fn position(ftx: &FunctionContext, this: &Value, needle: &Value, last: bool) -> Result<Value> {
    let found = match (this, needle) {
        (Value::String(s), Value::String(n)) => {
            let byte = if last {
                s.rfind(n.as_str())
            } else {
                s.find(n.as_str())
            };
            byte.map(|b| s[..b].chars().count())
        }
        (Value::List(items), v) => {
            if last {
                items.iter().rposition(|x| x == v)
            } else {
                items.iter().position(|x| x == v)
            }
        }
        _ => return Err(ftx.error("expected a string or a list receiver")),
    };
    Ok(Value::Int(
        found.map_or(-1, |i| i64::try_from(i).unwrap_or(i64::MAX)),
    ))
}

fn extreme(ftx: &FunctionContext, this: &Value, want: Ordering) -> Result<Value> {
    let items = list(ftx, this)?;
    let mut best = items.first().ok_or_else(|| {
        ftx.error(if want == Ordering::Less {
            "min called on empty list"
        } else {
            "max called on empty list"
        })
    })?;
    for item in items.iter().skip(1) {
        if compare(ftx, item, best)? == want {
            best = item;
        }
    }
    Ok(best.clone())
}

fn list_min(ftx: &FunctionContext, This(this): This<Value>) -> Result<Value> {
    extreme(ftx, &this, Ordering::Less)
}

fn list_max(ftx: &FunctionContext, This(this): This<Value>) -> Result<Value> {
    extreme(ftx, &this, Ordering::Greater)
}

fn list_sum(ftx: &FunctionContext, This(this): This<Value>) -> Result<Value> {
    let items = list(ftx, &this)?;
    let mut total = Value::Int(0);
    for item in items.iter() {
        total = match (&total, item) {
            (Value::Int(a), Value::Int(b)) => a
                .checked_add(*b)
                .map(Value::Int)
                .ok_or_else(|| ftx.error("integer overflow"))?,
            (Value::Int(0), Value::UInt(b)) => Value::UInt(*b),
            (Value::UInt(a), Value::UInt(b)) => a
                .checked_add(*b)
                .map(Value::UInt)
                .ok_or_else(|| ftx.error("unsigned integer overflow"))?,
            #[allow(clippy::cast_precision_loss)]
            (Value::Int(a), Value::Float(b)) if *a == 0 => Value::Float(*b),
            (Value::Float(a), Value::Float(b)) => Value::Float(a + b),
            (Value::Int(0), Value::Duration(d)) => Value::Duration(*d),
            (Value::Duration(a), Value::Duration(b)) => a
                .checked_add(b)
                .map(Value::Duration)
                .ok_or_else(|| ftx.error("duration overflow"))?,
            (_, other) => {
                return Err(ftx.error(format!("cannot sum a list of {}", type_name(other))));
            }
        };
    }
    Ok(total)
}

fn is_sorted(ftx: &FunctionContext, This(this): This<Value>) -> Result<Value> {
    let items = list(ftx, &this)?;
    for pair in items.windows(2) {
        if compare(ftx, &pair[0], &pair[1])? == Ordering::Greater {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(true))
}

fn regex(ftx: &FunctionContext, pattern: &str) -> Result<regex::Regex> {
    regex::Regex::new(pattern).map_err(|e| ftx.error(format!("invalid regex: {e}")))
}

/// `string.find(regex)`: the first match, or `""`.
fn find(
    ftx: &FunctionContext,
    This(this): This<Arc<String>>,
    pattern: Arc<String>,
) -> Result<Value> {
    let re = regex(ftx, &pattern)?;
    Ok(Value::String(Arc::new(
        re.find(&this)
            .map(|m| m.as_str().to_owned())
            .unwrap_or_default(),
    )))
}

/// `string.findAll(regex)` and `string.findAll(regex, limit)`: every match
/// (at most `limit` when it is not negative).
fn find_all(
    ftx: &FunctionContext,
    This(this): This<Arc<String>>,
    Arguments(args): Arguments,
) -> Result<Value> {
    let pattern = match args.first() {
        Some(Value::String(p)) => p.clone(),
        _ => return Err(ftx.error("expected a regular expression")),
    };
    let limit = match args.get(1) {
        None => None,
        Some(Value::Int(n)) => usize::try_from(*n).ok(),
        Some(_) => return Err(ftx.error("expected an int limit")),
    };
    let re = regex(ftx, &pattern)?;
    let found: Vec<Value> = re
        .find_iter(&this)
        .take(limit.unwrap_or(usize::MAX))
        .map(|m| Value::String(Arc::new(m.as_str().to_owned())))
        .collect();
    Ok(Value::List(Arc::new(found)))
}

fn quantity_value(q: Quantity) -> Value {
    Value::Opaque(Arc::new(CelQuantity(q)))
}

fn as_quantity(ftx: &FunctionContext, v: &Value) -> Result<Quantity> {
    match v {
        Value::Opaque(o) => o
            .downcast_ref::<CelQuantity>()
            .map(|q| q.0)
            .ok_or_else(|| ftx.error("expected a quantity")),
        Value::Int(i) => Ok(Quantity::from_int(*i)),
        other => Err(ftx.error(format!("expected a quantity, got {}", type_name(other)))),
    }
}

fn quantity(ftx: &FunctionContext, s: Arc<String>) -> Result<Value> {
    Quantity::parse(&s)
        .map(quantity_value)
        .map_err(|e| ftx.error(e))
}

fn is_quantity(s: Arc<String>) -> bool {
    Quantity::parse(&s).is_ok()
}

fn is_integer(ftx: &FunctionContext, This(this): This<Value>) -> Result<Value> {
    Ok(Value::Bool(as_quantity(ftx, &this)?.as_i64().is_some()))
}

fn as_integer(ftx: &FunctionContext, This(this): This<Value>) -> Result<Value> {
    as_quantity(ftx, &this)?
        .as_i64()
        .map(Value::Int)
        .ok_or_else(|| ftx.error("cannot convert value to integer"))
}

fn as_approximate_float(ftx: &FunctionContext, This(this): This<Value>) -> Result<Value> {
    Ok(Value::Float(as_quantity(ftx, &this)?.as_f64()))
}

fn sign(ftx: &FunctionContext, This(this): This<Value>) -> Result<Value> {
    Ok(Value::Int(as_quantity(ftx, &this)?.sign()))
}

fn add(ftx: &FunctionContext, This(this): This<Value>, other: Value) -> Result<Value> {
    let (a, b) = (as_quantity(ftx, &this)?, as_quantity(ftx, &other)?);
    a.add(&b)
        .map(quantity_value)
        .ok_or_else(|| ftx.error("quantity overflow"))
}

fn sub(ftx: &FunctionContext, This(this): This<Value>, other: Value) -> Result<Value> {
    let (a, b) = (as_quantity(ftx, &this)?, as_quantity(ftx, &other)?);
    a.sub(&b)
        .map(quantity_value)
        .ok_or_else(|| ftx.error("quantity overflow"))
}

fn ordering(ftx: &FunctionContext, this: &Value, other: &Value) -> Result<Ordering> {
    Ok(as_quantity(ftx, this)?.compare(&as_quantity(ftx, other)?))
}

fn is_less_than(ftx: &FunctionContext, This(this): This<Value>, other: Value) -> Result<Value> {
    Ok(Value::Bool(ordering(ftx, &this, &other)? == Ordering::Less))
}

fn is_greater_than(ftx: &FunctionContext, This(this): This<Value>, other: Value) -> Result<Value> {
    Ok(Value::Bool(
        ordering(ftx, &this, &other)? == Ordering::Greater,
    ))
}

fn compare_to(ftx: &FunctionContext, This(this): This<Value>, other: Value) -> Result<Value> {
    Ok(Value::Int(match ordering(ftx, &this, &other)? {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }))
}
