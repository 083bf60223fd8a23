//! A quantity's canonical text, as Kubernetes prints it (`Quantity.String`):
//! in the format its text was written in — decimal SI (`1500m`, `2k`),
//! binary SI (`1536Mi`) or decimal exponent (`1e3`) — with the largest
//! suffix that keeps the number whole. Binary values that are not whole or
//! lie within ±1024 are printed in decimal SI, as Kubernetes prints them.

use super::Quantity;

/// How a quantity's text was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    DecimalSi,
    BinarySi,
    DecimalExponent,
}

impl Format {
    /// The format of `text` (by its suffix).
    #[must_use]
    pub fn of(text: &str) -> Format {
        let suffix =
            text.trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '.' | '+' | '-'));
        if suffix.ends_with('i') {
            Format::BinarySi
        } else if suffix.starts_with(['e', 'E']) {
            Format::DecimalExponent
        } else {
            Format::DecimalSi
        }
    }
}

const DECIMAL_SUFFIXES: [(i32, &str); 10] = [
    (-9, "n"),
    (-6, "u"),
    (-3, "m"),
    (0, ""),
    (3, "k"),
    (6, "M"),
    (9, "G"),
    (12, "T"),
    (15, "P"),
    (18, "E"),
];
const BINARY_SUFFIXES: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

impl Quantity {
    /// The canonical text in `format`.
    #[must_use]
    pub fn canonical(&self, format: Format) -> String {
        if self.mantissa == 0 {
            return "0".into();
        }
        if format == Format::BinarySi
            && let Some(text) = self.binary()
        {
            return text;
        }
        // The largest multiple of three not above the exponent keeps the
        // mantissa whole (it has no trailing zeros).
        let scale = (self.exponent.div_euclid(3) * 3).clamp(-9, 18);
        let mantissa = 10i128
            .checked_pow((self.exponent - scale).unsigned_abs())
            .and_then(|m| self.mantissa.checked_mul(m));
        let Some(mantissa) = mantissa else {
            return format!("{}e{}", self.mantissa, self.exponent);
        };
        match format {
            Format::DecimalExponent if scale == 0 => mantissa.to_string(),
            Format::DecimalExponent => format!("{mantissa}e{scale}"),
            _ => {
                let suffix = DECIMAL_SUFFIXES
                    .iter()
                    .find(|(e, _)| *e == scale)
                    .map_or("", |(_, s)| s);
                format!("{mantissa}{suffix}")
            }
        }
    }

    /// Binary SI text of a whole value beyond ±1024.
    fn binary(&self) -> Option<String> {
        let whole = i128::from(self.as_i64()?);
        if whole.abs() < 1024 {
            return None;
        }
        let mut value = whole;
        let mut power = 0;
        while power + 1 < BINARY_SUFFIXES.len() && value % 1024 == 0 {
            value /= 1024;
            power += 1;
        }
        Some(format!("{value}{}", BINARY_SUFFIXES[power]))
    }
}

/// The canonical form of a quantity's text (the text itself when it is
/// not a quantity).
#[must_use]
pub fn canonical_text(text: &str) -> String {
    match Quantity::parse(text) {
        Ok(q) => q.canonical(Format::of(text)),
        Err(_) => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_print_as_kubernetes_prints_them() {
        for (text, canonical) in [
            ("1000m", "1"),
            ("1.5", "1500m"),
            ("0.1", "100m"),
            ("2000", "2k"),
            ("100Mi", "100Mi"),
            ("1024Mi", "1Gi"),
            ("1536Mi", "1536Mi"),
            ("512Ki", "512Ki"),
            ("1000Ki", "1000Ki"),
            ("0.5Gi", "512Mi"),
            ("1Ki", "1Ki"),
            ("0.5Ki", "512"),
            ("1e3", "1e3"),
            ("1500e-3", "1500e-3"),
            ("0", "0"),
            ("-250m", "-250m"),
            ("128974848", "128974848"),
        ] {
            assert_eq!(canonical_text(text), canonical, "{text}");
        }
        let sum = Quantity::parse("250m")
            .unwrap()
            .add(&Quantity::parse("750m").unwrap())
            .unwrap();
        assert_eq!(sum.canonical(Format::DecimalSi), "1");
    }
}
