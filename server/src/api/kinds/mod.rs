//! The built-in kinds, as data: a `KindSpec` per kind, its schema from the
//! kind's own file, and a strategy only where Kubernetes has special rules.

pub mod event;
pub mod namespace;
pub mod namespace_strategy;

use std::sync::Arc;

use crate::api::kind::{Column, DefaultStrategy, KindSpec};
use crate::api::registry::Registry;
use crate::config::Config;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_string()).collect()
}

fn own_fields(list: &[&str]) -> Vec<String> {
    list.iter()
        .filter(|f| !f.starts_with("metadata."))
        .map(|s| (*s).to_string())
        .collect()
}

/// Every built-in kind, configured.
#[must_use]
pub fn builtin(config: &Config) -> Registry {
    let mut r = Registry::default();
    r.add(KindSpec {
        group: String::new(),
        version: "v1".into(),
        kind: "Namespace".into(),
        list_kind: "NamespaceList".into(),
        resource: "namespaces".into(),
        singular: "namespace".into(),
        short_names: names(&["ns"]),
        categories: Vec::new(),
        namespaced: false,
        schema: namespace::schema(),
        strategy: Arc::new(namespace_strategy::NamespaceStrategy),
        selectable_fields: own_fields(namespace::FIELD_SELECTORS),
        field_value: namespace::field_value,
        allow_create_on_update: false,
        ttl: None,
        return_deleted_object: true,
        columns: vec![
            Column::new("Name", "string", 0, ".metadata.name", "Name must be unique within a namespace."),
            Column::new("Status", "string", 0, ".status.phase", "The status of the namespace"),
            Column::new("Age", "date", 0, ".metadata.creationTimestamp", "CreationTimestamp is a timestamp representing the server time when this object was created."),
        ],
    });
    r.add(KindSpec {
        group: String::new(),
        version: "v1".into(),
        kind: "Event".into(),
        list_kind: "EventList".into(),
        resource: "events".into(),
        singular: "event".into(),
        short_names: names(&["ev"]),
        categories: Vec::new(),
        namespaced: true,
        schema: event::schema(),
        strategy: Arc::new(DefaultStrategy),
        selectable_fields: own_fields(event::FIELD_SELECTORS),
        field_value: event::field_value,
        allow_create_on_update: true,
        ttl: Some(config.event_ttl),
        return_deleted_object: false,
        columns: vec![
            Column::new(
                "Last Seen",
                "string",
                0,
                ".lastTimestamp",
                "Time of the most recent occurrence.",
            ),
            Column::new(
                "Type",
                "string",
                0,
                ".type",
                "Type of this event (Normal, Warning).",
            ),
            Column::new(
                "Reason",
                "string",
                0,
                ".reason",
                "Why the action was taken.",
            ),
            Column::new(
                "Object",
                "string",
                0,
                ".involvedObject.name",
                "The object this event is about.",
            ),
            Column::new(
                "Subobject",
                "string",
                1,
                ".involvedObject.fieldPath",
                "The part of the object this event is about.",
            ),
            Column::new(
                "Source",
                "string",
                1,
                ".source.component",
                "The component reporting this event.",
            ),
            Column::new(
                "Message",
                "string",
                0,
                ".message",
                "A human-readable description of the status of this operation.",
            ),
            Column::new(
                "First Seen",
                "string",
                1,
                ".firstTimestamp",
                "Time the event was first recorded.",
            ),
            Column::new(
                "Count",
                "string",
                1,
                ".count",
                "The number of times this event has occurred.",
            ),
            Column::new(
                "Name",
                "string",
                1,
                ".metadata.name",
                "Name must be unique within a namespace.",
            ),
        ],
    });
    r
}
