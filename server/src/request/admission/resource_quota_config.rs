//! The ResourceQuota plugin's configuration (`ResourceQuotaConfiguration`,
//! `apiserver.config.{domain}` v1, v1beta1 or v1alpha1): `limitedResources`,
//! each a resource (`apiGroup`, `resource`) whose usage names containing
//! one of `matchContains`, or whose objects in one of `matchScopes`, need
//! a covering quota. Checked at start; errors name the field.

use serde_json::Value;

/// One `limitedResources` entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limited {
    pub group: String,
    pub resource: String,
    pub match_contains: Vec<String>,
    /// `ScopedResourceSelectorRequirement`s, as written.
    pub match_scopes: Vec<Value>,
}

const SCOPES: [&str; 6] = [
    "Terminating",
    "NotTerminating",
    "BestEffort",
    "NotBestEffort",
    "PriorityClass",
    "CrossNamespacePodAffinity",
];
const OPERATORS: [&str; 4] = ["In", "NotIn", "Exists", "DoesNotExist"];

/// The entries of a checked ResourceQuotaConfiguration.
pub fn limited_resources(doc: &Value) -> Result<Vec<Limited>, String> {
    let items = match doc.get("limitedResources") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => return Err("limitedResources: must be a list".into()),
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| entry(item).map_err(|e| format!("limitedResources[{i}].{e}")))
        .collect()
}

fn strings(item: &Value, field: &str) -> Result<Vec<String>, String> {
    match item.get(field) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(values)) => values
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{field}: must be a list of strings"))
            })
            .collect(),
        Some(_) => Err(format!("{field}: must be a list of strings")),
    }
}

fn entry(item: &Value) -> Result<Limited, String> {
    let text = |field: &str| match item.get(field) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(format!("{field}: must be a string")),
    };
    let resource = text("resource")?;
    if resource.is_empty() {
        return Err("resource: Required value".into());
    }
    let mut match_scopes = Vec::new();
    for (j, scope) in item
        .get("matchScopes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let name = scope.get("scopeName").and_then(Value::as_str).unwrap_or("");
        if !SCOPES.contains(&name) {
            return Err(format!(
                "matchScopes[{j}].scopeName: Unsupported value: {name:?}: supported values: \"{}\"",
                SCOPES.join("\", \"")
            ));
        }
        let operator = scope.get("operator").and_then(Value::as_str).unwrap_or("");
        if !OPERATORS.contains(&operator) {
            return Err(format!(
                "matchScopes[{j}].operator: Unsupported value: {operator:?}: supported values: \"{}\"",
                OPERATORS.join("\", \"")
            ));
        }
        match_scopes.push(scope.clone());
    }
    Ok(Limited {
        group: text("apiGroup")?,
        resource,
        match_contains: strings(item, "matchContains")?,
        match_scopes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn entries_are_read_and_bad_ones_named() {
        let doc = json!({"limitedResources": [
            {"resource": "pods", "matchContains": ["requests.cpu"]},
            {"resource": "pods", "matchScopes": [
                {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}
            ]}
        ]});
        let limited = limited_resources(&doc).unwrap();
        assert_eq!(limited[0].match_contains, vec!["requests.cpu".to_string()]);
        assert_eq!(limited[1].match_scopes.len(), 1);
        let bad = json!({"limitedResources": [{"resource": "pods", "matchScopes": [
            {"scopeName": "Forever", "operator": "In"}
        ]}]});
        assert!(limited_resources(&bad).unwrap_err().starts_with(
            "limitedResources[0].matchScopes[0].scopeName: Unsupported value: \"Forever\""
        ));
        assert_eq!(
            limited_resources(&json!({"limitedResources": [{}]})).unwrap_err(),
            "limitedResources[0].resource: Required value"
        );
    }
}
