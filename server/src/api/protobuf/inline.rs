//! Go's inlined structs in protobuf: JSON puts their fields in the parent
//! object, protobuf in a nested message of the parent (an IngressRule's
//! `http` travels in its `ingressRuleValue`, field 2).

use serde_json::{Map, Value};

use crate::api::schema::Schema;

/// The message of the parent's nested field `wrapper`: the properties
/// inlined from it, at their own numbers. `None` when nothing is inlined
/// from that number.
pub fn group(schema: &Schema, wrapper: u32) -> Option<Schema> {
    let properties: Vec<(String, Schema)> = schema
        .properties
        .iter()
        .filter(|(_, s)| s.proto_inline == Some(wrapper))
        .map(|(k, s)| {
            let mut s = s.clone();
            s.proto_inline = None;
            (k.clone(), s)
        })
        .collect();
    if properties.is_empty() {
        return None;
    }
    Some(Schema {
        properties,
        ..Schema::default()
    })
}

/// `group` and the values of `obj` it holds.
pub fn split(
    schema: &Schema,
    wrapper: u32,
    obj: &Map<String, Value>,
) -> (Schema, Map<String, Value>) {
    let group = group(schema, wrapper).unwrap_or_default();
    let fields = obj
        .iter()
        .filter(|(k, _)| group.property(k).is_some())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (group, fields)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::api::protobuf::{decode, encode};

    fn rule() -> Schema {
        let mut http = Schema::object([("paths", Schema::array(Schema::string()))]);
        http.proto = Some(1);
        http.properties[0].1.proto = Some(1);
        http.proto_inline = Some(2);
        let mut host = Schema::string();
        host.proto = Some(1);
        Schema::object([("host", host), ("http", http)])
    }

    #[test]
    fn an_inlined_field_travels_in_its_wrapper_and_comes_back_flat() {
        let value = json!({"host": "a.example", "http": {"paths": ["/x"]}});
        let mut out = Vec::new();
        let obj = value.as_object().expect("object");
        encode::message(&rule(), obj, &[], encode::Path::Root, &mut out).expect("encodes");
        // host=1 "a.example", then wrapper 2 { http=1 { paths=1 "/x" } }.
        let mut expected = vec![0x0a, 9];
        expected.extend_from_slice(b"a.example");
        expected.extend_from_slice(&[0x12, 6, 0x0a, 4, 0x0a, 2, b'/', b'x']);
        assert_eq!(out, expected);
        let back = decode::message(&rule(), &out, "").expect("decodes");
        assert_eq!(Value::Object(back), value);
    }
}
