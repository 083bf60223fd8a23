//! Parses CEL source into a program: on a thread with a large stack (the
//! parser recurses once per nesting level), after bounding the source length.

use std::sync::{Arc, LazyLock};

use cel::common::types::{DYN_TYPE, LIST_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{Env, ExecutionError, Program, Value};

/// Longest expression this server compiles, in bytes.
pub const MAX_EXPRESSION_BYTES: usize = 64 * 1024;

/// Stack of the parsing thread: enough for the deepest nesting a
/// `MAX_EXPRESSION_BYTES` expression can hold.
const PARSER_STACK_BYTES: usize = 256 * 1024 * 1024;

/// The standard library plus the strings extension (`lowerAscii`, `split`,
/// `indexOf` on strings, ...); the Kubernetes libraries are added per
/// evaluation (see `library`).
pub static ENV: LazyLock<Arc<Env>> = LazyLock::new(|| {
    let mut env = Env::stdlib();
    // Declaring the extension's overloads on a fresh environment cannot clash.
    let _ = env.add_extension(cel::extensions::strings);
    // The extension declares `indexOf`/`lastIndexOf` on strings; the lists
    // library's versions join those declarations.
    let _ = env.add_member_overload(
        "indexOf",
        "list_indexOf_dyn",
        LIST_TYPE,
        vec![DYN_TYPE],
        list_index_of,
    );
    let _ = env.add_member_overload(
        "lastIndexOf",
        "list_lastIndexOf_dyn",
        LIST_TYPE,
        vec![DYN_TYPE],
        list_last_index_of,
    );
    Arc::new(env)
});

/// Compiles `source`; the error is the text after `compilation failed: `.
pub fn compile(source: &str) -> Result<Arc<Program>, String> {
    if source.len() > MAX_EXPRESSION_BYTES {
        return Err(format!(
            "expression is {} bytes long, more than the {MAX_EXPRESSION_BYTES} allowed",
            source.len()
        ));
    }
    let owned = source.to_owned();
    let env = Arc::clone(&ENV);
    let parsed = std::thread::Builder::new()
        .name("cel-parse".into())
        .stack_size(PARSER_STACK_BYTES)
        .spawn(move || env.compile(&owned).map_err(|e| e.to_string()))
        .map_err(|e| format!("cannot start the parser: {e}"))?
        .join()
        .map_err(|_| "the parser failed on this expression".to_owned())?;
    parsed.map(Arc::new)
}

/// Line and column (both from 1, columns in characters) where the
/// expression `id` of `program` starts, as CEL's error messages give them.
#[must_use]
pub fn position(program: &Program, id: u64) -> (usize, usize) {
    let source = &program.source_info().source;
    let start = program
        .source_info()
        .offset_for(id)
        .map_or(0, |(start, _)| start as usize);
    let before = source.get(..start).unwrap_or(source);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

fn list_index_of<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    list_position(&args, false)
}

fn list_last_index_of<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    list_position(&args, true)
}

/// The index of the first (or last) element equal to the argument, or -1.
fn list_position<'b, 'v>(
    args: &[CowVal<'b, 'v>],
    last: bool,
) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let [list, needle] = args else {
        return Err(ExecutionError::invalid_argument_count(2, args.len()));
    };
    let Value::List(items) = Value::try_from(list.as_ref())? else {
        return Err(ExecutionError::function_error("indexOf", "expected a list"));
    };
    let needle = Value::try_from(needle.as_ref())?;
    let found = if last {
        items.iter().rposition(|x| *x == needle)
    } else {
        items.iter().position(|x| *x == needle)
    };
    let index = found.map_or(-1, |i| i64::try_from(i).unwrap_or(i64::MAX));
    let boxed: Box<dyn Val> = Box::<dyn Val>::try_from(Value::Int(index))?;
    Ok(CowVal::Owned(boxed))
}
