//! The exact-match term of a selection: one attribute (a name, a field
//! `=`, a label `=`/`in`, a namespace) and the values every object it can
//! select has one of. Watchers are filed under it, and lists read only
//! the keys an index holds under it.

use crate::api::index::Attributes;
use crate::api::kind::KindSpec;
use crate::api::selectors::{FieldSelector, LabelSelector, Labels, Operator};

/// An attribute objects (and watchers) are indexed by.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    Name,
    Namespace,
    Field(Box<str>),
    Label(Box<str>),
}

/// A family and the values a selected object has one of.
pub type Term = (Family, Vec<Box<str>>);

impl Family {
    /// The attribute's value in `attrs`; a missing field reads as "" (as
    /// field selectors read it), a missing label as nothing.
    #[must_use]
    pub fn value<'a>(&self, kind: &KindSpec, attrs: &'a Attributes) -> Option<&'a str> {
        match self {
            Family::Name => Some(attrs.name()),
            Family::Namespace => Some(attrs.namespace()),
            Family::Field(f) => Some(attrs.field(kind, f).unwrap_or_default()),
            Family::Label(k) => attrs.label(k),
        }
    }
}

/// The most selective exact-match term of these selectors; `name` and
/// `namespace` pin the object or collection when the request path does.
#[must_use]
pub fn exact_term(
    label: Option<&LabelSelector>,
    field: Option<&FieldSelector>,
    namespace: Option<&str>,
    name: Option<&str>,
) -> Option<Term> {
    let pinned = |f: &str| field.and_then(|s| s.requires_exact_match(f));
    if let Some(n) = name.or_else(|| pinned("metadata.name")) {
        return Some((Family::Name, vec![n.into()]));
    }
    if let Some(t) = field.and_then(|s| {
        s.terms()
            .iter()
            .find(|t| !t.negated && t.field != "metadata.namespace")
    }) {
        return Some((
            Family::Field(t.field.as_str().into()),
            vec![t.value.as_str().into()],
        ));
    }
    let exact_label = label.and_then(|l| {
        l.requirements().iter().find(|r| {
            matches!(
                r.operator,
                Operator::Equals | Operator::DoubleEquals | Operator::In
            )
        })
    });
    if let Some(r) = exact_label {
        let values = r.values.iter().map(|v| v.as_str().into()).collect();
        return Some((Family::Label(r.key.as_str().into()), values));
    }
    namespace
        .or_else(|| pinned("metadata.namespace"))
        .map(|ns| (Family::Namespace, vec![ns.into()]))
}
