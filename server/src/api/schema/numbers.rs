//! Numbers as Kubernetes compares and prints them: JSON equality that treats
//! `1` and `1.0` alike, and Go's `%v` for a float64.

use serde_json::Value;

/// Equality that compares numbers by value (`1` equals `1.0`), recursively.
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(i), Some(j), _, _) => i == j,
                (_, _, Some(i), Some(j)) => i == j,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Go's `fmt.Sprint(float64)`: the shortest digits that round-trip, in
/// exponent form (`1e+06`, `1.5e-05`) when the decimal exponent is below -4
/// or at least 6 (strconv's `'g'` with the shortest precision).
#[must_use]
pub fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        format!("{f}")
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn floats_print_like_go() {
        assert_eq!(go_float(10.0), "10");
        assert_eq!(go_float(0.5), "0.5");
        assert_eq!(go_float(1e21), "1e+21");
        assert_eq!(go_float(100_000.0), "100000");
        assert_eq!(go_float(1_000_000.0), "1e+06");
        assert_eq!(go_float(123_456_789.0), "1.23456789e+08");
        assert_eq!(go_float(0.000_01), "1e-05");
        assert_eq!(go_float(-2.5), "-2.5");
    }

    #[test]
    fn numbers_compare_by_value_everywhere() {
        assert!(json_eq(&json!([1, {"a": 2}]), &json!([1.0, {"a": 2.0}])));
        assert!(!json_eq(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
    }
}
