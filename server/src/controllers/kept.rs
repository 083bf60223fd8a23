//! An object the API server keeps as it wants it (the `kubernetes`
//! Service's endpoints, the `extension-apiserver-authentication`
//! ConfigMap): created when missing, and put back when its owned fields or
//! labels were changed. Other labels and fields are left as they are.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::object;
use crate::api::store::{Store, WriteOptions};

/// One kept object's kind, namespace and owned fields.
pub struct Kept<'a> {
    store: &'a Store,
    kind: &'a Arc<KindSpec>,
    namespace: &'a str,
    owned: &'a [&'a str],
}

/// Whether `stored` says what `desired` says (other labels may be added).
fn agrees(stored: &Value, desired: &Value, owned: &[&str]) -> bool {
    let labels_agree = desired["metadata"]["labels"]
        .as_object()
        .into_iter()
        .flatten()
        .all(|(k, v)| stored["metadata"]["labels"].get(k) == Some(v));
    labels_agree
        && owned
            .iter()
            .all(|f| stored.get(*f).filter(|v| !v.is_null()) == desired.get(*f))
}

/// `stored` corrected to say what `desired` says.
fn corrected(stored: &mut Value, desired: &Value, owned: &[&str]) {
    if !stored["metadata"]["labels"].is_object() {
        stored["metadata"]["labels"] = json!({});
    }
    if let Some(labels) = desired["metadata"]["labels"].as_object() {
        for (k, v) in labels {
            stored["metadata"]["labels"][k] = v.clone();
        }
    }
    let Some(obj) = stored.as_object_mut() else {
        return;
    };
    for field in owned {
        match desired.get(*field) {
            Some(v) => {
                obj.insert((*field).into(), v.clone());
            }
            None => {
                obj.remove(*field);
            }
        }
    }
}

impl<'a> Kept<'a> {
    #[must_use]
    pub fn new(
        store: &'a Store,
        kind: &'a Arc<KindSpec>,
        namespace: &'a str,
        owned: &'a [&'a str],
    ) -> Kept<'a> {
        Kept {
            store,
            kind,
            namespace,
            owned,
        }
    }

    /// Makes the object (`stored` as the informer last saw it) say
    /// `desired`; whether to try again soon.
    pub async fn keep(&self, stored: Option<&Value>, desired: Value) -> bool {
        let name = object::name(&desired).to_string();
        let ns = Some(self.namespace);
        let result = match stored {
            Some(stored) if agrees(stored, &desired, self.owned) => return false,
            Some(_) => {
                self.store
                    .system_edit(self.kind, ns, &name, None, |obj| {
                        corrected(obj, &desired, self.owned);
                    })
                    .await
            }
            None => {
                let opts = WriteOptions {
                    field_manager: Some("kube-apiserver".into()),
                    ..WriteOptions::default()
                };
                let decoded = Decoded {
                    value: desired,
                    duplicates: Vec::new(),
                };
                match self.store.create(self.kind, ns, decoded, &opts).await {
                    Ok(_) | Err(ApiError::AlreadyExists { .. }) => Ok(()),
                    Err(e) => Err(e),
                }
            }
        };
        match result {
            Ok(()) => false,
            Err(e) => {
                // The namespace may not exist yet at start, or is going.
                tracing::debug!(error = %e, kind = %self.kind.kind, name, "cannot keep an API server object yet; retrying");
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edited_object_is_corrected_and_extra_labels_stay() {
        let owned = &["endpoints", "ports"];
        let want = json!({"metadata": {"name": "k", "labels": {"svc": "k"}},
                          "endpoints": [{"addresses": ["10.1.2.3"]}], "ports": [{"port": 1}]});
        let mut stored = want.clone();
        stored["metadata"]["labels"]["mine"] = json!("x");
        stored["other"] = json!("kept");
        assert!(agrees(&stored, &want, owned));
        stored["endpoints"][0]["addresses"] = json!(["10.9.9.9"]);
        stored["metadata"]["labels"]["svc"] = json!("other");
        assert!(!agrees(&stored, &want, owned));
        corrected(&mut stored, &want, owned);
        assert!(agrees(&stored, &want, owned));
        assert_eq!(
            (&stored["metadata"]["labels"]["mine"], &stored["other"]),
            (&json!("x"), &json!("kept"))
        );
        let mut emptied = want.clone();
        emptied["ports"] = json!(null);
        assert!(!agrees(&emptied, &want, owned));
    }
}
