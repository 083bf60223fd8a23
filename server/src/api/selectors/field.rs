//! Field selectors: `f=v`, `f==v`, `f!=v` joined by commas, with `\,` `\=`
//! `\\` escapes in values — apimachinery's `fields.ParseSelector`.

use std::fmt;

/// One term of a field selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldTerm {
    pub field: String,
    /// `false` for `=`/`==`, `true` for `!=`.
    pub negated: bool,
    /// Unescaped.
    pub value: String,
}

/// A parsed field selector: all terms must hold. Empty selects everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSelector {
    terms: Vec<FieldTerm>,
}

impl FieldSelector {
    /// Parses a selector. Field names are not checked here: the caller
    /// compares `fields()` with the kind's supported list.
    pub fn parse(input: &str) -> Result<FieldSelector, String> {
        let mut parts = split_terms(input);
        // Kubernetes sorts the raw terms; only the canonical form shows it.
        parts.sort_unstable();
        let mut terms = Vec::with_capacity(parts.len());
        for part in parts.into_iter().filter(|p| !p.is_empty()) {
            let Some((field, op, raw)) = split_term(part) else {
                return Err(format!(
                    "invalid selector: '{input}'; can't understand '{part}'"
                ));
            };
            terms.push(FieldTerm {
                field: field.to_owned(),
                negated: op == "!=",
                value: unescape(raw)?,
            });
        }
        Ok(FieldSelector { terms })
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    #[must_use]
    pub fn terms(&self) -> &[FieldTerm] {
        &self.terms
    }

    /// The field names used, in canonical order (repeats possible).
    #[must_use]
    pub fn fields(&self) -> Vec<&str> {
        self.terms.iter().map(|t| t.field.as_str()).collect()
    }

    /// Whether every term holds; `get` reads a field's value, and a missing
    /// field reads as "" (so `f!=x` selects objects without `f`).
    pub fn matches<S: AsRef<str>>(&self, get: impl Fn(&str) -> Option<S>) -> bool {
        self.terms.iter().all(|t| {
            let have = get(&t.field);
            (have.as_ref().map_or("", AsRef::as_ref) == t.value) != t.negated
        })
    }

    /// The value `field` must equal, when a term pins it (`metadata.name=x`).
    #[must_use]
    pub fn requires_exact_match(&self, field: &str) -> Option<&str> {
        self.terms
            .iter()
            .find(|t| !t.negated && t.field == field)
            .map(|t| t.value.as_str())
    }
}

/// The canonical form (`a=b,c!=d`), values escaped again.
impl fmt::Display for FieldSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.terms.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            let op = if t.negated { "!=" } else { "=" };
            write!(f, "{}{op}{}", t.field, escape(&t.value))?;
        }
        Ok(())
    }
}

/// Splits on commas not preceded by a backslash; escapes stay in the terms.
fn split_terms(input: &str) -> Vec<&str> {
    if input.is_empty() {
        return Vec::new();
    }
    let mut terms = Vec::new();
    let (mut start, mut escaped) = (0, false);
    for (i, c) in input.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            ',' => {
                terms.push(&input[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    terms.push(&input[start..]);
    terms
}

/// Splits at the first operator; `!=` and `==` are tried before `=` so no
/// `=` is left on the value. The field part takes no escapes.
fn split_term(term: &str) -> Option<(&str, &'static str, &str)> {
    term.char_indices().find_map(|(i, _)| {
        let rest = &term[i..];
        ["!=", "==", "="]
            .into_iter()
            .find(|op| rest.starts_with(op))
            .map(|op| (&term[..i], op, &rest[op.len()..]))
    })
}

fn unescape(raw: &str) -> Result<String, String> {
    let mut out = String::with_capacity(raw.len());
    let mut escaped = false;
    for c in raw.chars() {
        if escaped {
            if !matches!(c, '\\' | ',' | '=') {
                return Err(format!(
                    "invalid field selector: invalid escape sequence: \\{c}"
                ));
            }
            out.push(c);
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            ',' | '=' => {
                return Err(format!(
                    "invalid field selector: unescaped character in value: {c}"
                ));
            }
            c => out.push(c),
        }
    }
    if escaped {
        return Err("invalid field selector: invalid escape sequence: \\".to_owned());
    }
    Ok(out)
}

fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if matches!(c, '\\' | ',' | '=') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
