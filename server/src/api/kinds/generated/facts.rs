//! Puts the facts of `proto_numbers` and `list_facts` on a converted
//! definition's fields.

use super::{
    list_facts, list_facts_more, proto_numbers, proto_numbers_aggregator, proto_numbers_more,
    proto_numbers_prerelease,
};
use crate::api::schema::Schema;

/// Adds definition `name`'s protobuf numbers and list/map/patch markers to
/// its fields.
pub fn apply(name: &str, schema: &mut Schema) {
    let mut messages = proto_numbers::MESSAGES
        .iter()
        .chain(proto_numbers_more::MESSAGES)
        .chain(proto_numbers_prerelease::MESSAGES);
    let numbers = messages
        .find(|(message, _)| *message == name)
        .map(|(_, n)| *n)
        .or_else(|| proto_numbers_aggregator::numbers(name));
    if let Some(numbers) = numbers {
        for (field, number) in numbers.split_whitespace().filter_map(|p| p.split_once('=')) {
            if let (Some(node), Ok(number)) = (property_mut(schema, field), number.parse()) {
                node.proto = Some(number);
            }
        }
    }
    if let Some(facts) = proto_numbers_aggregator::list_facts(name, "conditions")
        && let Some(node) = property_mut(schema, "conditions")
    {
        mark(node, facts);
    }
    let fields = list_facts::FIELDS
        .iter()
        .chain(list_facts_more::FIELDS)
        .chain(proto_numbers_prerelease::FIELDS);
    for (_, field, facts) in fields.filter(|(definition, ..)| *definition == name) {
        if let Some(node) = property_mut(schema, field) {
            mark(node, facts);
        }
    }
}

fn property_mut<'a>(schema: &'a mut Schema, field: &str) -> Option<&'a mut Schema> {
    schema
        .properties
        .iter_mut()
        .find(|(k, _)| k == field)
        .map(|(_, s)| s)
}

fn mark(node: &mut Schema, facts: &str) {
    for (fact, value) in facts.split_whitespace().filter_map(|f| f.split_once('=')) {
        match fact {
            "list" => {
                let (list_type, keys) = value.split_once(':').unwrap_or((value, ""));
                node.list_type = Some(list_type.to_owned());
                node.list_map_keys = keys
                    .split(',')
                    .filter(|k| !k.is_empty())
                    .map(str::to_owned)
                    .collect();
            }
            "map" => node.map_type = Some(value.to_owned()),
            "patch" => node.patch_strategy = Some(value.to_owned()),
            "key" => node.patch_merge_key = Some(value.to_owned()),
            "zero" => node.omit_zero = value == "omit",
            "inline" => node.proto_inline = value.parse().ok(),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deployment_status_conditions_merge_by_type() {
        let mut status = Schema::object([
            ("replicas", Schema::integer_i32()),
            ("conditions", Schema::array(Schema::condition())),
        ]);
        apply("io.k8s.api.apps.v1.DeploymentStatus", &mut status);
        let conditions = status.property("conditions").expect("declared");
        assert_eq!(conditions.list_type.as_deref(), Some("map"));
        assert_eq!(conditions.list_map_keys, ["type"]);
        assert_eq!(conditions.patch_strategy.as_deref(), Some("merge"));
        assert_eq!(conditions.patch_merge_key.as_deref(), Some("type"));
        assert_eq!(conditions.proto, Some(6));
        assert_eq!(status.property("replicas").and_then(|r| r.proto), Some(2));
    }
}
