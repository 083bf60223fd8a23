//! Kubernetes resource quantities (`500m`, `1.5Gi`, `2e3`) for the CEL
//! quantity library: parsing with Kubernetes' grammar, exact comparison and
//! arithmetic on a decimal `mantissa × 10^exponent`.

use std::cmp::Ordering;

/// Why a string is not a quantity; Kubernetes' own words.
pub const QUANTITY_ERROR: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

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
        let digits = format!("{whole}{fraction}");
        let digits = digits.trim_start_matches('0');
        if digits.len() > 30 {
            return Err(QUANTITY_ERROR);
        }
        let mut mantissa: i128 = if digits.is_empty() {
            0
        } else {
            digits.parse().map_err(|_| QUANTITY_ERROR)?
        };
        #[allow(clippy::cast_possible_wrap, clippy::cast_possible_truncation)]
        let mut exponent = -(fraction.len() as i32);
        match suffix {
            "" => {}
            "n" => exponent -= 9,
            "u" => exponent -= 6,
            "m" => exponent -= 3,
            "k" => exponent += 3,
            "M" => exponent += 6,
            "G" => exponent += 9,
            "T" => exponent += 12,
            "P" => exponent += 15,
            "E" => exponent += 18,
            "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei" => {
                let power = match suffix {
                    "Ki" => 10,
                    "Mi" => 20,
                    "Gi" => 30,
                    "Ti" => 40,
                    "Pi" => 50,
                    _ => 60,
                };
                mantissa = mantissa.checked_mul(1i128 << power).ok_or(QUANTITY_ERROR)?;
            }
            other => {
                let exp = other
                    .strip_prefix('e')
                    .or_else(|| other.strip_prefix('E'))
                    .ok_or(QUANTITY_ERROR)?;
                let digits = exp.trim_start_matches(['+', '-']);
                if digits.is_empty()
                    || exp.len() - digits.len() > 1
                    || !digits.bytes().all(|b| b.is_ascii_digit())
                {
                    return Err(QUANTITY_ERROR);
                }
                let e: i32 = exp.parse().map_err(|_| QUANTITY_ERROR)?;
                if e.abs() > 1000 {
                    return Err(QUANTITY_ERROR);
                }
                exponent += e;
            }
        }
        if negative {
            mantissa = -mantissa;
        }
        Ok(Quantity { mantissa, exponent }.normalized())
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
