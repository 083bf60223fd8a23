//! `shardSelector` (alpha, gate `ShardedListAndWatch`): objects whose
//! `metadata.uid` or `metadata.namespace` hashes (FNV-1a, 64-bit, over the
//! string's bytes) into any of the given `[start, end)` ranges.
//!
//! Grammar: `shardRange(<path>, '<0xstart>', '<0xend>')` joined by `||`;
//! `<path>` is `object.metadata.uid` or `object.metadata.namespace`; bounds
//! are `0x`-prefixed hex, the end may be `0x10000000000000000` (2^64).

use serde_json::Value;

/// FNV-1a, 64-bit.
#[must_use]
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    Uid,
    Namespace,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct ShardRange {
    path: Path,
    start: u128,
    end: u128,
}

/// A parsed shard selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardSelector {
    ranges: Vec<ShardRange>,
    text: String,
}

fn bound(s: &str) -> Result<u128, String> {
    let q = s.trim();
    let inner = q
        .strip_prefix('\'')
        .and_then(|r| r.strip_suffix('\''))
        .ok_or_else(|| format!("bound {q} must be a single-quoted string"))?;
    let hex = inner
        .strip_prefix("0x")
        .ok_or_else(|| format!("bound '{inner}' must start with 0x"))?;
    if hex.is_empty() || hex.len() > 17 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("bound '{inner}' is not a hexadecimal number"));
    }
    let v = u128::from_str_radix(hex, 16).map_err(|e| format!("bound '{inner}': {e}"))?;
    if v > 1u128 << 64 {
        return Err(format!(
            "bound '{inner}' is beyond the hash space [0x0, 0x10000000000000000)"
        ));
    }
    Ok(v)
}

fn parse_range(term: &str) -> Result<ShardRange, String> {
    let t = term.trim();
    let args = t
        .strip_prefix("shardRange(")
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| format!("expected shardRange(<path>, '<start>', '<end>'), found {t:?}"))?;
    let parts: Vec<&str> = args.split(',').collect();
    let [path, start, end] = parts.as_slice() else {
        return Err(format!(
            "shardRange takes 3 arguments, found {}",
            parts.len()
        ));
    };
    let path = match path.trim() {
        "object.metadata.uid" => Path::Uid,
        "object.metadata.namespace" => Path::Namespace,
        other => {
            return Err(format!(
                "unsupported path {other:?}: supported paths are object.metadata.uid and object.metadata.namespace"
            ));
        }
    };
    let (start, end) = (bound(start)?, bound(end)?);
    if start >= end {
        return Err(format!(
            "empty range: start {start:#x} is not below end {end:#x}"
        ));
    }
    Ok(ShardRange { path, start, end })
}

impl ShardSelector {
    /// Parses a selector; errors are one line for a 400.
    pub fn parse(s: &str) -> Result<ShardSelector, String> {
        let ranges = s
            .split("||")
            .map(parse_range)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("invalid shardSelector {s:?}: {e}"))?;
        Ok(ShardSelector {
            ranges,
            text: s.trim().to_string(),
        })
    }

    /// Whether the object falls in any range.
    #[must_use]
    pub fn matches(&self, obj: &Value) -> bool {
        let meta = |field: &str| {
            obj.get("metadata")
                .and_then(|m| m.get(field))
                .and_then(Value::as_str)
                .unwrap_or_default()
        };
        self.matches_values(meta("uid"), meta("namespace"))
    }

    /// Whether an object with this `uid` and `namespace` falls in any range.
    #[must_use]
    pub fn matches_values(&self, uid: &str, namespace: &str) -> bool {
        self.ranges.iter().any(|r| {
            let value = match r.path {
                Path::Uid => uid,
                Path::Namespace => namespace,
            };
            let h = u128::from(fnv1a64(value.as_bytes()));
            r.start <= h && h < r.end
        })
    }

    /// The selector as written (binds continue tokens to it).
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fnv_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn halves_partition_the_space() {
        let lo =
            ShardSelector::parse("shardRange(object.metadata.uid, '0x0', '0x8000000000000000')")
                .expect("lo");
        let hi = ShardSelector::parse(
            "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')",
        )
        .expect("hi");
        let both = ShardSelector::parse("shardRange(object.metadata.uid, '0x0', '0x8000000000000000') || shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')").expect("both");
        for i in 0..200 {
            let obj = json!({"metadata": {"uid": format!("uid-{i}")}});
            assert!(lo.matches(&obj) != hi.matches(&obj), "exactly one half");
            assert!(both.matches(&obj));
        }
    }

    #[test]
    fn malformed_selectors_are_refused() {
        for bad in [
            "",
            "shardRange(object.metadata.name, '0x0', '0x1')",
            "shardRange(object.metadata.uid, 0x0, '0x1')",
            "shardRange(object.metadata.uid, '0', '0x1')",
            "shardRange(object.metadata.uid, '0x5', '0x5')",
            "shardRange(object.metadata.uid, '0x0', '0x20000000000000000')",
            "shardRange(object.metadata.uid, '0x0')",
            "shardRange(object.metadata.uid, '0x0', '0xzz')",
            "shardRange(object.metadata.uid, '0x0', '0x1') ||",
        ] {
            assert!(ShardSelector::parse(bad).is_err(), "{bad}");
        }
    }
}
