//! `--runtime-config`: which built-in API versions and resources are served.
//! Read as kube-apiserver 1.32 reads it: comma-separated `key[=value]`
//! pairs (a missing value is `true`, a later key wins); `api/all`,
//! `api/ga`, `api/beta`, `api/alpha` switch every matching version (their
//! value must be `true` or `false`), then `<group>/<version>` keys, then
//! `<group>/<version>/<resource>` keys, each overriding the last. The core
//! group is written `v1`, `api/v1` or `/v1`; `api/legacy` is ignored.
//! Without a key, GA versions are served and alpha and beta ones are not
//! (Kubernetes keeps only pre-1.22 betas on, and cairn serves none).

use std::collections::BTreeMap;

use crate::config::feature_gates::parse_bool;

/// The flag as given: its pairs in order (repeated flags append).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuntimeConfig {
    pairs: Vec<(String, String)>,
}

impl RuntimeConfig {
    /// Splits one `--runtime-config` value; never fails (as pflag's
    /// ConfigurationMap), the keys are checked by [`RuntimeConfig::resolve`].
    pub fn parse(value: &str) -> Result<RuntimeConfig, String> {
        let mut config = RuntimeConfig::default();
        config.append(value);
        Ok(config)
    }

    fn append(&mut self, value: &str) {
        for pair in value.split(',').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            self.pairs
                .push((key.trim().to_string(), value.trim().to_string()));
        }
    }

    /// Several `--runtime-config` flags as one.
    #[must_use]
    pub fn merged(all: &[RuntimeConfig]) -> RuntimeConfig {
        RuntimeConfig {
            pairs: all.iter().flat_map(|c| c.pairs.iter().cloned()).collect(),
        }
    }

    /// The key → value map kube-apiserver works on: later keys win, the
    /// core group's spellings become `/v1`, `api/legacy` is dropped.
    fn overrides(&self) -> BTreeMap<String, String> {
        let mut map = BTreeMap::new();
        for (key, value) in &self.pairs {
            if key == "api/legacy" {
                continue;
            }
            let key = core_key(key).unwrap_or_else(|| key.clone());
            map.insert(key, value.clone());
        }
        map
    }

    /// Checks the keys against the built-in `group_versions` (core as
    /// `("", "v1")`) and resolves what is served; the error is kube-apiserver's
    /// message.
    pub fn resolve(&self, group_versions: &[(String, String)]) -> Result<Enablement, String> {
        let overrides = self.overrides();
        if overrides.len() == 1 && overrides.get(API_ALL).map(String::as_str) == Some("false") {
            return Err(format!("invalid key with only {API_ALL}=false"));
        }
        let group_known = |g: &str| group_versions.iter().any(|(kg, _)| kg == g);
        let mut unknown = Vec::new();
        for key in overrides.keys().filter(|k| !MATCHERS.contains(&k.as_str())) {
            let tokens: Vec<&str> = key.split('/').collect();
            if tokens.len() != 2 && tokens.len() != 3 {
                return Err(format!("runtime-config invalid key {key}"));
            }
            if !group_known(tokens[0]) {
                unknown.push(tokens[0].to_string());
            }
        }
        if !unknown.is_empty() {
            return Err(format!("unknown api groups {}", unknown.join(",")));
        }
        let mut enablement = Enablement::default();
        for matcher in MATCHERS {
            let Some(value) = overrides.get(matcher) else {
                continue;
            };
            let on = match value.as_str() {
                "true" => true,
                "false" => false,
                _ => return Err(format!("invalid value {matcher}={value}")),
            };
            for (g, v) in group_versions.iter().filter(|(_, v)| matches(matcher, v)) {
                enablement.versions.insert((g.clone(), v.clone()), on);
            }
        }
        let mut resources = Vec::new();
        for (key, value) in overrides
            .iter()
            .filter(|(k, _)| !MATCHERS.contains(&k.as_str()))
        {
            let tokens: Vec<&str> = key.split('/').collect();
            let (group, version) = (tokens[0], tokens[1]);
            if !group_versions
                .iter()
                .any(|(g, v)| g == group && v == version)
            {
                let gv = if group.is_empty() {
                    version.to_string()
                } else {
                    format!("{group}/{version}")
                };
                return Err(format!("group version {gv} that has not been registered"));
            }
            let on = if value.is_empty() {
                true
            } else {
                parse_bool(value)
                    .map_err(|e| format!("invalid value of {key}: {value}, err: {e}"))?
            };
            match tokens.get(2) {
                None => {
                    enablement
                        .versions
                        .insert((group.to_string(), version.to_string()), on);
                }
                Some(resource) if resource.to_lowercase() != *resource => {
                    return Err(format!(
                        "invalid key {key}: group/version/resource and resource is always lowercase plural, not {resource:?}"
                    ));
                }
                Some(resource) => resources.push((
                    (
                        group.to_string(),
                        version.to_string(),
                        (*resource).to_string(),
                    ),
                    on,
                )),
            }
        }
        // Resource keys last: they win over every version setting.
        enablement.resources.extend(resources);
        Ok(enablement)
    }
}

/// `v1`, `api/v1` and their `/<resource>` forms name the core group,
/// whose group name is empty: `/v1`, `/v1/<resource>`.
fn core_key(key: &str) -> Option<String> {
    ["api/v1", "v1"].iter().find_map(|prefix| {
        let rest = key.strip_prefix(prefix)?;
        if rest.is_empty() {
            return Some("/v1".to_string());
        }
        rest.strip_prefix('/')
            .map(|resource| format!("/v1/{resource}"))
    })
}

const API_ALL: &str = "api/all";
/// The keys that switch many versions at once, in the order they apply.
const MATCHERS: [&str; 4] = [API_ALL, "api/ga", "api/beta", "api/alpha"];

fn matches(matcher: &str, version: &str) -> bool {
    match matcher {
        API_ALL => true,
        "api/ga" => stage(version) == Some(Stage::Ga),
        "api/beta" => stage(version) == Some(Stage::Beta),
        _ => stage(version) == Some(Stage::Alpha),
    }
}

/// Stability of a version by its name (`v1`, `v2beta3`, `v1alpha1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Ga,
    Beta,
    Alpha,
}

/// `v<n>`, `v<n>beta<m>` or `v<n>alpha<m>`; other names have no stage.
#[must_use]
pub fn stage(version: &str) -> Option<Stage> {
    let rest = version.strip_prefix('v')?;
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let tail = &rest[digits..];
    let numbered = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit());
    if tail.is_empty() {
        Some(Stage::Ga)
    } else if tail.strip_prefix("beta").is_some_and(numbered) {
        Some(Stage::Beta)
    } else if tail.strip_prefix("alpha").is_some_and(numbered) {
        Some(Stage::Alpha)
    } else {
        None
    }
}

/// What is served: a version's own setting, else its stage's default (GA
/// on); a resource's own setting wins over its version's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Enablement {
    versions: BTreeMap<(String, String), bool>,
    resources: BTreeMap<(String, String, String), bool>,
}

impl Enablement {
    /// Whether built-in `group/version/resource` is served.
    #[must_use]
    pub fn enabled(&self, group: &str, version: &str, resource: &str) -> bool {
        let gvr = (group.to_string(), version.to_string(), resource.to_string());
        if let Some(on) = self.resources.get(&gvr) {
            return *on;
        }
        let (group, version, _) = gvr;
        let default = stage(&version) == Some(Stage::Ga);
        self.versions
            .get(&(group, version))
            .copied()
            .unwrap_or(default)
    }
}

#[cfg(test)]
mod tests;
