//! The JSONPath subset `kubectl get -o jsonpath` and CRD printer columns use:
//! `.field`, `['field']`, escaped dots (`.metadata.labels.app\.io/name`),
//! `[n]` / `[-n]`, `[*]` and `.*`, slices `[a:b]`, recursive `..field`, and
//! filters `[?(@.path == "x")]` (`==`, `!=`, `<`, `>`, `<=`, `>=`, or bare
//! existence `[?(@.path)]`). An optional `{ }` wrapper and leading `$` are
//! accepted.

use serde_json::Value;

/// One step of a parsed path.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Field(String),
    AllFields,
    Index(i64),
    Slice(Option<i64>, Option<i64>),
    Recursive(String),
    Filter(Filter),
}

#[derive(Clone, Debug, PartialEq)]
struct Filter {
    path: Vec<Step>,
    test: Option<(Op, Value)>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
}

/// A parsed path, ready to evaluate against many objects.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonPath {
    steps: Vec<Step>,
}

impl JsonPath {
    /// Parses a path; the error says what is wrong.
    pub fn parse(text: &str) -> Result<JsonPath, String> {
        let mut t = text.trim();
        if let Some(inner) = t.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            t = inner.trim();
        }
        t = t.strip_prefix('$').unwrap_or(t);
        Ok(JsonPath {
            steps: parse_steps(t)?,
        })
    }

    /// Every value the path selects, in document order.
    #[must_use]
    pub fn find<'a>(&self, root: &'a Value) -> Vec<&'a Value> {
        eval(&self.steps, root)
    }
}

fn parse_steps(mut t: &str) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    while !t.is_empty() {
        if let Some(rest) = t.strip_prefix("..") {
            let (name, rest) = field_name(rest);
            if name.is_empty() {
                return Err(format!("missing field name after '..' in {t:?}"));
            }
            steps.push(Step::Recursive(name));
            t = rest;
        } else if let Some(rest) = t.strip_prefix('.') {
            if let Some(rest) = rest.strip_prefix('*') {
                steps.push(Step::AllFields);
                t = rest;
                continue;
            }
            let (name, rest) = field_name(rest);
            // A lone `.` (the whole object) selects nothing more.
            if !name.is_empty() {
                steps.push(Step::Field(name));
            }
            t = rest;
        } else if let Some(rest) = t.strip_prefix('[') {
            let end = closing_bracket(rest).ok_or_else(|| format!("unclosed '[' in {t:?}"))?;
            steps.push(bracket(rest[..end].trim())?);
            t = &rest[end + 1..];
        } else {
            // A path may start with a bare field name (`metadata.name`).
            let (name, rest) = field_name(t);
            if name.is_empty() {
                return Err(format!("unexpected {t:?}"));
            }
            steps.push(Step::Field(name));
            t = rest;
        }
    }
    Ok(steps)
}

/// A field name up to the next unescaped `.` or `[`; `\.` is a literal dot.
fn field_name(t: &str) -> (String, &str) {
    let mut name = String::new();
    let mut chars = t.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some((_, '.'))) => {
                name.push('.');
                chars.next();
            }
            '.' | '[' => return (name, &t[i..]),
            _ => name.push(c),
        }
    }
    (name, "")
}

/// The index of the `]` closing a bracket, skipping quoted text and nesting.
fn closing_bracket(t: &str) -> Option<usize> {
    let (mut depth, mut quote) = (0usize, None);
    for (i, c) in t.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '[') => depth += 1,
            (None, ']') if depth == 0 => return Some(i),
            (None, ']') => depth -= 1,
            _ => {}
        }
    }
    None
}

fn unquote(t: &str) -> Option<&str> {
    let t = t.trim();
    ['\'', '"'].into_iter().find_map(|q| {
        t.strip_prefix(q)
            .and_then(|s| s.strip_suffix(q))
            .filter(|s| !s.contains(q))
    })
}

fn bracket(inner: &str) -> Result<Step, String> {
    if inner == "*" {
        return Ok(Step::AllFields);
    }
    if let Some(name) = unquote(inner) {
        return Ok(Step::Field(name.to_string()));
    }
    if let Some(expr) = inner.strip_prefix("?(").and_then(|s| s.strip_suffix(')')) {
        return filter(expr.trim()).map(Step::Filter);
    }
    let int = |s: &str| -> Result<Option<i64>, String> {
        let s = s.trim();
        if s.is_empty() {
            return Ok(None);
        }
        s.parse()
            .map(Some)
            .map_err(|_| format!("invalid array index {s:?}"))
    };
    if let Some((a, b)) = inner.split_once(':') {
        let b = b.split(':').next().unwrap_or(b);
        return Ok(Step::Slice(int(a)?, int(b)?));
    }
    int(inner)?
        .map(Step::Index)
        .ok_or_else(|| "empty brackets".to_string())
}

fn filter(expr: &str) -> Result<Filter, String> {
    let ops = [
        ("==", Op::Eq),
        ("!=", Op::Ne),
        ("<=", Op::Le),
        (">=", Op::Ge),
        ("<", Op::Lt),
        (">", Op::Gt),
    ];
    let split = ops
        .iter()
        .find_map(|(text, op)| expr.split_once(text).map(|(l, r)| (l, *op, r)));
    let (left, test) = match split {
        Some((l, op, r)) => (l.trim(), Some((op, literal(r.trim())?))),
        None => (expr, None),
    };
    let path = left
        .strip_prefix('@')
        .ok_or_else(|| format!("filter must start with '@': {expr:?}"))?;
    Ok(Filter {
        path: parse_steps(path)?,
        test,
    })
}

fn literal(t: &str) -> Result<Value, String> {
    if let Some(s) = unquote(t) {
        return Ok(Value::from(s));
    }
    serde_json::from_str(t).map_err(|_| format!("invalid filter value {t:?}"))
}

fn eval<'a>(steps: &[Step], root: &'a Value) -> Vec<&'a Value> {
    let mut current = vec![root];
    for step in steps {
        let mut next = Vec::new();
        for v in current {
            apply(step, v, &mut next);
        }
        current = next;
    }
    current
}

fn apply<'a>(step: &Step, v: &'a Value, out: &mut Vec<&'a Value>) {
    match step {
        Step::Field(name) => out.extend(v.get(name.as_str())),
        Step::AllFields => match v {
            Value::Object(m) => out.extend(m.values()),
            Value::Array(a) => out.extend(a.iter()),
            _ => {}
        },
        Step::Index(i) => {
            if let Some(a) = v.as_array() {
                out.extend(position(*i, a.len()).and_then(|i| a.get(i)));
            }
        }
        Step::Slice(from, to) => {
            if let Some(a) = v.as_array() {
                let len = a.len();
                let start = from.map_or(0, |f| clamp(f, len));
                let end = to.map_or(len, |t| clamp(t, len));
                if start < end {
                    out.extend(&a[start..end]);
                }
            }
        }
        Step::Recursive(name) => descend(name, v, out),
        Step::Filter(f) => {
            let candidates: Vec<&Value> = match v {
                Value::Array(a) => a.iter().collect(),
                other => vec![other],
            };
            out.extend(candidates.into_iter().filter(|c| f.admits(c)));
        }
    }
}

fn position(i: i64, len: usize) -> Option<usize> {
    let len = i64::try_from(len).ok()?;
    let i = if i < 0 { len + i } else { i };
    usize::try_from(i).ok().filter(|_| i < len)
}

fn clamp(i: i64, len: usize) -> usize {
    let l = i64::try_from(len).unwrap_or(i64::MAX);
    let i = if i < 0 { (l + i).max(0) } else { i.min(l) };
    usize::try_from(i).unwrap_or(0)
}

fn descend<'a>(name: &str, v: &'a Value, out: &mut Vec<&'a Value>) {
    match v {
        Value::Object(m) => {
            out.extend(m.get(name));
            for child in m.values() {
                descend(name, child, out);
            }
        }
        Value::Array(a) => {
            for child in a {
                descend(name, child, out);
            }
        }
        _ => {}
    }
}

impl Filter {
    fn admits(&self, item: &Value) -> bool {
        let found = eval(&self.path, item);
        let Some((op, want)) = &self.test else {
            return !found.is_empty();
        };
        found.iter().any(|got| compare(got, *op, want))
    }
}

fn compare(got: &Value, op: Op, want: &Value) -> bool {
    use std::cmp::Ordering;
    let ord = match (got, want) {
        (Value::Number(a), Value::Number(b)) => a.as_f64().partial_cmp(&b.as_f64()),
        (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
        (a, b) => (a == b).then_some(Ordering::Equal),
    };
    match op {
        Op::Eq => ord == Some(Ordering::Equal),
        Op::Ne => ord != Some(Ordering::Equal),
        Op::Lt => ord == Some(Ordering::Less),
        Op::Gt => ord == Some(Ordering::Greater),
        Op::Le => matches!(ord, Some(Ordering::Less | Ordering::Equal)),
        Op::Ge => matches!(ord, Some(Ordering::Greater | Ordering::Equal)),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn find(path: &str, v: &Value) -> Vec<Value> {
        JsonPath::parse(path)
            .unwrap_or_else(|e| panic!("{path}: {e}"))
            .find(v)
            .into_iter()
            .cloned()
            .collect()
    }

    #[test]
    fn fields_indexes_and_wildcards() {
        let v = json!({
            "metadata": {"name": "a", "labels": {"app.io/name": "web"}},
            "spec": {"ports": [{"port": 80}, {"port": 443}, {"port": 8080}]}
        });
        assert_eq!(find(".metadata.name", &v), [json!("a")]);
        assert_eq!(find("{.metadata.name}", &v), [json!("a")]);
        assert_eq!(find("$.metadata.name", &v), [json!("a")]);
        assert_eq!(find(".metadata.labels.app\\.io/name", &v), [json!("web")]);
        assert_eq!(find(".metadata.labels['app.io/name']", &v), [json!("web")]);
        assert_eq!(find(".spec.ports[1].port", &v), [json!(443)]);
        assert_eq!(find(".spec.ports[-1].port", &v), [json!(8080)]);
        assert_eq!(
            find(".spec.ports[*].port", &v),
            [json!(80), json!(443), json!(8080)]
        );
        assert_eq!(find(".spec.ports[0:2].port", &v), [json!(80), json!(443)]);
        assert_eq!(find("..port", &v), [json!(80), json!(443), json!(8080)]);
        assert!(find(".spec.missing", &v).is_empty());
        assert!(find(".spec.ports[7]", &v).is_empty());
    }

    #[test]
    fn filters() {
        let v = json!({"status": {"conditions": [
            {"type": "Ready", "status": "True", "n": 2},
            {"type": "Synced", "status": "False", "n": 5}
        ]}});
        assert_eq!(
            find(".status.conditions[?(@.type==\"Ready\")].status", &v),
            [json!("True")]
        );
        assert_eq!(
            find(".status.conditions[?(@.type != 'Ready')].type", &v),
            [json!("Synced")]
        );
        assert_eq!(
            find(".status.conditions[?(@.n > 3)].type", &v),
            [json!("Synced")]
        );
        assert_eq!(find(".status.conditions[?(@.n)].n", &v).len(), 2);
    }

    #[test]
    fn bad_paths_are_errors() {
        assert!(JsonPath::parse(".spec.ports[0").is_err());
        assert!(JsonPath::parse(".spec.ports[x]").is_err());
        assert!(JsonPath::parse(".a[?(b==1)]").is_err());
    }
}
