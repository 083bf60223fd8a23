//! The selective shapes' objects: object `i` of a shape is created in the
//! shape's own namespace as `s-i` and is aimed at target `i mod targets`
//! (Events by `involvedObject.name=pod-T`, Pods by `spec.nodeName=node-T`,
//! labelled Events by `app=app-T`); its etcd twin is a value of the same
//! size under the target's own prefix.

use bytes::Bytes;

use crate::event::VALUE_SIZE;
use crate::parse::query_escape;

/// What the objects are and what a watcher selects them by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// Events, field `involvedObject.name=pod-T`.
    EventField,
    /// Pods, field `spec.nodeName=node-T`.
    PodField,
    /// Events labelled `app=app-T`, label selectors.
    EventLabel,
}

/// One selective shape: a kind, a namespace of its own and how many targets
/// the objects are spread over (round-robin by index).
#[derive(Clone, Debug)]
pub struct Shape {
    pub kind: Kind,
    pub namespace: String,
    pub targets: u64,
}

impl Shape {
    pub fn new(kind: Kind, namespace: &str, targets: u64) -> Self {
        Self {
            kind,
            namespace: namespace.to_string(),
            targets: targets.max(1),
        }
    }

    /// The target object `i` is aimed at.
    pub fn target(&self, i: u64) -> u64 {
        i % self.targets
    }

    fn resource(&self) -> &'static str {
        match self.kind {
            Kind::EventField | Kind::EventLabel => "events",
            Kind::PodField => "pods",
        }
    }

    /// Where objects are created.
    pub fn create_path(&self) -> String {
        format!("/api/v1/namespaces/{}/{}", self.namespace, self.resource())
    }

    /// A cluster-wide watch from `rv` with `selector`.
    pub fn watch_path(&self, rv: u64, selector: &Selector) -> String {
        let (param, value) = selector.query(self.kind);
        format!(
            "/api/v1/{}?watch=true&resourceVersion={rv}&{param}={}",
            self.resource(),
            query_escape(&value)
        )
    }

    /// The etcd prefix standing for target `t`.
    pub fn etcd_prefix(&self, t: u64) -> Vec<u8> {
        let (what, target) = match self.kind {
            Kind::EventField => ("events", "pod"),
            Kind::PodField => ("pods", "node"),
            Kind::EventLabel => ("labelled", "app"),
        };
        format!("/bench/{what}/{target}-{t}/").into_bytes()
    }

    /// Object `i`'s etcd key: under its target's prefix, ending in its index.
    pub fn etcd_key(&self, i: u64) -> Vec<u8> {
        let mut key = self.etcd_prefix(self.target(i));
        key.extend_from_slice(format!("s-{i}").as_bytes());
        key
    }

    /// The create body of object `i`, padded to `VALUE_SIZE` bytes.
    pub fn body(&self, i: u64) -> Bytes {
        let (ns, t) = (&self.namespace, self.target(i));
        let (head, tail) = match self.kind {
            Kind::EventField | Kind::EventLabel => {
                let labels = if self.kind == Kind::EventLabel {
                    format!(r#","labels":{{"app":"app-{t}"}}"#)
                } else {
                    String::new()
                };
                let pod = if self.kind == Kind::EventField {
                    format!("pod-{t}")
                } else {
                    format!("pod-{i}")
                };
                (
                    format!(
                        r#"{{"apiVersion":"v1","kind":"Event","metadata":{{"name":"s-{i}","namespace":"{ns}"{labels}}},"involvedObject":{{"kind":"Pod","namespace":"{ns}","name":"{pod}","apiVersion":"v1"}},"reason":"BenchCreated","type":"Normal","source":{{"component":"cairn-bench"}},"count":1,"message":""#
                    ),
                    r#""}"#,
                )
            }
            Kind::PodField => (
                format!(
                    r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"s-{i}","namespace":"{ns}"}},"spec":{{"nodeName":"node-{t}","containers":[{{"name":"c","image":"busybox","env":[{{"name":"PAD","value":""#
                ),
                r#""}]}]}}"#,
            ),
        };
        let pad = VALUE_SIZE.saturating_sub(head.len() + tail.len());
        let mut s = String::with_capacity(VALUE_SIZE);
        s.push_str(&head);
        s.extend(std::iter::repeat_n('x', pad));
        s.push_str(tail);
        Bytes::from(s)
    }
}

/// A selector over the targets, written for a shape's kind: `equals(t)`
/// selects target `t` only; `not_equals` and `not_in` every target but the
/// ones named (`app!=x` names none). As field selectors, `notin` is written
/// as two `!=` requirements (field selectors have no set operators).
#[derive(Clone, Debug)]
pub struct Selector {
    /// `Some(set)`: selects exactly these targets; `None`: every target but those in `except`.
    only: Option<Vec<u64>>,
    except: Vec<u64>,
    /// `x` for `!=x` (no target has it).
    absent: bool,
}

impl Selector {
    /// `app=app-t` (`involvedObject.name=pod-t`, `spec.nodeName=node-t`).
    pub fn equals(t: u64) -> Self {
        Self {
            only: Some(vec![t]),
            except: Vec::new(),
            absent: false,
        }
    }

    /// `app!=app-t`, or `app!=x` for `None` (a value no object has).
    pub fn not_equals(t: Option<u64>) -> Self {
        Self {
            only: None,
            except: t.into_iter().collect(),
            absent: t.is_none(),
        }
    }

    /// `app notin (app-a,app-b)`.
    pub fn not_in(a: u64, b: u64) -> Self {
        Self {
            only: None,
            except: vec![a, b],
            absent: false,
        }
    }

    pub fn selects(&self, target: u64) -> bool {
        match &self.only {
            Some(set) => set.contains(&target),
            None => !self.except.contains(&target),
        }
    }

    /// The query parameter and its value (unescaped) for objects of `kind`.
    pub fn query(&self, kind: Kind) -> (&'static str, String) {
        let (param, key, prefix) = match kind {
            Kind::EventField => ("fieldSelector", "involvedObject.name", "pod-"),
            Kind::PodField => ("fieldSelector", "spec.nodeName", "node-"),
            Kind::EventLabel => ("labelSelector", "app", "app-"),
        };
        let value = |t: &u64| format!("{prefix}{t}");
        let text = match (&self.only, self.except.as_slice()) {
            (Some(set), _) => format!("{key}={}", value(&set[0])),
            (None, []) if self.absent => format!("{key}!=x"),
            (None, [t]) => format!("{key}!={}", value(t)),
            (None, ts) if param == "labelSelector" => {
                let vs: Vec<String> = ts.iter().map(value).collect();
                format!("{key} notin ({})", vs.join(","))
            }
            (None, ts) => {
                let vs: Vec<String> = ts.iter().map(|t| format!("{key}!={}", value(t))).collect();
                vs.join(",")
            }
        };
        (param, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::trailing_index;

    #[test]
    fn bodies_have_the_value_size_and_aim_at_their_target() {
        for kind in [Kind::EventField, Kind::PodField, Kind::EventLabel] {
            let shape = Shape::new(kind, "sel", 1000);
            for i in [0u64, 7, 1003, 99_999] {
                let b = shape.body(i);
                assert_eq!(b.len(), VALUE_SIZE, "{kind:?} {i}");
                let s = std::str::from_utf8(&b).unwrap();
                assert!(s.contains(&format!(r#""name":"s-{i}""#)));
                let want = match kind {
                    Kind::EventField => format!(r#""name":"pod-{}""#, i % 1000),
                    Kind::PodField => format!(r#""nodeName":"node-{}""#, i % 1000),
                    Kind::EventLabel => format!(r#""app":"app-{}""#, i % 1000),
                };
                assert!(s.contains(&want), "{s}");
                assert_eq!(trailing_index(&shape.etcd_key(i)), Some(i));
                assert!(shape.etcd_key(i).starts_with(&shape.etcd_prefix(i % 1000)));
            }
        }
        let s = Shape::new(Kind::PodField, "sel", 10);
        assert_eq!(
            s.watch_path(5, &Selector::equals(3)),
            "/api/v1/pods?watch=true&resourceVersion=5&fieldSelector=spec.nodeName%3Dnode-3"
        );
        assert_ne!(
            s.etcd_prefix(1),
            s.etcd_prefix(10)[..s.etcd_prefix(1).len()]
        );
    }

    #[test]
    fn selectors_select_their_targets_and_read_as_kubernetes_selectors() {
        let q = |s: &Selector, k| s.query(k).1;
        assert!(Selector::equals(3).selects(3));
        assert!(!Selector::equals(3).selects(4));
        assert_eq!(q(&Selector::equals(3), Kind::EventLabel), "app=app-3");
        assert!(Selector::not_equals(None).selects(0));
        assert_eq!(
            q(&Selector::not_equals(None), Kind::EventField),
            "involvedObject.name!=x"
        );
        assert!(!Selector::not_equals(Some(2)).selects(2));
        assert_eq!(
            q(&Selector::not_equals(Some(2)), Kind::EventLabel),
            "app!=app-2"
        );
        let n = Selector::not_in(1, 2);
        assert!(!n.selects(1) && !n.selects(2) && n.selects(3));
        assert_eq!(q(&n, Kind::EventLabel), "app notin (app-1,app-2)");
        assert_eq!(
            q(&n, Kind::EventField),
            "involvedObject.name!=pod-1,involvedObject.name!=pod-2"
        );
        assert_eq!(n.query(Kind::PodField).0, "fieldSelector");
    }
}
