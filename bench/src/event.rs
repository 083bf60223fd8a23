//! The benchmark's data: Event `i` has one name, namespace, etcd key and a
//! JSON body padded to exactly `VALUE_SIZE` bytes (the etcd value is the same bytes).

use bytes::Bytes;

/// Size of every created Event body and every etcd value.
pub const VALUE_SIZE: usize = 500;
/// Events are spread over namespaces ns-0 .. ns-{NAMESPACES-1}.
pub const NAMESPACES: u64 = 10;
/// The etcd prefix all keys share (the same shape kube-apiserver uses).
pub const ETCD_PREFIX: &[u8] = b"/registry/events/";

pub fn namespace(i: u64) -> String {
    format!("ns-{}", i % NAMESPACES)
}

pub fn name(i: u64) -> String {
    format!("ev-{i}")
}

/// `/registry/events/ns-N/ev-M`.
pub fn etcd_key(i: u64) -> Vec<u8> {
    format!("/registry/events/{}/{}", namespace(i), name(i)).into_bytes()
}

/// The end of the etcd range that covers every key under `prefix`.
pub fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    vec![0] // every key
}

/// The create body of Event `i`: a core v1 Event whose message pads it to `VALUE_SIZE`.
pub fn body(i: u64) -> Bytes {
    let (ns, name) = (namespace(i), name(i));
    let head = format!(
        r#"{{"apiVersion":"v1","kind":"Event","metadata":{{"name":"{name}","namespace":"{ns}"}},"involvedObject":{{"kind":"Pod","namespace":"{ns}","name":"pod-{i}","apiVersion":"v1"}},"reason":"BenchCreated","type":"Normal","source":{{"component":"cairn-bench"}},"count":1,"message":""#
    );
    let tail = r#""}"#;
    let pad = VALUE_SIZE.saturating_sub(head.len() + tail.len());
    let mut s = String::with_capacity(VALUE_SIZE);
    s.push_str(&head);
    s.extend(std::iter::repeat_n('x', pad));
    s.push_str(tail);
    Bytes::from(s)
}

/// The create body of namespace `name`.
pub fn namespace_body(name: &str) -> Bytes {
    Bytes::from(format!(
        r#"{{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{name}"}}}}"#
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::trailing_index;

    #[test]
    fn bodies_have_the_value_size_and_name_their_event() {
        for i in [0u64, 7, 12_345, 99_999, 1_234_567_890] {
            let b = body(i);
            assert_eq!(b.len(), VALUE_SIZE, "event {i}");
            let s = std::str::from_utf8(&b).unwrap();
            assert!(s.contains(&format!(r#""name":"ev-{i}","namespace":"ns-{}""#, i % 10)));
            assert!(s.ends_with(r#"xx"}"#));
        }
        assert_eq!(etcd_key(42), b"/registry/events/ns-2/ev-42");
        assert_eq!(trailing_index(&etcd_key(42)), Some(42));
    }

    #[test]
    fn prefix_ends() {
        assert_eq!(prefix_end(ETCD_PREFIX), b"/registry/events0");
        assert_eq!(prefix_end(&[b'a', 0xff]), b"b");
        assert_eq!(prefix_end(&[0xff]), vec![0]);
    }
}
