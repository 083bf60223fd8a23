//! Kubernetes resource quantities (`500m`, `1.5Gi`, `2e3`, `4`), read with
//! Kubernetes' grammar into an exact decimal `mantissa × 10^exponent`: the
//! CEL quantity library computes with them, and pods' QoS class compares
//! requests and limits with them as Kubernetes compares them.

mod format;

use std::cmp::Ordering;

use serde_json::Value;

pub use format::{Format, canonical_text};

/// Why a string is not a quantity; Kubernetes' own words.
pub const QUANTITY_ERROR: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/// Kubernetes' finest scale is nano (`n`): finer values round up to it.
const NANO_EXPONENT: i32 = -9;

/// Largest `e`/`E` exponent accepted, far beyond any resource.
const MAX_DECIMAL_EXPONENT: i32 = 1000;

/// An exact decimal quantity. Binary suffixes (`Ki` = 1024, ..., `Ei`) are
/// exact multiples of powers of ten's units, so one representation serves both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quantity {
    mantissa: i128,
    exponent: i32,
}

impl Quantity {
    /// Parses `<sign><digits>[.<digits>]<suffix>`, where the suffix is a
    /// binary SI suffix, a decimal SI suffix or `e`/`E` and a signed exponent.
    /// Digits below nano round away from zero, as Kubernetes rounds them, so
    /// that asking for any amount at all never reads as zero.
    pub fn parse(s: &str) -> Result<Quantity, &'static str> {
        let (negative, rest) = match s.as_bytes().first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        let number_len = rest
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'.')
            .count();
        let (number, suffix) = rest.split_at(number_len);
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        if (whole.is_empty() && fraction.is_empty()) || fraction.contains('.') {
            return Err(QUANTITY_ERROR);
        }
        let (decimal_exponent, binary_exponent) = suffix_exponents(suffix).ok_or(QUANTITY_ERROR)?;
        let mantissa = digits_value(whole.bytes().chain(fraction.bytes()))
            .and_then(|m| m.checked_mul(1i128 << binary_exponent))
            .ok_or(QUANTITY_ERROR)?;
        let exponent = i32::try_from(fraction.len())
            .ok()
            .and_then(|digits| decimal_exponent.checked_sub(digits))
            .ok_or(QUANTITY_ERROR)?;
        let mantissa = if negative { -mantissa } else { mantissa };
        Ok(Quantity { mantissa, exponent }
            .rounded_up_to_nano()
            .normalized())
    }

    /// A quantity as JSON holds it: a string, or a number as written.
    #[must_use]
    pub fn from_json(value: &Value) -> Option<Quantity> {
        match value {
            Value::Number(n) => match n.as_i64() {
                Some(i) => Some(Quantity::from_int(i)),
                None => Quantity::parse(&n.to_string()).ok(),
            },
            Value::String(s) => Quantity::parse(s).ok(),
            _ => None,
        }
    }

    /// An integer quantity.
    #[must_use]
    pub fn from_int(i: i64) -> Quantity {
        Quantity {
            mantissa: i128::from(i),
            exponent: 0,
        }
        .normalized()
    }

    /// Drops digits below nano, moving the value away from zero when any of
    /// them is not zero.
    fn rounded_up_to_nano(self) -> Quantity {
        if self.exponent >= NANO_EXPONENT {
            return self;
        }
        let dropped_digits = (NANO_EXPONENT - self.exponent).unsigned_abs();
        let mantissa = match 10i128.checked_pow(dropped_digits) {
            Some(divisor) if self.mantissa % divisor == 0 => self.mantissa / divisor,
            Some(divisor) => self.mantissa / divisor + self.mantissa.signum(),
            // A divisor beyond i128 exceeds every mantissa: only the rounding is left.
            None => self.mantissa.signum(),
        };
        Quantity {
            mantissa,
            exponent: NANO_EXPONENT,
        }
    }

    fn normalized(mut self) -> Quantity {
        if self.mantissa == 0 {
            self.exponent = 0;
            return self;
        }
        while self.mantissa % 10 == 0 {
            self.mantissa /= 10;
            self.exponent += 1;
        }
        self
    }

    /// The value in billionths of a unit (parsing already rounded it to
    /// them); `None` if that does not fit.
    #[must_use]
    pub fn nanos(&self) -> Option<i128> {
        let scale = 10i128.checked_pow((self.exponent - NANO_EXPONENT).unsigned_abs())?;
        self.mantissa.checked_mul(scale)
    }

    /// `-1`, `0` or `1`.
    #[must_use]
    pub fn sign(&self) -> i64 {
        self.mantissa.signum().try_into().unwrap_or(0)
    }

    /// The value as an `i64`, when it is a whole number that fits.
    #[must_use]
    pub fn as_i64(&self) -> Option<i64> {
        if self.exponent < 0 {
            return None;
        }
        let scale = 10i128.checked_pow(self.exponent.unsigned_abs())?;
        self.mantissa.checked_mul(scale)?.try_into().ok()
    }

    /// The nearest `f64`.
    #[must_use]
    pub fn as_f64(&self) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let m = self.mantissa as f64;
        m * 10f64.powi(self.exponent)
    }

    /// Both mantissas at the smaller exponent, if that fits.
    fn aligned(&self, other: &Quantity) -> Option<(i128, i128, i32)> {
        let exponent = self.exponent.min(other.exponent);
        let scale = |q: &Quantity| {
            10i128
                .checked_pow((q.exponent - exponent).unsigned_abs())
                .and_then(|s| q.mantissa.checked_mul(s))
        };
        Some((scale(self)?, scale(other)?, exponent))
    }

    /// `self + other`; `None` on overflow.
    #[must_use]
    pub fn add(&self, other: &Quantity) -> Option<Quantity> {
        let (a, b, exponent) = self.aligned(other)?;
        Some(
            Quantity {
                mantissa: a.checked_add(b)?,
                exponent,
            }
            .normalized(),
        )
    }

    /// `self - other`; `None` on overflow.
    #[must_use]
    pub fn sub(&self, other: &Quantity) -> Option<Quantity> {
        self.add(&Quantity {
            mantissa: -other.mantissa,
            exponent: other.exponent,
        })
    }

    /// Exact comparison (by `f64` only if the exact form would overflow).
    #[must_use]
    pub fn compare(&self, other: &Quantity) -> Ordering {
        match self.aligned(other) {
            Some((a, b, _)) => a.cmp(&b),
            None => self
                .as_f64()
                .partial_cmp(&other.as_f64())
                .unwrap_or(Ordering::Equal),
        }
    }
}

/// A JSON quantity in billionths of a unit; `None` if it is not a quantity
/// or too large to count in billionths.
#[must_use]
pub fn nanos(value: &Value) -> Option<i128> {
    Quantity::from_json(value)?.nanos()
}

/// The number ASCII `digits` spell; `None` beyond `i128`.
fn digits_value(mut digits: impl Iterator<Item = u8>) -> Option<i128> {
    digits.try_fold(0i128, |value, digit| {
        value.checked_mul(10)?.checked_add(i128::from(digit - b'0'))
    })
}

/// The powers of ten and of two a suffix stands for.
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
            // `i32`'s parser takes one optional sign and ASCII digits, as
            // Kubernetes' exponent grammar does.
            let exponent: i32 = suffix.strip_prefix(['e', 'E'])?.parse().ok()?;
            (exponent.abs() <= MAX_DECIMAL_EXPONENT).then_some((exponent, 0))?
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Billionths in one unit.
    const NANO: i128 = 1_000_000_000;

    fn q(s: &str) -> Quantity {
        Quantity::parse(s).unwrap()
    }

    #[test]
    fn parses_kubernetes_forms() {
        assert_eq!(q("1").as_i64(), Some(1));
        assert_eq!(q("1k").as_i64(), Some(1000));
        assert_eq!(q("1Ki").as_i64(), Some(1024));
        assert_eq!(q("1.5Gi").as_i64(), Some(1_610_612_736));
        assert_eq!(q("500m").as_i64(), None);
        assert!((q("500m").as_f64() - 0.5).abs() < 1e-12);
        assert_eq!(q("2e3").as_i64(), Some(2000));
        assert_eq!(q("2E-3"), q("2m"));
        assert_eq!(q("-1.5").sign(), -1);
        assert_eq!(q("+0.0").sign(), 0);
        assert_eq!(q(".5"), q("500m"));
        assert_eq!(q("5."), q("5"));
        assert_eq!(q("1n").compare(&q("1u")), Ordering::Less);
        assert_eq!(q("8Ei").as_i64(), None);
        assert_eq!(q("7Ei").as_i64(), Some(7 * (1 << 60)));
    }

    #[test]
    fn rejects_what_kubernetes_rejects() {
        for bad in [
            "", "abc", "1.2.3", "1Kb", "1 k", "--1", "e3", "1e", "1e+-3", "1ki", ".",
        ] {
            assert_eq!(Quantity::parse(bad), Err(QUANTITY_ERROR), "{bad:?}");
        }
    }

    #[test]
    fn arithmetic_and_comparison_are_exact() {
        assert_eq!(q("1").add(&q("500m")), Some(q("1.5")));
        assert_eq!(q("1Ki").sub(&q("24")), Some(q("1k")));
        assert_eq!(q("1Gi").compare(&q("1G")), Ordering::Greater);
        assert_eq!(q("1000m").compare(&q("1")), Ordering::Equal);
        assert_eq!(Quantity::from_int(3), q("3"));
    }

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

    #[test]
    fn digits_below_nano_round_away_from_zero() {
        assert_eq!(q("1.5n"), q("2n"));
        assert_eq!(q("-1.5n"), q("-2n"));
        assert_eq!(q("1.0n"), q("1n"));
        assert_eq!(nanos(&json!("0.1n")), Some(1));
        assert_eq!(nanos(&json!("1e-31")), Some(1));
        assert_eq!(nanos(&json!("-1e-1000")), Some(-1));
        assert_eq!(nanos(&json!("0e-31")), Some(0));
        assert_eq!(nanos(&json!("0.0000000001Ki")), Some(103));
        assert_eq!(nanos(&json!(1e-10)), Some(1));
    }

    #[test]
    fn size_limits() {
        // Digits are read as far as i128 holds them (38 or 39); nano
        // rounding then keeps nine below the unit.
        assert_eq!(
            nanos(&json!("0.1234567890123456789012345678901")),
            Some(123_456_790)
        );
        assert_eq!(
            Quantity::parse("1234567890123456789012345678901234567890"),
            Err(QUANTITY_ERROR)
        );
        assert_eq!(Quantity::parse("1e1001"), Err(QUANTITY_ERROR));
        assert!(Quantity::parse("1e1000").is_ok());
        // Quantities too large to count in billionths are not counted.
        assert_eq!(nanos(&json!("1e29")), Some(10i128.pow(38)));
        assert_eq!(nanos(&json!("1e30")), None);
        assert_eq!(nanos(&json!(u64::MAX)), Some(i128::from(u64::MAX) * NANO));
    }
}
