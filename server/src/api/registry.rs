//! The set of served kinds, looked up by group/version/resource.

use std::sync::Arc;

use crate::api::kind::KindSpec;

/// Every kind the server serves. Built at start-up.
#[derive(Default)]
pub struct Registry {
    kinds: Vec<Arc<KindSpec>>,
}

impl Registry {
    pub fn add(&mut self, kind: KindSpec) {
        self.kinds.push(Arc::new(kind));
    }

    /// The kind served at `group/version/resource`.
    #[must_use]
    pub fn lookup(&self, group: &str, version: &str, resource: &str) -> Option<&Arc<KindSpec>> {
        self.kinds
            .iter()
            .find(|k| k.group == group && k.version == version && k.resource == resource)
    }

    /// Kinds of one group/version, in registration order.
    pub fn in_group_version<'a>(
        &'a self,
        group: &'a str,
        version: &'a str,
    ) -> impl Iterator<Item = &'a Arc<KindSpec>> {
        self.kinds
            .iter()
            .filter(move |k| k.group == group && k.version == version)
    }

    /// Named groups with their versions (first registered = preferred).
    #[must_use]
    pub fn groups(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for k in self.kinds.iter().filter(|k| !k.group.is_empty()) {
            match out.iter_mut().find(|(g, _)| *g == k.group) {
                Some((_, versions)) if !versions.contains(&k.version) => {
                    versions.push(k.version.clone())
                }
                Some(_) => {}
                None => out.push((k.group.clone(), vec![k.version.clone()])),
            }
        }
        out
    }

    /// Every namespaced kind (namespace deletion empties each).
    pub fn namespaced(&self) -> impl Iterator<Item = &Arc<KindSpec>> {
        self.kinds.iter().filter(|k| k.namespaced)
    }
}
