//! Content hashes for generated documents (OpenAPI, aggregated discovery):
//! the `ETag` they are served with and the `?hash=` of OpenAPI v3 URLs.

/// FNV-1a over 128 bits, as upper-case hex. Not cryptographic: it only has to
/// change whenever the document does, and be the same for equal documents.
#[must_use]
pub fn content_hash(bytes: &[u8]) -> String {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    let hash = bytes
        .iter()
        .fold(OFFSET, |h, b| (h ^ u128::from(*b)).wrapping_mul(PRIME));
    format!("{hash:032X}")
}

/// Whether an `If-None-Match` header names `etag` (quoted), or is `*`.
#[must_use]
pub fn matches(if_none_match: Option<&str>, etag: &str) -> bool {
    if_none_match.is_some_and(|h| {
        h.split(',')
            .map(|t| t.trim().trim_start_matches("W/"))
            .any(|t| t == "*" || t == etag)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_differ_with_content_and_match_quoted_tags() {
        let a = content_hash(b"{\"a\":1}");
        assert_eq!(a.len(), 32);
        assert_eq!(a, content_hash(b"{\"a\":1}"));
        assert_ne!(a, content_hash(b"{\"a\":2}"));
        let tag = format!("\"{a}\"");
        assert!(matches(Some(&tag), &tag));
        assert!(matches(Some(&format!("\"x\", W/{tag}")), &tag));
        assert!(matches(Some("*"), &tag));
        assert!(!matches(Some("\"other\""), &tag));
        assert!(!matches(None, &tag));
    }
}
