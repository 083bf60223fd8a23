//! apps/v1 ControllerRevision rules: `data` is mandatory and never changes,
//! `revision` is not negative.

use serde_json::Value;

use crate::api::error::Cause;
use crate::api::kind::Strategy;

/// Go's `%#v` of the `runtime.RawExtension` holding `data` (its JSON bytes).
fn go_raw_extension(data: &Value) -> String {
    let bytes: Vec<String> = data
        .to_string()
        .bytes()
        .map(|b| format!("{b:#x}"))
        .collect();
    format!(
        "runtime.RawExtension{{Raw:[]uint8{{{}}}, Object:runtime.Object(nil)}}",
        bytes.join(", ")
    )
}

/// apps/v1 ControllerRevision.
pub struct ControllerRevisionStrategy;

impl Strategy for ControllerRevisionStrategy {
    fn validate(&self, obj: &Value) -> Vec<Cause> {
        let mut out = Vec::new();
        if obj.get("data").is_none_or(Value::is_null) {
            out.push(Cause::new(
                "FieldValueRequired",
                "data",
                "Required value: data is mandatory",
            ));
        }
        if let Some(revision) = obj.get("revision").and_then(Value::as_i64)
            && revision < 0
        {
            out.push(Cause::new(
                "FieldValueInvalid",
                "revision",
                format!("Invalid value: {revision}: must be greater than or equal to 0"),
            ));
        }
        out
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<Cause> {
        let mut out = self.validate(new);
        if let Some(data) = new.get("data").filter(|d| Some(*d) != old.get("data")) {
            out.push(Cause::new(
                "FieldValueInvalid",
                "data",
                format!(
                    "Invalid value: {}: field is immutable",
                    go_raw_extension(data)
                ),
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::api::kinds::cause_lines;

    #[test]
    fn data_is_mandatory_and_frozen() {
        let strategy = ControllerRevisionStrategy;
        assert_eq!(
            cause_lines(&strategy.validate(&json!({"revision": -1}))),
            [
                "data: Required value: data is mandatory",
                "revision: Invalid value: -1: must be greater than or equal to 0"
            ]
        );
        let old = json!({"revision": 1, "data": {}});
        let new = json!({"revision": 2, "data": {"a": 1}});
        assert_eq!(
            cause_lines(&strategy.validate_update(&old.clone(), &old)),
            Vec::<String>::new()
        );
        let lines = cause_lines(&strategy.validate_update(&new, &old));
        assert_eq!(lines.len(), 1);
        assert!(
            lines[0]
                .starts_with("data: Invalid value: runtime.RawExtension{Raw:[]uint8{0x7b, 0x22")
        );
        assert!(lines[0].ends_with("}: field is immutable"));
    }
}
