//! RFC 3339 timestamps as Kubernetes writes them (`Time`: seconds, UTC `Z`;
//! `MicroTime`: microseconds).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let m = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn split(t: SystemTime) -> (i64, u32) {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => (
            i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            d.subsec_micros(),
        ),
        Err(_) => (0, 0),
    }
}

/// Appends `n` as exactly `width` decimal digits (`n` has no more).
fn push_digits(out: &mut String, n: u64, width: u32) {
    for place in (0..width).rev() {
        let digit = (n / 10u64.pow(place)) % 10;
        out.push(char::from(b'0' + u8::try_from(digit).unwrap_or(0)));
    }
}

fn format(secs: i64, micros: Option<u32>) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, mo, d) = civil_from_days(days);
    let (h, mi, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    // Every write stamps at least one time; `format!` cost more than the rest.
    if let (Ok(year @ 0..=9999), Ok(rem)) = (u64::try_from(y), u64::try_from(rem)) {
        let mut out = String::with_capacity(27);
        push_digits(&mut out, year, 4);
        out.push('-');
        push_digits(&mut out, u64::from(mo), 2);
        out.push('-');
        push_digits(&mut out, u64::from(d), 2);
        out.push('T');
        push_digits(&mut out, rem / 3600, 2);
        out.push(':');
        push_digits(&mut out, rem % 3600 / 60, 2);
        out.push(':');
        push_digits(&mut out, rem % 60, 2);
        if let Some(us) = micros {
            out.push('.');
            push_digits(&mut out, u64::from(us), 6);
        }
        out.push('Z');
        return out;
    }
    match micros {
        Some(us) => format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{us:06}Z"),
        None => format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z"),
    }
}

/// `2024-05-01T10:00:00Z`
#[must_use]
pub fn rfc3339(t: SystemTime) -> String {
    format(split(t).0, None)
}

/// `2024-05-01T10:00:00.123456Z`
#[must_use]
pub fn rfc3339_micro(t: SystemTime) -> String {
    let (s, us) = split(t);
    format(s, Some(us))
}

/// An HTTP date (`Thu, 01 May 2025 10:00:00 GMT`), as `Expires` carries.
#[must_use]
pub fn http_date(t: SystemTime) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = split(t).0;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, mo, d) = civil_from_days(days);
    let weekday = DAYS[usize::try_from(days.rem_euclid(7)).unwrap_or(0)];
    let month = MONTHS[usize::try_from(mo - 1).unwrap_or(0)];
    let (h, mi, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    format!("{weekday}, {d:02} {month} {y:04} {h:02}:{mi:02}:{s:02} GMT")
}

fn num(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses an RFC 3339 timestamp (any fraction, `Z` or `±hh:mm`).
#[must_use]
pub fn parse_rfc3339(s: &str) -> Option<SystemTime> {
    let b = s.as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let (y, mo, d) = (num(&s[0..4])?, num(&s[5..7])?, num(&s[8..10])?);
    let (h, mi, sec) = (num(&s[11..13])?, num(&s[14..16])?, num(&s[17..19])?);
    if !(1..=12).contains(&mo) || d == 0 || d > 31 || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut rest = &s[19..];
    let mut nanos = 0u32;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let mut f = frac[..digits.min(9)].to_string();
        while f.len() < 9 {
            f.push('0');
        }
        nanos = num(&f)?;
        rest = &frac[digits..];
    }
    let offset: i64 = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6
            && matches!(rest.as_bytes()[0], b'+' | b'-')
            && rest.as_bytes()[3] == b':' =>
        {
            let sign = if rest.starts_with('-') { -1 } else { 1 };
            sign * (i64::from(num(&rest[1..3])?) * 3600 + i64::from(num(&rest[4..6])?) * 60)
        }
        _ => return None,
    };
    let secs = days_from_civil(i64::from(y), mo, d) * 86_400
        + i64::from(h) * 3600
        + i64::from(mi) * 60
        + i64::from(sec)
        - offset;
    let secs = u64::try_from(secs).ok()?;
    Some(UNIX_EPOCH + Duration::new(secs, nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_match_the_formatted_text_across_dates() {
        for secs in [
            0i64,
            59,
            86_399,
            951_782_400, // 2000-02-29
            1_714_557_600,
            4_102_444_799,
            253_402_300_799, // 9999-12-31T23:59:59
            253_402_300_800, // year 10000: the slow path
        ] {
            let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
            let (y, mo, d) = civil_from_days(days);
            let (h, mi, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
            let want = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}");
            assert_eq!(format(secs, None), format!("{want}Z"));
            assert_eq!(format(secs, Some(7)), format!("{want}.000007Z"));
        }
    }

    #[test]
    fn formats_and_parses() {
        let t = UNIX_EPOCH + Duration::new(1_714_557_600, 123_456_789);
        assert_eq!(rfc3339(t), "2024-05-01T10:00:00Z");
        assert_eq!(rfc3339_micro(t), "2024-05-01T10:00:00.123456Z");
        assert_eq!(http_date(t), "Wed, 01 May 2024 10:00:00 GMT");
        assert_eq!(
            parse_rfc3339("2024-05-01T10:00:00Z"),
            Some(UNIX_EPOCH + Duration::from_secs(1_714_557_600))
        );
        assert_eq!(
            parse_rfc3339("2024-05-01T12:00:00+02:00"),
            Some(UNIX_EPOCH + Duration::from_secs(1_714_557_600))
        );
        assert_eq!(
            parse_rfc3339("2024-05-01T10:00:00.5Z"),
            Some(UNIX_EPOCH + Duration::new(1_714_557_600, 500_000_000))
        );
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_secs(951_782_400)),
            "2000-02-29T00:00:00Z"
        );
        for bad in [
            "",
            "2024-05-01",
            "2024-13-01T00:00:00Z",
            "2024-05-01T10:00:00",
            "2024-05-01T10:00:00.Z",
            "x024-05-01T10:00:00Z",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }
}
