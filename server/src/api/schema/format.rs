//! String formats a schema may name: `date-time` (RFC 3339, as Go's
//! `time.Parse(time.RFC3339, ..)` accepts it) and `byte` (base64, as Go's
//! `base64.StdEncoding` decodes `[]byte` fields).

/// Whether `s` satisfies string format `format`. Formats this server does
/// not know pass, as they do in Kubernetes.
pub(super) fn string_matches(format: &str, s: &str) -> bool {
    match format {
        "date-time" => is_rfc3339(s),
        "byte" => is_base64(s),
        _ => true,
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, with real calendar ranges.
/// The fraction is optional and of any length, so `Time` and `MicroTime`
/// share this check. `T` and `Z` are upper case, as Go requires.
pub(super) fn is_rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
    {
        return false;
    }
    let (Some(year), Some(month), Some(day)) =
        (digits(&b[0..4]), digits(&b[5..7]), digits(&b[8..10]))
    else {
        return false;
    };
    let (Some(hour), Some(minute), Some(second)) =
        (digits(&b[11..13]), digits(&b[14..16]), digits(&b[17..19]))
    else {
        return false;
    };
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return false;
    }
    if hour > 23 || minute > 59 || second > 59 {
        return false;
    }
    let mut rest = &b[19..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    match rest {
        b"Z" => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            matches!((digits(&[*h1, *h2]), digits(&[*m1, *m2])), (Some(h), Some(m)) if h <= 23 && m <= 59)
        }
        _ => false,
    }
}

fn digits(b: &[u8]) -> Option<u32> {
    b.iter().try_fold(0u32, |acc, c| {
        c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
    })
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Standard alphabet with `=` padding; CR and LF are skipped (Go does too).
pub(super) fn is_base64(s: &str) -> bool {
    let body: Vec<u8> = s.bytes().filter(|c| *c != b'\r' && *c != b'\n').collect();
    if !body.len().is_multiple_of(4) {
        return false;
    }
    let pad = body.iter().rev().take_while(|c| **c == b'=').count();
    if pad > 2 {
        return false;
    }
    body[..body.len() - pad]
        .iter()
        .all(|c| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_accepts_kubernetes_times() {
        for ok in [
            "2024-05-01T10:00:00Z",
            "2024-05-01T10:00:00.123456Z",
            "2024-05-01T10:00:00.1Z",
            "2024-05-01T12:00:00+02:00",
            "2024-05-01T12:00:00.5-07:30",
            "2024-02-29T00:00:00Z",
            "2000-02-29T23:59:59Z",
        ] {
            assert!(is_rfc3339(ok), "{ok}");
        }
    }

    #[test]
    fn rfc3339_rejects_malformed_and_out_of_range() {
        for bad in [
            "",
            "2024-05-01",
            "2024-05-01 10:00:00Z",
            "2024-05-01t10:00:00Z",
            "2024-05-01T10:00:00z",
            "2024-05-01T10:00:00",
            "2024-05-01T10:00:00.Z",
            "2024-13-01T00:00:00Z",
            "2024-00-01T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "1900-02-29T00:00:00Z",
            "2024-04-31T00:00:00Z",
            "2024-05-01T24:00:00Z",
            "2024-05-01T10:60:00Z",
            "2024-05-01T10:00:60Z",
            "2024-05-01T10:00:00+2:00",
            "2024-05-01T10:00:00+24:00",
            "2024-05-01T10:00:00+02:00x",
            "x024-05-01T10:00:00Z",
            "2024-05-01T10:00:00Zjunk",
        ] {
            assert!(!is_rfc3339(bad), "{bad}");
        }
    }

    #[test]
    fn base64_follows_go_std_encoding() {
        for ok in ["", "YQ==", "YWI=", "YWJj", "YWJj\nZGVm", "+/+/"] {
            assert!(is_base64(ok), "{ok}");
        }
        for bad in ["Y", "YQ=", "Y===", "YQ==YQ==", "YW-j", "YW_j", "a b="] {
            assert!(!is_base64(bad), "{bad}");
        }
    }

    #[test]
    fn unknown_formats_pass() {
        assert!(string_matches("email", "not really"));
        assert!(!string_matches("date-time", "yesterday"));
    }
}
