//! The shared definitions every document references: `ObjectMeta`,
//! `ListMeta`, `Status`, `DeleteOptions`, `WatchEvent`, `Patch`, and the
//! subresource kinds `Scale`, `Eviction` and `TokenRequest`.

use serde_json::{Value, json};

use super::names::Namer;
use super::schema_json::Flavor;
use crate::api::bodies::{delete_options, eviction, scale, token_request};
use crate::api::schema::Schema;

/// Which shared definitions a document needs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Needs {
    pub scale: bool,
    pub eviction: bool,
    pub token_request: bool,
}

fn list_meta() -> Schema {
    Schema::object([
        ("continue", Schema::string()),
        ("remainingItemCount", Schema::integer_i64()),
        ("resourceVersion", Schema::string()),
        ("selfLink", Schema::string()),
    ])
    .describe("ListMeta describes metadata that synthetic resources must have, including lists.")
}

fn status() -> Schema {
    let cause = Schema::object([
        ("field", Schema::string()),
        ("message", Schema::string()),
        ("reason", Schema::string()),
    ]);
    let details = Schema::object([
        ("causes", Schema::array(cause).atomic_list()),
        ("group", Schema::string()),
        ("kind", Schema::string()),
        ("name", Schema::string()),
        ("retryAfterSeconds", Schema::integer_i32()),
        ("uid", Schema::string()),
    ]);
    Schema::object([
        ("apiVersion", Schema::string()),
        ("code", Schema::integer_i32()),
        ("details", details),
        ("kind", Schema::string()),
        ("message", Schema::string()),
        ("metadata", list_meta()),
        ("reason", Schema::string()),
        ("status", Schema::string()),
    ])
    .describe("Status is a return value for calls that don't return other objects.")
}

fn watch_event() -> Schema {
    Schema::object([
        ("object", Schema::free_form_object()),
        ("type", Schema::string()),
    ])
    .required(["type", "object"])
    .describe("Event represents a single event to a watched resource.")
}

fn patch() -> Schema {
    Schema::free_form_object().describe(
        "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.",
    )
}

/// A definition of `schema` whose `field` (if present) refers to `target`.
fn with_ref(flavor: Flavor, schema: &Schema, field: &str, target: &str) -> Value {
    let mut def = flavor.schema(schema);
    if let Some(props) = def.get_mut("properties").and_then(Value::as_object_mut)
        && let Some(old) = props.get(field)
    {
        let description = old
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        props.insert(field.into(), flavor.field_reference(target, &description));
    }
    def
}

/// The shared definitions, by name.
#[must_use]
pub fn definitions(namer: &Namer, flavor: Flavor, needs: Needs) -> Vec<(String, Value)> {
    let object_meta = namer.meta("ObjectMeta");
    let list_meta_name = namer.meta("ListMeta");
    let delete_options_name = namer.meta("DeleteOptions");
    let mut defs = vec![
        (object_meta.clone(), flavor.schema(&Schema::object_meta())),
        (list_meta_name.clone(), flavor.schema(&list_meta())),
        (
            namer.meta("Status"),
            with_ref(flavor, &status(), "metadata", &list_meta_name),
        ),
        (
            delete_options_name.clone(),
            flavor.schema(&delete_options::schema()),
        ),
        (namer.meta("WatchEvent"), flavor.schema(&watch_event())),
        (namer.meta("Patch"), flavor.schema(&patch())),
    ];
    if needs.scale {
        let mut def = with_ref(flavor, &scale::schema(), "metadata", &object_meta);
        def["x-kubernetes-group-version-kind"] =
            json!([{"group": "autoscaling", "kind": "Scale", "version": "v1"}]);
        defs.push((namer.api_type("autoscaling", "v1", "Scale"), def));
    }
    if needs.eviction {
        let mut def = with_ref(flavor, &eviction::schema(), "metadata", &object_meta);
        def["properties"]["deleteOptions"] =
            flavor.field_reference(&delete_options_name, "DeleteOptions may be provided");
        def["x-kubernetes-group-version-kind"] =
            json!([{"group": "policy", "kind": "Eviction", "version": "v1"}]);
        defs.push((namer.api_type("policy", "v1", "Eviction"), def));
    }
    if needs.token_request {
        let mut def = with_ref(flavor, &token_request::schema(), "metadata", &object_meta);
        def["x-kubernetes-group-version-kind"] =
            json!([{"group": "authentication.k8s.io", "kind": "TokenRequest", "version": "v1"}]);
        defs.push((namer.api_type("authentication", "v1", "TokenRequest"), def));
    }
    defs
}
