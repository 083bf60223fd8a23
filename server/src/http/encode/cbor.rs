//! CBOR answers (RFC 8949), behind the `CBORServingAndStorage` gate: every
//! item starts with the self-described tag 55799 (`d9 d9 f7`), maps use core
//! deterministic key order (RFC 8949 §4.2.1: by encoded key bytes, i.e.
//! shorter keys first, then bytewise), integers stay integers and floats take
//! their shortest lossless width. Items are written straight from the JSON
//! value (no intermediate tree). Watches are CBOR sequences, one item per
//! event.

use serde_json::Value;

/// The self-described CBOR tag Kubernetes puts before every item.
const SELF_DESCRIBED: u64 = 55799;

/// A JSON value as one self-described CBOR item.
#[must_use]
pub fn encode(value: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    head(&mut out, MAJOR_TAG, SELF_DESCRIBED);
    write(value, &mut out);
    out
}

const MAJOR_UNSIGNED: u8 = 0;
const MAJOR_NEGATIVE: u8 = 1;
const MAJOR_TEXT: u8 = 3;
const MAJOR_ARRAY: u8 = 4;
const MAJOR_MAP: u8 = 5;
const MAJOR_TAG: u8 = 6;

/// A data item's head in its shortest form.
fn head(out: &mut Vec<u8>, major: u8, n: u64) {
    let m = major << 5;
    match n {
        0..=23 => out.push(m | n as u8),
        24..=0xff => out.extend_from_slice(&[m | 24, n as u8]),
        0x100..=0xffff => {
            out.push(m | 25);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        0x1_0000..=0xffff_ffff => {
            out.push(m | 26);
            out.extend_from_slice(&(n as u32).to_be_bytes());
        }
        _ => {
            out.push(m | 27);
            out.extend_from_slice(&n.to_be_bytes());
        }
    }
}

fn text(out: &mut Vec<u8>, s: &str) {
    head(out, MAJOR_TEXT, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn write(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.push(0xf6),
        Value::Bool(false) => out.push(0xf4),
        Value::Bool(true) => out.push(0xf5),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => head(out, MAJOR_UNSIGNED, u),
            (_, Some(i)) => head(out, MAJOR_NEGATIVE, (-1 - i) as u64),
            _ => float(out, n.as_f64().unwrap_or(0.0)),
        },
        Value::String(s) => text(out, s),
        Value::Array(a) => {
            head(out, MAJOR_ARRAY, a.len() as u64);
            for v in a {
                write(v, out);
            }
        }
        Value::Object(m) => {
            head(out, MAJOR_MAP, m.len() as u64);
            let mut entries: Vec<(&String, &Value)> = m.iter().collect();
            // Text keys' encoded bytes order as (length, bytes).
            entries.sort_unstable_by(|(a, _), (b, _)| {
                (a.len(), a.as_bytes()).cmp(&(b.len(), b.as_bytes()))
            });
            for (k, v) in entries {
                text(out, k);
                write(v, out);
            }
        }
    }
}

/// A float in its shortest lossless width (half, single or double).
pub(crate) fn float(out: &mut Vec<u8>, f: f64) {
    let single = f as f32;
    if f64::from(single) != f {
        out.push(0xfb);
        out.extend_from_slice(&f.to_bits().to_be_bytes());
    } else if let Some(half) = half_bits(single) {
        out.push(0xf9);
        out.extend_from_slice(&half.to_be_bytes());
    } else {
        out.push(0xfa);
        out.extend_from_slice(&single.to_bits().to_be_bytes());
    }
}

/// The IEEE half-precision bits of `f`, when it has an exact half form.
fn half_bits(f: f32) -> Option<u16> {
    let bits = f.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let man = bits & 0x7f_ffff;
    if exp == 0 {
        // Zero; single-precision subnormals are below half's range.
        return (man == 0).then_some(sign);
    }
    if exp == 0xff {
        return None;
    }
    let e = exp - 127;
    if (-14..=15).contains(&e) {
        return (man & 0x1fff == 0).then(|| sign | (((e + 15) as u16) << 10) | (man >> 13) as u16);
    }
    if (-24..-14).contains(&e) {
        // Subnormal half: value = m × 2⁻²⁴.
        let full = man | 0x80_0000;
        let shift = (-(e + 1)) as u32;
        return (full & ((1 << shift) - 1) == 0).then(|| sign | (full >> shift) as u16);
    }
    None
}

/// A watch stream of JSON lines re-encoded as a CBOR sequence (one item per
/// event).
pub fn watch_item(line: &[u8]) -> Option<Vec<u8>> {
    serde_json::from_slice::<Value>(line)
        .ok()
        .map(|v| encode(&v))
}
