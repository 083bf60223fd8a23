//! Text forms of stored data: RFC 3339 times, base64, escaped bytes, sizes,
//! and keys and values as JSON fields.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

/// `2026-11-21T12:00:00.123456Z` (UTC, microseconds).
pub fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, day) = civil_from_days(i64::try_from(days).unwrap_or(i64::MAX));
    format!(
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:06}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_micros()
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian
/// calendar (Howard Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let m = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Bytes as text: UTF-8 as is, anything else escaped (`\xNN`).
pub fn text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) if !s.chars().any(char::is_control) => s.to_string(),
        _ => bytes.escape_ascii().to_string(),
    }
}

/// `text`, cut to about `max` characters.
pub fn preview(bytes: &[u8], max: usize) -> String {
    let s = text(bytes);
    if s.chars().count() <= max {
        return s;
    }
    let mut cut: String = s.chars().take(max).collect();
    cut.push('…');
    cut
}

/// Adds `name` as a string when `bytes` are UTF-8, else `{name}_base64`.
pub fn put_bytes(obj: &mut Map<String, Value>, name: &str, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(s) => obj.insert(name.into(), Value::from(s)),
        Err(_) => obj.insert(format!("{name}_base64"), Value::from(base64(bytes))),
    };
}

/// `1.5 MiB`.
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn times_are_rfc3339_utc() {
        let t = |s: u64, us: u64| UNIX_EPOCH + Duration::from_secs(s) + Duration::from_micros(us);
        assert_eq!(rfc3339(t(0, 0)), "1970-01-01T00:00:00.000000Z");
        assert_eq!(rfc3339(t(951_782_400, 5)), "2000-02-29T00:00:00.000005Z");
        assert_eq!(
            rfc3339(t(1_700_000_000, 123_456)),
            "2023-11-14T22:13:20.123456Z"
        );
        assert_eq!(rfc3339(t(4_102_444_799, 0)), "2099-12-31T23:59:59.000000Z");
    }

    #[test]
    fn base64_matches_rfc4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (raw, enc) in cases {
            assert_eq!(base64(raw.as_bytes()), enc);
        }
        assert_eq!(base64(&[0xff, 0xfe]), "//4=");
    }

    #[test]
    fn text_and_json_fields() {
        assert_eq!(text(b"/registry/a"), "/registry/a");
        assert_eq!(text(b"a\x00\xff"), "a\\x00\\xff");
        assert_eq!(preview(b"abcdef", 3), "abc…");
        let mut m = Map::new();
        put_bytes(&mut m, "key", b"k");
        put_bytes(&mut m, "value", &[0xff]);
        assert_eq!(
            Value::Object(m),
            serde_json::json!({"key": "k", "value_base64": "/w=="})
        );
        assert_eq!(size(512), "512 B");
        assert_eq!(size(1536), "1.5 KiB");
    }
}
