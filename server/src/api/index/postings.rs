//! Inverted indexes over one kind's stored objects: for an attribute family
//! (a label key, a selectable field, the name or the namespace) the keys
//! holding each value. One is built when a list first selects by its
//! family and kept current with every change after, so such a list visits
//! only the keys holding its values instead of every stored object. A
//! family is filed while it is built (changes go in as they come) and
//! answers only once ready; a key may stay filed under a value it held
//! while the family was built, which costs a list one read, never an
//! object.

use std::collections::{BTreeSet, HashMap};
use std::ops::{Bound, RangeBounds};

use crate::api::index::{Attributes, Family};
use crate::api::kind::KindSpec;

/// Families one kind indexes at most; a list by any other scans.
const MAX_FAMILIES: usize = 8;

/// A stored key, relative to its kind's collection prefix.
pub type Key = Box<[u8]>;

type ByValue = HashMap<Box<str>, Keys>;

/// The keys filed under one value. Most values of a field like a name are
/// held by one object, which then costs no set of its own.
enum Keys {
    One(Key),
    // Boxed, so the common single key costs 24 bytes a value, not 32.
    #[allow(clippy::box_collection)]
    Many(Box<BTreeSet<Key>>),
}

impl Keys {
    fn insert(&mut self, key: &[u8]) {
        match self {
            Keys::One(one) if one[..] == key[..] => {}
            Keys::One(one) => {
                *self = Keys::Many(Box::new(BTreeSet::from([one.clone(), key.into()])));
            }
            Keys::Many(keys) => {
                keys.insert(key.into());
            }
        }
    }

    /// Removes `key`; `true` when no key is left.
    fn remove(&mut self, key: &[u8]) -> bool {
        match self {
            Keys::One(one) => one[..] == *key,
            Keys::Many(keys) => {
                keys.remove(key);
                keys.is_empty()
            }
        }
    }

    fn in_range<'a>(&'a self, bounds: (Bound<&[u8]>, Bound<&[u8]>), out: &mut Vec<&'a Key>) {
        match self {
            Keys::One(one) => {
                if RangeBounds::<[u8]>::contains(&bounds, &one[..]) {
                    out.push(one);
                }
            }
            Keys::Many(keys) => out.extend(keys.range::<[u8], _>(bounds)),
        }
    }
}

/// One family's postings.
#[derive(Default)]
struct Filed {
    /// Every stored object is filed (not only those changed since the
    /// family began).
    ready: bool,
    by_value: ByValue,
}

/// The postings of the families lists have selected by.
#[derive(Default)]
pub struct Postings {
    families: HashMap<Family, Filed>,
}

impl Postings {
    /// Whether `family` is ready to answer.
    #[must_use]
    pub fn has(&self, family: &Family) -> bool {
        self.families.get(family).is_some_and(|f| f.ready)
    }

    /// Starts filing `family`: every change from now on is filed, and
    /// [`Postings::file`] adds the objects stored before. `false` when it
    /// is already there, or the kind indexes as many families as it may.
    pub fn begin(&mut self, family: &Family) -> bool {
        if self.families.len() >= MAX_FAMILIES || self.families.contains_key(family) {
            return false;
        }
        self.families.insert(family.clone(), Filed::default());
        true
    }

    /// Files one stored object under `family` (which has begun).
    pub fn file(&mut self, kind: &KindSpec, family: &Family, key: &[u8], attrs: &Attributes) {
        if let Some(filed) = self.families.get_mut(family)
            && let Some(v) = family.value(kind, attrs)
        {
            file(&mut filed.by_value, v, key);
        }
    }

    /// Every stored object of `family` is filed: lists may use it.
    pub fn finish(&mut self, family: &Family) {
        if let Some(filed) = self.families.get_mut(family) {
            filed.ready = true;
        }
    }

    /// Drops a family that could not be built.
    pub fn abandon(&mut self, family: &Family) {
        if self.families.get(family).is_some_and(|f| !f.ready) {
            self.families.remove(family);
        }
    }

    /// `key`'s attributes went from `old` to `new` (`None`: absent or
    /// unreadable).
    pub fn change(
        &mut self,
        kind: &KindSpec,
        key: &[u8],
        old: Option<&Attributes>,
        new: Option<&Attributes>,
    ) {
        for (family, Filed { by_value, .. }) in &mut self.families {
            let was = old.and_then(|a| family.value(kind, a));
            let is = new.and_then(|a| family.value(kind, a));
            if was == is {
                continue;
            }
            if let Some(v) = was
                && by_value.get_mut(v).is_some_and(|keys| keys.remove(key))
            {
                by_value.remove(v);
            }
            if let Some(v) = is {
                file(by_value, v, key);
            }
        }
    }

    /// The keys within `bounds` filed under any of `values`, unordered;
    /// `None` when `family` is not ready.
    #[must_use]
    pub fn keys<'a>(
        &'a self,
        family: &Family,
        values: &[Box<str>],
        bounds: (Bound<&[u8]>, Bound<&[u8]>),
    ) -> Option<Vec<&'a Key>> {
        let filed = self.families.get(family).filter(|f| f.ready)?;
        let mut out = Vec::new();
        for v in values {
            if let Some(keys) = filed.by_value.get(&**v) {
                keys.in_range(bounds, &mut out);
            }
        }
        Some(out)
    }
}

fn file(by_value: &mut ByValue, value: &str, key: &[u8]) {
    match by_value.get_mut(value) {
        Some(keys) => keys.insert(key),
        None => {
            by_value.insert(value.into(), Keys::One(key.into()));
        }
    }
}
