//! Which provider chain a storage key's values use: the key names its
//! resource (`/registry/<resource>/…` in the core group,
//! `/registry/<group>/<resource>/…` in named groups, whose names always
//! hold a dot), matched against the configuration's exact names, then its
//! `*.<group>` wildcards, then `*.*` — so custom resources created after
//! start are covered by the wildcards without a rebuild. No allocation per
//! lookup.

use std::sync::Arc;

use crate::chain::Chain;

const REGISTRY: &[u8] = b"/registry/";

/// A `resources[]` entry: `secrets`, `widgets.example.com`, `*.apps`,
/// `*.` (the core group) or `*.*`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GroupResource {
    pub group: String,
    pub resource: String,
}

impl GroupResource {
    /// Kubernetes' reading: the resource up to the first dot, the group after.
    #[must_use]
    pub fn parse(text: &str) -> GroupResource {
        let (resource, group) = text.split_once('.').unwrap_or((text, ""));
        GroupResource {
            group: group.into(),
            resource: resource.into(),
        }
    }

    /// As a configuration writes it (`*.` for every core resource).
    #[must_use]
    pub fn display(&self) -> String {
        if self.group.is_empty() {
            if self.resource == "*" {
                return "*.".into();
            }
            return self.resource.clone();
        }
        format!("{}.{}", self.resource, self.group)
    }
}

/// The group and resource a storage key belongs to, if it is an object key.
#[must_use]
pub fn group_resource(key: &[u8]) -> Option<(&[u8], &[u8])> {
    let rest = key.strip_prefix(REGISTRY)?;
    let (first, rest) = split_segment(rest)?;
    if first.contains(&b'.') {
        let (resource, _) = split_segment(rest)?;
        Some((first, resource))
    } else {
        Some((b"", first))
    }
}

fn split_segment(path: &[u8]) -> Option<(&[u8], &[u8])> {
    let at = path.iter().position(|b| *b == b'/')?;
    Some((&path[..at], &path[at + 1..]))
}

/// The chains of a configuration by resource.
#[derive(Clone, Default)]
pub struct ResourceRoutes {
    exact: Vec<(Vec<u8>, Vec<u8>, Arc<Chain>)>,
    groups: Vec<(Vec<u8>, Arc<Chain>)>,
    every: Option<Arc<Chain>>,
}

impl ResourceRoutes {
    /// Adds the chain of `gr`; the caller has refused masked entries, so
    /// the first chain given for a wildcard is the one kept.
    pub fn add(&mut self, gr: &GroupResource, chain: Arc<Chain>) {
        let (group, resource) = (gr.group.as_bytes(), gr.resource.as_bytes());
        match (group, resource) {
            (b"*", _) => {
                self.every.get_or_insert(chain);
            }
            (_, b"*") => {
                if !self.groups.iter().any(|(g, _)| g == group) {
                    self.groups.push((group.to_vec(), chain));
                }
            }
            _ => self.exact.push((group.to_vec(), resource.to_vec(), chain)),
        }
    }

    /// The chain of `key`'s values, if the configuration covers them.
    #[must_use]
    pub fn for_key(&self, key: &[u8]) -> Option<&Chain> {
        let (group, resource) = group_resource(key)?;
        self.exact
            .iter()
            .find(|(g, r, _)| r == resource && g == group)
            .map(|(_, _, c)| c)
            .or_else(|| self.groups.iter().find(|(g, _)| g == group).map(|(_, c)| c))
            .or(self.every.as_ref())
            .map(AsRef::as_ref)
    }

    /// Every chain, each once per entry that named it.
    pub fn chains(&self) -> impl Iterator<Item = &Arc<Chain>> {
        self.exact
            .iter()
            .map(|(_, _, c)| c)
            .chain(self.groups.iter().map(|(_, c)| c))
            .chain(self.every.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_name_their_group_and_resource() {
        assert_eq!(
            group_resource(b"/registry/secrets/ns/a"),
            Some((&b""[..], &b"secrets"[..]))
        );
        assert_eq!(
            group_resource(b"/registry/stable.example.com/crontabs/ns/a"),
            Some((&b"stable.example.com"[..], &b"crontabs"[..]))
        );
        assert_eq!(
            group_resource(b"/registry/nodes/n1"),
            Some((&b""[..], &b"nodes"[..]))
        );
        assert_eq!(group_resource(b"/other/secrets/a"), None);
        assert_eq!(group_resource(b"/registry/secrets"), None);
    }

    #[test]
    fn configuration_names_parse_as_kubernetes_reads_them() {
        let gr = GroupResource::parse("crontabs.stable.example.com");
        assert_eq!(
            (gr.resource.as_str(), gr.group.as_str()),
            ("crontabs", "stable.example.com")
        );
        assert_eq!(GroupResource::parse("*.").display(), "*.");
        assert_eq!(GroupResource::parse("*.*").group, "*");
        assert_eq!(GroupResource::parse("secrets").display(), "secrets");
        assert_eq!(GroupResource::parse("*.apps").display(), "*.apps");
    }
}
