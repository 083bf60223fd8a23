//! core/v1 `bindings`, kube's create-only collection a scheduler may POST a
//! Binding to instead of `pods/<name>/binding`: an answered kind whose
//! answer is the pod's assignment, made by the store.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::api::bodies::binding;
use crate::api::error::ApiError;
use crate::api::kind::{Answerer, KindSpec, Question};
use crate::api::registry::Registry;
use crate::api::store::{BindingVia, WriteOptions};
use crate::util::maybe_async::MaybeAsync;

/// What kube answers a successful binding with (201, as a create).
#[must_use]
pub fn success() -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201})
}

/// Answers creates of `bindings` by assigning the pod the Binding names.
struct Binder;

impl Answerer for Binder {
    fn answer<'a>(
        &'a self,
        question: Question<'a>,
        body: Value,
    ) -> MaybeAsync<'a, Result<Value, ApiError>> {
        MaybeAsync::Pending(Box::pin(async move {
            let store = question
                .store
                .ok_or_else(|| ApiError::Internal("bindings are served with a store".into()))?;
            let ns = question.namespace.unwrap_or_default();
            // Malformed Bindings are refused before admission sees them.
            binding::decode(&body, None, Some(ns))?;
            let pods = store
                .registry
                .lookup("", "v1", "pods")
                .ok_or(ApiError::PathNotFound)?;
            let opts = WriteOptions {
                dry_run: question.dry_run,
                user: Some(Arc::clone(question.user)),
                ..WriteOptions::default()
            };
            let bindings = store
                .registry
                .lookup("", "v1", "bindings")
                .ok_or(ApiError::PathNotFound)?;
            let via = BindingVia::Collection(&bindings);
            store.bind(&pods, ns, body, None, via, &opts).await?;
            Ok(success())
        }))
    }
}

/// Registers `bindings`.
pub fn add(registry: &Registry) {
    registry.add(KindSpec {
        answered_by: Some(Arc::new(Binder)),
        ..KindSpec::new("", "v1", "Binding", "bindings", true, binding::schema())
    });
}
