//! Job and CronJob rules against what Kubernetes 1.32 answers.

use serde_json::{Value, json};

use super::*;
use crate::api::kinds::cause_lines;

fn jobs() -> JobStrategy {
    JobStrategy {
        status: Schema::default(),
    }
}

fn cron_jobs() -> CronJobStrategy {
    CronJobStrategy {
        status: Schema::default(),
    }
}

fn created_job(spec: Value) -> Value {
    let mut job = json!({"metadata": {"name": "pi", "uid": "u-1"}, "spec": spec});
    jobs().prepare_for_create(&mut job);
    job
}

fn pod(restart: &str) -> Value {
    json!({"spec": {"restartPolicy": restart, "containers": [{"name": "pi", "image": "perl"}]}})
}

#[test]
fn a_job_gets_a_generated_selector_and_labels() {
    let job = created_job(json!({"template": pod("Never")}));
    assert_eq!(
        job["spec"]["selector"],
        json!({"matchLabels": {"batch.kubernetes.io/controller-uid": "u-1"}})
    );
    let labels = &job["spec"]["template"]["metadata"]["labels"];
    assert_eq!(labels["controller-uid"], "u-1");
    assert_eq!(labels["batch.kubernetes.io/job-name"], "pi");
    assert_eq!(labels["job-name"], "pi");
    assert_eq!(job["metadata"]["labels"], *labels);
    assert_eq!(cause_lines(&jobs().validate(&job)), Vec::<String>::new());
}

#[test]
fn a_job_pod_may_not_restart_always() {
    let job =
        created_job(json!({"template": {"spec": {"containers": [{"name": "a", "image": "b"}]}}}));
    assert_eq!(
        cause_lines(&jobs().validate(&job)),
        [
            "spec.template.spec.restartPolicy: Unsupported value: \"Always\": supported values: \"OnFailure\", \"Never\""
        ]
    );
}

#[test]
fn a_hand_written_selector_needs_manual_selector() {
    let job = created_job(json!({"selector": {"matchLabels": {"a": "b"}},
        "template": {"metadata": {"labels": {"a": "b"}}, "spec": pod("Never")["spec"]}}));
    let lines = cause_lines(&jobs().validate(&job));
    assert_eq!(
        lines,
        Vec::<String>::new(),
        "the uid is added to the selector"
    );
    let manual = created_job(
        json!({"manualSelector": true, "selector": {"matchLabels": {"a": "b"}},
        "template": {"metadata": {"labels": {"a": "c"}}, "spec": pod("Never")["spec"]}}),
    );
    assert_eq!(
        cause_lines(&jobs().validate(&manual)),
        [
            "spec.template.metadata.labels: Invalid value: map[string]string{\"a\":\"c\"}: `selector` does not match template `labels`"
        ]
    );
}

#[test]
fn a_running_jobs_template_is_immutable() {
    let old = created_job(json!({"template": pod("Never")}));
    let mut new = old.clone();
    new["spec"]["template"]["spec"]["containers"][0]["image"] = json!("other");
    let lines = cause_lines(&jobs().validate_update(&new, &old));
    assert_eq!(lines.len(), 1);
    assert!(lines[0].starts_with("spec.template: Invalid value: "));
    assert!(lines[0].ends_with(": field is immutable"));
    let mut suspended = old.clone();
    suspended["spec"]["suspend"] = json!(true);
    let mut rescheduled = suspended.clone();
    rescheduled["spec"]["template"]["spec"]["nodeSelector"] = json!({"zone": "a"});
    assert_eq!(
        cause_lines(&jobs().validate_update(&rescheduled, &suspended)),
        Vec::<String>::new()
    );
}

fn cron_job(schedule: &str, zone: Option<&str>) -> Value {
    let mut c = json!({"metadata": {"name": "c"}, "spec": {"schedule": schedule,
        "jobTemplate": {"spec": {"template": pod("OnFailure")}}}});
    if let Some(zone) = zone {
        c["spec"]["timeZone"] = json!(zone);
    }
    cron_jobs().prepare_for_create(&mut c);
    c
}

#[test]
fn cron_schedules_and_zones_are_checked() {
    assert_eq!(
        cause_lines(&cron_jobs().validate(&cron_job("@hourly", Some("Europe/Berlin")))),
        Vec::<String>::new()
    );
    assert_eq!(
        cause_lines(&cron_jobs().validate(&cron_job("every minute", None))),
        [
            "spec.schedule: Invalid value: \"every minute\": expected exactly 5 fields, found 2: [every minute]"
        ]
    );
    assert_eq!(
        cause_lines(&cron_jobs().validate(&cron_job("* * * * *", Some("Nowhere/City")))),
        ["spec.timeZone: Invalid value: \"Nowhere/City\": unknown time zone Nowhere/City"]
    );
    assert_eq!(
        cause_lines(&cron_jobs().validate(&cron_job("TZ=UTC * * * * *", None))),
        [
            "spec.schedule: Invalid value: \"TZ=UTC * * * * *\": cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
        ]
    );
}
