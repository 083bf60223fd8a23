//! Admission metrics of kube's admission chain: per phase ("step": admit
//! or validate) and per plugin ("controller"), by operation and whether the
//! write was rejected. Each series' handle is resolved once and kept in a
//! slot of its own, so recording a phase or a plugin touches only its
//! histogram.

use std::sync::OnceLock;

use parking_lot::Mutex;

use crate::metrics::histogram::Histogram;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;

use super::clock;
use super::definition::Definition;
use super::registry::MetricsRegistry;

const STEP: Definition = Definition::stable(
    "apiserver_admission_step_admission_duration_seconds",
    "Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).",
);
const CONTROLLER: Definition = Definition::stable(
    "apiserver_admission_controller_admission_duration_seconds",
    "Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
);

/// kube's admission latency buckets.
const BUCKETS: [f64; 6] = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StepLabels {
    r#type: &'static str,
    operation: &'static str,
    rejected: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ControllerLabels {
    name: &'static str,
    r#type: &'static str,
    operation: &'static str,
    rejected: &'static str,
}

/// Which phase ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Mutating plugins.
    Admit,
    /// Validating plugins.
    Validate,
}

impl Step {
    fn label(self) -> &'static str {
        match self {
            Step::Admit => "admit",
            Step::Validate => "validate",
        }
    }
}

type Histograms<S> = Family<S, Histogram, fn() -> Histogram>;

/// The operations admission names, in slot order.
const OPERATIONS: [&str; 4] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

/// Where one phase of one operation records, worked out once per phase
/// rather than once per plugin.
#[derive(Clone, Copy, Debug)]
pub struct Phase {
    step: Step,
    operation: &'static str,
    /// The slot of an accepted write (a rejected one is the next), if the
    /// operation is one of kube's four.
    accepted: Option<usize>,
}

impl Phase {
    fn slot(self, rejected: bool) -> Option<usize> {
        self.accepted.map(|at| at + usize::from(rejected))
    }
}

const SLOTS: usize = 2 * OPERATIONS.len() * 2;

/// The admission metrics.
pub struct AdmissionMetrics {
    step: Histograms<StepLabels>,
    controller: Histograms<ControllerLabels>,
    steps: [OnceLock<Histogram>; SLOTS],
    /// Each plugin's slots, in the order plugins were first seen: a
    /// handful, scanned without a lock (names compare by address first,
    /// being the plugins' own statics).
    plugins: [OnceLock<PluginSeries>; PLUGINS],
    /// Held only to claim a plugin's place.
    claiming: Mutex<()>,
}

/// Plugins kept in slots; any beyond are found through the family.
const PLUGINS: usize = 32;

/// One plugin's series, found once and kept by the chain that runs it.
pub struct PluginSeries {
    name: &'static str,
    slots: [OnceLock<Histogram>; SLOTS],
}

fn rejected_label(rejected: bool) -> &'static str {
    if rejected { "true" } else { "false" }
}

impl AdmissionMetrics {
    /// `name`'s slots, claimed on first use; `None` past the slots kept.
    pub fn plugin(&self, name: &'static str) -> Option<&PluginSeries> {
        let same = |p: &&PluginSeries| std::ptr::eq(p.name, name) || p.name == name;
        if let Some(found) = self.plugins.iter().map_while(OnceLock::get).find(same) {
            return Some(found);
        }
        let _claim = self.claiming.lock();
        let free = self
            .plugins
            .iter()
            .find(|p| p.get().is_none_or(|p| same(&p)))?;
        Some(free.get_or_init(|| PluginSeries {
            name,
            slots: Default::default(),
        }))
    }

    pub fn register(registry: &mut MetricsRegistry) -> AdmissionMetrics {
        let metrics = AdmissionMetrics {
            step: Family::new_with_constructor(|| Histogram::new(BUCKETS)),
            controller: Family::new_with_constructor(|| Histogram::new(BUCKETS)),
            steps: Default::default(),
            plugins: [const { OnceLock::new() }; PLUGINS],
            claiming: Mutex::new(()),
        };
        registry.register(STEP, metrics.step.clone());
        registry.register(CONTROLLER, metrics.controller.clone());
        metrics
    }

    /// Where `step` of an `operation` (as admission names it: CREATE…)
    /// records.
    #[must_use]
    pub fn phase(&self, step: Step, operation: &'static str) -> Phase {
        let accepted = OPERATIONS
            .iter()
            .position(|o| *o == operation)
            .map(|op| (step as usize * OPERATIONS.len() + op) * 2);
        Phase {
            step,
            operation,
            accepted,
        }
    }

    /// One phase of the chain, `nanos` long.
    pub fn observe_step(&self, phase: Phase, rejected: bool, nanos: u64) {
        let labels = || StepLabels {
            r#type: phase.step.label(),
            operation: phase.operation,
            rejected: rejected_label(rejected),
        };
        let seconds = clock::seconds(nanos);
        match phase.slot(rejected) {
            Some(at) => self.steps[at]
                .get_or_init(|| self.step.get_or_create_owned(&labels()))
                .observe(seconds),
            None => self.step.get_or_create(&labels()).observe(seconds),
        }
    }

    /// One plugin's decision, `nanos` long; `series` is what
    /// [`AdmissionMetrics::plugin`] gave for `name`.
    pub fn observe_controller(
        &self,
        series: Option<&PluginSeries>,
        name: &'static str,
        phase: Phase,
        rejected: bool,
        nanos: u64,
    ) {
        let labels = || ControllerLabels {
            name,
            r#type: phase.step.label(),
            operation: phase.operation,
            rejected: rejected_label(rejected),
        };
        let seconds = clock::seconds(nanos);
        match (series, phase.slot(rejected)) {
            (Some(plugin), Some(at)) => plugin.slots[at]
                .get_or_init(|| self.controller.get_or_create_owned(&labels()))
                .observe(seconds),
            _ => self.controller.get_or_create(&labels()).observe(seconds),
        }
    }
}
