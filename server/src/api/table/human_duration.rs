//! Elapsed time as Kubernetes prints it in Age columns: `45s`, `3m20s`,
//! `5h`, `3d4h`, `2y10d`; coarser as the duration grows.

use std::time::{Duration, SystemTime};

use crate::util::time::parse_rfc3339;

/// A duration in Kubernetes' human form. Negative durations (clock skew)
/// print as `0s` within a second's slack and `<invalid>` beyond.
#[must_use]
pub fn human(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".into();
    }
    let s = seconds.max(0);
    if s < 120 {
        return format!("{s}s");
    }
    let minutes = s / 60;
    if minutes < 10 {
        return with_rest(minutes, "m", s % 60, "s");
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = s / 3600;
    if hours < 8 {
        return with_rest(hours, "h", minutes % 60, "m");
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    let days = hours / 24;
    if hours < 24 * 8 {
        return with_rest(days, "d", hours % 24, "h");
    }
    if hours < 24 * 365 * 2 {
        return format!("{days}d");
    }
    if hours < 24 * 365 * 8 {
        return with_rest(days / 365, "y", days % 365, "d");
    }
    format!("{}y", days / 365)
}

fn with_rest(major: i64, major_unit: &str, minor: i64, minor_unit: &str) -> String {
    if minor == 0 {
        format!("{major}{major_unit}")
    } else {
        format!("{major}{major_unit}{minor}{minor_unit}")
    }
}

/// The time since an RFC 3339 timestamp, humanised; `<unknown>` for a
/// missing one, `<invalid>` for one that does not parse.
#[must_use]
pub fn since(timestamp: Option<&str>, now: SystemTime) -> String {
    let Some(ts) = timestamp.filter(|t| !t.is_empty()) else {
        return "<unknown>".into();
    };
    let Some(at) = parse_rfc3339(ts) else {
        return "<invalid>".into();
    };
    let seconds = match now.duration_since(at) {
        Ok(d) => secs(d),
        Err(e) => -secs(e.duration()),
    };
    human(seconds)
}

fn secs(d: Duration) -> i64 {
    i64::try_from(d.as_secs()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coarsens_with_size() {
        let cases = [
            (-5, "<invalid>"),
            (-1, "0s"),
            (0, "0s"),
            (59, "59s"),
            (119, "119s"),
            (120, "2m"),
            (200, "3m20s"),
            (599, "9m59s"),
            (600, "10m"),
            (179 * 60, "179m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 60 * 5, "3h5m"),
            (8 * 3600, "8h"),
            (47 * 3600, "47h"),
            (48 * 3600, "2d"),
            (3 * 86400 + 4 * 3600, "3d4h"),
            (8 * 86400, "8d"),
            (729 * 86400, "729d"),
            (730 * 86400, "2y"),
            (740 * 86400, "2y10d"),
            (9 * 365 * 86400, "9y"),
        ];
        for (s, want) in cases {
            assert_eq!(human(s), want, "{s}s");
        }
    }

    #[test]
    fn since_timestamps() {
        let now = parse_rfc3339("2024-05-01T10:05:00Z").expect("time");
        assert_eq!(since(Some("2024-05-01T10:00:00Z"), now), "5m");
        assert_eq!(since(None, now), "<unknown>");
        assert_eq!(since(Some("yesterday"), now), "<invalid>");
    }
}
