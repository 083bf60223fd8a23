//! Table columns of batch/v1 Job and CronJob, as kubectl prints them.

use std::time::SystemTime;

use serde_json::Value;

use super::checks::{items_at, str_at};
use super::workload_cells::{containers, count, format_selector, images};
use crate::api::kind::Column;
use crate::api::table::human_duration;
use crate::util::time::parse_rfc3339;

fn has_condition(job: &Value, kind: &str) -> bool {
    items_at(job, "/status/conditions").iter().any(|c| {
        c.get("type").and_then(Value::as_str) == Some(kind)
            && c.get("status").and_then(Value::as_str) == Some("True")
    })
}

/// Complete, Failed, Terminating, Suspended, ... or Running.
fn job_status(job: &Value) -> Value {
    let status = if has_condition(job, "Complete") {
        "Complete"
    } else if has_condition(job, "Failed") {
        "Failed"
    } else if job.pointer("/metadata/deletionTimestamp").is_some() {
        "Terminating"
    } else if has_condition(job, "Suspended") {
        "Suspended"
    } else if has_condition(job, "FailureTarget") {
        "FailureTarget"
    } else {
        "Running"
    };
    Value::from(status)
}

/// `succeeded/completions`, or `succeeded/1 of parallelism` for work queues.
fn completions(job: &Value) -> Value {
    let succeeded = count(job, "/status/succeeded");
    let text = match job.pointer("/spec/completions").and_then(Value::as_i64) {
        Some(total) => format!("{succeeded}/{total}"),
        None => match count(job, "/spec/parallelism") {
            p if p > 1 => format!("{succeeded}/1 of {p}"),
            _ => format!("{succeeded}/1"),
        },
    };
    Value::from(text)
}

/// From start to completion, or to now while running; empty before start.
fn duration(job: &Value) -> Value {
    let Some(start) = parse_rfc3339(str_at(job, "/status/startTime")) else {
        return Value::from("");
    };
    let end = parse_rfc3339(str_at(job, "/status/completionTime")).unwrap_or_else(SystemTime::now);
    let seconds = end.duration_since(start).map_or(0, |d| d.as_secs());
    Value::from(human_duration::human(
        i64::try_from(seconds).unwrap_or(i64::MAX),
    ))
}

fn job_containers(job: &Value) -> Value {
    containers(job, "/spec/template")
}

fn job_images(job: &Value) -> Value {
    images(job, "/spec/template")
}

fn job_selector(job: &Value) -> Value {
    format_selector(job.pointer("/spec/selector"))
}

/// `kubectl get jobs`.
#[must_use]
pub fn job_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::computed("Status", "string", 0, job_status, "Status of the job."),
        Column::computed(
            "Completions",
            "string",
            0,
            completions,
            "The desired number of successfully finished pods the job should be run with.",
        ),
        Column::computed(
            "Duration",
            "string",
            0,
            duration,
            "Time required to complete the job.",
        ),
        Column::age(),
        Column::computed(
            "Containers",
            "string",
            1,
            job_containers,
            "Names of each container in the template.",
        ),
        Column::computed(
            "Images",
            "string",
            1,
            job_images,
            "Images referenced by each container in the template.",
        ),
        Column::computed(
            "Selector",
            "string",
            1,
            job_selector,
            "A label query over pods that should match the pod count.",
        ),
    ]
}

fn time_zone(cron_job: &Value) -> Value {
    Value::from(match str_at(cron_job, "/spec/timeZone") {
        "" => "<none>",
        zone => zone,
    })
}

fn suspend(cron_job: &Value) -> Value {
    Value::from(
        match cron_job.pointer("/spec/suspend").and_then(Value::as_bool) {
            Some(true) => "True",
            Some(false) => "False",
            None => "<unset>",
        },
    )
}

fn active(cron_job: &Value) -> Value {
    Value::from(items_at(cron_job, "/status/active").len())
}

fn last_schedule(cron_job: &Value) -> Value {
    match cron_job
        .pointer("/status/lastScheduleTime")
        .and_then(Value::as_str)
    {
        Some(at) => Value::from(human_duration::since(Some(at), SystemTime::now())),
        None => Value::from("<none>"),
    }
}

const JOB_TEMPLATE: &str = "/spec/jobTemplate/spec/template";

fn cron_containers(cron_job: &Value) -> Value {
    containers(cron_job, JOB_TEMPLATE)
}

fn cron_images(cron_job: &Value) -> Value {
    images(cron_job, JOB_TEMPLATE)
}

fn cron_selector(cron_job: &Value) -> Value {
    format_selector(cron_job.pointer("/spec/jobTemplate/spec/selector"))
}

/// `kubectl get cronjobs`.
#[must_use]
pub fn cron_job_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::new(
            "Schedule",
            "string",
            0,
            ".spec.schedule",
            "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.",
        ),
        Column::computed(
            "Timezone",
            "string",
            0,
            time_zone,
            "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.",
        ),
        Column::computed(
            "Suspend",
            "boolean",
            0,
            suspend,
            "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.",
        ),
        Column::computed(
            "Active",
            "integer",
            0,
            active,
            "A list of pointers to currently running jobs.",
        ),
        Column::computed(
            "Last Schedule",
            "string",
            0,
            last_schedule,
            "Information when was the last time the job was successfully scheduled.",
        ),
        Column::age(),
        Column::computed(
            "Containers",
            "string",
            1,
            cron_containers,
            "Names of each container in the template.",
        ),
        Column::computed(
            "Images",
            "string",
            1,
            cron_images,
            "Images referenced by each container in the template.",
        ),
        Column::computed(
            "Selector",
            "string",
            1,
            cron_selector,
            "A label query over pods that should match the pod count.",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn job_cells_read_as_kubectl_shows_them() {
        let done = json!({"spec": {"completions": 3}, "status": {"succeeded": 3,
            "startTime": "2024-05-01T10:00:00Z", "completionTime": "2024-05-01T10:00:42Z",
            "conditions": [{"type": "Complete", "status": "True"}]}});
        assert_eq!(job_status(&done), json!("Complete"));
        assert_eq!(completions(&done), json!("3/3"));
        assert_eq!(duration(&done), json!("42s"));
        let queue = json!({"spec": {"parallelism": 4}});
        assert_eq!(completions(&queue), json!("0/1 of 4"));
        assert_eq!(job_status(&queue), json!("Running"));
        assert_eq!(duration(&queue), json!(""));
    }

    #[test]
    fn cron_job_cells() {
        let c = json!({"spec": {"suspend": false}});
        assert_eq!(suspend(&c), json!("False"));
        assert_eq!(time_zone(&c), json!("<none>"));
        assert_eq!(last_schedule(&c), json!("<none>"));
        assert_eq!(active(&c), json!(0));
    }
}
