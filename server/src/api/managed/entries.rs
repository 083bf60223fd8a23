//! `metadata.managedFields`: the entries, read from and written to an object,
//! in Kubernetes' order and with at most ten Update entries.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::fields_v1;
use super::set::FieldSet;

/// How many Update entries an object keeps; older ones merge into
/// `ancient-changes`.
pub const MAX_UPDATE_ENTRIES: usize = 10;
const ANCIENT_CHANGES: &str = "ancient-changes";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Operation {
    Apply,
    Update,
}

impl Operation {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Apply => "Apply",
            Operation::Update => "Update",
        }
    }
}

/// One manager's fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub manager: String,
    pub operation: Operation,
    pub api_version: String,
    /// RFC 3339, second precision; absent when a client wrote none.
    pub time: Option<String>,
    /// Empty for the main resource.
    pub subresource: String,
    pub fields: FieldSet,
}

impl Entry {
    /// Whether this entry is the one a write by this identity records into:
    /// (manager, operation, subresource), and apiVersion for Update only.
    #[must_use]
    pub fn is(&self, manager: &str, operation: Operation, api_version: &str, sub: &str) -> bool {
        self.manager == manager
            && self.operation == operation
            && self.subresource == sub
            && (operation == Operation::Apply || self.api_version == api_version)
    }

    /// How a conflict names this entry's manager.
    #[must_use]
    pub fn describe(&self) -> String {
        let mut out = format!("{:?}", self.manager);
        if !self.subresource.is_empty() {
            out.push_str(&format!(" with subresource {:?}", self.subresource));
        }
        if self.operation == Operation::Update {
            out.push_str(&format!(" using {}", self.api_version));
        }
        out
    }
}

/// All entries of an object.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Managed {
    pub entries: Vec<Entry>,
}

impl Managed {
    /// Reads `metadata.managedFields` (absent or null: no entries).
    pub fn decode(value: Option<&Value>) -> Result<Managed, String> {
        let items = match value {
            None | Some(Value::Null) => return Ok(Managed::default()),
            Some(Value::Array(items)) => items,
            Some(_) => return Err("managedFields must be a list".into()),
        };
        let mut entries = Vec::with_capacity(items.len());
        for item in items {
            let text = |name: &str| item.get(name).and_then(Value::as_str).unwrap_or_default();
            let operation = match text("operation") {
                "Apply" => Operation::Apply,
                "Update" => Operation::Update,
                other => return Err(format!("unsupported operation {other:?}")),
            };
            if text("fieldsType") != "FieldsV1" {
                return Err(format!("unsupported fieldsType {:?}", text("fieldsType")));
            }
            let fields = match item.get("fieldsV1") {
                None | Some(Value::Null) => FieldSet::default(),
                Some(v) => fields_v1::decode(v)?,
            };
            entries.push(Entry {
                manager: text("manager").to_owned(),
                operation,
                api_version: text("apiVersion").to_owned(),
                time: item.get("time").and_then(Value::as_str).map(str::to_owned),
                subresource: text("subresource").to_owned(),
                fields,
            });
        }
        Ok(Managed { entries })
    }

    /// Whether a written `managedFields` asks to strip them: a list holding
    /// one empty entry.
    #[must_use]
    pub fn is_reset(value: Option<&Value>) -> bool {
        matches!(value, Some(Value::Array(items))
            if items.len() == 1 && items[0].as_object().is_some_and(Map::is_empty))
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry of this identity, created empty when missing.
    pub fn entry_mut(
        &mut self,
        manager: &str,
        operation: Operation,
        api_version: &str,
        subresource: &str,
    ) -> &mut Entry {
        let found = self
            .entries
            .iter()
            .position(|e| e.is(manager, operation, api_version, subresource));
        let at = found.unwrap_or_else(|| {
            self.entries.push(Entry {
                manager: manager.to_owned(),
                operation,
                api_version: api_version.to_owned(),
                time: None,
                subresource: subresource.to_owned(),
                fields: FieldSet::default(),
            });
            self.entries.len() - 1
        });
        &mut self.entries[at]
    }

    /// Drops entries that own nothing.
    pub fn drop_empty(&mut self) {
        self.entries.retain(|e| !e.fields.is_empty());
    }

    /// Merges the oldest Update entries into `ancient-changes` (one per
    /// apiVersion) until at most `MAX_UPDATE_ENTRIES` remain.
    pub fn cap_updates(&mut self) {
        let count = |m: &Managed| {
            m.entries
                .iter()
                .filter(|e| e.operation == Operation::Update)
                .count()
        };
        if count(self) <= MAX_UPDATE_ENTRIES {
            return;
        }
        let mut updates: Vec<Entry> = Vec::new();
        let mut rest: Vec<Entry> = Vec::new();
        for e in self.entries.drain(..) {
            if e.operation == Operation::Update {
                updates.push(e);
            } else {
                rest.push(e);
            }
        }
        updates.sort_by(|a, b| a.time.cmp(&b.time));
        let mut remaining = updates.len();
        let mut kept: Vec<Entry> = Vec::with_capacity(updates.len());
        let mut first_of_version: HashMap<String, usize> = HashMap::new();
        for e in updates {
            if remaining <= MAX_UPDATE_ENTRIES {
                kept.push(e);
                continue;
            }
            let Some(&first) = first_of_version.get(&e.api_version) else {
                first_of_version.insert(e.api_version.clone(), kept.len());
                kept.push(e);
                continue;
            };
            // The first old entry of a version becomes its bucket, unless
            // one exists already.
            let bucket = kept
                .iter()
                .position(|k| {
                    k.manager == ANCIENT_CHANGES
                        && k.api_version == e.api_version
                        && k.subresource.is_empty()
                })
                .unwrap_or(first);
            let bucket = &mut kept[bucket];
            ANCIENT_CHANGES.clone_into(&mut bucket.manager);
            bucket.subresource.clear();
            bucket.fields.union_with(&e.fields);
            bucket.time = e.time;
            remaining -= 1;
        }
        rest.extend(kept);
        self.entries = rest;
    }

    /// The wire list: Apply entries first, then by time, manager,
    /// apiVersion and subresource.
    #[must_use]
    pub fn encode(&self) -> Value {
        let mut sorted: Vec<&Entry> = self.entries.iter().collect();
        sorted.sort_by(|a, b| {
            (
                a.operation,
                &a.time,
                &a.manager,
                &a.api_version,
                &a.subresource,
            )
                .cmp(&(
                    b.operation,
                    &b.time,
                    &b.manager,
                    &b.api_version,
                    &b.subresource,
                ))
        });
        Value::Array(
            sorted
                .into_iter()
                .map(|e| {
                    let mut out = Map::new();
                    out.insert("manager".into(), json!(e.manager));
                    out.insert("operation".into(), json!(e.operation.as_str()));
                    out.insert("apiVersion".into(), json!(e.api_version));
                    if let Some(t) = &e.time {
                        out.insert("time".into(), json!(t));
                    }
                    out.insert("fieldsType".into(), json!("FieldsV1"));
                    out.insert("fieldsV1".into(), fields_v1::encode(&e.fields));
                    if !e.subresource.is_empty() {
                        out.insert("subresource".into(), json!(e.subresource));
                    }
                    Value::Object(out)
                })
                .collect(),
        )
    }
}
