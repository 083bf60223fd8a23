//! Inverted indexes over one kind's list index: for an attribute family
//! (a label key, a selectable field, the name or the namespace) the keys
//! holding each value. One is built when a list first selects by its
//! family and kept current with every change after, so such a list visits
//! only the keys holding its values instead of every stored object.

use std::collections::{BTreeSet, HashMap};
use std::ops::{Bound, RangeBounds};
use std::sync::Arc;

use crate::api::index::{Attributes, Family};
use crate::api::kind::KindSpec;

/// Families one kind indexes at most; a list by any other scans.
const MAX_FAMILIES: usize = 8;

/// A stored key, shared by the index's map and its postings.
pub type Key = Arc<[u8]>;

type ByValue = HashMap<Box<str>, Keys>;

/// The keys filed under one value. Most values of a field like a name are
/// held by one object, which then costs no set of its own.
enum Keys {
    One(Key),
    Many(BTreeSet<Key>),
}

impl Keys {
    fn insert(&mut self, key: &Key) {
        match self {
            Keys::One(one) if one[..] == key[..] => {}
            Keys::One(one) => {
                *self = Keys::Many(BTreeSet::from([Arc::clone(one), Arc::clone(key)]));
            }
            Keys::Many(keys) => {
                keys.insert(Arc::clone(key));
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

/// The postings of the families lists have selected by.
#[derive(Default)]
pub struct Postings {
    families: HashMap<Family, ByValue>,
}

impl Postings {
    #[must_use]
    pub fn has(&self, family: &Family) -> bool {
        self.families.contains_key(family)
    }

    /// Files every object under `family`; `false` (and nothing built) when
    /// the kind already indexes as many families as it may.
    pub fn build<'a>(
        &mut self,
        kind: &KindSpec,
        family: &Family,
        objects: impl Iterator<Item = (&'a Key, Option<&'a Attributes>)>,
    ) -> bool {
        if self.families.len() >= MAX_FAMILIES {
            return false;
        }
        let mut by_value = ByValue::new();
        for (key, attrs) in objects {
            if let Some(v) = attrs.and_then(|a| family.value(kind, a)) {
                file(&mut by_value, v, key);
            }
        }
        self.families.insert(family.clone(), by_value);
        true
    }

    /// `key`'s attributes went from `old` to `new` (`None`: absent or
    /// unreadable).
    pub fn change(
        &mut self,
        kind: &KindSpec,
        key: &Key,
        old: Option<&Attributes>,
        new: Option<&Attributes>,
    ) {
        for (family, by_value) in &mut self.families {
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

    /// The keys in `[start, end)` (`end` empty: unbounded) filed under any
    /// of `values`, unordered; `None` when `family` is not indexed.
    #[must_use]
    pub fn keys(
        &self,
        family: &Family,
        values: &[Box<str>],
        start: &[u8],
        end: &[u8],
    ) -> Option<Vec<&Key>> {
        let by_value = self.families.get(family)?;
        let upper = if end.is_empty() {
            Bound::Unbounded
        } else {
            Bound::Excluded(end)
        };
        let mut out = Vec::new();
        for v in values {
            if let Some(keys) = by_value.get(&**v) {
                keys.in_range((Bound::Included(start), upper), &mut out);
            }
        }
        Some(out)
    }
}

fn file(by_value: &mut ByValue, value: &str, key: &Key) {
    match by_value.get_mut(value) {
        Some(keys) => keys.insert(key),
        None => {
            by_value.insert(value.into(), Keys::One(Arc::clone(key)));
        }
    }
}
