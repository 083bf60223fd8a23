//! batch/v1 Job and CronJob rules: defaults, the selector and labels a Job
//! gets when `manualSelector` is unset, restart policies, immutable fields,
//! and CronJob schedules and time zones.

use serde_json::{Map, Value, json};

use super::checks::{object_field, str_at};
use super::cron_schedule::{schedule_error, time_zone_error};
use super::label_selector::go_label_selector;
use super::workload_defaults::{self, Workload};
use super::workload_strategy::{immutable_selector, selector_causes};
use crate::api::error::Cause;
use crate::api::kind::Strategy;
use crate::api::schema::{Schema, go_quote};

const CONTROLLER_UID: &str = "batch.kubernetes.io/controller-uid";
const JOB_NAME: &str = "batch.kubernetes.io/job-name";
const LEGACY_CONTROLLER_UID: &str = "controller-uid";
const LEGACY_JOB_NAME: &str = "job-name";

fn manual_selector(job: &Value) -> bool {
    job.pointer("/spec/manualSelector").and_then(Value::as_bool) == Some(true)
}

fn string_map<'a>(obj: &'a mut Map<String, Value>, field: &str) -> &'a mut Map<String, Value> {
    if !obj.get(field).is_some_and(Value::is_object) {
        obj.insert(field.to_owned(), json!({}));
    }
    obj[field].as_object_mut().expect("just made an object")
}

/// Labels the template with the Job's name and uid and selects the uid,
/// leaving labels a client set alone (validation judges them).
fn generate_selector(job: &mut Value) {
    let uid = str_at(job, "/metadata/uid").to_owned();
    let name = str_at(job, "/metadata/name").to_owned();
    let spec = object_field(job, "spec");
    let template = string_map(spec, "template");
    let labels = string_map(string_map(template, "metadata"), "labels");
    for (key, value) in [
        (LEGACY_JOB_NAME, &name),
        (JOB_NAME, &name),
        (LEGACY_CONTROLLER_UID, &uid),
        (CONTROLLER_UID, &uid),
    ] {
        labels.entry(key).or_insert_with(|| json!(value));
    }
    let selector = string_map(spec, "selector");
    string_map(selector, "matchLabels")
        .entry(CONTROLLER_UID)
        .or_insert_with(|| json!(uid));
}

/// A Job without labels of its own takes its template's (Kubernetes'
/// defaulting, which runs again when the stored Job is read).
fn default_labels(job: &mut Value) {
    let template_labels = job.pointer("/spec/template/metadata/labels").cloned();
    let meta = object_field(job, "metadata");
    let empty = meta
        .get("labels")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    if let (true, Some(labels)) = (empty, template_labels) {
        meta.insert("labels".into(), labels);
    }
}

fn restart_policy(obj: &Value, pod_spec: &str, field: &str) -> Option<Cause> {
    let policy = str_at(obj, &format!("{pod_spec}/restartPolicy"));
    (policy != "OnFailure" && policy != "Never").then(|| {
        Cause::new(
            "FieldValueNotSupported",
            field,
            format!(
                "Unsupported value: {}: supported values: \"OnFailure\", \"Never\"",
                go_quote(policy)
            ),
        )
    })
}

fn generated_selector_causes(job: &Value) -> Vec<Cause> {
    let uid = str_at(job, "/metadata/uid");
    let selector = job.pointer("/spec/selector").unwrap_or(&Value::Null);
    let selected = selector
        .pointer("/matchLabels")
        .and_then(|m| m.get(CONTROLLER_UID));
    if selected.and_then(Value::as_str) == Some(uid) {
        return Vec::new();
    }
    vec![Cause::new(
        "FieldValueInvalid",
        "spec.selector",
        format!(
            "Invalid value: {}: `selector` not auto-generated",
            go_label_selector(selector)
        ),
    )]
}

/// What a suspended Job that never started may still change in its
/// template (scheduling directives), as Kubernetes allows.
fn without_mutable_scheduling(job: &Value) -> Value {
    let mut template = job.pointer("/spec/template").cloned().unwrap_or_default();
    if let Some(meta) = template.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("labels");
        meta.remove("annotations");
    }
    if let Some(spec) = template.get_mut("spec").and_then(Value::as_object_mut) {
        for field in ["nodeSelector", "tolerations", "affinity", "schedulingGates"] {
            spec.remove(field);
        }
    }
    template
}

fn immutable(field: &str, value: &Value) -> Cause {
    let shown = match value {
        Value::Number(n) => n.to_string(),
        Value::Null => "null".into(),
        _ => "core.PodTemplateSpec{...}".into(),
    };
    Cause::new(
        "FieldValueInvalid",
        field,
        format!("Invalid value: {shown}: field is immutable"),
    )
}

/// batch/v1 Job; `status` is the kind's status schema (for a new Job's).
pub struct JobStrategy {
    pub status: Schema,
}

impl Strategy for JobStrategy {
    fn prepare_for_create(&self, job: &mut Value) {
        workload_defaults::reset_status(job, &self.status);
        workload_defaults::apply(Workload::Job, job);
        if !manual_selector(job) {
            generate_selector(job);
        }
        default_labels(job);
    }

    fn prepare_for_update(&self, new: &mut Value, _old: &Value) {
        workload_defaults::apply(Workload::Job, new);
        default_labels(new);
    }

    fn validate(&self, job: &Value) -> Vec<Cause> {
        let mut out = selector_causes(job, Workload::Job);
        if out.is_empty() && !manual_selector(job) {
            out.extend(generated_selector_causes(job));
        }
        out.extend(restart_policy(
            job,
            "/spec/template/spec",
            "spec.template.spec.restartPolicy",
        ));
        out
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<Cause> {
        let mut out = self.validate(new);
        out.extend(immutable_selector(new, old));
        let completions = |j: &Value| j.pointer("/spec/completions").cloned();
        let indexed = str_at(new, "/spec/completionMode") == "Indexed";
        if completions(new) != completions(old) && !indexed {
            out.push(immutable(
                "spec.completions",
                &completions(new).unwrap_or_default(),
            ));
        }
        let never_started = old.pointer("/status/startTime").is_none_or(Value::is_null);
        let suspended = old.pointer("/spec/suspend").and_then(Value::as_bool) == Some(true);
        let template_changed = if suspended && never_started {
            without_mutable_scheduling(new) != without_mutable_scheduling(old)
        } else {
            new.pointer("/spec/template") != old.pointer("/spec/template")
        };
        if template_changed {
            out.push(immutable("spec.template", &json!({})));
        }
        out
    }
}

/// batch/v1 CronJob; `status` is the kind's status schema.
pub struct CronJobStrategy {
    pub status: Schema,
}

impl CronJobStrategy {
    fn check(cron_job: &Value, tz_allowed: bool) -> Vec<Cause> {
        let mut out = Vec::new();
        let schedule = str_at(cron_job, "/spec/schedule");
        let invalid = |field: &str, value: &str, detail: &str| {
            Cause::new(
                "FieldValueInvalid",
                field,
                format!("Invalid value: {}: {detail}", go_quote(value)),
            )
        };
        if schedule.is_empty() {
            out.push(Cause::new(
                "FieldValueRequired",
                "spec.schedule",
                "Required value",
            ));
        } else {
            if let Some(problem) = schedule_error(schedule) {
                out.push(invalid("spec.schedule", schedule, &problem));
            }
            let zone = cron_job.pointer("/spec/timeZone").and_then(Value::as_str);
            if schedule.contains("TZ") && !tz_allowed {
                out.push(invalid(
                    "spec.schedule",
                    schedule,
                    "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
                ));
            } else if schedule.contains("TZ") && zone.is_some() {
                out.push(invalid(
                    "spec.schedule",
                    schedule,
                    "cannot use both timeZone field and TZ or CRON_TZ in schedule",
                ));
            }
        }
        if let Some(zone) = cron_job.pointer("/spec/timeZone").and_then(Value::as_str)
            && let Some(problem) = time_zone_error(zone)
        {
            out.push(invalid("spec.timeZone", zone, &problem));
        }
        let policy = str_at(cron_job, "/spec/concurrencyPolicy");
        if !["Allow", "Forbid", "Replace"].contains(&policy) {
            out.push(Cause::new(
                "FieldValueNotSupported",
                "spec.concurrencyPolicy",
                format!(
                    "Unsupported value: {}: supported values: \"Allow\", \"Forbid\", \"Replace\"",
                    go_quote(policy)
                ),
            ));
        }
        out.extend(restart_policy(
            cron_job,
            "/spec/jobTemplate/spec/template/spec",
            "spec.jobTemplate.spec.template.spec.restartPolicy",
        ));
        out
    }
}

impl Strategy for CronJobStrategy {
    fn prepare_for_create(&self, obj: &mut Value) {
        workload_defaults::reset_status(obj, &self.status);
        workload_defaults::apply(Workload::CronJob, obj);
    }

    fn prepare_for_update(&self, new: &mut Value, _old: &Value) {
        workload_defaults::apply(Workload::CronJob, new);
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        Self::check(obj, false)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<Cause> {
        // A schedule stored with TZ= before the field existed stays editable.
        Self::check(new, str_at(old, "/spec/schedule").contains("TZ"))
    }
}

#[cfg(test)]
#[path = "job_strategy_tests.rs"]
mod tests;
