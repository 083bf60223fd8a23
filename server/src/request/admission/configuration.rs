//! `--admission-control-config-file`: an AdmissionConfiguration
//! (`apiserver.config.{domain}` v1, v1beta1 or v1alpha1) whose `plugins[]`
//! give each registered plugin its own configuration, inline
//! (`configuration`, which wins) or in a file (`path`, relative to the
//! AdmissionConfiguration's directory). Each plugin's configuration is
//! checked at start: the webhook plugins take a WebhookAdmissionConfiguration
//! whose `kubeConfigFile` must be an absolute path to a readable kubeconfig,
//! whose users give webhook calls their credentials; ResourceQuota takes a
//! ResourceQuotaConfiguration whose `limitedResources` are checked.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use super::plugins::{Enabled, KUBE_ORDER, MUTATING_WEBHOOK, VALIDATING_WEBHOOK};
use super::resource_quota::RESOURCE_QUOTA;
use super::resource_quota_config::{Limited, limited_resources};
use super::webhook::credentials::Credentials;
use crate::config::AdmissionFlags;
use crate::config::document::{self, Problem};

/// The versions of `apiserver.config.{domain}` an AdmissionConfiguration may use.
const VERSIONS: &[&str] = &["v1", "v1beta1", "v1alpha1"];

/// What the admission flags and file configure, checked.
#[derive(Debug, Default)]
pub struct AdmissionSettings {
    pub enabled: Enabled,
    /// Per webhook plugin, the credentials its `kubeConfigFile` gives.
    pub webhook_kubeconfigs: BTreeMap<&'static str, Arc<Credentials>>,
    /// The ResourceQuota plugin's `limitedResources`.
    pub limited_resources: Vec<Limited>,
}

impl AdmissionSettings {
    /// Reads the flags and the file; the error is one line.
    pub fn load(flags: &AdmissionFlags, domain: &str) -> Result<AdmissionSettings, String> {
        let enabled = Enabled::resolve(flags)?;
        let mut settings = AdmissionSettings {
            enabled,
            webhook_kubeconfigs: BTreeMap::new(),
            limited_resources: Vec::new(),
        };
        let Some(path) = &flags.admission_control_config_file else {
            return Ok(settings);
        };
        let shown = path.display().to_string();
        let data = std::fs::read(path).map_err(|e| {
            format!("unable to read admission control configuration from {shown:?} [{e}]")
        })?;
        let doc = document::decode(&data).map_err(|e| {
            format!("failed to load admission control configuration from {shown:?}: {e}")
        })?;
        let group = format!("apiserver.config.{domain}");
        check_type(&doc, &group, "AdmissionConfiguration", VERSIONS)
            .map_err(|e| format!("admission control configuration {shown:?}: {e}"))?;
        let base = path.parent().unwrap_or(Path::new("/"));
        let plugins = match doc.get("plugins") {
            None | Some(Value::Null) => return Ok(settings),
            Some(Value::Array(items)) => items,
            Some(_) => {
                return Err(format!(
                    "admission control configuration {shown:?}: plugins: must be a list"
                ));
            }
        };
        for (i, entry) in plugins.iter().enumerate() {
            let at = format!("plugins[{i}]");
            let name = entry
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if name.is_empty() {
                return Err(format!(
                    "admission control configuration {shown:?}: {at}.name: Required value"
                ));
            }
            let Some(&name) = KUBE_ORDER.iter().find(|n| **n == name) else {
                return Err(format!(
                    "admission control configuration {shown:?}: {at}.name: Unsupported value: {name:?}: not a registered admission plugin"
                ));
            };
            let Some(own) = plugin_configuration(entry, base)
                .map_err(|e| format!("admission control configuration {shown:?}: {at}.{e}"))?
            else {
                continue;
            };
            if name == MUTATING_WEBHOOK || name == VALIDATING_WEBHOOK {
                let kubeconfig = webhook_kubeconfig(&own, &group).map_err(|e| {
                    format!("failed to initialize admission: couldn't init admission plugin {name:?}: {e}")
                })?;
                settings
                    .webhook_kubeconfigs
                    .insert(name, Arc::new(kubeconfig));
            }
            if name == RESOURCE_QUOTA {
                settings.limited_resources = check_type(&own, &group, "ResourceQuotaConfiguration", VERSIONS)
                    .and_then(|()| limited_resources(&own))
                    .map_err(|e| {
                        format!("failed to initialize admission: couldn't init admission plugin {name:?}: {e}")
                    })?;
            }
        }
        Ok(settings)
    }
}

/// `apiVersion` and `kind` are `group`/one of `versions` and `kind`.
fn check_type(doc: &Value, group: &str, kind: &str, versions: &[&str]) -> Result<(), String> {
    let api_version = doc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let found_kind = doc.get("kind").and_then(Value::as_str).unwrap_or("");
    if api_version.is_empty() {
        return Err("Object 'apiVersion' is missing".into());
    }
    if found_kind.is_empty() {
        return Err("Object 'Kind' is missing".into());
    }
    let known = api_version
        .strip_prefix(group)
        .and_then(|v| v.strip_prefix('/'))
        .is_some_and(|v| versions.contains(&v));
    if !known || found_kind != kind {
        return Err(format!(
            "no kind {found_kind:?} is registered for version {api_version:?}"
        ));
    }
    Ok(())
}

/// A plugin entry's configuration: inline, else the file at `path`.
fn plugin_configuration(entry: &Value, base: &Path) -> Result<Option<Value>, String> {
    match entry.get("configuration") {
        Some(Value::Object(inline)) => return Ok(Some(Value::Object(inline.clone()))),
        Some(Value::Null) | None => {}
        Some(_) => return Err("configuration: must be an object".into()),
    }
    let path = entry
        .get("path")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if path.is_empty() {
        return Ok(None);
    }
    let file = base.join(path);
    let shown = file.display().to_string();
    let data = std::fs::read(&file)
        .map_err(|e| format!("path: unable to read plugin configuration {shown:?}: {e}"))?;
    match document::decode(&data) {
        Ok(doc) => Ok(Some(doc)),
        Err(Problem::Load(e) | Problem::Invalid(e)) => {
            Err(format!("path: plugin configuration {shown:?}: {e}"))
        }
    }
}

/// A WebhookAdmissionConfiguration's kubeconfig, checked as kube checks it.
fn webhook_kubeconfig(doc: &Value, group: &str) -> Result<Credentials, String> {
    let v1 = check_type(doc, group, "WebhookAdmissionConfiguration", &["v1"]);
    let v1alpha1 = check_type(doc, group, "WebhookAdmission", &["v1alpha1"]);
    if let (Err(e), Err(_)) = (v1, v1alpha1) {
        return Err(e);
    }
    let file = doc
        .get("kubeConfigFile")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !Path::new(file).is_absolute() {
        return Err(format!(
            "kubeConfigFile: Invalid value: {file:?}: must be an absolute file path"
        ));
    }
    Credentials::load(Path::new(file)).map_err(|e| format!("kubeConfigFile: {e}"))
}

#[cfg(test)]
#[path = "configuration_tests.rs"]
mod tests;
