//! MutatingAdmissionWebhook and ValidatingAdmissionWebhook: the webhooks of
//! every stored Mutating-/ValidatingWebhookConfiguration, read through an
//! informer and indexed by (group, resource), are called with an
//! AdmissionReview for each write they match. Mutating webhooks run in
//! configuration-name order and may patch the object; one with
//! `reinvocationPolicy: IfNeeded` is called once more when a later webhook
//! changed the object. Validating webhooks are called in parallel and any
//! refusal refuses the write. A webhook that cannot be reached, times out
//! or answers nonsense fails the write unless its `failurePolicy` is
//! Ignore. A webhook matched through an equivalent version sees the
//! objects in that version, and its patch is taken back to the write's.

mod annotations;
mod conditions;
pub mod credentials;
pub(crate) mod hook;
pub(crate) mod matching;
mod metrics;
mod mutating;
pub(crate) mod review;
mod target;
mod traced;

use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;
use serde_json::{Map, Value};
use tokio::sync::watch;

use crate::api::error::ApiError;
use crate::api::informer::{Informer, KeyValue, Shared};
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::registry::Registry;
use crate::api::store::Store;
use crate::request::admission::{
    Attributes, MutatingAdmission, Operation, Pins, ValidatingAdmission,
};
use crate::storage::{Revision, Storage};
use crate::trace;
use crate::util::maybe_async::MaybeAsync;
use credentials::Credentials;
use hook::Hook;
use matching::{Index, Matched};
use metrics::Outcome;
use target::Target;

type Configurations = Shared<Arc<Vec<Arc<Hook>>>>;

/// One review ready to send.
struct Call {
    /// The client and the address to dial, or why there is none.
    target: Result<Target, String>,
    body: Bytes,
    uid: String,
    mutating: bool,
    operation: &'static str,
    /// `Call validating webhook` (or mutating), when the request is traced.
    span: Option<trace::Span>,
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
    /// What the plugin's `kubeConfigFile` gives each webhook host.
    credentials: Option<Arc<Credentials>>,
    /// Reads Services and their endpoints for webhooks behind a Service.
    reads: Store,
}

/// What every webhook plugin is started with.
pub struct Setting {
    pub storage: Arc<dyn Storage>,
    pub registry: Arc<Registry>,
    pub namespaces_kind: Arc<KindSpec>,
    pub domain: String,
    pub credentials: Option<Arc<Credentials>>,
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
        kind: &KindSpec,
        setting: &Setting,
        stop: &watch::Receiver<bool>,
    ) -> Webhooks {
        let storage = &setting.storage;
        let over =
            |k: &KindSpec| Informer::over(Arc::clone(storage), keys::collection_prefix(k, None));
        metrics::metrics();
        let no_admission = Arc::new(crate::request::admission::Chain::new(
            Vec::new(),
            Vec::new(),
        ));
        Webhooks {
            plugin,
            mutating: plugin == crate::request::admission::plugins::MUTATING_WEBHOOK,
            configurations: Shared::spawn(over(kind), hook::project, stop.clone()),
            namespaces: Shared::spawn(
                over(&setting.namespaces_kind),
                namespace_labels,
                stop.clone(),
            ),
            namespaces_kind: Arc::clone(&setting.namespaces_kind),
            index: Mutex::new((None, Arc::new(Index::default()))),
            domain: setting.domain.clone(),
            credentials: setting.credentials.clone(),
            reads: Store::new(
                Arc::clone(storage),
                Arc::clone(&setting.registry),
                no_admission,
            ),
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
    fn matching(&self, attrs: &Attributes<'_>, object: Option<&Value>) -> Vec<Matched> {
        let index = self.index();
        if !index.may_match(&attrs.kind.resource) {
            return Vec::new();
        }
        let labels = |ns: &str| {
            let key = keys::object_key(&self.namespaces_kind, None, ns);
            self.namespaces.read().get(&key).cloned()
        };
        let equivalents = self.reads.registry.equivalents(attrs.kind);
        index
            .candidates(attrs, &equivalents)
            .into_iter()
            .filter(|m| {
                matching::object_selected(&m.hook.object_selector, object, attrs.old_object)
            })
            .filter(|m| {
                matching::namespace_selected(&m.hook.namespace_selector, attrs, object, &labels)
            })
            .collect()
    }

    /// Calls `hook` about the write, counting the call in the metrics;
    /// `Ok(None)` when a failure is ignored.
    async fn call(hook: Arc<Hook>, mut call: Call) -> Result<Option<review::Answer>, ApiError> {
        let started = std::time::Instant::now();
        let (mutating, operation) = (call.mutating, call.operation);
        let span = call.span.take();
        let result = trace::within(span.as_ref(), Self::ask(&hook, call)).await;
        if let (Some(span), Err(Rejection::Failed(why))) = (&span, &result) {
            span.fail(why.clone());
        }
        drop(span);
        let outcome = match &result {
            Ok(_) => Outcome::Allowed,
            Err(Rejection::Denied(e)) => Outcome::Denied(e.code()),
            Err(Rejection::Failed(_)) => Outcome::CallFailed,
        };
        metrics::metrics().observe(&hook.name, mutating, operation, outcome, started.elapsed());
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
    async fn ask(hook: &Hook, call: Call) -> Result<review::Answer, Rejection> {
        let target = call.target.map_err(Rejection::Failed)?;
        let answer = target
            .client
            .post_via(target.via, call.body, hook.timeout)
            .await
            .map_err(Rejection::Failed)?;
        match review::answer(&hook.name, &answer, &call.uid) {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(denied)) => Err(Rejection::Denied(denied)),
            Err(e) => Err(Rejection::Failed(e)),
        }
    }

    /// The review body for the matched webhook, which sees the write as
    /// `seen`, and its uid; refuses a dry run the webhook cannot take.
    async fn review(
        &self,
        hook: &Hook,
        attrs: &Attributes<'_>,
        seen: &review::Seen<'_>,
    ) -> Result<Option<Call>, ApiError> {
        let uid = crate::util::random::uuid_v4();
        let body = review::request(attrs, seen, &self.domain, hook.review_version, &uid);
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
        let target = Target::of(hook, self.credentials.as_deref(), &self.reads).await;
        let span = traced::call_span(self.mutating, hook, attrs, &uid);
        Ok(Some(Call {
            target,
            body: Bytes::from(bytes),
            uid,
            mutating: self.mutating,
            operation: attrs.operation.as_str(),
            span,
        }))
    }

    fn any_configured(&self) -> bool {
        !self.index().is_empty()
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
        for matched in hooks {
            let (seen_object, seen_old) = review::versions(&matched, attrs, object);
            let seen = review::Seen {
                kind: matched.via.as_deref().unwrap_or(attrs.kind),
                object: seen_object.as_deref(),
                old: seen_old.as_deref(),
            };
            let Some(call) = self.review(&matched.hook, attrs, &seen).await? else {
                continue;
            };
            let hook = matched.hook;
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
        let Some(object) = object else {
            return MaybeAsync::Ready(Ok(()));
        };
        // Matched once: the calls below use the same list.
        let hooks = self.matching(attrs, Some(object));
        if hooks.is_empty() {
            return MaybeAsync::Ready(Ok(()));
        }
        MaybeAsync::pending(self.mutate(hooks, attrs, object))
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
