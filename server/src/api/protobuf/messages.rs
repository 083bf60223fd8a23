//! Schemas (with field numbers) of the meta.k8s.io messages that are not
//! kinds of the registry: `ListMeta`, `Status`, `DeleteOptions`.

use std::sync::LazyLock;

use crate::api::schema::Schema;

/// `metav1.ListMeta`.
#[must_use]
pub fn list_meta() -> Schema {
    Schema::object([
        ("selfLink", Schema::string()),
        ("resourceVersion", Schema::string()),
        ("continue", Schema::string()),
        ("remainingItemCount", Schema::integer_i64()),
    ])
    .proto_fields([
        ("selfLink", 1),
        ("resourceVersion", 2),
        ("continue", 3),
        ("remainingItemCount", 4),
    ])
}

/// `metav1.Status` with its details and causes.
#[must_use]
pub fn status() -> Schema {
    let cause = Schema::object([
        ("reason", Schema::string()),
        ("message", Schema::string()),
        ("field", Schema::string()),
    ])
    .proto_fields([("reason", 1), ("message", 2), ("field", 3)]);
    let details = Schema::object([
        ("name", Schema::string()),
        ("group", Schema::string()),
        ("kind", Schema::string()),
        ("uid", Schema::string()),
        ("causes", Schema::array(cause)),
        ("retryAfterSeconds", Schema::integer_i32()),
    ])
    .proto_fields([
        ("name", 1),
        ("group", 2),
        ("kind", 3),
        ("causes", 4),
        ("retryAfterSeconds", 5),
        ("uid", 6),
    ]);
    Schema::object([
        ("apiVersion", Schema::string()),
        ("kind", Schema::string()),
        ("metadata", list_meta()),
        ("status", Schema::string()),
        ("message", Schema::string()),
        ("reason", Schema::string()),
        ("details", details),
        ("code", Schema::integer_i32()),
    ])
    .proto_fields([
        ("metadata", 1),
        ("status", 2),
        ("message", 3),
        ("reason", 4),
        ("details", 5),
        ("code", 6),
    ])
}

/// `metav1.DeleteOptions` with its preconditions.
#[must_use]
pub fn delete_options() -> Schema {
    crate::api::bodies::delete_options::schema()
}

pub static LIST_META: LazyLock<Schema> = LazyLock::new(list_meta);
pub static STATUS: LazyLock<Schema> = LazyLock::new(status);
pub static DELETE_OPTIONS: LazyLock<Schema> = LazyLock::new(delete_options);
