//! Watches across crashes: each round a watcher resumes every collection's
//! watch from the last resourceVersion it saw; at the end the events seen,
//! all rounds together, are checked against the ledgers: in order, none
//! twice, and every durable write and delete delivered.

use std::collections::{BTreeMap, HashSet};

use cairn_tests::WatchStream;
use serde_json::Value;

use super::kinds::Kind;
use super::ledger::{Ledger, resource_version};

/// One delivered event of a campaign object.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    pub kind: String,
    pub name: String,
    pub rv: u64,
    pub content: String,
}

/// One collection's watch, resumed round after round.
pub struct Watch {
    pub collection: Kind,
    /// The last resourceVersion delivered (of any object in the collection).
    pub last: u64,
    pub events: Vec<Event>,
    pub errors: Vec<String>,
}

impl Watch {
    pub fn new(collection: Kind, from: u64) -> Watch {
        Watch {
            collection,
            last: from,
            events: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// Resumes from the last resourceVersion seen and reads until the
    /// stream ends (the server died) or `until` names the object just read.
    pub fn follow(&mut self, port: u16, until: Option<&str>) {
        let path = format!(
            "{}?watch=1&resourceVersion={}",
            self.collection.collection(),
            self.last
        );
        let Ok(mut stream) = WatchStream::open(port, &path) else {
            return;
        };
        if stream.status != 200 {
            self.errors.push(format!(
                "resuming {path}: status {} instead of a stream",
                stream.status
            ));
            return;
        }
        while let Some(e) = stream.next_event() {
            let object = &e["object"];
            if e["type"] == "ERROR" {
                self.errors.push(format!("{path}: ERROR event {object}"));
                return;
            }
            let Some(rv) = resource_version(object) else {
                self.errors
                    .push(format!("{path}: event without resourceVersion {e}"));
                return;
            };
            self.last = rv;
            let name = object["metadata"]["name"].as_str().unwrap_or_default();
            if name.starts_with('k') {
                self.events.push(Event {
                    kind: e["type"].as_str().unwrap_or_default().to_string(),
                    name: name.to_string(),
                    rv,
                    content: self.collection.content(object),
                });
            }
            if until == Some(name) {
                return;
            }
        }
    }

    /// Order and duplicates: resourceVersions grow from event to event
    /// (deletes of one deletecollection may share one), no event twice.
    pub fn order_anomalies(&self) -> Vec<String> {
        let mut anomalies = Vec::new();
        let mut seen = HashSet::new();
        for pair in self.events.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let shared_delete = a.rv == b.rv && a.kind == "DELETED" && b.kind == "DELETED";
            if b.rv < a.rv || (b.rv == a.rv && !shared_delete) {
                anomalies.push(format!("{:?} watch: {b:?} after {a:?}", self.collection));
            }
        }
        for e in &self.events {
            if !seen.insert(e) {
                anomalies.push(format!(
                    "{:?} watch: {e:?} delivered twice",
                    self.collection
                ));
            }
        }
        anomalies
    }

    /// Completeness: each durable write of this collection's objects was
    /// delivered with its content, and each durable delete as DELETED.
    pub fn completeness_anomalies(&self, ledgers: &[&Ledger]) -> Vec<String> {
        let mut by_name: BTreeMap<&str, Vec<&Event>> = BTreeMap::new();
        for e in &self.events {
            by_name.entry(&e.name).or_default().push(e);
        }
        let mut anomalies = Vec::new();
        for (name, object) in ledgers.iter().flat_map(|l| &l.objects) {
            if object.kind != self.collection {
                continue;
            }
            let events = by_name.get(name.as_str()).map_or(&[][..], Vec::as_slice);
            for (rv, content) in &object.writes {
                let delivered = events
                    .iter()
                    .any(|e| e.rv == *rv && &e.content == content && e.kind != "DELETED");
                if !delivered {
                    anomalies.push(format!(
                        "{name}: write at {rv} ({content}) never delivered; delivered: {events:?}"
                    ));
                }
            }
            if object.deleted && !events.iter().any(|e| e.kind == "DELETED") {
                anomalies.push(format!(
                    "{name}: delete never delivered; delivered: {events:?}"
                ));
            }
        }
        anomalies
    }
}

/// The collection's current resourceVersion (a list's).
pub fn list_revision(list: &Value) -> u64 {
    resource_version(list).expect("list resourceVersion")
}
