//! Admission: plugins that see every write before it is stored. Mutating
//! plugins run first and may change the object; the kind's validation
//! follows; then validating plugins, which may only refuse, and may pin
//! what they read so the commit fails (and admission runs again) if it
//! changes before the write lands.
//!
//! The store calls the chain from inside its write paths, because
//! admission needs what only the store has: the object after decoding and
//! defaulting, the stored object an update or delete replaces, and the
//! retry of a lost race. Every write through the store's verbs is
//! admitted — API requests as their user, in-process controllers as the
//! API server itself — as in Kubernetes, where controllers write through
//! the API. This module depends only on the registry's vocabulary (kinds,
//! errors, write options), never on the store, so plugins may read storage
//! while the store holds the chain.

pub mod certificates;
pub mod configuration;
pub mod default_toleration_seconds;
pub mod limit_ranger;
pub mod namespace_lifecycle;
mod pins;
pub mod plugins;
pub mod policy;
pub mod resource_quota;
pub mod resource_quota_config;
pub mod service_account;
pub mod webhook;

use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::store::{DeleteOptions, Subresource, WriteOptions};
use crate::metrics::admission::{PluginSeries, Step};
use crate::metrics::clock::Stamp;
use crate::request::user::{UserInfo, api_server};
use crate::storage::Revision;
use crate::util::maybe_async::MaybeAsync;
pub use pins::Pins;

/// What a write does, as admission names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    Create,
    Update,
    Delete,
}

impl Operation {
    /// The name an AdmissionReview carries.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
        }
    }
}

/// The request's options object (CreateOptions, UpdateOptions — also for
/// patches — or DeleteOptions), as webhooks receive it.
#[derive(Clone, Copy, Debug)]
pub enum Options<'a> {
    Write(&'a WriteOptions),
    Delete(&'a DeleteOptions),
}

/// What a plugin is told about a write.
#[derive(Clone, Copy)]
pub struct Attributes<'a> {
    pub operation: Operation,
    /// Group, version, kind and resource of the object.
    pub kind: &'a KindSpec,
    pub subresource: Option<&'static str>,
    pub namespace: Option<&'a str>,
    /// May be empty while a create's name is still to be generated.
    pub name: &'a str,
    pub user: &'a UserInfo,
    pub options: Options<'a>,
    /// The stored object an update replaces or a delete removes.
    pub old_object: Option<&'a Value>,
    /// The kind of the object under review when it is not the resource's
    /// own: a Binding posted to `pods/binding`.
    pub object_kind: Option<&'static str>,
}

impl<'a> Attributes<'a> {
    /// A create of `name` (`opts.user`, else the API server itself).
    #[must_use]
    pub fn create(
        kind: &'a KindSpec,
        namespace: Option<&'a str>,
        name: &'a str,
        opts: &'a WriteOptions,
    ) -> Attributes<'a> {
        Attributes {
            operation: Operation::Create,
            kind,
            subresource: opts.subresource.map(Subresource::as_str),
            namespace,
            name,
            user: caller(opts.user.as_deref()),
            options: Options::Write(opts),
            old_object: None,
            object_kind: None,
        }
    }

    /// An update (PUT, PATCH, apply, a subresource write) of `old`.
    #[must_use]
    pub fn update(
        kind: &'a KindSpec,
        namespace: Option<&'a str>,
        name: &'a str,
        opts: &'a WriteOptions,
        old: &'a Value,
    ) -> Attributes<'a> {
        Attributes {
            operation: Operation::Update,
            old_object: Some(old),
            ..Attributes::create(kind, namespace, name, opts)
        }
    }

    /// A delete; `old` is the stored object once it has been read.
    #[must_use]
    pub fn delete(
        kind: &'a KindSpec,
        namespace: Option<&'a str>,
        name: &'a str,
        opts: &'a DeleteOptions,
        old: Option<&'a Value>,
    ) -> Attributes<'a> {
        Attributes {
            operation: Operation::Delete,
            kind,
            subresource: None,
            namespace,
            name,
            user: caller(opts.user.as_deref()),
            options: Options::Delete(opts),
            old_object: old,
            object_kind: None,
        }
    }

    /// A plugin's refusal of this write: 403, `<resource> "<name>" is
    /// forbidden: <reason>`.
    #[must_use]
    pub fn forbidden(&self, reason: String) -> ApiError {
        ApiError::Forbidden {
            group: self.kind.group.clone(),
            resource: self.kind.resource.clone(),
            name: self.name.into(),
            reason,
            causes: Vec::new(),
        }
    }

    #[must_use]
    pub fn dry_run(&self) -> bool {
        match self.options {
            Options::Write(o) => o.dry_run,
            Options::Delete(o) => o.dry_run,
        }
    }
}

/// The writer a request named, else the API server itself.
fn caller(user: Option<&UserInfo>) -> &UserInfo {
    match user {
        Some(user) => user,
        None => api_server(),
    }
}

/// A plugin that may change the object (deletes have none).
pub trait MutatingAdmission: Send + Sync {
    /// The name `--enable-admission-plugins` uses.
    fn name(&self) -> &'static str;
    fn handles(&self, operation: Operation) -> bool;
    fn admit<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        object: Option<&'a mut Value>,
    ) -> MaybeAsync<'a, Result<(), ApiError>>;
}

/// A plugin that may refuse a write the kind's validation accepted.
pub trait ValidatingAdmission: Send + Sync {
    /// The name `--enable-admission-plugins` uses.
    fn name(&self) -> &'static str;
    fn handles(&self, operation: Operation) -> bool;
    /// `pins` takes each stored record the decision rests on.
    fn validate<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        object: Option<&'a Value>,
        pins: &'a mut Pins,
    ) -> MaybeAsync<'a, Result<(), ApiError>>;
}

/// Told of each committed write before it is acknowledged, so that what
/// the server derives from storage (the RBAC policy) has caught up with a
/// write by the time its writer hears of it. May wait; never refuses.
pub trait CommitObserver: Send + Sync {
    fn committed<'a>(&'a self, kind: &'a KindSpec, revision: Revision) -> MaybeAsync<'a, ()>;
}

/// A phase's clock: each plugin's time runs from the previous one's end,
/// so a chain of n plugins reads the clock n + 1 times, not 2n + 2.
struct Lap {
    began: Stamp,
    mark: Stamp,
}

impl Lap {
    fn start() -> Lap {
        let now = Stamp::now();
        Lap {
            began: now,
            mark: now,
        }
    }

    /// Nanoseconds since the last lap (or the start).
    fn lap(&mut self) -> u64 {
        let now = Stamp::now();
        let took = now.nanos_since(self.mark);
        self.mark = now;
        took
    }

    /// Nanoseconds from the start to the last lap: the phase without
    /// another reading.
    fn total(&self) -> u64 {
        self.mark.nanos_since(self.began)
    }
}

/// Each plugin's metric series, in chain order, found on first use.
type PluginSeriesList = OnceLock<Box<[Option<&'static PluginSeries>]>>;

fn plugin_series(
    list: &PluginSeriesList,
    names: impl Iterator<Item = &'static str>,
) -> &[Option<&'static PluginSeries>] {
    list.get_or_init(|| {
        let metrics = &crate::metrics::global().admission;
        names.map(|name| metrics.plugin(name)).collect()
    })
}

/// The plugins of each phase, in the order they run.
#[derive(Default)]
pub struct Chain {
    mutating: Vec<Arc<dyn MutatingAdmission>>,
    validating: Vec<Arc<dyn ValidatingAdmission>>,
    observers: Vec<Arc<dyn CommitObserver>>,
    mutating_series: PluginSeriesList,
    validating_series: PluginSeriesList,
}

impl Chain {
    #[must_use]
    pub fn new(
        mutating: Vec<Arc<dyn MutatingAdmission>>,
        validating: Vec<Arc<dyn ValidatingAdmission>>,
    ) -> Chain {
        Chain {
            mutating,
            validating,
            observers: Vec::new(),
            mutating_series: OnceLock::new(),
            validating_series: OnceLock::new(),
        }
    }

    /// This chain, with `observer` told of every commit.
    #[must_use]
    pub fn observed_by(mut self, observer: Arc<dyn CommitObserver>) -> Chain {
        self.observers.push(observer);
        self
    }

    /// Tells the observers that a write of `kind` committed at `revision`.
    pub async fn committed(&self, kind: &KindSpec, revision: Revision) {
        for observer in &self.observers {
            observer.committed(kind, revision).resolve().await;
        }
    }

    /// Whether any mutating plugin looks at `operation` (so a caller can
    /// skip preparing what only they would read).
    #[must_use]
    pub fn mutates(&self, operation: Operation) -> bool {
        self.mutating.iter().any(|p| p.handles(operation))
    }

    /// The mutating phase; the first refusal ends it.
    pub async fn admit(
        &self,
        attrs: &Attributes<'_>,
        mut object: Option<&mut Value>,
    ) -> Result<(), ApiError> {
        let metrics = &crate::metrics::global().admission;
        let phase = metrics.phase(Step::Admit, attrs.operation.as_str());
        let series = plugin_series(
            &self.mutating_series,
            self.mutating.iter().map(|p| p.name()),
        );
        let mut clock = Lap::start();
        let mut outcome = Ok(());
        for (plugin, series) in self.mutating.iter().zip(series) {
            if !plugin.handles(attrs.operation) {
                continue;
            }
            outcome = plugin.admit(attrs, object.as_deref_mut()).resolve().await;
            let rejected = outcome.is_err();
            metrics.observe_controller(*series, plugin.name(), phase, rejected, clock.lap());
            if rejected {
                break;
            }
        }
        metrics.observe_step(phase, outcome.is_err(), clock.total());
        outcome
    }

    /// The validating phase: the records to guard the commit on, or the
    /// first refusal.
    pub async fn validate(
        &self,
        attrs: &Attributes<'_>,
        object: Option<&Value>,
    ) -> Result<Pins, ApiError> {
        let metrics = &crate::metrics::global().admission;
        let phase = metrics.phase(Step::Validate, attrs.operation.as_str());
        let series = plugin_series(
            &self.validating_series,
            self.validating.iter().map(|p| p.name()),
        );
        let mut clock = Lap::start();
        let mut pins = Pins::default();
        let mut outcome = Ok(());
        for (plugin, series) in self.validating.iter().zip(series) {
            if !plugin.handles(attrs.operation) {
                continue;
            }
            outcome = plugin.validate(attrs, object, &mut pins).resolve().await;
            let rejected = outcome.is_err();
            metrics.observe_controller(*series, plugin.name(), phase, rejected, clock.lap());
            if rejected {
                break;
            }
        }
        metrics.observe_step(phase, outcome.is_err(), clock.total());
        outcome.map(|()| pins)
    }
}

#[cfg(test)]
mod fixture;
#[cfg(test)]
mod store_tests;
#[cfg(test)]
#[path = "tests.rs"]
mod tests;
