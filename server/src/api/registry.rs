//! The set of served kinds, looked up by group/version/resource. Built-in
//! kinds are added at start-up; CustomResourceDefinitions add and remove
//! theirs while the server runs, so readers take a cheap snapshot. A
//! built-in kind `--runtime-config` turns off is kept aside: not served
//! (no path, discovery or OpenAPI), but still known to the server's own
//! loops and to the storage it shares with served versions.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::RwLock;

use crate::api::deprecation::RequestedDeprecatedApis;
use crate::api::kind::{KindSpec, Origin};
use crate::config::runtime_config::Enablement;

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
    /// Which built-in versions and resources are served.
    enablement: Enablement,
    /// Built-in kinds registered but not served.
    unserved: RwLock<Vec<Arc<KindSpec>>>,
    /// The deprecated kinds requested so far.
    pub requested_deprecated: RequestedDeprecatedApis,
}

fn same_resource(a: &KindSpec, b: &KindSpec) -> bool {
    a.group == b.group && a.version == b.version && a.resource == b.resource
}

impl Registry {
    /// An empty registry serving built-in kinds as `enablement` says.
    #[must_use]
    pub fn with_enablement(enablement: Enablement) -> Registry {
        Registry {
            enablement,
            ..Registry::default()
        }
    }

    /// Adds (or replaces, by group/version/resource) a kind; a built-in
    /// kind that is turned off is kept aside, unserved.
    pub fn add(&self, kind: KindSpec) {
        if kind.origin == Origin::BuiltIn
            && !self
                .enablement
                .enabled(&kind.group, &kind.version, &kind.resource)
        {
            let mut unserved = self.unserved.write();
            unserved.retain(|k| !same_resource(k, &kind));
            unserved.push(Arc::new(kind));
            return;
        }
        self.change(|list| {
            list.retain(|k| !same_resource(k, &kind));
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

    /// The kind served at `group/version/resource`: what requests reach.
    #[must_use]
    pub fn served(&self, group: &str, version: &str, resource: &str) -> Option<Arc<KindSpec>> {
        let kinds = self.current.read();
        kinds
            .by_resource
            .get(resource)?
            .iter()
            .map(|&i| &kinds.list[i])
            .find(|k| k.group == group && k.version == version)
            .map(Arc::clone)
    }

    /// The other served kinds whose objects are `kind`'s stored objects
    /// (the same resource name and storage prefix): kube's equivalent
    /// resources, another version or group of the same thing.
    #[must_use]
    pub fn equivalents(&self, kind: &KindSpec) -> Vec<Arc<KindSpec>> {
        let kinds = self.current.read();
        let Some(ids) = kinds.by_resource.get(&kind.resource) else {
            return Vec::new();
        };
        ids.iter()
            .map(|&i| &kinds.list[i])
            .filter(|k| k.storage.prefix == kind.storage.prefix && !same_resource(k, kind))
            .cloned()
            .collect()
    }

    /// The kind registered at `group/version/resource`, served or not: what
    /// the server's own loops work with.
    #[must_use]
    pub fn lookup(&self, group: &str, version: &str, resource: &str) -> Option<Arc<KindSpec>> {
        self.served(group, version, resource).or_else(|| {
            self.unserved
                .read()
                .iter()
                .find(|k| k.group == group && k.version == version && k.resource == resource)
                .cloned()
        })
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
    /// each, served ones first): what a namespace's deletion walks, so that
    /// objects of a kind turned off go with their namespace too. Answered
    /// kinds store nothing and are not among them.
    #[must_use]
    pub fn storage_kinds(&self) -> Vec<Arc<KindSpec>> {
        let mut seen = std::collections::HashSet::new();
        let unserved = self.unserved.read().clone();
        self.snapshot()
            .iter()
            .chain(unserved.iter())
            .filter(|k| k.answered_by.is_none())
            .filter(|k| seen.insert(k.storage.prefix.clone()))
            .cloned()
            .collect()
    }
}
