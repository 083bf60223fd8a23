//! Aggregated group versions in discovery: `/apis` (legacy and aggregated
//! forms) and `/apis/{group}` list the group versions extension servers
//! serve beside cairn's own, with the resources each server last listed.

use serde_json::{Value, json};

use crate::api::group_priority::{group_priority, sort_groups};
use crate::api::proxy::aggregated::{Route, Routes};

/// A group's priority in discovery: a built-in one's, else the highest of
/// its APIServices (`routes`), else a custom resource group's.
pub fn priority_in(routes: &[Route], domain: &str) -> impl Fn(&str) -> i64 {
    move |group| {
        group_priority(group, domain, |g| {
            routes
                .iter()
                .filter(|r| r.group == g)
                .map(|r| r.group_priority_minimum)
                .max()
        })
    }
}

fn entry_name(entry: &Value) -> &str {
    entry
        .get("name")
        .or_else(|| entry.pointer("/metadata/name"))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// Orders discovery entries (`APIGroup`s or `APIGroupDiscovery` items) as
/// kube-aggregator does, aggregated groups among cairn's own.
pub fn order(entries: &mut [Value], routes: &Routes, domain: &str) {
    let routes = routes.all();
    sort_groups(entries, entry_name, priority_in(&routes, domain));
}

/// Groups of `routes` in order, each with its versions (highest version
/// priority first).
fn grouped(routes: &[Route]) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for r in routes {
        match out.iter_mut().find(|(g, _)| *g == r.group) {
            Some((_, vs)) => vs.push(r.version.clone()),
            None => out.push((r.group.clone(), vec![r.version.clone()])),
        }
    }
    out
}

fn version_entry(group: &str, version: &str) -> Value {
    json!({"groupVersion": format!("{group}/{version}"), "version": version})
}

/// Adds the aggregated groups to an `APIGroupList` (`/apis`), every group
/// in kube-aggregator's order.
pub fn merge_group_list(doc: &mut Value, routes: &Routes, domain: &str) {
    let Some(groups) = doc.get_mut("groups").and_then(Value::as_array_mut) else {
        return;
    };
    for (group, versions) in grouped(&routes.all()) {
        let existing = groups
            .iter_mut()
            .find(|g| g.get("name").and_then(Value::as_str) == Some(group.as_str()));
        match existing {
            Some(g) => {
                if let Some(list) = g.get_mut("versions").and_then(Value::as_array_mut) {
                    for v in &versions {
                        list.push(version_entry(&group, v));
                    }
                }
            }
            None => {
                let entries: Vec<Value> =
                    versions.iter().map(|v| version_entry(&group, v)).collect();
                groups.push(
                    json!({"name": group, "versions": entries, "preferredVersion": entries[0]}),
                );
            }
        }
    }
    order(groups, routes, domain);
}

/// `/apis/{group}` of a group only extension servers serve.
#[must_use]
pub fn group_document(routes: &Routes, name: &str) -> Option<Value> {
    let (group, versions) = grouped(&routes.all())
        .into_iter()
        .find(|(g, _)| g == name)?;
    let entries: Vec<Value> = versions.iter().map(|v| version_entry(&group, v)).collect();
    Some(json!({
        "kind": "APIGroup",
        "apiVersion": "v1",
        "name": group,
        "versions": entries,
        "preferredVersion": entries[0],
    }))
}

/// An `APIResourceList` entry as an aggregated-discovery resource.
fn discovery_resource(group: &str, version: &str, r: &Value, subresources: Vec<Value>) -> Value {
    let text = |f: &str| r.get(f).and_then(Value::as_str).unwrap_or_default();
    let mut out = json!({
        "resource": text("name"),
        "responseKind": {"group": r.get("group").and_then(Value::as_str).unwrap_or(group),
            "version": r.get("version").and_then(Value::as_str).unwrap_or(version),
            "kind": text("kind")},
        "scope": if r.get("namespaced").and_then(Value::as_bool).unwrap_or(false) { "Namespaced" } else { "Cluster" },
        "singularResource": text("singularName"),
        "verbs": r.get("verbs").cloned().unwrap_or_else(|| json!([])),
    });
    for list in ["shortNames", "categories"] {
        if let Some(v) = r
            .get(list)
            .filter(|v| v.as_array().is_some_and(|a| !a.is_empty()))
        {
            out[list] = v.clone();
        }
    }
    if !subresources.is_empty() {
        out["subresources"] = Value::Array(subresources);
    }
    out
}

/// The resources of an `APIResourceList`, subresources under their parents.
fn discovery_resources(group: &str, version: &str, list: &Value) -> Vec<Value> {
    let all = list
        .get("resources")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let name = |r: &Value| {
        r.get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    all.iter()
        .filter(|r| !name(r).contains('/'))
        .map(|parent| {
            let prefix = format!("{}/", name(parent));
            let subs = all
                .iter()
                .filter_map(|r| {
                    let sub = name(r).strip_prefix(&prefix)?.to_string();
                    Some(json!({
                        "subresource": sub,
                        "responseKind": {"group": group, "version": version,
                            "kind": r.get("kind").cloned().unwrap_or_default()},
                        "verbs": r.get("verbs").cloned().unwrap_or_else(|| json!([])),
                    }))
                })
                .collect();
            discovery_resource(group, version, parent, subs)
        })
        .collect()
}

/// The `APIGroupDiscovery` items of the aggregated groups; a version whose
/// server has not answered yet is `Stale`, as kube-aggregator marks it.
#[must_use]
pub fn discovery_items(routes: &Routes) -> Vec<Value> {
    grouped(&routes.all())
        .into_iter()
        .map(|(group, versions)| {
            let versions: Vec<Value> = versions
                .iter()
                .map(|v| match routes.discovered(&group, v) {
                    Some(list) => json!({"version": v, "freshness": "Current",
                        "resources": discovery_resources(&group, v, &list)}),
                    None => json!({"version": v, "freshness": "Stale", "resources": []}),
                })
                .collect();
            json!({"metadata": {"name": group, "creationTimestamp": null}, "versions": versions})
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_lists_become_discovery_resources() {
        let list = json!({"resources": [
            {"name": "widgets", "singularName": "widget", "namespaced": true, "kind": "Widget",
             "verbs": ["get", "list"], "shortNames": ["wd"]},
            {"name": "widgets/status", "namespaced": true, "kind": "Widget", "verbs": ["get"]}]});
        let out = discovery_resources("x.io", "v1", &list);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0]["scope"], "Namespaced");
        assert_eq!(out[0]["responseKind"]["group"], "x.io");
        assert_eq!(out[0]["shortNames"], json!(["wd"]));
        assert_eq!(out[0]["subresources"][0]["subresource"], "status");
    }
}
