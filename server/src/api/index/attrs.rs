//! What selectors read of one stored object — namespace, name, uid, labels
//! and the kind's selectable fields — extracted once from its bytes, so any
//! number of watchers and list filters test it without parsing it again.

use std::sync::Arc;

use serde_json::Value;

use crate::api::kind::KindSpec;
use crate::api::selectors::{FieldSelector, LabelSelector, Labels, ShardSelector};
use crate::api::store::read::field_value;
use crate::api::store::{ListOptions, Store};
use crate::storage::KeyValue;

/// The selectable attributes of one object as its kind serves it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attributes {
    namespace: Box<str>,
    name: Box<str>,
    uid: Box<str>,
    /// Sorted by key.
    labels: Box<[(Box<str>, Box<str>)]>,
    /// In the order of the kind's `selectable_fields`; `None` when absent.
    fields: Box<[Option<Box<str>>]>,
}

fn meta_str(obj: &Value, field: &str) -> Box<str> {
    obj.get("metadata")
        .and_then(|m| m.get(field))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .into()
}

impl Attributes {
    /// The attributes of `obj` (already in the kind's served form).
    #[must_use]
    pub fn of_object(kind: &KindSpec, obj: &Value) -> Attributes {
        let mut labels: Vec<(Box<str>, Box<str>)> = obj
            .get("metadata")
            .and_then(|m| m.get("labels"))
            .and_then(Value::as_object)
            .map(|l| {
                l.iter()
                    .filter_map(|(k, v)| Some((k.as_str().into(), v.as_str()?.into())))
                    .collect()
            })
            .unwrap_or_default();
        labels.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let fields = kind
            .selectable_fields
            .iter()
            .map(|f| field_value(kind, obj, f).map(String::into_boxed_str))
            .collect();
        Attributes {
            namespace: meta_str(obj, "namespace"),
            name: meta_str(obj, "name"),
            uid: meta_str(obj, "uid"),
            labels: labels.into_boxed_slice(),
            fields,
        }
    }

    /// The attributes of a stored record; `None` when it cannot be read as
    /// the kind (such an object is never selected).
    #[must_use]
    pub fn of_record(kind: &KindSpec, kv: &KeyValue) -> Option<Arc<Attributes>> {
        let obj = Store::decode_served(kind, kv).ok()?;
        Some(Arc::new(Attributes::of_object(kind, &obj)))
    }

    #[must_use]
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A selectable field's value (`metadata.name`, `metadata.namespace`, or
    /// one of the kind's own).
    #[must_use]
    pub fn field<'a>(&'a self, kind: &KindSpec, field: &str) -> Option<&'a str> {
        match field {
            "metadata.name" => Some(&self.name),
            "metadata.namespace" => Some(&self.namespace),
            _ => {
                let i = kind.selectable_fields.iter().position(|f| f == field)?;
                self.fields.get(i)?.as_deref()
            }
        }
    }

    /// Whether the object passes `opts`' label, field and shard selectors.
    #[must_use]
    pub fn selected_by(&self, kind: &KindSpec, opts: &ListOptions) -> bool {
        self.matches(
            kind,
            opts.label.as_ref(),
            opts.field.as_ref(),
            opts.shard.as_ref(),
        )
    }

    /// Whether the object passes every selector given.
    #[must_use]
    pub fn matches(
        &self,
        kind: &KindSpec,
        label: Option<&LabelSelector>,
        field: Option<&FieldSelector>,
        shard: Option<&ShardSelector>,
    ) -> bool {
        label.is_none_or(|l| l.matches(self))
            && field.is_none_or(|f| f.matches(|name| self.field(kind, name)))
            && shard.is_none_or(|s| s.matches_values(&self.uid, &self.namespace))
    }
}

impl Labels for Attributes {
    fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .binary_search_by(|(k, _)| k.as_ref().cmp(key))
            .ok()
            .map(|i| &*self.labels[i].1)
    }
}
