//! Reading one JSON object into a message: typed getters that remember which
//! keys were read, then `finish` turns the `x-` keys into vendor extensions
//! and names every other key left over (or read with the wrong JSON type)
//! as not carried, so a gap between the JSON and protobuf forms shows up.

use serde_json::{Map, Value};

use super::schema_messages::{Any, NamedAny};

/// Keys of the JSON document the protobuf form does not carry.
pub type Dropped = Vec<String>;

/// A value as `Any.yaml`: YAML text, as gnostic stores it. JSON is YAML too,
/// so should the YAML writer refuse a value, its JSON text stands in.
#[must_use]
pub fn any(value: &Value) -> Any {
    Any {
        yaml: serde_saphyr::to_string(value).unwrap_or_else(|_| value.to_string()),
    }
}

/// One `x-` key as a vendor extension.
#[must_use]
pub fn extension(name: &str, value: &Value) -> NamedAny {
    NamedAny {
        name: name.to_string(),
        value: Some(any(value)),
    }
}

pub struct Fields<'a, 'd> {
    map: &'a Map<String, Value>,
    read: Vec<&'static str>,
    dropped: &'d mut Dropped,
}

impl<'a, 'd> Fields<'a, 'd> {
    /// `None` (and the object noted as dropped under `what`) when `value` is
    /// not an object.
    pub fn new(value: &'a Value, what: &str, dropped: &'d mut Dropped) -> Option<Self> {
        match value.as_object() {
            Some(map) => Some(Fields {
                map,
                read: Vec::new(),
                dropped,
            }),
            None => {
                dropped.push(format!("{what} (not an object)"));
                None
            }
        }
    }

    /// Where nested conversions note what they drop.
    pub fn dropped(&mut self) -> &mut Dropped {
        self.dropped
    }

    pub fn value(&mut self, key: &'static str) -> Option<&'a Value> {
        self.read.push(key);
        self.map.get(key)
    }

    /// A typed read: `None` when absent; noted as dropped when of another type.
    fn typed<T>(&mut self, key: &'static str, get: impl Fn(&'a Value) -> Option<T>) -> Option<T> {
        let value = self.value(key)?;
        let typed = get(value);
        if typed.is_none() {
            self.dropped.push(format!("{key} (unexpected JSON type)"));
        }
        typed
    }

    pub fn object(&mut self, key: &'static str) -> Option<&'a Map<String, Value>> {
        self.typed(key, Value::as_object)
    }

    pub fn array(&mut self, key: &'static str) -> &'a [Value] {
        self.typed(key, |v| v.as_array().map(Vec::as_slice))
            .unwrap_or_default()
    }

    pub fn string(&mut self, key: &'static str) -> String {
        self.typed(key, Value::as_str)
            .unwrap_or_default()
            .to_string()
    }

    pub fn strings(&mut self, key: &'static str) -> Vec<String> {
        let items = self.array(key);
        let strings: Vec<String> = items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect();
        if strings.len() != items.len() {
            self.dropped.push(format!("{key} (non-string items)"));
        }
        strings
    }

    pub fn boolean(&mut self, key: &'static str) -> bool {
        self.typed(key, Value::as_bool).unwrap_or_default()
    }

    pub fn number(&mut self, key: &'static str) -> f64 {
        self.typed(key, Value::as_f64).unwrap_or_default()
    }

    pub fn integer(&mut self, key: &'static str) -> i64 {
        self.typed(key, Value::as_i64).unwrap_or_default()
    }

    pub fn any(&mut self, key: &'static str) -> Option<Any> {
        self.value(key).map(any)
    }

    pub fn anys(&mut self, key: &'static str) -> Vec<Any> {
        self.array(key).iter().map(any).collect()
    }

    /// The vendor extensions; every other unread key is noted as dropped.
    pub fn finish(self) -> Vec<NamedAny> {
        let mut extensions = Vec::new();
        for (key, value) in self.map {
            if key.starts_with("x-") {
                extensions.push(extension(key, value));
            } else if !self.read.contains(&key.as_str()) {
                self.dropped.push(key.clone());
            }
        }
        extensions
    }
}
