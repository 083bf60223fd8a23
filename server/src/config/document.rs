//! Reading one of the configuration files of spec 2.7: from disk, as JSON
//! or YAML, why a document is refused, and the one line a refusal becomes
//! at start-up.

use std::path::Path;

use serde_json::Value;

/// Why a document is refused: it cannot be read as the kind, or it breaks rules.
#[derive(Debug, PartialEq, Eq)]
pub enum Problem {
    Load(String),
    Invalid(String),
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Load(s) | Problem::Invalid(s) => f.write_str(s),
        }
    }
}

/// Reads the file at `path` and hands it to `parse`; errors are one line
/// in kube-apiserver's words, naming the file for `what` (e.g.
/// `authentication configuration`) and the kind it failed to load as.
pub fn load<T>(
    path: &Path,
    what: &str,
    loaded_as: &str,
    parse: impl FnOnce(&[u8]) -> Result<T, Problem>,
) -> Result<T, String> {
    let shown = path.display().to_string();
    let data =
        std::fs::read(path).map_err(|e| format!("failed to read {what} file {shown:?}: {e}"))?;
    parse(&data).map_err(|e| match e {
        Problem::Load(detail) => {
            format!("failed to load {loaded_as} from file {shown:?}: {detail}")
        }
        Problem::Invalid(line) => line,
    })
}

/// A document's text as JSON (a leading `{`) or YAML; not UTF-8, empty
/// or unreadable documents are `Problem::Load`.
pub fn decode(data: &[u8]) -> Result<Value, Problem> {
    let text = std::str::from_utf8(data)
        .map_err(|_| Problem::Load("the file is not UTF-8 text".into()))?;
    if text.trim().is_empty() {
        return Err(Problem::Load("empty config data".into()));
    }
    if text.trim_start().starts_with('{') {
        serde_json::from_str(text).map_err(|e| Problem::Load(e.to_string()))
    } else {
        serde_saphyr::from_str(text).map_err(|e| Problem::Load(one_line(&e.to_string())))
    }
}

/// A multi-line error (YAML's, with its pointer) as one line.
pub fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
