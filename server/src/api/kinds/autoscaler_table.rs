//! Table columns of HorizontalPodAutoscaler, as kubectl prints them:
//! NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE.

use serde_json::{Value, json};

use super::autoscaling_v1::AutoscalingV1Conversion;
use super::checks::{items_at, str_at};
use super::volume_table::quantity_text;
use super::workload_cells::count;
use crate::api::kind::{Column, Conversion};

fn computed(name: &str, cell: fn(&Value) -> Value, description: &str) -> Column {
    Column::computed(name, "string", 0, cell, description)
}

fn reference(obj: &Value) -> Value {
    Value::from(format!(
        "{}/{}",
        str_at(obj, "/spec/scaleTargetRef/kind"),
        str_at(obj, "/spec/scaleTargetRef/name")
    ))
}

fn quantity(v: &Value) -> String {
    quantity_text(v, "").as_str().unwrap_or_default().to_owned()
}

/// One metric as kube's printer shows it: `current/target`, resources
/// named (`cpu: 5%/80%`), average targets of objects and externals marked
/// `(avg)`, a missing utilization target `<auto>`.
fn metric(spec: &Value, status: Option<&Value>) -> String {
    let kind = str_at(spec, "/type");
    let field = match kind {
        "Resource" => "resource",
        "ContainerResource" => "containerResource",
        "Pods" => "pods",
        "Object" => "object",
        "External" => "external",
        _ => return "<unknown type>".to_owned(),
    };
    let target = spec
        .get(field)
        .and_then(|s| s.get("target"))
        .unwrap_or(&Value::Null);
    let current = status
        .and_then(|s| s.get(field))
        .and_then(|s| s.get("current"));
    let now = |key: &str| {
        current
            .and_then(|c| c.get(key))
            .map_or("<unknown>".to_owned(), quantity)
    };
    let goal = |key: &str| target.get(key).map_or(String::new(), quantity);
    let average = target.get("averageValue").is_some();
    match kind {
        "Pods" => format!("{}/{}", now("averageValue"), goal("averageValue")),
        "Object" | "External" if average => {
            format!("{}/{} (avg)", now("averageValue"), goal("averageValue"))
        }
        "Object" | "External" => format!("{}/{}", now("value"), goal("value")),
        _ => {
            let name = str_at(spec, &format!("/{field}/name"));
            if average {
                return format!("{name}: {}/{}", now("averageValue"), goal("averageValue"));
            }
            let percent = |v: Option<&Value>| v.and_then(Value::as_i64).map(|p| format!("{p}%"));
            let now = percent(current.and_then(|c| c.get("averageUtilization")))
                .unwrap_or_else(|| "<unknown>".to_owned());
            let goal =
                percent(target.get("averageUtilization")).unwrap_or_else(|| "<auto>".to_owned());
            format!("{name}: {now}/{goal}")
        }
    }
}

/// The Targets cell of an autoscaling/v2 object.
#[must_use]
pub fn targets(obj: &Value) -> Value {
    let specs = items_at(obj, "/spec/metrics");
    let statuses = items_at(obj, "/status/currentMetrics");
    if specs.is_empty() {
        return Value::from("<none>");
    }
    let list: Vec<String> = specs
        .iter()
        .take(2)
        .enumerate()
        .map(|(i, s)| metric(s, statuses.get(i)))
        .collect();
    let mut text = list.join(", ");
    if specs.len() > 2 {
        text.push_str(&format!(" + {} more...", specs.len() - 2));
    }
    Value::from(text)
}

fn min_pods(obj: &Value) -> Value {
    obj.pointer("/spec/minReplicas")
        .and_then(Value::as_i64)
        .map_or(Value::from("<unset>"), |n| Value::from(n.to_string()))
}

fn max_pods(obj: &Value) -> Value {
    Value::from(count(obj, "/spec/maxReplicas"))
}

fn replicas(obj: &Value) -> Value {
    Value::from(count(obj, "/status/currentReplicas"))
}

#[must_use]
pub fn autoscaler_columns() -> Vec<Column> {
    vec![
        Column::name(),
        computed(
            "Reference",
            reference,
            "reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and will set the desired number of pods by using its Scale subresource.",
        ),
        computed(
            "Targets",
            targets,
            "metrics contains the specifications for which to use to calculate the desired replica count.",
        ),
        computed(
            "MinPods",
            min_pods,
            "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.",
        ),
        Column::computed(
            "MaxPods",
            "string",
            0,
            max_pods,
            "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.",
        ),
        Column::computed(
            "Replicas",
            "string",
            0,
            replicas,
            "currentReplicas is current number of replicas of pods managed by this autoscaler.",
        ),
        Column::age(),
    ]
}

/// The Targets cell of a v1 object: its v2 form's.
fn v1_targets(obj: &Value) -> Value {
    targets(&AutoscalingV1Conversion.served_to_storage(obj.clone()))
}

/// kubectl's HPA columns over v1 objects.
#[must_use]
pub fn v1_columns() -> Vec<Column> {
    autoscaler_columns()
        .into_iter()
        .map(|c| {
            if c.name == "Targets" {
                Column {
                    cell: Some(v1_targets),
                    ..c
                }
            } else {
                c
            }
        })
        .collect()
}

/// `minReplicas` 1, as autoscaling/v1 defaults it.
pub fn v1_defaults(obj: &mut Value) {
    if let Some(spec) = obj.get_mut("spec").and_then(Value::as_object_mut) {
        spec.entry("minReplicas").or_insert(json!(1));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn autoscaler_targets_read_as_kubectl_prints_them() {
        let hpa = json!({"spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5, "metrics": [
            {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]}});
        assert_eq!(targets(&hpa), "cpu: <unknown>/80%");
        assert_eq!(reference(&hpa), "Deployment/web");
        assert_eq!(min_pods(&hpa), "<unset>");
        let mut measured = hpa.clone();
        measured["status"] = json!({"currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 12}}}]});
        assert_eq!(targets(&measured), "cpu: 12%/80%");
        let kinds = json!({"spec": {"metrics": [
            {"type": "External", "external": {"metric": {"name": "queue"}, "target": {"type": "AverageValue", "averageValue": "30"}}},
            {"type": "Resource", "resource": {"name": "memory", "target": {"type": "Utilization"}}}]}});
        assert_eq!(
            targets(&kinds),
            "<unknown>/30 (avg), memory: <unknown>/<auto>"
        );
    }
}
