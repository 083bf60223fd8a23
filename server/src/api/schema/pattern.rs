//! `Pattern`: a schema's `pattern` keyword, compiled once when the schema is
//! read. Kubernetes compiles it with Go's RE2 engine; the `regex` crate speaks
//! the same dialect (no look-around, no back-references) and also runs in
//! linear time.

use std::fmt;

use regex::Regex;

/// A compiled `pattern`. Two patterns are equal when their sources are.
#[derive(Clone)]
pub struct Pattern {
    source: String,
    regex: Regex,
}

impl Pattern {
    /// Compiles `source`; the error text says why it is not a regular expression.
    pub fn new(source: &str) -> Result<Pattern, String> {
        Regex::new(source)
            .map(|regex| Pattern {
                source: source.to_owned(),
                regex,
            })
            .map_err(|e| e.to_string())
    }

    /// The pattern as written in the schema.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether `s` contains a match (JSON Schema patterns are not anchored).
    #[must_use]
    pub fn is_match(&self, s: &str) -> bool {
        self.regex.is_match(s)
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.source == other.source
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pattern({:?})", self.source)
    }
}
