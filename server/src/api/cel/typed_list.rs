//! Lists declared `x-kubernetes-list-type: set` or `map`, as a rule sees
//! them (spec 2.8, Kubernetes' set and map lists): `==` ignores order (a
//! map list matches elements by their key fields), and `+` is a union (set:
//! the right's elements not already present are appended, in order) or a
//! merge (map: an element whose keys the left already holds replaces it in
//! place, others are appended). The result of `+` keeps the list type.
//! Everything else (indexing, `size`, `in`, comprehensions, the list
//! library) sees an ordinary list: the value presents its elements as the
//! built-in list, so only the left operand's type decides, as in Kubernetes
//! (`[...] == self.set` compares in order).

use std::collections::HashMap;
use std::sync::Arc;

use cel::ExecutionError;
use cel::Value as Cel;
use cel::common::traits::{Adder, Container, Indexer, Iterable, Sizer, Zeroer};
use cel::common::types::{
    CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString, CelUInt, LIST_TYPE,
    Type,
};
use cel::common::value::{Builtin, BuiltinRef, CowVal, Val};

/// How the elements of a typed list are identified.
#[derive(Clone, Debug)]
pub enum Identity {
    /// By their own (scalar or atomic) value.
    Set,
    /// By the values of these fields (escaped as CEL names).
    Map(Arc<[String]>),
}

/// A set or map list.
#[derive(Clone, Debug)]
pub struct TypedList<'v> {
    items: CelList<'v>,
    identity: Identity,
}

impl<'v> TypedList<'v> {
    #[must_use]
    pub fn new(items: Vec<Box<dyn Val + 'v>>, identity: Identity) -> TypedList<'v> {
        TypedList {
            items: CelList::from(items),
            identity,
        }
    }

    /// The identity of `element`: a hashable key when it has one, else
    /// `None` (compared element by element instead).
    fn key(&self, element: &dyn Val) -> Option<Vec<Scalar>> {
        match &self.identity {
            Identity::Set => Some(vec![Scalar::of(element)?]),
            Identity::Map(fields) => {
                let map = element.downcast_ref::<CelMap>()?;
                fields
                    .iter()
                    .map(|f| match map.inner().get(&CelMapKey::from(f.clone())) {
                        Some(v) => Scalar::of(v.as_ref()),
                        None => Some(Scalar::Absent),
                    })
                    .collect()
            }
        }
    }

    /// Each keyed element's position.
    fn positions(&self) -> HashMap<Vec<Scalar>, usize> {
        self.items
            .inner()
            .iter()
            .enumerate()
            .filter_map(|(i, e)| Some((self.key(e.as_ref())?, i)))
            .collect()
    }

    /// Where an element with `other`'s identity sits in `items`.
    fn find(
        &self,
        items: &[Box<dyn Val + '_>],
        positions: &HashMap<Vec<Scalar>, usize>,
        other: &dyn Val,
    ) -> Option<usize> {
        match self.key(other) {
            Some(k) => positions.get(&k).copied(),
            None => items.iter().position(|e| match &self.identity {
                Identity::Set => e.equals(other),
                // An element whose keys cannot be hashed matches by them.
                Identity::Map(_) => self.key(e.as_ref()).is_none() && e.equals(other),
            }),
        }
    }
}

/// A hashable scalar: whole numbers compare as integers whatever their
/// CEL type, as the JSON they come from does not tell them apart.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Scalar {
    Absent,
    Null,
    Bool(bool),
    Int(i128),
    Float(u64),
    String(String),
}

impl Scalar {
    fn of(v: &dyn Val) -> Option<Scalar> {
        if let Some(s) = v.downcast_ref::<CelString>() {
            return Some(Scalar::String(s.inner().to_string()));
        }
        if let Some(i) = v.downcast_ref::<CelInt>() {
            return Some(Scalar::Int(i128::from(*i.inner())));
        }
        if let Some(u) = v.downcast_ref::<CelUInt>() {
            return Some(Scalar::Int(i128::from(*u.inner())));
        }
        if let Some(d) = v.downcast_ref::<CelDouble>() {
            let d = *d.inner();
            #[allow(clippy::cast_possible_truncation)]
            let whole = d as i128;
            #[allow(clippy::cast_precision_loss)]
            return Some(if d.fract() == 0.0 && whole as f64 == d {
                Scalar::Int(whole)
            } else {
                Scalar::Float(d.to_bits())
            });
        }
        if let Some(b) = v.downcast_ref::<CelBool>() {
            return Some(Scalar::Bool(*b.inner()));
        }
        v.downcast_ref::<CelNull>().map(|_| Scalar::Null)
    }
}

fn unsupported(op: &'static str, lhs: &dyn Val, rhs: &dyn Val) -> ExecutionError {
    let value = |v: &dyn Val| Cel::try_from(v).unwrap_or(Cel::Null);
    ExecutionError::UnsupportedBinaryOperator(op, value(lhs), value(rhs))
}

impl<'v> Val for TypedList<'v> {
    fn get_type(&self) -> &Type {
        &LIST_TYPE
    }

    fn cel_type() -> &'static Type {
        &LIST_TYPE
    }

    fn as_adder<'b, 'w>(&'b self) -> Option<&'b (dyn Adder + 'w)>
    where
        Self: 'w,
    {
        Some(self)
    }

    fn as_container(&self) -> Option<&dyn Container> {
        Some(&self.items)
    }

    fn as_indexer<'b, 'w>(&'b self) -> Option<&'b (dyn Indexer + 'w)>
    where
        Self: 'w,
    {
        Some(&self.items)
    }

    fn into_indexer<'w>(self: Box<Self>) -> Option<Box<dyn Indexer + 'w>>
    where
        Self: 'w,
    {
        Some(Box::new(self.items))
    }

    fn as_iterable<'b, 'w>(&'b self) -> Option<&'b (dyn Iterable + 'w)>
    where
        Self: 'w,
    {
        Some(&self.items)
    }

    fn as_sizer(&self) -> Option<&dyn Sizer> {
        Some(&self.items)
    }

    fn as_zeroer(&self) -> Option<&dyn Zeroer> {
        Some(&self.items)
    }

    /// Equal to any list of as many elements, each of which has a
    /// counterpart here (by key, in a map list) equal to it.
    fn equals(&self, other: &dyn Val) -> bool {
        let Some(other) = other.downcast_ref::<CelList>() else {
            return false;
        };
        if other.inner().len() != self.items.inner().len() {
            return false;
        }
        let positions = self.positions();
        other.inner().iter().all(|o| {
            self.find(self.items.inner(), &positions, o.as_ref())
                .is_some_and(|i| self.items.inner()[i].equals(o.as_ref()))
        })
    }

    fn clone_as_boxed<'w>(&self) -> Box<dyn Val + 'w>
    where
        Self: 'w,
    {
        Box::new(self.clone())
    }

    fn as_builtin<'b, 'w>(&'b self) -> BuiltinRef<'b, 'w>
    where
        Self: 'w,
    {
        BuiltinRef::List(&self.items)
    }

    fn into_builtin<'w>(self: Box<Self>) -> Option<Builtin<'w>>
    where
        Self: 'w,
    {
        Some(Builtin::List(self.items))
    }
}

impl<'v> Adder for TypedList<'v> {
    fn add<'b, 'w>(&'b self, rhs: &(dyn Val + 'w)) -> Result<CowVal<'b, 'w>, ExecutionError>
    where
        Self: 'w,
    {
        let other = rhs
            .downcast_ref::<CelList>()
            .ok_or_else(|| unsupported("add", self, rhs))?;
        let mut items: Vec<Box<dyn Val + 'w>> = self
            .items
            .inner()
            .iter()
            .map(|e| e.clone_as_boxed())
            .collect();
        let mut positions = self.positions();
        let left = items.len();
        for element in other.inner().iter() {
            let element = element.as_ref();
            match &self.identity {
                // A union: the right's repeats are dropped too.
                Identity::Set => {
                    if self.find(&items, &positions, element).is_none() {
                        if let Some(k) = self.key(element) {
                            positions.insert(k, items.len());
                        }
                        items.push(element.clone_as_boxed());
                    }
                }
                // Only the left's elements are replaced: right elements
                // sharing a new key are all appended, as Kubernetes does.
                Identity::Map(_) => match self.find(&items[..left], &positions, element) {
                    Some(at) => items[at] = element.clone_as_boxed(),
                    None => items.push(element.clone_as_boxed()),
                },
            }
        }
        Ok(CowVal::owned(TypedList::new(items, self.identity.clone())))
    }
}
