//! The set of served kinds, looked up by group/version/resource. Built-in
//! kinds are added at start-up; CustomResourceDefinitions add and remove
//! theirs while the server runs, so readers take a cheap snapshot.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::RwLock;

use crate::api::kind::{KindSpec, Origin};

/// One immutable view of the served kinds.
#[derive(Default)]
pub struct Kinds {
    list: Vec<Arc<KindSpec>>,
    /// Indexes into `list` by resource name (a few versions/groups each), so
    /// a request's lookup allocates nothing.
    by_resource: HashMap<String, Vec<usize>>,
}

impl Kinds {
    fn from_list(list: Vec<Arc<KindSpec>>) -> Kinds {
        let mut by_resource: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, k) in list.iter().enumerate() {
            by_resource.entry(k.resource.clone()).or_default().push(i);
        }
        Kinds { list, by_resource }
    }

    /// Every kind, in registration order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<KindSpec>> {
        self.list.iter()
    }
}

/// Every kind the server serves.
#[derive(Default)]
pub struct Registry {
    current: RwLock<Arc<Kinds>>,
    /// Bumped on every change, so that derived documents know they are stale.
    generation: RwLock<u64>,
}

impl Registry {
    /// Adds (or replaces, by group/version/resource) a kind.
    pub fn add(&self, kind: KindSpec) {
        self.change(|list| {
            list.retain(|k| {
                !(k.group == kind.group && k.version == kind.version && k.resource == kind.resource)
            });
            list.push(Arc::new(kind));
        });
    }

    /// Replaces every kind a CRD defined with `kinds` (none: the CRD is gone).
    pub fn set_crd_kinds(&self, crd: &str, kinds: Vec<KindSpec>) {
        self.change(|list| {
            list.retain(|k| k.origin != Origin::Crd(crd.to_string()));
            list.extend(kinds.into_iter().map(Arc::new));
        });
    }

    fn change(&self, edit: impl FnOnce(&mut Vec<Arc<KindSpec>>)) {
        let mut current = self.current.write();
        let mut list = current.list.clone();
        edit(&mut list);
        *current = Arc::new(Kinds::from_list(list));
        *self.generation.write() += 1;
    }

    /// The served kinds now.
    #[must_use]
    pub fn snapshot(&self) -> Arc<Kinds> {
        Arc::clone(&self.current.read())
    }

    /// How many times the set has changed.
    #[must_use]
    pub fn generation(&self) -> u64 {
        *self.generation.read()
    }

    /// The kind served at `group/version/resource`.
    #[must_use]
    pub fn lookup(&self, group: &str, version: &str, resource: &str) -> Option<Arc<KindSpec>> {
        let kinds = self.current.read();
        kinds
            .by_resource
            .get(resource)?
            .iter()
            .map(|&i| &kinds.list[i])
            .find(|k| k.group == group && k.version == version)
            .map(Arc::clone)
    }

    /// Kinds of one group/version, in registration order.
    #[must_use]
    pub fn in_group_version(&self, group: &str, version: &str) -> Vec<Arc<KindSpec>> {
        self.snapshot()
            .iter()
            .filter(|k| k.group == group && k.version == version)
            .cloned()
            .collect()
    }

    /// Named groups with their versions (first registered = preferred).
    #[must_use]
    pub fn groups(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for k in self.snapshot().iter().filter(|k| !k.group.is_empty()) {
            match out.iter_mut().find(|(g, _)| *g == k.group) {
                Some((_, versions)) if !versions.contains(&k.version) => {
                    versions.push(k.version.clone());
                }
                Some(_) => {}
                None => out.push((k.group.clone(), vec![k.version.clone()])),
            }
        }
        out
    }

    /// One kind per stored collection (the first registered version of
    /// each): what a namespace's deletion or the garbage collector walks.
    /// Answered kinds store nothing and are not among them.
    #[must_use]
    pub fn storage_kinds(&self) -> Vec<Arc<KindSpec>> {
        let mut seen = std::collections::HashSet::new();
        self.snapshot()
            .iter()
            .filter(|k| k.answered_by.is_none())
            .filter(|k| seen.insert(k.storage.prefix.clone()))
            .cloned()
            .collect()
    }
}
