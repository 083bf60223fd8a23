//! `autoscaling/v1` HorizontalPodAutoscaler: the stored autoscaling/v2
//! object served with Kubernetes' conversion. v1 has only a CPU target
//! (`targetCPUUtilizationPercentage`); the other metrics, the current
//! metrics and the conditions ride in `autoscaling.alpha.kubernetes.io/*`
//! annotations in v1's older metric shape, and come back from them.

use serde_json::{Map, Value, json};

use crate::api::kind::Conversion;

const METRICS: &str = "autoscaling.alpha.kubernetes.io/metrics";
const CURRENT_METRICS: &str = "autoscaling.alpha.kubernetes.io/current-metrics";
const CONDITIONS: &str = "autoscaling.alpha.kubernetes.io/conditions";
const BEHAVIOR: &str = "autoscaling.alpha.kubernetes.io/behavior";

/// v1 ↔ v2 HorizontalPodAutoscaler.
pub struct AutoscalingV1Conversion;

fn is_cpu_utilization(metric: &Value) -> bool {
    metric["type"] == "Resource"
        && metric["resource"]["name"] == "cpu"
        && metric["resource"]["target"]["type"] == "Utilization"
}

fn is_cpu_current(metric: &Value) -> bool {
    metric["type"] == "Resource" && metric["resource"]["name"] == "cpu"
}

/// Sets `key` in `obj` when `value` is not null.
fn put(obj: &mut Map<String, Value>, key: &str, value: &Value) {
    if !value.is_null() {
        obj.insert(key.to_owned(), value.clone());
    }
}

/// A v2 metric (spec or status side) in v1's older shape.
fn to_v1_metric(m: &Value, side: &str) -> Value {
    let kind = m["type"].as_str().unwrap_or_default();
    let (field, body) = match kind {
        "Resource" => ("resource", &m["resource"]),
        "ContainerResource" => ("containerResource", &m["containerResource"]),
        "Pods" => ("pods", &m["pods"]),
        "Object" => ("object", &m["object"]),
        _ => ("external", &m["external"]),
    };
    let amount = &body[side];
    let prefix = if side == "target" {
        "target"
    } else {
        "current"
    };
    let mut out = Map::new();
    match kind {
        "Resource" | "ContainerResource" => {
            put(&mut out, "name", &body["name"]);
            put(
                &mut out,
                &format!("{prefix}AverageUtilization"),
                &amount["averageUtilization"],
            );
            put(
                &mut out,
                &format!("{prefix}AverageValue"),
                &amount["averageValue"],
            );
            put(&mut out, "container", &body["container"]);
        }
        "Pods" => {
            put(&mut out, "metricName", &body["metric"]["name"]);
            put(
                &mut out,
                &format!("{prefix}AverageValue"),
                &amount["averageValue"],
            );
            put(&mut out, "selector", &body["metric"]["selector"]);
        }
        "Object" => {
            put(&mut out, "target", &body["describedObject"]);
            put(&mut out, "metricName", &body["metric"]["name"]);
            put(&mut out, &format!("{prefix}Value"), &amount["value"]);
            put(&mut out, "selector", &body["metric"]["selector"]);
            put(&mut out, "averageValue", &amount["averageValue"]);
        }
        _ => {
            put(&mut out, "metricName", &body["metric"]["name"]);
            put(&mut out, "metricSelector", &body["metric"]["selector"]);
            put(&mut out, &format!("{prefix}Value"), &amount["value"]);
            put(
                &mut out,
                &format!("{prefix}AverageValue"),
                &amount["averageValue"],
            );
        }
    }
    json!({"type": kind, field: out})
}

/// A v1 annotation metric back in v2's shape.
fn to_v2_metric(m: &Value, side: &str) -> Value {
    let kind = m["type"].as_str().unwrap_or_default();
    let prefix = if side == "target" {
        "target"
    } else {
        "current"
    };
    let field = match kind {
        "Resource" => "resource",
        "ContainerResource" => "containerResource",
        "Pods" => "pods",
        "Object" => "object",
        _ => "external",
    };
    let body = &m[field];
    let mut amount = Map::new();
    let mut out = Map::new();
    let metric = |name: &Value, selector: &Value| {
        let mut id = Map::new();
        put(&mut id, "name", name);
        put(&mut id, "selector", selector);
        Value::Object(id)
    };
    match kind {
        "Resource" | "ContainerResource" => {
            put(&mut out, "name", &body["name"]);
            put(&mut out, "container", &body["container"]);
            let utilization = &body[&format!("{prefix}AverageUtilization")];
            if side == "target" {
                let ty = if utilization.is_null() {
                    "AverageValue"
                } else {
                    "Utilization"
                };
                amount.insert("type".into(), json!(ty));
            }
            put(&mut amount, "averageUtilization", utilization);
            put(
                &mut amount,
                "averageValue",
                &body[&format!("{prefix}AverageValue")],
            );
        }
        "Pods" => {
            out.insert(
                "metric".into(),
                metric(&body["metricName"], &body["selector"]),
            );
            if side == "target" {
                amount.insert("type".into(), json!("AverageValue"));
            }
            put(
                &mut amount,
                "averageValue",
                &body[&format!("{prefix}AverageValue")],
            );
        }
        "Object" => {
            put(&mut out, "describedObject", &body["target"]);
            out.insert(
                "metric".into(),
                metric(&body["metricName"], &body["selector"]),
            );
            if side == "target" {
                let ty = if body["averageValue"].is_null() {
                    "Value"
                } else {
                    "AverageValue"
                };
                amount.insert("type".into(), json!(ty));
            }
            put(&mut amount, "value", &body[&format!("{prefix}Value")]);
            put(&mut amount, "averageValue", &body["averageValue"]);
        }
        _ => {
            out.insert(
                "metric".into(),
                metric(&body["metricName"], &body["metricSelector"]),
            );
            let average = &body[&format!("{prefix}AverageValue")];
            if side == "target" {
                let ty = if average.is_null() {
                    "Value"
                } else {
                    "AverageValue"
                };
                amount.insert("type".into(), json!(ty));
            }
            put(&mut amount, "value", &body[&format!("{prefix}Value")]);
            put(&mut amount, "averageValue", average);
        }
    }
    out.insert(side.to_owned(), Value::Object(amount));
    json!({"type": kind, field: out})
}

fn annotations(obj: &mut Value) -> &mut Map<String, Value> {
    if !obj["metadata"]["annotations"].is_object() {
        obj["metadata"]["annotations"] = json!({});
    }
    obj["metadata"]["annotations"]
        .as_object_mut()
        .expect("just made")
}

/// Takes annotation `key` off `obj`, parsed as a JSON list.
fn take_list(obj: &mut Value, key: &str) -> Vec<Value> {
    take_text(obj, key)
        .as_ref()
        .and_then(Value::as_str)
        .and_then(|t| serde_json::from_str::<Value>(t).ok())
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
}

/// Takes annotation `key` off `obj`; an emptied annotation map goes too.
fn take_text(obj: &mut Value, key: &str) -> Option<Value> {
    let map = obj.pointer_mut("/metadata/annotations")?.as_object_mut()?;
    let text = map.remove(key);
    if map.is_empty()
        && let Some(meta) = obj.pointer_mut("/metadata").and_then(Value::as_object_mut)
    {
        meta.remove("annotations");
    }
    text
}

impl Conversion for AutoscalingV1Conversion {
    fn served_to_storage(&self, served: Value) -> Value {
        let mut v2 = served;
        let others = take_list(&mut v2, METRICS);
        let current_others = take_list(&mut v2, CURRENT_METRICS);
        let conditions = take_list(&mut v2, CONDITIONS);
        let behavior = take_text(&mut v2, BEHAVIOR);
        let mut metrics: Vec<Value> = others.iter().map(|m| to_v2_metric(m, "target")).collect();
        if let Some(spec) = v2.get_mut("spec").and_then(Value::as_object_mut) {
            if let Some(cpu) = spec.remove("targetCPUUtilizationPercentage") {
                metrics.push(json!({"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": cpu}}}));
            }
            if !metrics.is_empty() {
                spec.insert("metrics".into(), Value::Array(metrics));
            }
            if let Some(b) = behavior
                .as_ref()
                .and_then(Value::as_str)
                .and_then(|t| serde_json::from_str(t).ok())
            {
                spec.insert("behavior".into(), b);
            }
        }
        if let Some(status) = v2.get_mut("status").and_then(Value::as_object_mut) {
            let mut current: Vec<Value> = current_others
                .iter()
                .map(|m| to_v2_metric(m, "current"))
                .collect();
            if let Some(cpu) = status.remove("currentCPUUtilizationPercentage") {
                current.push(json!({"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": cpu}}}));
            }
            if !current.is_empty() {
                status.insert("currentMetrics".into(), Value::Array(current));
            }
            if !conditions.is_empty() {
                status.insert("conditions".into(), Value::Array(conditions));
            }
        }
        v2
    }

    fn storage_to_served(&self, stored: Value) -> Value {
        let mut v1 = stored;
        let mut others = Vec::new();
        if let Some(spec) = v1.get_mut("spec").and_then(Value::as_object_mut) {
            let metrics = spec
                .remove("metrics")
                .and_then(|m| m.as_array().cloned())
                .unwrap_or_default();
            for m in &metrics {
                if is_cpu_utilization(m) && !spec.contains_key("targetCPUUtilizationPercentage") {
                    put(
                        spec,
                        "targetCPUUtilizationPercentage",
                        &m["resource"]["target"]["averageUtilization"],
                    );
                } else {
                    others.push(to_v1_metric(m, "target"));
                }
            }
            if let Some(b) = spec.remove("behavior") {
                let text = b.to_string();
                annotations(&mut v1).insert(BEHAVIOR.into(), json!(text));
            }
        }
        if !others.is_empty() {
            let text = Value::Array(others).to_string();
            annotations(&mut v1).insert(METRICS.into(), json!(text));
        }
        let mut current_others = Vec::new();
        let mut conditions = Value::Null;
        if let Some(status) = v1.get_mut("status").and_then(Value::as_object_mut) {
            let current = status
                .remove("currentMetrics")
                .and_then(|m| m.as_array().cloned())
                .unwrap_or_default();
            for m in &current {
                if is_cpu_current(m) && !m["resource"]["current"]["averageUtilization"].is_null() {
                    put(
                        status,
                        "currentCPUUtilizationPercentage",
                        &m["resource"]["current"]["averageUtilization"],
                    );
                } else {
                    current_others.push(to_v1_metric(m, "current"));
                }
            }
            conditions = status.remove("conditions").unwrap_or(Value::Null);
        }
        if !current_others.is_empty() {
            let text = Value::Array(current_others).to_string();
            annotations(&mut v1).insert(CURRENT_METRICS.into(), json!(text));
        }
        if conditions.as_array().is_some_and(|c| !c.is_empty()) {
            let text = conditions.to_string();
            annotations(&mut v1).insert(CONDITIONS.into(), json!(text));
        }
        v1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v2() -> Value {
        json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
            "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "minReplicas": 1, "maxReplicas": 5,
                "metrics": [
                    {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "10"}}},
                    {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}]},
            "status": {"currentReplicas": 2, "desiredReplicas": 2,
                "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 30}}}]}})
    }

    #[test]
    fn v1_shows_the_cpu_target_and_keeps_other_metrics_in_annotations() {
        let v1 = AutoscalingV1Conversion.storage_to_served(v2());
        assert_eq!(v1["spec"]["targetCPUUtilizationPercentage"], 60);
        assert!(v1["spec"].get("metrics").is_none());
        assert_eq!(v1["status"]["currentCPUUtilizationPercentage"], 30);
        let others: Value = serde_json::from_str(
            v1["metadata"]["annotations"][METRICS]
                .as_str()
                .expect("annotated"),
        )
        .expect("JSON");
        assert_eq!(
            others,
            json!([{"type": "Pods", "pods": {"metricName": "qps", "targetAverageValue": "10"}}])
        );
    }

    #[test]
    fn a_round_trip_through_v1_keeps_every_metric() {
        let back = AutoscalingV1Conversion
            .served_to_storage(AutoscalingV1Conversion.storage_to_served(v2()));
        assert_eq!(back["spec"]["metrics"], v2()["spec"]["metrics"]);
        assert_eq!(
            back["status"]["currentMetrics"],
            v2()["status"]["currentMetrics"]
        );
        assert!(back["metadata"].get("annotations").is_none(), "{back}");
    }

    #[test]
    fn a_v1_target_becomes_a_cpu_metric() {
        let v1 = json!({"metadata": {"name": "web"}, "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"},
            "maxReplicas": 3, "targetCPUUtilizationPercentage": 50}});
        let stored = AutoscalingV1Conversion.served_to_storage(v1);
        assert_eq!(
            stored["spec"]["metrics"],
            json!([{"type": "Resource", "resource": {"name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": 50}}}])
        );
    }
}
