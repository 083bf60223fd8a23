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

/// The selectable attributes of one object as its kind serves it, packed
/// into one allocation (an index keeps one per stored object and scans
/// them: one memory access per object, not one per string).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attributes {
    /// Where each slot ends (`u32`, native byte order, relative to the
    /// text), then the text: namespace, name, uid, each label's key and
    /// value (sorted by key), then each selectable field's value, back to
    /// back.
    packed: Box<[u8]>,
    slots: u16,
    labels: u16,
    /// Bit i: the kind's selectable field i is present.
    present: u64,
}

const END: usize = std::mem::size_of::<u32>();

/// Slots before the labels: namespace, name, uid.
const FIXED: usize = 3;

fn meta_str<'a>(obj: &'a Value, field: &str) -> &'a str {
    obj.get("metadata")
        .and_then(|m| m.get(field))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

impl Attributes {
    /// The attributes of `obj` (already in the kind's served form).
    #[must_use]
    pub fn of_object(kind: &KindSpec, obj: &Value) -> Attributes {
        let mut labels: Vec<(&str, &str)> = obj
            .get("metadata")
            .and_then(|m| m.get("labels"))
            .and_then(Value::as_object)
            .map(|l| {
                l.iter()
                    .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?)))
                    .collect()
            })
            .unwrap_or_default();
        labels.sort_unstable();
        let fields = kind.selectable_fields.len().min(64);
        // Every slot must have an index that fits `slots`.
        let labels = &labels[..labels
            .len()
            .min((usize::from(u16::MAX) - FIXED - fields) / 2)];
        let mut text = String::new();
        let mut ends = Vec::with_capacity(FIXED + 2 * labels.len() + fields);
        let mut push = |s: &str, text: &mut String| {
            text.push_str(s);
            ends.push(u32::try_from(text.len()).unwrap_or(u32::MAX));
        };
        for f in ["namespace", "name", "uid"] {
            push(meta_str(obj, f), &mut text);
        }
        for (k, v) in labels {
            push(k, &mut text);
            push(v, &mut text);
        }
        let mut present = 0u64;
        for (i, f) in kind.selectable_fields.iter().enumerate().take(64) {
            let value = field_value(kind, obj, f);
            if value.is_some() {
                present |= 1 << i;
            }
            push(value.as_deref().unwrap_or_default(), &mut text);
        }
        let mut packed = Vec::with_capacity(END * ends.len() + text.len());
        for end in &ends {
            packed.extend_from_slice(&end.to_ne_bytes());
        }
        packed.extend_from_slice(text.as_bytes());
        Attributes {
            packed: packed.into_boxed_slice(),
            slots: u16::try_from(ends.len()).unwrap_or(u16::MAX),
            labels: u16::try_from(labels.len()).unwrap_or(u16::MAX),
            present,
        }
    }

    fn end(&self, i: usize) -> usize {
        self.packed
            .get(END * i..END * (i + 1))
            .and_then(|b| b.try_into().ok())
            .map_or(0, |b| u32::from_ne_bytes(b) as usize)
    }

    fn slot(&self, i: usize) -> &str {
        if i >= usize::from(self.slots) {
            return "";
        }
        let text = self
            .packed
            .get(END * usize::from(self.slots)..)
            .unwrap_or_default();
        let start = if i == 0 { 0 } else { self.end(i - 1) };
        text.get(start..self.end(i))
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or_default()
    }

    #[must_use]
    pub fn namespace(&self) -> &str {
        self.slot(0)
    }

    #[must_use]
    pub fn name(&self) -> &str {
        self.slot(1)
    }

    fn uid(&self) -> &str {
        self.slot(2)
    }

    /// A selectable field's value (`metadata.name`, `metadata.namespace`, or
    /// one of the kind's own).
    #[must_use]
    pub fn field<'a>(&'a self, kind: &KindSpec, field: &str) -> Option<&'a str> {
        match field {
            "metadata.name" => Some(self.name()),
            "metadata.namespace" => Some(self.namespace()),
            _ => {
                let i = kind.selectable_fields.iter().position(|f| f == field)?;
                let slot = FIXED + 2 * usize::from(self.labels) + i;
                (i < 64 && self.present & (1 << i) != 0 && slot < usize::from(self.slots))
                    .then(|| self.slot(slot))
            }
        }
    }

    /// The attributes of a stored record; `None` when it cannot be read as
    /// the kind (such an object is never selected).
    #[must_use]
    pub fn of_record(kind: &KindSpec, kv: &KeyValue) -> Option<Arc<Attributes>> {
        // A stored form that is the served one needs only the selectable
        // paths parsed; a converted one is read whole, as it is served.
        let obj = if kind.stores_served_form() {
            kind.selector_paths().parse(&kv.value).ok()?
        } else {
            Store::decode_served(kind, kv).ok()?
        };
        Some(Arc::new(Attributes::of_object(kind, &obj)))
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
            && shard.is_none_or(|s| s.matches_values(self.uid(), self.namespace()))
    }
}

impl Labels for Attributes {
    fn label(&self, key: &str) -> Option<&str> {
        let (mut lo, mut hi) = (0, usize::from(self.labels));
        while lo < hi {
            let mid = usize::midpoint(lo, hi);
            match self.slot(FIXED + 2 * mid).cmp(key) {
                std::cmp::Ordering::Equal => return Some(self.slot(FIXED + 2 * mid + 1)),
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::api::kinds;
    use crate::config::{Config, Flags};

    fn events() -> Arc<KindSpec> {
        let config = Config::from(<Flags as clap::Parser>::parse_from(["cairn-apiserver"]));
        kinds::builtin(&config)
            .lookup("", "v1", "events")
            .expect("kind")
    }

    #[test]
    fn packed_attributes_answer_like_the_object() {
        let kind = events();
        let obj = json!({"kind": "Event", "apiVersion": "v1",
            "metadata": {"name": "e1", "namespace": "ns", "uid": "u-1",
                "labels": {"z": "last", "a": "first", "m": ""}},
            "involvedObject": {"name": "pod-7", "kind": "Pod"}, "reason": "Started"});
        let a = Attributes::of_object(&kind, &obj);
        assert_eq!((a.namespace(), a.name(), a.uid()), ("ns", "e1", "u-1"));
        assert_eq!(a.label("a"), Some("first"));
        assert_eq!(a.label("m"), Some(""));
        assert_eq!(a.label("z"), Some("last"));
        assert_eq!(a.label("b"), None);
        for field in [
            "involvedObject.name",
            "reason",
            "involvedObject.kind",
            "type",
            "metadata.name",
        ] {
            assert_eq!(
                a.field(&kind, field),
                field_value(&kind, &obj, field).as_deref(),
                "{field}"
            );
        }
        assert_eq!(a.field(&kind, "no.such.field"), None);
    }
}
