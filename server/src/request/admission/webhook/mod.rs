//! MutatingAdmissionWebhook and ValidatingAdmissionWebhook: the webhooks of
//! every stored Mutating-/ValidatingWebhookConfiguration, read through an
//! informer and indexed by (group, resource), are called with an
//! AdmissionReview for each write they match. Mutating webhooks run in
//! configuration-name order and may patch the object; one with
//! `reinvocationPolicy: IfNeeded` is called once more when a later webhook
//! changed the object. Validating webhooks are called in parallel and any
//! refusal refuses the write. A webhook that cannot be reached, times out
//! or answers nonsense fails the write unless its `failurePolicy` is
//! Ignore.

mod conditions;
mod hook;
mod matching;
mod metrics;
mod review;

use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;
use serde_json::{Map, Value};
use tokio::sync::watch;

use crate::api::error::ApiError;
use crate::api::informer::{Informer, KeyValue, Shared};
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::request::admission::{
    Attributes, MutatingAdmission, Operation, Pins, ValidatingAdmission,
};
use crate::storage::{Revision, Storage};
use crate::util::maybe_async::MaybeAsync;
use hook::Hook;
use matching::Index;
use metrics::Outcome;

type Configurations = Shared<Arc<Vec<Arc<Hook>>>>;

/// One review ready to send.
struct Call {
    body: Bytes,
    uid: String,
    mutating: bool,
    operation: &'static str,
}

/// Why a call did not allow the write.
enum Rejection {
    /// The webhook refused it.
    Denied(ApiError),
    /// The webhook could not be called, or its answer was unusable.
    Failed(String),
}

/// The webhooks of one configuration kind and what calling them needs.
pub struct Webhooks {
    plugin: &'static str,
    mutating: bool,
    configurations: Configurations,
    /// Namespace labels by the namespace's storage key.
    namespaces: Shared<Map<String, Value>>,
    namespaces_kind: Arc<KindSpec>,
    /// The index of the configurations as of a cache revision.
    index: Mutex<(Option<Revision>, Arc<Index>)>,
    domain: String,
}

fn namespace_labels(kv: &KeyValue) -> Option<Map<String, Value>> {
    let obj: Value = serde_json::from_slice(&kv.value).ok()?;
    Some(
        obj.pointer("/metadata/labels")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
    )
}

impl Webhooks {
    /// Follows the configurations of `kind` until `stop` flips.
    #[must_use]
    pub fn start(
        plugin: &'static str,
        storage: &Arc<dyn Storage>,
        kind: &KindSpec,
        namespaces_kind: Arc<KindSpec>,
        domain: &str,
        stop: &watch::Receiver<bool>,
    ) -> Webhooks {
        let over =
            |k: &KindSpec| Informer::over(Arc::clone(storage), keys::collection_prefix(k, None));
        metrics::metrics();
        Webhooks {
            plugin,
            mutating: plugin == crate::request::admission::plugins::MUTATING_WEBHOOK,
            configurations: Shared::spawn(over(kind), hook::project, stop.clone()),
            namespaces: Shared::spawn(over(&namespaces_kind), namespace_labels, stop.clone()),
            namespaces_kind,
            index: Mutex::new((None, Arc::new(Index::default()))),
            domain: domain.to_string(),
        }
    }

    /// The index of the configurations as the informer has them now.
    fn index(&self) -> Arc<Index> {
        let cache = self.configurations.read();
        let revision = cache.revision();
        let mut current = self.index.lock();
        if current.0 != revision || revision.is_none() {
            let hooks = cache.values().flat_map(|c| c.iter().cloned()).collect();
            *current = (revision, Arc::new(Index::new(hooks)));
        }
        Arc::clone(&current.1)
    }

    /// The webhooks to call for the write, after rules and selectors.
    fn matching(&self, attrs: &Attributes<'_>, object: Option<&Value>) -> Vec<Arc<Hook>> {
        let index = self.index();
        if index.is_empty() {
            return Vec::new();
        }
        let labels = |ns: &str| {
            let key = keys::object_key(&self.namespaces_kind, None, ns);
            self.namespaces.read().get(&key).cloned()
        };
        index
            .candidates(attrs)
            .into_iter()
            .filter(|h| matching::object_selected(h, object, attrs.old_object))
            .filter(|h| matching::namespace_selected(h, attrs, object, &labels))
            .collect()
    }

    /// Calls `hook` about the write, counting the call in the metrics;
    /// `Ok(None)` when a failure is ignored.
    async fn call(hook: Arc<Hook>, call: Call) -> Result<Option<review::Answer>, ApiError> {
        let started = std::time::Instant::now();
        let result = Self::ask(&hook, call.body, &call.uid).await;
        let outcome = match &result {
            Ok(_) => Outcome::Allowed,
            Err(Rejection::Denied(e)) => Outcome::Denied(e.code()),
            Err(Rejection::Failed(_)) => Outcome::CallFailed,
        };
        metrics::metrics().observe(
            &hook.name,
            call.mutating,
            call.operation,
            outcome,
            started.elapsed(),
        );
        match result {
            Ok(answer) => Ok(Some(answer)),
            Err(Rejection::Denied(e)) => Err(e),
            Err(Rejection::Failed(why)) if hook.ignore_failures => {
                tracing::warn!(webhook = %hook.name, "failed calling webhook, failing open: {why}");
                Ok(None)
            }
            Err(Rejection::Failed(why)) => Err(ApiError::Internal(format!(
                "failed calling webhook {:?}: failed to call webhook: {why}",
                hook.name
            ))),
        }
    }

    /// One exchange with the webhook.
    async fn ask(hook: &Hook, body: Bytes, uid: &str) -> Result<review::Answer, Rejection> {
        let client = hook
            .client
            .as_ref()
            .map_err(|e| Rejection::Failed(e.clone()))?;
        let answer = client
            .post(body, hook.timeout)
            .await
            .map_err(Rejection::Failed)?;
        match review::answer(&hook.name, &answer, uid) {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(denied)) => Err(Rejection::Denied(denied)),
            Err(e) => Err(Rejection::Failed(e)),
        }
    }

    /// The review body for `hook` and its uid; refuses a dry run the
    /// webhook cannot take.
    fn review(
        &self,
        hook: &Hook,
        attrs: &Attributes<'_>,
        object: Option<&Value>,
    ) -> Result<Option<Call>, ApiError> {
        let uid = crate::util::random::uuid_v4();
        let body = review::request(attrs, object, &self.domain, hook.review_version, &uid);
        match conditions::hold(hook, &body["request"]) {
            Ok(true) => {}
            Ok(false) => return Ok(None),
            Err(e) if hook.ignore_failures => {
                tracing::warn!(webhook = %hook.name, "match conditions failed, skipping: {e}");
                return Ok(None);
            }
            Err(e) => {
                return Err(ApiError::Internal(format!(
                    "failed calling webhook {:?}: {e}",
                    hook.name
                )));
            }
        }
        if attrs.dry_run() && !hook.dry_run_safe {
            return Err(ApiError::BadRequest(format!(
                "admission webhook {:?} does not support dry run",
                hook.name
            )));
        }
        let bytes = serde_json::to_vec(&body).map_err(|e| ApiError::Internal(e.to_string()))?;
        Ok(Some(Call {
            body: Bytes::from(bytes),
            uid,
            mutating: self.mutating,
            operation: attrs.operation.as_str(),
        }))
    }

    fn any_configured(&self) -> bool {
        !self.index().is_empty()
    }

    /// The mutating webhooks, in order, each seeing the last one's object.
    async fn mutate(&self, attrs: &Attributes<'_>, object: &mut Value) -> Result<(), ApiError> {
        let hooks = self.matching(attrs, Some(object));
        let mut changed_after: Vec<bool> = vec![false; hooks.len()];
        for (i, hook) in hooks.iter().enumerate() {
            if self.mutate_once(hook, attrs, object).await? {
                changed_after[..i].iter_mut().for_each(|c| *c = true);
            }
        }
        for (hook, changed) in hooks.iter().zip(changed_after) {
            if hook.reinvoke && changed {
                self.mutate_once(hook, attrs, object).await?;
            }
        }
        Ok(())
    }

    /// One call of a mutating webhook; whether its patch changed the object.
    async fn mutate_once(
        &self,
        hook: &Arc<Hook>,
        attrs: &Attributes<'_>,
        object: &mut Value,
    ) -> Result<bool, ApiError> {
        let Some(call) = self.review(hook, attrs, Some(object))? else {
            return Ok(false);
        };
        let Some(answer) = Self::call(Arc::clone(hook), call).await? else {
            return Ok(false);
        };
        answer.tell(&hook.name);
        let Some(patch) = answer.patch else {
            return Ok(false);
        };
        let patched = crate::api::patch::json(object, &patch).map_err(|e| {
            ApiError::Internal(format!(
                "failed calling webhook {:?}: the patch does not apply: {e}",
                hook.name
            ))
        })?;
        let changed = patched != *object;
        *object = patched;
        Ok(changed)
    }

    /// The validating webhooks, all at once; the first refusal in call
    /// order wins.
    async fn validate_all(
        &self,
        attrs: &Attributes<'_>,
        object: Option<&Value>,
    ) -> Result<(), ApiError> {
        let hooks = self.matching(attrs, object.or(attrs.old_object));
        let mut calls = Vec::with_capacity(hooks.len());
        for hook in hooks {
            let Some(call) = self.review(&hook, attrs, object)? else {
                continue;
            };
            calls.push((hook.name.clone(), tokio::spawn(Self::call(hook, call))));
        }
        let mut outcome = Ok(());
        for (name, call) in calls {
            let result = call
                .await
                .map_err(|e| ApiError::Internal(format!("webhook call failed: {e}")))?;
            match result {
                Ok(Some(answer)) => answer.tell(&name),
                Ok(None) => {}
                Err(e) if outcome.is_ok() => outcome = Err(e),
                Err(_) => {}
            }
        }
        outcome
    }
}

impl MutatingAdmission for Webhooks {
    fn name(&self) -> &'static str {
        self.plugin
    }

    fn handles(&self, operation: Operation) -> bool {
        matches!(operation, Operation::Create | Operation::Update) && self.any_configured()
    }

    fn admit<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        object: Option<&'a mut Value>,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        match object {
            Some(object) if !self.matching(attrs, Some(object)).is_empty() => {
                MaybeAsync::pending(self.mutate(attrs, object))
            }
            _ => MaybeAsync::Ready(Ok(())),
        }
    }
}

impl ValidatingAdmission for Webhooks {
    fn name(&self) -> &'static str {
        self.plugin
    }

    fn handles(&self, _operation: Operation) -> bool {
        self.any_configured()
    }

    fn validate<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        object: Option<&'a Value>,
        _pins: &'a mut Pins,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        if self.matching(attrs, object.or(attrs.old_object)).is_empty() {
            return MaybeAsync::Ready(Ok(()));
        }
        MaybeAsync::pending(self.validate_all(attrs, object))
    }
}
