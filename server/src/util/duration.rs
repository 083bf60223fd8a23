//! Go-style durations on the command line (`1h`, `5m30s`, `250ms`, `0`).

use std::time::Duration;

/// Parses `1h30m`, `90s`, `250ms`, `1.5h`, `0`.
pub fn parse(s: &str) -> Result<Duration, String> {
    let bad = || format!("invalid duration {s:?} (examples: 1h, 5m, 30s, 250ms)");
    if s == "0" {
        return Ok(Duration::ZERO);
    }
    let mut rest = s;
    let mut total = 0f64;
    if rest.is_empty() {
        return Err(bad());
    }
    while !rest.is_empty() {
        let n = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let value: f64 = rest[..n].parse().map_err(|_| bad())?;
        rest = &rest[n..];
        let u = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = match &rest[..u] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" => 1e-6,
            "ns" => 1e-9,
            _ => return Err(bad()),
        };
        total += value * unit;
        rest = &rest[u..];
    }
    Ok(Duration::from_secs_f64(total))
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
}
