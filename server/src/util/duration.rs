//! Go-style durations on the command line (`1h`, `5m30s`, `250ms`, `0`)
//! and in configuration files (where a sign is allowed), and Go's way of
//! printing them back (`1m30s`), as validation messages quote them.

use std::time::Duration;

/// Parses `1h30m`, `90s`, `250ms`, `1.5h`, `0`.
pub fn parse(s: &str) -> Result<Duration, String> {
    cairn_transform::config::go_duration(s)
        .ok_or_else(|| format!("invalid duration {s:?} (examples: 1h, 5m, 30s, 250ms)"))
}

/// A Go duration that may be negative (`-30s`), as configuration files
/// may write it: `(negative, magnitude)`.
pub fn parse_signed(s: &str) -> Result<(bool, Duration), String> {
    match s.strip_prefix('-') {
        Some(rest) => parse(rest).map(|d| (!d.is_zero(), d)),
        None => parse(s.strip_prefix('+').unwrap_or(s)).map(|d| (false, d)),
    }
    .map_err(|_| format!("time: invalid duration {s:?}"))
}

/// Go's `Duration.String()`: `0s`, `250ms`, `1.5s`, `1m30s`, `1h0m0s`.
#[must_use]
pub fn go_string(negative: bool, d: Duration) -> String {
    let sign = if negative { "-" } else { "" };
    let nanos = d.as_nanos();
    if nanos == 0 {
        return "0s".into();
    }
    if nanos < 1_000_000_000 {
        let (unit, scale) = match nanos {
            n if n < 1_000 => ("ns", 1),
            n if n < 1_000_000 => ("µs", 1_000),
            _ => ("ms", 1_000_000),
        };
        return format!("{sign}{}{unit}", decimal(nanos, scale));
    }
    let hours = nanos / 3_600_000_000_000;
    let minutes = nanos / 60_000_000_000 % 60;
    let seconds = decimal(nanos % 60_000_000_000, 1_000_000_000);
    match (hours, minutes) {
        (0, 0) => format!("{sign}{seconds}s"),
        (0, m) => format!("{sign}{m}m{seconds}s"),
        (h, m) => format!("{sign}{h}h{m}m{seconds}s"),
    }
}

/// `value / scale` with the fraction's trailing zeros dropped.
fn decimal(value: u128, scale: u128) -> String {
    let whole = value / scale;
    let fraction = value % scale;
    if fraction == 0 {
        return whole.to_string();
    }
    let width = scale.to_string().len() - 1;
    let digits = format!("{fraction:0width$}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        assert_eq!(parse("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse("5m30s"), Ok(Duration::from_secs(330)));
        assert_eq!(parse("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse("0"), Ok(Duration::ZERO));
        assert_eq!(parse("1.5h"), Ok(Duration::from_secs(5400)));
        for bad in ["", "5", "h", "5x", "-1s"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn signed_durations_and_go_printing() {
        assert_eq!(parse_signed("-30s"), Ok((true, Duration::from_secs(30))));
        assert_eq!(parse_signed("45s"), Ok((false, Duration::from_secs(45))));
        assert_eq!(
            parse_signed("soon"),
            Err("time: invalid duration \"soon\"".into())
        );
        let printed = |negative, d| go_string(negative, d);
        assert_eq!(printed(false, Duration::ZERO), "0s");
        assert_eq!(printed(false, Duration::from_secs(45)), "45s");
        assert_eq!(printed(true, Duration::from_secs(30)), "-30s");
        assert_eq!(printed(false, Duration::from_secs(90)), "1m30s");
        assert_eq!(printed(false, Duration::from_secs(3600)), "1h0m0s");
        assert_eq!(printed(false, Duration::from_millis(1500)), "1.5s");
        assert_eq!(printed(false, Duration::from_millis(250)), "250ms");
        assert_eq!(printed(false, Duration::from_micros(1500)), "1.5ms");
    }
}
