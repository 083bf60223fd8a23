//! The output: one line per figure (cairn, etcd, ratio, target, verdict),
//! printed as soon as it is known and again in a closing summary.

/// A target a figure is held to, and whether this run met it.
pub struct Target {
    pub text: String,
    pub met: bool,
}

impl Target {
    /// `value >= min`, shown as e.g. `>= 2x`.
    pub fn at_least(value: f64, min: f64, unit: &str) -> Self {
        Self {
            text: format!(">= {min}{unit}"),
            met: value >= min,
        }
    }

    /// `value <= max`, shown as e.g. `<= 0.5x`.
    pub fn at_most(value: f64, max: f64, unit: &str) -> Self {
        Self {
            text: format!("<= {max}{unit}"),
            met: value <= max,
        }
    }
}

#[derive(Default)]
pub struct Report {
    lines: Vec<String>,
    met: usize,
    missed: usize,
}

impl Report {
    /// Prints and keeps one figure. `ratio` is cairn relative to etcd, in the
    /// direction where larger means cairn is better, unless the target says otherwise.
    pub fn figure(
        &mut self,
        name: &str,
        cairn: &str,
        etcd: Option<&str>,
        ratio: Option<f64>,
        target: Option<Target>,
    ) {
        let mut line = format!("{name}: cairn {cairn}");
        if let Some(e) = etcd {
            line.push_str(&format!(" | etcd {e}"));
        }
        if let Some(r) = ratio {
            line.push_str(&format!(" | ratio {}", ratio_text(r)));
        }
        match target {
            Some(t) => {
                let verdict = if t.met { "meets" } else { "MISSES" };
                line.push_str(&format!(" (target {}) [{verdict}]", t.text));
                if t.met {
                    self.met += 1;
                } else {
                    self.missed += 1;
                }
            }
            None => line.push_str(" [info]"),
        }
        println!("{line}");
        self.lines.push(line);
    }

    /// A line that is not a figure (a warning about the run itself).
    pub fn note(&mut self, text: &str) {
        let line = format!("note: {text}");
        println!("{line}");
        self.lines.push(line);
    }

    pub fn summary(&self) -> String {
        let mut s = String::from("== cairn-bench summary\n");
        for l in &self.lines {
            s.push_str(l);
            s.push('\n');
        }
        s.push_str(&format!(
            "targets: {} met, {} missed\n",
            self.met, self.missed
        ));
        s
    }
}

/// A ratio with enough digits that rounding never hides which side of a
/// target it falls on (0.503x, not 0.50x, against <= 0.5x).
pub fn ratio_text(r: f64) -> String {
    if r >= 10.0 {
        format!("{r:.1}x")
    } else if r >= 1.0 {
        format!("{r:.2}x")
    } else {
        format!("{r:.3}x")
    }
}

/// A rate with a thousands separator, e.g. `31,250/s`.
pub fn per_sec(v: f64) -> String {
    let n = v.round() as u64;
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out.push_str("/s");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(per_sec(31_250.4), "31,250/s");
        assert_eq!(per_sec(999.0), "999/s");
        assert_eq!(per_sec(1_234_567.0), "1,234,567/s");
        assert_eq!(ratio_text(2.639), "2.64x");
        assert_eq!(ratio_text(12.34), "12.3x");
        assert_eq!(ratio_text(0.5025), "0.502x");
        assert!(Target::at_least(2.0, 2.0, "x").met);
        assert!(!Target::at_most(0.51, 0.5, "x").met);
        let mut r = Report::default();
        r.figure(
            "a",
            "1/s",
            Some("2/s"),
            Some(0.5),
            Some(Target::at_least(0.5, 2.0, "x")),
        );
        r.figure("b", "1", None, None, None);
        let s = r.summary();
        assert!(s.contains("a: cairn 1/s | etcd 2/s | ratio 0.500x (target >= 2x) [MISSES]"));
        assert!(s.contains("b: cairn 1 [info]"));
        assert!(s.ends_with("targets: 0 met, 1 missed\n"));
    }
}
