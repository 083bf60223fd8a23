//! `FieldError`: one problem at one field path, printed the way Kubernetes
//! prints a `field.Error` (`spec.x: Invalid value: "v": detail`).

use std::fmt::{self, Write as _};

use serde_json::Value;

/// Kubernetes' `field.ErrorType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorType {
    Required,
    Invalid,
    /// A JSON type mismatch; printed like `Invalid` (as Kubernetes does).
    TypeInvalid,
    NotSupported,
    Duplicate,
    Forbidden,
    TooLong,
    TooMany,
    NotFound,
    Internal,
}

impl ErrorType {
    /// The text after the field path (`Required value`, `Invalid value`, ...).
    #[must_use]
    pub fn text(self) -> &'static str {
        match self {
            ErrorType::Required => "Required value",
            ErrorType::Invalid | ErrorType::TypeInvalid => "Invalid value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
            ErrorType::NotFound => "Not found",
            ErrorType::Internal => "Internal error",
        }
    }

    /// The `details.causes[].reason` of a Status (`FieldValueRequired`, ...).
    #[must_use]
    pub fn reason(self) -> &'static str {
        match self {
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::TypeInvalid => "FieldValueTypeInvalid",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::NotFound => "FieldValueNotFound",
            ErrorType::Internal => "InternalError",
        }
    }

    /// Kubernetes never prints the offending value for these.
    fn hides_value(self) -> bool {
        matches!(
            self,
            ErrorType::Required | ErrorType::Forbidden | ErrorType::TooLong | ErrorType::Internal
        )
    }
}

/// One validation problem.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    pub error_type: ErrorType,
    /// Path such as `metadata.labels[app]` or `spec.finalizers[0]`.
    pub field: String,
    /// The offending value; `None` leaves it out of the message.
    pub value: Option<Value>,
    pub detail: String,
}

impl FieldError {
    #[must_use]
    pub fn required(field: impl Into<String>, detail: impl Into<String>) -> FieldError {
        FieldError {
            error_type: ErrorType::Required,
            field: field.into(),
            value: None,
            detail: detail.into(),
        }
    }

    #[must_use]
    pub fn invalid(
        field: impl Into<String>,
        value: Value,
        detail: impl Into<String>,
    ) -> FieldError {
        FieldError {
            error_type: ErrorType::Invalid,
            field: field.into(),
            value: Some(value),
            detail: detail.into(),
        }
    }

    #[must_use]
    pub fn forbidden(field: impl Into<String>, detail: impl Into<String>) -> FieldError {
        FieldError {
            error_type: ErrorType::Forbidden,
            field: field.into(),
            value: None,
            detail: detail.into(),
        }
    }

    /// A value of the wrong JSON type, worded as CRD validation words it:
    /// `count: Invalid value: "string": count in body must be of type integer: "string"`.
    #[must_use]
    pub fn type_invalid(field: impl Into<String>, expected: &str, actual: &Value) -> FieldError {
        let field = field.into();
        let actual = json_type(actual);
        let detail = must_be_of_type(&field, expected, actual);
        FieldError {
            error_type: ErrorType::TypeInvalid,
            field,
            value: Some(Value::from(actual)),
            detail,
        }
    }

    /// A value outside an enumeration: `Unsupported value: "x": supported values: "a", "b"`.
    #[must_use]
    pub fn not_supported(
        field: impl Into<String>,
        value: Value,
        supported: &[Value],
    ) -> FieldError {
        let quoted: Vec<String> = supported
            .iter()
            .map(|v| match v {
                Value::String(s) => go_quote(s),
                other => go_quote(&other.to_string()),
            })
            .collect();
        let detail = if quoted.is_empty() {
            String::new()
        } else {
            format!("supported values: {}", quoted.join(", "))
        };
        FieldError {
            error_type: ErrorType::NotSupported,
            field: field.into(),
            value: Some(value),
            detail,
        }
    }

    /// A string longer than a schema's `maxLength` (the value is never shown).
    #[must_use]
    pub fn too_long(field: impl Into<String>, max: u64) -> FieldError {
        let unit = if max == 1 { "byte" } else { "bytes" };
        FieldError {
            error_type: ErrorType::TooLong,
            field: field.into(),
            value: None,
            detail: format!("may not be more than {max} {unit}"),
        }
    }

    /// A list or object with more than `max` items (`Too many: 4: must have at most 3 items`).
    #[must_use]
    pub fn too_many(field: impl Into<String>, actual: u64, max: u64) -> FieldError {
        FieldError {
            error_type: ErrorType::TooMany,
            field: field.into(),
            value: Some(Value::from(actual)),
            detail: format!("must have at most {max} items"),
        }
    }

    /// A value that repeats an earlier one (`Duplicate value: "a"`).
    #[must_use]
    pub fn duplicate(field: impl Into<String>, value: Value) -> FieldError {
        FieldError {
            error_type: ErrorType::Duplicate,
            field: field.into(),
            value: Some(value),
            detail: String::new(),
        }
    }

    /// Whether the error is an integer beyond int64, which no Kubernetes
    /// decoder can read: a bad request for every kind, not a validation
    /// failure.
    #[must_use]
    pub fn is_integer_overflow(&self) -> bool {
        matches!(&self.value, Some(Value::Number(n)) if n.is_u64() && !n.is_i64())
    }

    /// The Status cause reason (`FieldValueRequired`, ...).
    #[must_use]
    pub fn reason(&self) -> &'static str {
        self.error_type.reason()
    }

    /// Everything after `field: ` — the Status cause's `message`.
    #[must_use]
    pub fn body(&self) -> String {
        let mut s = self.error_type.text().to_owned();
        if let (Some(value), false) = (&self.value, self.error_type.hides_value()) {
            s.push_str(": ");
            s.push_str(&display_value(value));
        }
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }

    /// The same error under a parent path (`spec.versions[0].schema`).
    #[must_use]
    pub fn prefixed(mut self, prefix: &str) -> FieldError {
        if !prefix.is_empty() {
            self.field = if self.field.is_empty() {
                prefix.to_owned()
            } else if self.field.starts_with('[') {
                format!("{prefix}{}", self.field)
            } else {
                format!("{prefix}.{}", self.field)
            };
        }
        self
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

impl std::error::Error for FieldError {}

/// kube-openapi's wording for a type or format mismatch.
pub(super) fn must_be_of_type(field: &str, expected: &str, actual: &str) -> String {
    let subject = if field.is_empty() {
        "body".to_owned()
    } else {
        format!("{field} in body")
    };
    format!("{subject} must be of type {expected}: {}", go_quote(actual))
}

/// How kube-openapi names the field in its messages: `spec.x in body`, or
/// `body` for the whole object.
pub(super) fn subject(field: &str) -> String {
    if field.is_empty() {
        "body".to_owned()
    } else {
        format!("{field} in body")
    }
}

/// The JSON type name of a value as kube-openapi reports it.
pub(super) fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A value as a Go `field.Error` prints it: strings quoted, scalars plain,
/// and lists and maps of an unstructured object with `%#v`
/// (`map[string]interface {}{"name":"a"}`).
fn display_value(v: &Value) -> String {
    match v {
        Value::String(s) => go_quote(s),
        Value::Array(_) | Value::Object(_) => go_sharp_v(v),
        other => other.to_string(),
    }
}

/// Go's `%#v` of a value decoded into `interface{}`.
fn go_sharp_v(v: &Value) -> String {
    match v {
        Value::Null => "interface {}(nil)".to_owned(),
        Value::String(s) => go_quote(s),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(go_sharp_v).collect();
            format!("[]interface {{}}{{{}}}", inner.join(", "))
        }
        Value::Object(fields) => {
            let mut entries: Vec<(&String, &Value)> = fields.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let inner: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}:{}", go_quote(k), go_sharp_v(v)))
                .collect();
            format!("map[string]interface {{}}{{{}}}", inner.join(", "))
        }
        other => other.to_string(),
    }
}

/// Go's `strconv.Quote`: double quotes, backslash escapes, printable Unicode kept.
#[must_use]
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x80 && c.is_control() => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn required_hides_value_and_shows_detail() {
        assert_eq!(
            FieldError::required("metadata", "").to_string(),
            "metadata: Required value"
        );
        assert_eq!(
            FieldError::required("spec.x", "must be set").to_string(),
            "spec.x: Required value: must be set"
        );
    }

    #[test]
    fn invalid_quotes_strings_and_prints_numbers_plainly() {
        assert_eq!(
            FieldError::invalid("metadata.name", json!("A b"), "bad name").to_string(),
            "metadata.name: Invalid value: \"A b\": bad name"
        );
        assert_eq!(
            FieldError::invalid("count", json!(-3), "must be positive").to_string(),
            "count: Invalid value: -3: must be positive"
        );
        assert_eq!(
            FieldError::invalid("x", json!(true), "").to_string(),
            "x: Invalid value: true"
        );
        assert_eq!(
            FieldError::invalid("x", Value::Null, "d").to_string(),
            "x: Invalid value: null: d"
        );
    }

    #[test]
    fn type_invalid_uses_crd_wording() {
        let e = FieldError::type_invalid("count", "integer", &json!("five"));
        assert_eq!(
            e.to_string(),
            "count: Invalid value: \"string\": count in body must be of type integer: \"string\""
        );
        assert_eq!(e.reason(), "FieldValueTypeInvalid");
        assert_eq!(
            e.body(),
            "Invalid value: \"string\": count in body must be of type integer: \"string\""
        );
        let root = FieldError::type_invalid("", "object", &json!([]));
        assert_eq!(root.detail, "body must be of type object: \"array\"");
        assert_eq!(json_type(&json!(1.5)), "number");
        assert_eq!(json_type(&json!(1)), "integer");
    }

    #[test]
    fn not_supported_lists_quoted_values() {
        let e = FieldError::not_supported(
            "type",
            json!("Odd"),
            &[json!("Normal"), json!("Warning"), json!(3)],
        );
        assert_eq!(
            e.to_string(),
            "type: Unsupported value: \"Odd\": supported values: \"Normal\", \"Warning\", \"3\""
        );
        assert_eq!(e.reason(), "FieldValueNotSupported");
    }

    #[test]
    fn prefixing_joins_paths() {
        let e = FieldError::forbidden("properties[spec].type", "x")
            .prefixed("spec.validation.openAPIV3Schema");
        assert_eq!(
            e.field,
            "spec.validation.openAPIV3Schema.properties[spec].type"
        );
        assert_eq!(
            FieldError::forbidden("[0]", "x").prefixed("items").field,
            "items[0]"
        );
        assert_eq!(
            FieldError::forbidden("", "x").prefixed("spec").field,
            "spec"
        );
        assert_eq!(FieldError::forbidden("a", "x").prefixed("").field, "a");
    }

    #[test]
    fn quoting_follows_go() {
        assert_eq!(go_quote("a\"b\\c\n\u{1}é"), "\"a\\\"b\\\\c\\n\\x01é\"");
        assert_eq!(go_quote("\u{85}"), "\"\\u0085\"");
    }
}
