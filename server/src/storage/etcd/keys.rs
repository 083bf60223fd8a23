//! Where cairn's keys live in etcd: cairn names every object under
//! `/registry/…`, as kube-apiserver does; that root is replaced by
//! `--etcd-prefix`, so the default prefix keeps kube-apiserver's layout
//! exactly. Keys outside the root pass through unchanged.

use crate::storage::types::{KeyRange, prefix_end};

/// The root of cairn's own key space.
const ROOT: &[u8] = b"/registry";

/// Translates keys between cairn and etcd.
#[derive(Clone, Debug)]
pub struct Keys {
    prefix: Vec<u8>,
}

impl Keys {
    /// Keys under `prefix` (`--etcd-prefix`; a trailing `/` is dropped, as
    /// kube-apiserver joins it with a `/`).
    pub fn new(prefix: &str) -> Keys {
        let trimmed = prefix.trim_end_matches('/');
        Keys {
            prefix: trimmed.as_bytes().to_vec(),
        }
    }

    /// etcd's key for cairn's `key`.
    pub fn etcd_key(&self, key: &[u8]) -> Vec<u8> {
        match key.strip_prefix(ROOT) {
            Some(rest) => [self.prefix.as_slice(), rest].concat(),
            None => key.to_vec(),
        }
    }

    /// cairn's key for etcd's `key`.
    pub fn cairn_key(&self, key: &[u8]) -> Vec<u8> {
        match key.strip_prefix(self.prefix.as_slice()) {
            Some(rest) => [ROOT, rest].concat(),
            None => key.to_vec(),
        }
    }

    /// etcd's `key` and `range_end` for a range: an open end stays open
    /// only within the prefix.
    pub fn etcd_range(&self, range: &KeyRange) -> (Vec<u8>, Vec<u8>) {
        let start = self.etcd_key(&range.start);
        let end = if range.end.is_empty() {
            if range.start.starts_with(ROOT) {
                prefix_end(&self.prefix)
            } else {
                vec![0]
            }
        } else {
            self.etcd_key(&range.end)
        };
        (start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_becomes_the_prefix() {
        let default = Keys::new("/registry");
        assert_eq!(
            default.etcd_key(b"/registry/pods/a/b"),
            b"/registry/pods/a/b"
        );
        let other = Keys::new("/cluster-2/");
        assert_eq!(
            other.etcd_key(b"/registry/pods/a/b"),
            b"/cluster-2/pods/a/b"
        );
        assert_eq!(
            other.cairn_key(b"/cluster-2/pods/a/b"),
            b"/registry/pods/a/b"
        );
        assert_eq!(other.etcd_key(b"compact_rev_key"), b"compact_rev_key");
        let (start, end) = other.etcd_range(&KeyRange::prefix(b"/registry/pods/"));
        assert_eq!(
            (&start[..], &end[..]),
            (&b"/cluster-2/pods/"[..], &b"/cluster-2/pods0"[..])
        );
        let (_, open) = other.etcd_range(&KeyRange::between(b"/registry/x", b""));
        assert_eq!(open, b"/cluster-3");
    }
}
