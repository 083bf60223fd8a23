//! PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and
//! strategic merge patch (`strategic`).

mod strategic;
mod strategic_list;
#[cfg(test)]
mod strategic_tests;

use serde_json::Value;

pub use strategic::{check_supported as check_strategic_supported, strategic};

use crate::api::decode;
use crate::api::error::{ApiError, Cause};

/// The patch types of spec 4.6, by Content-Type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchType {
    Json,
    Merge,
    Strategic,
    Apply,
}

impl PatchType {
    #[must_use]
    pub fn from_content_type(ct: &str) -> Option<PatchType> {
        match ct {
            "application/json-patch+json" => Some(PatchType::Json),
            "application/merge-patch+json" => Some(PatchType::Merge),
            "application/strategic-merge-patch+json" => Some(PatchType::Strategic),
            "application/apply-patch+yaml" => Some(PatchType::Apply),
            _ => None,
        }
    }
}

fn invalid_patch(detail: String) -> ApiError {
    ApiError::Invalid {
        kind: String::new(),
        group: String::new(),
        name: String::new(),
        causes: vec![Cause::new("FieldValueInvalid", "patch", detail)],
        code: 422,
    }
}

/// Applies a merge patch; returns the result and the patch's duplicate fields.
pub fn merge(target: &Value, body: &[u8]) -> Result<(Value, Vec<String>), ApiError> {
    let patch = decode::parse_json(body)
        .map_err(|e| ApiError::BadRequest(format!("invalid merge patch: {e}")))?;
    if !patch.value.is_object() {
        return Err(ApiError::BadRequest(
            "invalid merge patch: the patch must be a JSON object".into(),
        ));
    }
    let mut doc = target.clone();
    json_patch::merge(&mut doc, &patch.value);
    Ok((doc, patch.duplicates))
}

/// Numbers compare by value (`1` equals `1.0`), as Kubernetes' JSON patch does.
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// Kubernetes' limits on a JSON patch: its operations, and the bytes its
/// `copy` operations may add up to (so that a small patch cannot copy a
/// value into itself until the object fills memory).
const MAX_JSON_PATCH_OPERATIONS: usize = 10_000;
const MAX_JSON_PATCH_COPY_BYTES: usize = 3 * 1024 * 1024;

/// Applies a JSON patch operation by operation.
pub fn json(target: &Value, body: &[u8]) -> Result<Value, ApiError> {
    let ops: Vec<json_patch::PatchOperation> = serde_json::from_slice(body)
        .map_err(|e| ApiError::BadRequest(format!("invalid JSON patch: {e}")))?;
    if ops.len() > MAX_JSON_PATCH_OPERATIONS {
        return Err(ApiError::TooLarge(format!(
            "The allowed maximum operations in a JSON patch is {MAX_JSON_PATCH_OPERATIONS}, got {}",
            ops.len()
        )));
    }
    let mut doc = target.clone();
    let mut copied = 0;
    for (i, op) in ops.into_iter().enumerate() {
        if let json_patch::PatchOperation::Copy(c) = &op
            && let Some(source) = doc.pointer(&c.from.to_string())
        {
            copied += encoded_size(source);
            if copied > MAX_JSON_PATCH_COPY_BYTES {
                return Err(invalid_patch(format!(
                    "operation {i}: Unable to copy, the accumulated size increase of copy is {copied}, exceeding the limit {MAX_JSON_PATCH_COPY_BYTES}"
                )));
            }
        }
        if let json_patch::PatchOperation::Test(t) = &op {
            let actual = doc.pointer(&t.path.to_string());
            if !actual.is_some_and(|v| json_equal(v, &t.value)) {
                return Err(invalid_patch(format!(
                    "test operation {i} failed: value at {} does not match",
                    t.path
                )));
            }
            continue;
        }
        json_patch::patch(&mut doc, &[op])
            .map_err(|e| invalid_patch(format!("operation {i}: {e}")))?;
    }
    Ok(doc)
}

/// The bytes of a value's compact JSON, counted without writing it.
fn encoded_size(value: &Value) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_and_json_patches() {
        let doc = json!({"a": 1, "b": {"c": 2}});
        let (m, d) = merge(&doc, br#"{"b":{"c":null,"d":3},"e":"x"}"#).expect("merge");
        assert_eq!(m, json!({"a": 1, "b": {"d": 3}, "e": "x"}));
        assert!(d.is_empty());
        let j = json(&doc, br#"[{"op":"test","path":"/a","value":1.0},{"op":"replace","path":"/a","value":5},{"op":"add","path":"/b/z","value":[1]}]"#).expect("patch");
        assert_eq!(j, json!({"a": 5, "b": {"c": 2, "z": [1]}}));
        assert!(matches!(
            json(&doc, br#"[{"op":"test","path":"/a","value":2}]"#),
            Err(ApiError::Invalid { .. })
        ));
        assert!(matches!(
            json(&doc, br#"[{"op":"remove","path":"/zz"}]"#),
            Err(ApiError::Invalid { .. })
        ));
        assert!(matches!(json(&doc, b"{"), Err(ApiError::BadRequest(_))));
        assert!(matches!(merge(&doc, b"[1]"), Err(ApiError::BadRequest(_))));
    }

    #[test]
    fn copies_stop_at_the_accumulated_size_limit() {
        let doc = json!({"a": "x".repeat(512 * 1024)});
        let op = |to: usize| format!(r#"{{"op":"copy","from":"/a","path":"/c{to}"}}"#);
        // Each copy adds 512 KiB and two quotes: five fit in 3 MiB, six do not.
        let five: Vec<String> = (0..5).map(op).collect();
        assert!(json(&doc, format!("[{}]", five.join(",")).as_bytes()).is_ok());
        let six: Vec<String> = (0..6).map(op).collect();
        let err = json(&doc, format!("[{}]", six.join(",")).as_bytes()).unwrap_err();
        assert!(
            err.to_string()
                .contains("accumulated size increase of copy"),
            "{err}"
        );
        // Doubling a value into itself is refused long before memory runs out.
        let bomb: Vec<String> = (0..40)
            .map(|_| r#"{"op":"copy","from":"/b","path":"/b/-"}"#.to_string())
            .collect();
        let err = json(
            &json!({"b": [["x"]]}),
            format!("[{}]", bomb.join(",")).as_bytes(),
        )
        .unwrap_err();
        assert_eq!(err.code(), 422, "{err}");
        let many = vec![r#"{"op":"test","path":"/a","value":"y"}"#; 10_001].join(",");
        assert_eq!(
            json(&doc, format!("[{many}]").as_bytes())
                .unwrap_err()
                .code(),
            413
        );
    }
}
