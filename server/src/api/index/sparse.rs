//! Reading only what selectors need from a stored object: metadata's name,
//! namespace, uid and labels and the paths of the kind's selectable fields
//! are parsed into a (sparse) JSON value; everything else — a pod's
//! containers, managedFields, annotations — is skipped without being built.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// The paths to keep, as a tree of object keys.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Paths {
    children: BTreeMap<String, Paths>,
    /// Keep the whole value here.
    whole: bool,
}

impl Paths {
    /// What selectors read of an object with these selectable fields.
    #[must_use]
    pub fn for_fields(fields: &[String]) -> Paths {
        let mut paths = Paths::default();
        for keep in [
            "metadata.name",
            "metadata.namespace",
            "metadata.uid",
            "metadata.labels",
        ] {
            paths.insert(keep);
        }
        for f in fields {
            paths.insert(f);
        }
        paths
    }

    fn insert(&mut self, dotted: &str) {
        let mut at = self;
        for segment in dotted.split('.') {
            if at.whole {
                return;
            }
            at = at.children.entry(segment.to_string()).or_default();
        }
        at.whole = true;
        at.children.clear();
    }

    /// The subtree for `key`: exact, or (below the top) a key that extends
    /// a kept name, so a field read through a sibling (`status.podIPs` for
    /// `status.podIP`) is kept too.
    fn child(&self, key: &str, depth: usize) -> Option<&Paths> {
        self.children.get(key).or_else(|| {
            (depth > 0)
                .then(|| {
                    self.children
                        .iter()
                        .find(|(name, p)| p.whole && key.starts_with(name.as_str()))
                        .map(|(_, p)| p)
                })
                .flatten()
        })
    }

    /// `bytes` parsed, keeping only these paths.
    pub fn parse(&self, bytes: &[u8]) -> Result<Value, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let value = Sparse {
            paths: self,
            depth: 0,
        }
        .deserialize(&mut de)?;
        de.end()?;
        Ok(value)
    }
}

struct Sparse<'a> {
    paths: &'a Paths,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Sparse<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        if self.paths.whole {
            return serde::Deserialize::deserialize(d);
        }
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Sparse<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match self.paths.child(&key, self.depth) {
                Some(paths) => {
                    let v = map.next_value_seed(Sparse {
                        paths,
                        depth: self.depth + 1,
                    })?;
                    out.insert(key.into_owned(), v);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Value::Object(out))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Value::Array(Vec::new()))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keeps_selectable_paths_and_drops_the_rest() {
        let paths = Paths::for_fields(&[
            "spec.nodeName".into(),
            "status.podIP".into(),
            "source".into(),
        ]);
        let obj = json!({
            "metadata": {"name": "p", "namespace": "n", "uid": "u", "labels": {"a": "b"},
                "annotations": {"x": "y"}, "managedFields": [{"manager": "m"}]},
            "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "i"}]},
            "status": {"podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.1"}], "phase": "Running"},
            "source": {"component": "kubelet", "host": "h"},
            "data": {"big": "value"}
        });
        let sparse = paths.parse(obj.to_string().as_bytes()).expect("parse");
        assert_eq!(
            sparse,
            json!({
                "metadata": {"name": "p", "namespace": "n", "uid": "u", "labels": {"a": "b"}},
                "spec": {"nodeName": "node-1"},
                "status": {"podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.1"}]},
                "source": {"component": "kubelet", "host": "h"}
            })
        );
        assert!(paths.parse(b"{\"metadata\": ").is_err());
        assert!(paths.parse(b"{} trailing").is_err());
    }
}
