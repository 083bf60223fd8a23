//! The values kube-apiserver prints in an access review's validation
//! errors, as Go's `%#v` prints its internal structs: a review's
//! `NonResourceAttributes` and its `ObjectMeta`. Clients see these texts in
//! the 422's message, so they follow Go's layout field for field.

use serde_json::{Map, Value};

use crate::api::schema::go_quote;

fn text<'a>(object: &'a Map<String, Value>, key: &str) -> &'a str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `authorization.NonResourceAttributes{Path:"/x", Verb:"get"}`.
#[must_use]
pub fn non_resource_attributes(attributes: &Value) -> String {
    let empty = Map::new();
    let object = attributes.as_object().unwrap_or(&empty);
    format!(
        "authorization.NonResourceAttributes{{Path:{}, Verb:{}}}",
        go_quote(text(object, "path")),
        go_quote(text(object, "verb"))
    )
}

/// A `map[string]string` (labels, annotations), keys sorted as Go prints
/// maps.
fn string_map(value: Option<&Value>) -> String {
    crate::api::kinds::label_selector::go_string_map(value.and_then(Value::as_object))
}

/// A `[]string`.
fn string_list(value: Option<&Value>) -> String {
    let Some(items) = value.and_then(Value::as_array) else {
        return "[]string(nil)".into();
    };
    let inner: Vec<String> = items
        .iter()
        .map(|v| go_quote(v.as_str().unwrap_or_default()))
        .collect();
    format!("[]string{{{}}}", inner.join(", "))
}

/// A `*bool` field of an owner reference. Go prints a set pointer's
/// address, which means nothing outside that process: the value stands in.
fn bool_pointer(value: Option<&Value>) -> String {
    match value.and_then(Value::as_bool) {
        Some(set) => format!("(*bool)(&{set})"),
        None => "(*bool)(nil)".into(),
    }
}

fn owner_references(value: Option<&Value>) -> String {
    let Some(items) = value.and_then(Value::as_array) else {
        return "[]v1.OwnerReference(nil)".into();
    };
    let empty = Map::new();
    let inner: Vec<String> = items
        .iter()
        .map(|item| {
            let o = item.as_object().unwrap_or(&empty);
            format!(
                "v1.OwnerReference{{APIVersion:{}, Kind:{}, Name:{}, UID:{}, Controller:{}, BlockOwnerDeletion:{}}}",
                go_quote(text(o, "apiVersion")),
                go_quote(text(o, "kind")),
                go_quote(text(o, "name")),
                go_quote(text(o, "uid")),
                bool_pointer(o.get("controller")),
                bool_pointer(o.get("blockOwnerDeletion")),
            )
        })
        .collect();
    format!("[]v1.OwnerReference{{{}}}", inner.join(", "))
}

/// A `metav1.Time` as its embedded `time.Time`'s `GoString` shows it: the
/// zero time for none; decoded times are in the server's local zone,
/// which is UTC here.
fn time(value: Option<&Value>) -> String {
    let Some(stamp) = value.and_then(Value::as_str) else {
        return "time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)".into();
    };
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let number = |range: std::ops::Range<usize>| -> u32 {
        stamp
            .get(range)
            .and_then(|s| s.parse().ok())
            .unwrap_or_default()
    };
    let month = MONTHS
        .get((number(5..7) as usize).saturating_sub(1))
        .unwrap_or(&"January");
    format!(
        "time.Date({}, time.{month}, {}, {}, {}, {}, 0, time.Local)",
        number(0..4),
        number(8..10),
        number(11..13),
        number(14..16),
        number(17..19)
    )
}

/// `v1.ObjectMeta{Name:"x", ...}` with every field, as Go prints the
/// struct; managed fields, which reviews never carry back, by count only.
#[must_use]
pub fn object_meta(metadata: &Value) -> String {
    let empty = Map::new();
    let m = metadata.as_object().unwrap_or(&empty);
    let deletion = if m.get("deletionTimestamp").is_some_and(Value::is_string) {
        format!("&v1.Time{{Time:{}}}", time(m.get("deletionTimestamp")))
    } else {
        "<nil>".into()
    };
    let grace = match m.get("deletionGracePeriodSeconds").and_then(Value::as_i64) {
        Some(seconds) => format!("(*int64)(&{seconds})"),
        None => "(*int64)(nil)".to_string(),
    };
    let managed = match m.get("managedFields").and_then(Value::as_array) {
        Some(entries) => format!("[]v1.ManagedFieldsEntry{{/* {} */}}", entries.len()),
        None => "[]v1.ManagedFieldsEntry(nil)".to_string(),
    };
    format!(
        "v1.ObjectMeta{{Name:{}, GenerateName:{}, Namespace:{}, SelfLink:{}, UID:{}, ResourceVersion:{}, Generation:{}, CreationTimestamp:{}, DeletionTimestamp:{deletion}, DeletionGracePeriodSeconds:{grace}, Labels:{}, Annotations:{}, OwnerReferences:{}, Finalizers:{}, ManagedFields:{managed}}}",
        go_quote(text(m, "name")),
        go_quote(text(m, "generateName")),
        go_quote(text(m, "namespace")),
        go_quote(text(m, "selfLink")),
        go_quote(text(m, "uid")),
        go_quote(text(m, "resourceVersion")),
        m.get("generation")
            .and_then(Value::as_i64)
            .unwrap_or_default(),
        time(m.get("creationTimestamp")),
        string_map(m.get("labels")),
        string_map(m.get("annotations")),
        owner_references(m.get("ownerReferences")),
        string_list(m.get("finalizers")),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn values_print_as_go_prints_them() {
        assert_eq!(
            non_resource_attributes(&json!({"path": "/healthz", "verb": "get"})),
            r#"authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}"#
        );
        assert_eq!(
            object_meta(&json!({"name": "x", "labels": {"b": "2", "a": "1"}, "finalizers": ["f"]})),
            r#"v1.ObjectMeta{Name:"x", GenerateName:"", Namespace:"", SelfLink:"", UID:"", ResourceVersion:"", Generation:0, CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), Labels:map[string]string{"a":"1", "b":"2"}, Annotations:map[string]string(nil), OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string{"f"}, ManagedFields:[]v1.ManagedFieldsEntry(nil)}"#
        );
        assert!(
            object_meta(&json!({"creationTimestamp": "2024-03-05T06:07:08Z"})).contains(
                "CreationTimestamp:time.Date(2024, time.March, 5, 6, 7, 8, 0, time.Local)"
            )
        );
    }
}
