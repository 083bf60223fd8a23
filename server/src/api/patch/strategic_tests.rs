//! Table tests of strategic merge patch: each directive, merge keys at two
//! levels, scalar sets, ordering, and the patches it refuses.

use serde_json::{Value, json};

use super::strategic::strategic;
use crate::api::error::ApiError;
use crate::api::schema::Schema;

fn named(fields: Vec<(&str, Schema)>) -> Schema {
    let mut all = vec![("name", Schema::string())];
    all.extend(fields);
    Schema::object(all)
}

/// A pod-like shape exercising every kind of patch metadata.
fn schema() -> Schema {
    let env = named(vec![("value", Schema::string())]);
    let port = Schema::object([
        ("containerPort", Schema::integer()),
        ("protocol", Schema::string()),
    ]);
    let container = named(vec![
        ("image", Schema::string()),
        ("args", Schema::string_list()),
        ("env", Schema::array(env).merge_by("name")),
        ("ports", Schema::array(port).merge_by("containerPort")),
    ]);
    let volume = named(vec![
        ("emptyDir", Schema::free_form_object()),
        ("hostPath", Schema::free_form_object()),
    ]);
    let pair = || Schema::object([("a", Schema::integer()), ("b", Schema::integer())]);
    Schema::resource([
        ("args", Schema::string_list()),
        (
            "numbers",
            Schema::array(Schema::integer()).patch_strategy("merge"),
        ),
        ("containers", Schema::array(container).merge_by("name")),
        (
            "volumes",
            Schema::array(volume)
                .merge_by("name")
                .patch_strategy("merge,retainKeys"),
        ),
        (
            "tolerations",
            Schema::array(Schema::object([("key", Schema::string())])),
        ),
        ("labels", Schema::string_map()),
        ("spec", pair()),
        ("replaced", pair().patch_strategy("replace")),
        ("free", Schema::free_form_object()),
        ("word", Schema::string()),
    ])
}

fn apply(original: &Value, patch: &Value) -> Result<Value, ApiError> {
    strategic(&schema(), original, patch.to_string().as_bytes()).map(|(v, _)| v)
}

#[test]
fn merges_as_kubernetes_does() {
    let cases: Vec<(&str, Value, Value, Value)> = vec![
        (
            "scalars replace, new fields are added",
            json!({"word": "a"}),
            json!({"word": "b", "spec": {"a": 1}}),
            json!({"word": "b", "spec": {"a": 1}}),
        ),
        (
            "null deletes a field; nulls for absent fields vanish",
            json!({"spec": {"a": 1, "b": 2}}),
            json!({"spec": {"a": null}, "labels": {"x": null, "y": "1"}}),
            json!({"spec": {"b": 2}, "labels": {"y": "1"}}),
        ),
        (
            "a replaced list drops elements that are directives",
            json!({"tolerations": [{"key": "a"}]}),
            json!({"tolerations": [{"key": "b"}, {"$patch": "replace"}, {"key": "c", "$patch": "delete"}]}),
            json!({"tolerations": [{"key": "b"}]}),
        ),
        (
            "a list without a strategy is replaced",
            json!({"args": ["a", "b"], "tolerations": [{"key": "k"}]}),
            json!({"args": ["c"], "tolerations": []}),
            json!({"args": ["c"], "tolerations": []}),
        ),
        (
            "scalar merge lists are unions: patch items first where the server order says nothing",
            json!({"metadata": {"finalizers": ["a", "b"]}}),
            json!({"metadata": {"finalizers": ["c", "a"]}}),
            json!({"metadata": {"finalizers": ["c", "a", "b"]}}),
        ),
        (
            "items merge by key and keep their places",
            json!({"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}),
            json!({"containers": [{"name": "b", "image": "z"}]}),
            json!({"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "z"}]}),
        ),
        (
            "a new item goes before the server's items it cannot be placed among",
            json!({"containers": [{"name": "a"}, {"name": "b"}]}),
            json!({"containers": [{"name": "c", "image": "i"}]}),
            json!({"containers": [{"name": "c", "image": "i"}, {"name": "a"}, {"name": "b"}]}),
        ),
        (
            "merge keys nest: env of one container by name",
            json!({"containers": [{"name": "a", "image": "x", "env": [
                {"name": "X", "value": "1"}, {"name": "Y", "value": "2"}]}]}),
            json!({"containers": [{"name": "a", "env": [{"name": "Y", "value": "3"}]}]}),
            json!({"containers": [{"name": "a", "image": "x", "env": [
                {"name": "X", "value": "1"}, {"name": "Y", "value": "3"}]}]}),
        ),
        (
            "a list inside a merged item without a strategy is replaced",
            json!({"containers": [{"name": "a", "args": ["1", "2"]}]}),
            json!({"containers": [{"name": "a", "args": ["3"]}]}),
            json!({"containers": [{"name": "a", "args": ["3"]}]}),
        ),
        (
            "merge keys compare numbers by value",
            json!({"containers": [{"name": "a", "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}),
            json!({"containers": [{"name": "a", "ports": [{"containerPort": 80.0, "protocol": "UDP"}]}]}),
            json!({"containers": [{"name": "a", "ports": [{"containerPort": 80.0, "protocol": "UDP"}]}]}),
        ),
        (
            "$patch: delete removes the item with that key",
            json!({"containers": [{"name": "a"}, {"name": "b"}]}),
            json!({"containers": [{"name": "a", "$patch": "delete"}]}),
            json!({"containers": [{"name": "b"}]}),
        ),
        (
            "$patch: replace makes the patch's items the list",
            json!({"containers": [{"name": "a"}, {"name": "b"}]}),
            json!({"containers": [{"name": "c"}, {"$patch": "replace"}]}),
            json!({"containers": [{"name": "c"}]}),
        ),
        (
            "$patch: replace on a map",
            json!({"spec": {"a": 1, "b": 2}}),
            json!({"spec": {"$patch": "replace", "a": 5}}),
            json!({"spec": {"a": 5}}),
        ),
        (
            "$patch: delete empties a map; on an absent map it adds nothing",
            json!({"spec": {"a": 1}}),
            json!({"spec": {"$patch": "delete"}, "replaced": {"$patch": "delete"}}),
            json!({"spec": {}}),
        ),
        (
            "$patch: merge is the default, spelled out",
            json!({"spec": {"a": 1}}),
            json!({"spec": {"$patch": "merge", "b": 2}}),
            json!({"spec": {"a": 1, "b": 2}}),
        ),
        (
            "a map with the replace strategy is replaced",
            json!({"replaced": {"a": 1, "b": 2}}),
            json!({"replaced": {"a": 3}}),
            json!({"replaced": {"a": 3}}),
        ),
        (
            "$deleteFromPrimitiveList removes values; an absent list stays absent",
            json!({"numbers": [1, 2, 3]}),
            json!({"$deleteFromPrimitiveList/numbers": [2],
                   "$deleteFromPrimitiveList/args": ["x"]}),
            json!({"numbers": [1, 3]}),
        ),
        (
            "$deleteFromPrimitiveList after the list's own merge",
            json!({"metadata": {"finalizers": ["a", "b"]}}),
            json!({"metadata": {"finalizers": ["d"], "$deleteFromPrimitiveList/finalizers": ["a"]}}),
            json!({"metadata": {"finalizers": ["d", "b"]}}),
        ),
        (
            "$retainKeys drops the item's other fields",
            json!({"volumes": [{"name": "v", "emptyDir": {}}]}),
            json!({"volumes": [{"name": "v", "hostPath": {"path": "/x"},
                                "$retainKeys": ["name", "hostPath"]}]}),
            json!({"volumes": [{"name": "v", "hostPath": {"path": "/x"}}]}),
        ),
        (
            "$setElementOrder orders a keyed list",
            json!({"containers": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}),
            json!({"$setElementOrder/containers": [{"name": "c"}, {"name": "a"}, {"name": "b"}],
                   "containers": [{"name": "c", "image": "z"}]}),
            json!({"containers": [{"name": "c", "image": "z"}, {"name": "a"}, {"name": "b"}]}),
        ),
        (
            "$setElementOrder keeps server-only items in their places",
            json!({"containers": [{"name": "a"}, {"name": "b"}, {"name": "x"}]}),
            json!({"$setElementOrder/containers": [{"name": "b"}, {"name": "a"}]}),
            json!({"containers": [{"name": "b"}, {"name": "a"}, {"name": "x"}]}),
        ),
        (
            "$setElementOrder orders a scalar list",
            json!({"metadata": {"finalizers": ["a", "b"]}}),
            json!({"metadata": {"$setElementOrder/finalizers": ["b", "c", "a"], "finalizers": ["c"]}}),
            json!({"metadata": {"finalizers": ["b", "c", "a"]}}),
        ),
        (
            "$setElementOrder with additions: listed items first, then the server's",
            json!({"numbers": [1, 2, 4]}),
            json!({"$setElementOrder/numbers": [1, 2, 3], "numbers": [3]}),
            json!({"numbers": [1, 2, 3, 4]}),
        ),
        (
            "$setElementOrder places new keyed items among the old",
            json!({"containers": [{"name": "1", "image": "a"}, {"name": "2"}]}),
            json!({"$setElementOrder/containers": [{"name": "4"}, {"name": "1"}, {"name": "2"}, {"name": "3"}],
                   "containers": [{"name": "4"}, {"name": "3"}]}),
            json!({"containers": [{"name": "4"}, {"name": "1", "image": "a"}, {"name": "2"}, {"name": "3"}]}),
        ),
        (
            "$setElementOrder interleaves server-only items by their old places",
            json!({"containers": [{"name": "1"}, {"name": "2"}, {"name": "7"}, {"name": "9"},
                                  {"name": "8"}, {"name": "3"}, {"name": "4"}]}),
            json!({"$setElementOrder/containers": [{"name": "2"}, {"name": "1"}, {"name": "4"}, {"name": "3"}]}),
            json!({"containers": [{"name": "2"}, {"name": "1"}, {"name": "7"}, {"name": "9"},
                                  {"name": "8"}, {"name": "4"}, {"name": "3"}]}),
        ),
        (
            "a keyed list the original lacks: directives apply to nothing",
            json!({}),
            json!({"containers": [{"name": "a"}, {"name": "b", "$patch": "delete"}]}),
            json!({"containers": [{"name": "a"}]}),
        ),
        (
            "a field changing type takes the patch's value",
            json!({"spec": "text"}),
            json!({"spec": {"a": 1, "b": null}}),
            json!({"spec": {"a": 1}}),
        ),
        (
            "free-form objects keep $-keys as data",
            json!({"free": {"x": 1}}),
            json!({"free": {"$ref": "#/y"}}),
            json!({"free": {"x": 1, "$ref": "#/y"}}),
        ),
        (
            "top-level $patch: replace swaps the whole object",
            json!({"word": "a", "spec": {"a": 1}}),
            json!({"$patch": "replace", "word": "b"}),
            json!({"word": "b"}),
        ),
        (
            "ownerReferences merge by uid",
            json!({"metadata": {"ownerReferences": [{"uid": "1", "name": "a"}]}}),
            json!({"metadata": {"ownerReferences": [{"uid": "1", "name": "b"}, {"uid": "2", "name": "c"}]}}),
            json!({"metadata": {"ownerReferences": [{"uid": "1", "name": "b"}, {"uid": "2", "name": "c"}]}}),
        ),
    ];
    for (name, original, patch, expected) in cases {
        match apply(&original, &patch) {
            Ok(got) => assert_eq!(got, expected, "{name}"),
            Err(e) => panic!("{name}: {e}"),
        }
    }
}

#[test]
fn refuses_malformed_patches() {
    let original = json!({
        "containers": [{"name": "a"}, {"name": "b"}],
        "volumes": [{"name": "v", "emptyDir": {}}],
        "metadata": {"finalizers": ["a"]},
    });
    let cases: Vec<(&str, Value, &str)> = vec![
        ("unknown directive", json!({"$foo": 1}), "unknown directive"),
        (
            "unknown $patch",
            json!({"spec": {"$patch": "swap"}}),
            "unknown patch type",
        ),
        (
            "unknown $patch in a list",
            json!({"containers": [{"name": "a", "$patch": "swap"}]}),
            "unknown patch type",
        ),
        (
            "item without its merge key",
            json!({"containers": [{"image": "x"}]}),
            "does not contain declared merge key: name",
        ),
        (
            "$patch: delete without the merge key",
            json!({"containers": [{"$patch": "delete"}]}),
            "does not contain declared merge key",
        ),
        (
            "scalars in a keyed list",
            json!({"containers": ["a"]}),
            "list element types are not identical",
        ),
        (
            "lists of lists",
            json!({"metadata": {"finalizers": [["x"]]}}),
            "lists of lists are not supported",
        ),
        (
            "$retainKeys missing a patched field",
            json!({"volumes": [{"name": "v", "hostPath": {}, "$retainKeys": ["name"]}]}),
            "invalid patch format of retainKeys",
        ),
        (
            "$retainKeys not a list",
            json!({"volumes": [{"name": "v", "$retainKeys": "name"}]}),
            "invalid patch format of retainKeys",
        ),
        (
            "$setElementOrder without a field",
            json!({"$setElementOrder": []}),
            "invalid patch format of setElementOrder list",
        ),
        (
            "$setElementOrder not a list",
            json!({"$setElementOrder/containers": {"name": "a"}}),
            "invalid patch format of setElementOrder list",
        ),
        (
            "$setElementOrder disagreeing with the patch",
            json!({"$setElementOrder/containers": [{"name": "a"}, {"name": "b"}],
                   "containers": [{"name": "b"}, {"name": "a"}]}),
            "doesn't match $setElementOrder list",
        ),
        (
            "$deleteFromPrimitiveList not a list",
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": "a"}}),
            "invalid patch format of primitive list",
        ),
        (
            "$deleteFromPrimitiveList without a field",
            json!({"metadata": {"$deleteFromPrimitiveList": ["a"]}}),
            "invalid patch format of primitive list",
        ),
    ];
    for (name, patch, message) in cases {
        match apply(&original, &patch) {
            Err(ApiError::BadRequest(m)) => assert!(m.contains(message), "{name}: {m}"),
            other => panic!("{name}: expected 400, got {other:?}"),
        }
    }
    for body in [&b"[1]"[..], b"{", b"\"x\""] {
        assert!(matches!(
            strategic(&schema(), &original, body),
            Err(ApiError::BadRequest(_))
        ));
    }
}

#[test]
fn reports_duplicate_fields() {
    let (_, duplicates) =
        strategic(&schema(), &json!({}), br#"{"word":"a","word":"b"}"#).expect("patch");
    assert_eq!(duplicates.len(), 1);
}

/// The schema node at `path` (`[]` steps into list items).
fn at<'a>(schema: &'a Schema, path: &str) -> &'a Schema {
    path.split('.').fold(schema, |s, step| match step {
        "[]" => s.items.as_deref().expect(path),
        field => s.property(field).expect(path),
    })
}

#[test]
fn built_in_kinds_carry_kubernetes_patch_metadata() {
    use crate::api::kinds::{namespace, node, pod, service, service_account};
    let (pod, node, namespace, service, account) = (
        pod::schema(),
        node::schema(),
        namespace::schema(),
        service::schema(),
        service_account::schema(),
    );
    let merge = Some("merge");
    let cases: Vec<(&Schema, &str, Option<&str>, Option<&str>)> = vec![
        (&pod, "metadata.finalizers", merge, None),
        (&pod, "metadata.ownerReferences", merge, Some("uid")),
        (&pod, "metadata.managedFields", None, None),
        (&pod, "spec.volumes", Some("merge,retainKeys"), Some("name")),
        (&pod, "spec.initContainers", merge, Some("name")),
        (&pod, "spec.containers", merge, Some("name")),
        (&pod, "spec.ephemeralContainers", merge, Some("name")),
        (
            &pod,
            "spec.containers.[].ports",
            merge,
            Some("containerPort"),
        ),
        (&pod, "spec.containers.[].env", merge, Some("name")),
        (
            &pod,
            "spec.containers.[].volumeMounts",
            merge,
            Some("mountPath"),
        ),
        (
            &pod,
            "spec.containers.[].volumeDevices",
            merge,
            Some("devicePath"),
        ),
        (&pod, "spec.containers.[].args", None, None),
        (&pod, "spec.imagePullSecrets", merge, Some("name")),
        (&pod, "spec.hostAliases", merge, Some("ip")),
        (&pod, "spec.tolerations", None, None),
        (
            &pod,
            "spec.topologySpreadConstraints",
            merge,
            Some("topologyKey"),
        ),
        (&pod, "spec.schedulingGates", merge, Some("name")),
        (
            &pod,
            "spec.resourceClaims",
            Some("merge,retainKeys"),
            Some("name"),
        ),
        (&pod, "status.conditions", merge, Some("type")),
        (&pod, "status.podIPs", merge, Some("ip")),
        (&pod, "status.hostIPs", merge, Some("ip")),
        (&pod, "status.containerStatuses", None, None),
        (
            &pod,
            "status.containerStatuses.[].volumeMounts",
            merge,
            Some("mountPath"),
        ),
        (&node, "spec.podCIDRs", merge, None),
        (&node, "spec.taints", None, None),
        (&node, "status.conditions", merge, Some("type")),
        (&node, "status.addresses", merge, Some("type")),
        (&namespace, "status.conditions", merge, Some("type")),
        (&namespace, "spec.finalizers", None, None),
        (&service, "spec.ports", merge, Some("port")),
        (&service, "status.conditions", merge, Some("type")),
        (&account, "secrets", merge, Some("name")),
        (&account, "imagePullSecrets", None, None),
    ];
    for (schema, path, strategy, key) in cases {
        let node = at(schema, path);
        assert_eq!(node.patch_strategy.as_deref(), strategy, "{path}");
        assert_eq!(node.patch_merge_key.as_deref(), key, "{path}");
    }
}
