//! The schema of `ObjectMeta` (every object's `metadata`), and the fields an
//! embedded resource carries without declaring them.

use std::sync::LazyLock;

use super::model::Schema;

static STRING: LazyLock<Schema> = LazyLock::new(Schema::string);
static OBJECT_META: LazyLock<Schema> = LazyLock::new(Schema::object_meta);

/// `apiVersion`, `kind` and `metadata` of an `x-kubernetes-embedded-resource`
/// object, which are allowed (and checked) even when not declared.
pub(super) fn embedded_field(key: &str) -> Option<&'static Schema> {
    match key {
        "apiVersion" | "kind" => Some(&STRING),
        "metadata" => Some(&OBJECT_META),
        _ => None,
    }
}

impl Schema {
    /// `metav1.ObjectMeta`. Label and name syntax are checked elsewhere; this
    /// is the shape only.
    #[must_use]
    pub fn object_meta() -> Schema {
        let owner_reference = Schema::object([
            ("apiVersion", Schema::string()),
            ("kind", Schema::string()),
            ("name", Schema::string()),
            ("uid", Schema::string()),
            ("controller", Schema::boolean()),
            ("blockOwnerDeletion", Schema::boolean()),
        ])
        .required(["apiVersion", "kind", "name", "uid"])
        .atomic_map()
        .proto_fields([
            ("kind", 1),
            ("name", 3),
            ("uid", 4),
            ("apiVersion", 5),
            ("controller", 6),
            ("blockOwnerDeletion", 7),
        ]);
        let managed_fields_entry = Schema::object([
            ("manager", Schema::string()),
            ("operation", Schema::string()),
            ("apiVersion", Schema::string()),
            ("time", Schema::time()),
            ("fieldsType", Schema::string()),
            ("fieldsV1", Schema::free_form_object()),
            ("subresource", Schema::string()),
        ])
        .proto_fields([
            ("manager", 1),
            ("operation", 2),
            ("apiVersion", 3),
            ("time", 4),
            ("fieldsType", 6),
            ("fieldsV1", 7),
            ("subresource", 8),
        ]);
        Schema::object([
            ("name", Schema::string()),
            ("generateName", Schema::string()),
            ("namespace", Schema::string()),
            ("selfLink", Schema::string()),
            ("uid", Schema::string()),
            ("resourceVersion", Schema::string()),
            ("generation", Schema::integer_i64().omit_zero()),
            // Go writes a zero Time as `null`; clients echo it back.
            ("creationTimestamp", Schema::time().nullable()),
            ("deletionTimestamp", Schema::time()),
            ("deletionGracePeriodSeconds", Schema::integer_i64()),
            ("labels", Schema::string_map()),
            ("annotations", Schema::string_map()),
            (
                "ownerReferences",
                Schema::array(owner_reference)
                    .map_list(["uid"])
                    .merge_by("uid"),
            ),
            (
                "finalizers",
                Schema::string_list().set_list().patch_strategy("merge"),
            ),
            (
                "managedFields",
                Schema::array(managed_fields_entry).atomic_list(),
            ),
        ])
        .proto_fields([
            ("name", 1),
            ("generateName", 2),
            ("namespace", 3),
            ("selfLink", 4),
            ("uid", 5),
            ("resourceVersion", 6),
            ("generation", 7),
            ("creationTimestamp", 8),
            ("deletionTimestamp", 9),
            ("deletionGracePeriodSeconds", 10),
            ("labels", 11),
            ("annotations", 12),
            ("ownerReferences", 13),
            ("finalizers", 14),
            ("managedFields", 17),
        ])
        .describe("Standard object's metadata.")
    }
}
