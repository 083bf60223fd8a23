//! `FieldSet`: a set of field paths kept as a trie, with the set algebra
//! ownership needs (union, difference, intersection).
//!
//! A node is a member when the path to it is itself in the set (a leaf, an
//! atomic value, a list item, or a map a writer created). Invariant: no child
//! is empty, so `is_empty` is a constant-time check.

use std::collections::BTreeMap;

use super::path::PathElement;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSet {
    member: bool,
    children: BTreeMap<PathElement, FieldSet>,
}

impl FieldSet {
    /// The set holding just this node.
    #[must_use]
    pub fn leaf() -> FieldSet {
        FieldSet {
            member: true,
            children: BTreeMap::new(),
        }
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        !self.member && self.children.is_empty()
    }

    /// Whether the node itself is in the set.
    #[must_use]
    pub fn is_member(&self) -> bool {
        self.member
    }

    pub fn set_member(&mut self, member: bool) {
        self.member = member;
    }

    #[must_use]
    pub fn child(&self, step: &PathElement) -> Option<&FieldSet> {
        self.children.get(step)
    }

    pub fn children(&self) -> impl Iterator<Item = (&PathElement, &FieldSet)> {
        self.children.iter()
    }

    /// The children, to change in place. Callers must not leave one empty.
    pub fn children_mut(&mut self) -> impl Iterator<Item = (&PathElement, &mut FieldSet)> {
        self.children.iter_mut()
    }

    #[must_use]
    pub fn has_children(&self) -> bool {
        !self.children.is_empty()
    }

    /// Adds `set` below `step` (nothing when it is empty).
    pub fn insert_child(&mut self, step: PathElement, set: FieldSet) {
        if set.is_empty() {
            return;
        }
        match self.children.get_mut(&step) {
            Some(existing) => existing.union_with(&set),
            None => {
                self.children.insert(step, set);
            }
        }
    }

    /// Takes `step` and everything below it out of the set.
    pub fn take_child(&mut self, step: &PathElement) -> Option<FieldSet> {
        self.children.remove(step)
    }

    /// Drops `step` and everything below it.
    pub fn remove_child(&mut self, step: &PathElement) {
        self.children.remove(step);
    }

    /// Adds every path of `other`.
    pub fn union_with(&mut self, other: &FieldSet) {
        self.member |= other.member;
        for (step, theirs) in &other.children {
            match self.children.get_mut(step) {
                Some(mine) => mine.union_with(theirs),
                None => {
                    self.children.insert(step.clone(), theirs.clone());
                }
            }
        }
    }

    /// Adds every path of `other`, moving its nodes.
    pub fn union_owned(&mut self, other: FieldSet) {
        self.member |= other.member;
        if self.children.is_empty() {
            self.children = other.children;
            return;
        }
        for (step, theirs) in other.children {
            match self.children.get_mut(&step) {
                Some(mine) => mine.union_owned(theirs),
                None => {
                    self.children.insert(step, theirs);
                }
            }
        }
    }

    /// Removes every path of `other`.
    pub fn subtract(&mut self, other: &FieldSet) {
        if other.member {
            self.member = false;
        }
        if self.children.is_empty() || other.children.is_empty() {
            return;
        }
        if other.children.len() < self.children.len() {
            for (step, theirs) in &other.children {
                if let Some(mine) = self.children.get_mut(step) {
                    mine.subtract(theirs);
                    if mine.is_empty() {
                        self.children.remove(step);
                    }
                }
            }
        } else {
            self.children.retain(|step, mine| {
                if let Some(theirs) = other.children.get(step) {
                    mine.subtract(theirs);
                }
                !mine.is_empty()
            });
        }
    }

    /// The paths in both sets.
    #[must_use]
    pub fn intersection(&self, other: &FieldSet) -> FieldSet {
        let (small, large) = if self.children.len() <= other.children.len() {
            (self, other)
        } else {
            (other, self)
        };
        let mut out = FieldSet {
            member: self.member && other.member,
            children: BTreeMap::new(),
        };
        for (step, a) in &small.children {
            if let Some(b) = large.children.get(step) {
                let both = a.intersection(b);
                if !both.is_empty() {
                    out.children.insert(step.clone(), both);
                }
            }
        }
        out
    }

    /// Every member path, in sibling order.
    #[must_use]
    pub fn paths(&self) -> Vec<Vec<PathElement>> {
        fn walk(set: &FieldSet, prefix: &mut Vec<PathElement>, out: &mut Vec<Vec<PathElement>>) {
            if set.member {
                out.push(prefix.clone());
            }
            for (step, child) in &set.children {
                prefix.push(step.clone());
                walk(child, prefix, out);
                prefix.pop();
            }
        }
        let mut out = Vec::new();
        walk(self, &mut Vec::new(), &mut out);
        out
    }

    /// The set from a list of paths (tests and builders).
    #[must_use]
    pub fn from_paths(paths: &[&[PathElement]]) -> FieldSet {
        let mut out = FieldSet::default();
        for path in paths {
            out.union_with(&FieldSet::at(path));
        }
        out
    }

    /// The set holding exactly `path`.
    #[must_use]
    pub fn at(path: &[PathElement]) -> FieldSet {
        let mut set = FieldSet::leaf();
        for step in path.iter().rev() {
            let mut parent = FieldSet::default();
            parent.children.insert(step.clone(), set);
            set = parent;
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str) -> PathElement {
        PathElement::field(name)
    }

    #[test]
    fn algebra_keeps_no_empty_nodes() {
        let a = FieldSet::from_paths(&[&[f("spec"), f("a")], &[f("spec"), f("b")], &[f("x")]]);
        let b = FieldSet::from_paths(&[&[f("spec"), f("b")], &[f("y")]]);
        let both = a.intersection(&b);
        assert_eq!(both, FieldSet::at(&[f("spec"), f("b")]));
        let mut rest = a.clone();
        rest.subtract(&b);
        assert_eq!(
            rest,
            FieldSet::from_paths(&[&[f("spec"), f("a")], &[f("x")]])
        );
        rest.subtract(&a);
        assert!(rest.is_empty());
        let mut all = a.clone();
        all.union_with(&b);
        assert_eq!(all.paths().len(), 4);
        assert!(FieldSet::default().intersection(&a).is_empty());
    }
}
