//! Reading `resource.Quantity` values (`100m`, `1.5Gi`, `2e3`, `4`) exactly,
//! in billionths of a unit, so that requests and limits compare as
//! Kubernetes compares them.

use serde_json::Value;

/// Billionths in one unit: Kubernetes' finest scale is nano (`n`).
const NANO: i128 = 1_000_000_000;

/// The quantity in billionths of a unit; `None` if it is not a quantity.
/// Digits beyond nano precision are dropped.
#[must_use]
pub fn nanos(value: &Value) -> Option<i128> {
    match value {
        Value::Number(n) => match n.as_i64() {
            Some(i) => Some(i128::from(i) * NANO),
            None => parse(&n.to_string()),
        },
        Value::String(s) => parse(s),
        _ => None,
    }
}

fn parse(text: &str) -> Option<i128> {
    let (negative, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let number_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let (number, suffix) = rest.split_at(number_end);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    // Exact value = digits × 10^(exponent10) × 2^(exponent2).
    let digits: String = [whole, fraction].concat();
    let mut mantissa: i128 = digits.parse().ok()?;
    let (exponent10, exponent2) = suffix_exponents(suffix)?;
    let mut exponent10 = exponent10 - i32::try_from(fraction.len()).ok()? + 9;
    mantissa = mantissa.checked_mul(1i128.checked_shl(exponent2)?)?;
    while exponent10 > 0 {
        mantissa = mantissa.checked_mul(10)?;
        exponent10 -= 1;
    }
    while exponent10 < 0 {
        mantissa /= 10;
        exponent10 += 1;
    }
    Some(if negative { -mantissa } else { mantissa })
}

/// Powers of ten and of two a suffix stands for.
fn suffix_exponents(suffix: &str) -> Option<(i32, u32)> {
    Some(match suffix {
        "" => (0, 0),
        "n" => (-9, 0),
        "u" => (-6, 0),
        "m" => (-3, 0),
        "k" => (3, 0),
        "M" => (6, 0),
        "G" => (9, 0),
        "T" => (12, 0),
        "P" => (15, 0),
        "E" => (18, 0),
        "Ki" => (0, 10),
        "Mi" => (0, 20),
        "Gi" => (0, 30),
        "Ti" => (0, 40),
        "Pi" => (0, 50),
        "Ei" => (0, 60),
        _ => {
            let exponent = suffix.strip_prefix(['e', 'E'])?;
            (exponent.parse().ok().filter(|e: &i32| e.abs() <= 30)?, 0)
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn forms_kubernetes_accepts_compare_by_value() {
        let same = |a: Value, b: Value| assert_eq!(nanos(&a), nanos(&b), "{a} vs {b}");
        same(json!("100m"), json!("0.1"));
        same(json!("1"), json!(1));
        same(json!("1k"), json!("1e3"));
        same(json!("1Gi"), json!("1073741824"));
        same(json!("1.5Gi"), json!("1536Mi"));
        same(json!("129M"), json!("129e6"));
        same(json!("+2"), json!("2000m"));
        assert_eq!(nanos(&json!("5n")), Some(5));
        assert_eq!(nanos(&json!("-1")), Some(-NANO));
        assert_eq!(nanos(&json!(0.5)), Some(NANO / 2));
        assert_eq!(nanos(&json!("0")), Some(0));
    }

    #[test]
    fn non_quantities_are_none() {
        for bad in [
            json!(""),
            json!("abc"),
            json!("1x"),
            json!("."),
            json!(true),
            json!("1Zi"),
        ] {
            assert_eq!(nanos(&bad), None, "{bad}");
        }
    }
}
