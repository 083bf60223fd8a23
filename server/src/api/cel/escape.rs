//! Property names as CEL expressions see them: Kubernetes escapes names that
//! collide with CEL reserved words (`namespace` → `__namespace__`) and the
//! characters CEL identifiers cannot hold (`x-prop` → `x__dash__prop`,
//! `a.b` → `a__dot__b`, `a/b` → `a__slash__b`, `redact__d` →
//! `redact__underscores__d`). Names outside `[a-zA-Z_.-/][a-zA-Z0-9_.-/]*`
//! cannot be reached from CEL at all.

/// CEL's reserved words (the cel-spec lexer's `RESERVED` plus literals).
const RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// The CEL name of property `name`, or `None` when CEL cannot reach it.
#[must_use]
pub fn escape(name: &str) -> Option<String> {
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    let mut chars = name.chars();
    let first = chars.next()?;
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/');
    if first.is_ascii_digit() || !allowed(first) || !chars.all(allowed) {
        return None;
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("__") {
            out.push_str("__underscores__");
            rest = after;
            continue;
        }
        match c {
            '.' => out.push_str("__dot__"),
            '-' => out.push_str("__dash__"),
            '/' => out.push_str("__slash__"),
            c => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escaping_follows_kubernetes() {
        for (name, want) in [
            ("namespace", "__namespace__"),
            ("if", "__if__"),
            ("x-prop", "x__dash__prop"),
            ("redact__d", "redact__underscores__d"),
            ("a.b", "a__dot__b"),
            ("a/b", "a__slash__b"),
            ("plain_name", "plain_name"),
            ("_x", "_x"),
            ("string", "string"),
            ("___x", "__underscores___x"),
        ] {
            assert_eq!(escape(name).as_deref(), Some(want), "{name}");
        }
        for unreachable in ["", "1abc", "a b", "a@b", "ünï"] {
            assert_eq!(escape(unreachable), None, "{unreachable}");
        }
    }
}
