//! Computed cells of the ConfigMap, Secret and ServiceAccount tables: entry
//! counts, as Kubernetes' printers show them.

use serde_json::Value;

use crate::api::kind::Column;

fn entries(obj: &Value, field: &str) -> i64 {
    let n = match obj.get(field) {
        Some(Value::Object(m)) => m.len(),
        Some(Value::Array(a)) => a.len(),
        _ => 0,
    };
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Keys in `data` and `binaryData`.
#[must_use]
pub fn config_map_data(obj: &Value) -> Value {
    Value::from(entries(obj, "data") + entries(obj, "binaryData"))
}

/// Keys in `data`.
#[must_use]
pub fn secret_data(obj: &Value) -> Value {
    Value::from(entries(obj, "data"))
}

/// Entries in `secrets`.
#[must_use]
pub fn service_account_secrets(obj: &Value) -> Value {
    Value::from(entries(obj, "secrets"))
}

fn name() -> Column {
    Column::name()
}

#[must_use]
pub fn config_map_columns() -> Vec<Column> {
    vec![
        name(),
        Column::computed(
            "Data",
            "string",
            0,
            config_map_data,
            "Data contains the configuration data.",
        ),
        Column::age(),
    ]
}

#[must_use]
pub fn secret_columns() -> Vec<Column> {
    vec![
        name(),
        Column::new(
            "Type",
            "string",
            0,
            ".type",
            "Used to facilitate programmatic handling of secret data.",
        ),
        Column::computed(
            "Data",
            "string",
            0,
            secret_data,
            "Data contains the secret data.",
        ),
        Column::age(),
    ]
}

#[must_use]
pub fn service_account_columns() -> Vec<Column> {
    vec![
        name(),
        Column::computed(
            "Secrets",
            "string",
            0,
            service_account_secrets,
            "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.",
        ),
        Column::age(),
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn counts_entries() {
        let cm = json!({"data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}});
        assert_eq!(config_map_data(&cm), 3);
        assert_eq!(config_map_data(&json!({})), 0);
        assert_eq!(secret_data(&json!({"data": {"k": "dg=="}})), 1);
        assert_eq!(
            service_account_secrets(&json!({"secrets": [{"name": "t"}]})),
            1
        );
    }
}
