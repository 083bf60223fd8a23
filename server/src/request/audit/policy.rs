//! The audit policy (`audit.{domain}/v1` `Policy`): read from its file,
//! decoded leniently as kube-apiserver decodes it (unknown fields are
//! ignored), validated with kube's field paths, so a bad file is refused
//! at start with one line naming the field.

use std::path::Path;

use serde_json::Value;

use crate::config::document;

/// How much of a request an event records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    None,
    Metadata,
    Request,
    RequestResponse,
}

impl Level {
    const NAMES: [&'static str; 4] = ["None", "Metadata", "Request", "RequestResponse"];

    fn parse(s: &str) -> Option<Level> {
        Some(match s {
            "None" => Level::None,
            "Metadata" => Level::Metadata,
            "Request" => Level::Request,
            "RequestResponse" => Level::RequestResponse,
            _ => return None,
        })
    }

    #[must_use]
    pub fn as_str(self) -> &'static str {
        Level::NAMES[self as usize]
    }
}

/// The points of a request's life at which an event is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    RequestReceived,
    ResponseStarted,
    ResponseComplete,
    Panic,
}

impl Stage {
    const NAMES: [&'static str; 4] = [
        "RequestReceived",
        "ResponseStarted",
        "ResponseComplete",
        "Panic",
    ];

    fn parse(s: &str) -> Option<Stage> {
        Some(match s {
            "RequestReceived" => Stage::RequestReceived,
            "ResponseStarted" => Stage::ResponseStarted,
            "ResponseComplete" => Stage::ResponseComplete,
            "Panic" => Stage::Panic,
            _ => return None,
        })
    }

    #[must_use]
    pub fn as_str(self) -> &'static str {
        Stage::NAMES[self as usize]
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A set of stages (omitted ones).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stages(u8);

impl Stages {
    #[must_use]
    pub fn contains(self, stage: Stage) -> bool {
        self.0 & stage.bit() != 0
    }

    #[must_use]
    pub fn union(self, other: Stages) -> Stages {
        Stages(self.0 | other.0)
    }

    fn with(self, stage: Stage) -> Stages {
        Stages(self.0 | stage.bit())
    }
}

/// Resources of one API group a rule names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupResources {
    pub group: String,
    /// `pods`, `pods/log`, `*`, `*/scale`, `deployments/*`; empty: all.
    pub resources: Vec<String>,
    pub resource_names: Vec<String>,
}

/// One rule; the first that matches a request decides its level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub level: Level,
    pub users: Vec<String>,
    pub user_groups: Vec<String>,
    pub verbs: Vec<String>,
    pub resources: Vec<GroupResources>,
    pub namespaces: Vec<String>,
    pub non_resource_urls: Vec<String>,
    pub omit_stages: Stages,
    /// `None`: the policy's setting.
    pub omit_managed_fields: Option<bool>,
}

/// A validated policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    pub rules: Vec<Rule>,
    pub omit_stages: Stages,
    pub omit_managed_fields: bool,
}

/// The first problem found, with kube's field path.
type Invalid = String;

impl Policy {
    /// Reads and validates the policy at `path`; the error is one line.
    pub fn load(path: &Path, domain: &str) -> Result<Policy, String> {
        let shown = path.display();
        let data = std::fs::read(path).map_err(|e| {
            format!("loading audit policy file: failed to read file path \"{shown}\": {e}")
        })?;
        let policy = Policy::parse(&data, domain)
            .map_err(|e| format!("loading audit policy file: {e}: from file {shown}"))?;
        if policy.rules.is_empty() {
            return Err(format!(
                "loading audit policy file: loaded illegal policy with 0 rules: from file {shown}"
            ));
        }
        Ok(policy)
    }

    /// Decodes and validates a policy document (JSON or YAML).
    pub fn parse(data: &[u8], domain: &str) -> Result<Policy, String> {
        let doc = document::decode(data).map_err(|e| format!("failed decoding: {e}"))?;
        let Value::Object(doc) = doc else {
            return Err("failed decoding: the document is not an object".into());
        };
        let api_version = format!("audit.{domain}/v1");
        match (doc.get("apiVersion"), doc.get("kind")) {
            (Some(Value::String(v)), Some(Value::String(k)))
                if *v == api_version && k == "Policy" => {}
            (v, k) => {
                let shown =
                    |x: Option<&Value>| x.and_then(Value::as_str).unwrap_or_default().to_string();
                return Err(format!(
                    "failed decoding: no kind {:?} is registered for version {:?}; expected kind \"Policy\" of apiVersion {api_version:?}",
                    shown(k),
                    shown(v)
                ));
            }
        }
        let omit_stages = stages(doc.get("omitStages"), "omitStages")?;
        let omit_managed_fields = boolean(doc.get("omitManagedFields"), "omitManagedFields")?;
        let rules = match doc.get("rules") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, r)| rule(r, &format!("rules[{i}]")))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err("rules: Invalid value: must be a list".into()),
        };
        Ok(Policy {
            rules,
            omit_stages,
            omit_managed_fields: omit_managed_fields.unwrap_or(false),
        })
    }
}

fn strings(v: Option<&Value>, field: &str) -> Result<Vec<String>, Invalid> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, s)| {
                s.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{field}[{i}]: Invalid value: must be a string"))
            })
            .collect(),
        Some(_) => Err(format!("{field}: Invalid value: must be a list of strings")),
    }
}

fn boolean(v: Option<&Value>, field: &str) -> Result<Option<bool>, Invalid> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(format!("{field}: Invalid value: must be true or false")),
    }
}

fn stages(v: Option<&Value>, field: &str) -> Result<Stages, Invalid> {
    let mut set = Stages::default();
    for (i, name) in strings(v, field)?.iter().enumerate() {
        let stage = Stage::parse(name).ok_or_else(|| {
            format!(
                "{field}[{i}]: Invalid value: {name:?}: allowed stages are \"{}\"",
                Stage::NAMES.join(",")
            )
        })?;
        set = set.with(stage);
    }
    Ok(set)
}

fn rule(v: &Value, path: &str) -> Result<Rule, Invalid> {
    let Value::Object(r) = v else {
        return Err(format!("{path}: Invalid value: must be an object"));
    };
    let level = match r.get("level").and_then(Value::as_str) {
        None | Some("") => return Err(format!("{path}.level: Required value")),
        Some(name) => Level::parse(name).ok_or_else(|| {
            let supported: Vec<String> = Level::NAMES.iter().map(|n| format!("{n:?}")).collect();
            format!(
                "{path}.level: Unsupported value: {name:?}: supported values: {}",
                supported.join(", ")
            )
        })?,
    };
    let non_resource_urls = strings(r.get("nonResourceURLs"), &format!("{path}.nonResourceURLs"))?;
    for (i, url) in non_resource_urls.iter().enumerate() {
        if !url.starts_with('/') && url != "*" {
            return Err(format!(
                "{path}.nonResourceURLs[{i}]: Invalid value: {url:?}: non-resource URL rules must begin with a '/' character"
            ));
        }
        if url.len() > 1 && url[..url.len() - 1].contains('*') {
            return Err(format!(
                "{path}.nonResourceURLs[{i}]: Invalid value: {url:?}: non-resource URL wildcards '*' must be the final character of the rule"
            ));
        }
    }
    let resources = match r.get("resources") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, g)| group_resources(g, &format!("{path}.resources[{i}]")))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(format!("{path}.resources: Invalid value: must be a list")),
    };
    let namespaces = strings(r.get("namespaces"), &format!("{path}.namespaces"))?;
    if !non_resource_urls.is_empty() && (!resources.is_empty() || !namespaces.is_empty()) {
        return Err(format!(
            "{path}.nonResourceURLs: Invalid value: {non_resource_urls:?}: rules cannot apply to both regular resources and non-resource URLs"
        ));
    }
    Ok(Rule {
        level,
        users: strings(r.get("users"), &format!("{path}.users"))?,
        user_groups: strings(r.get("userGroups"), &format!("{path}.userGroups"))?,
        verbs: strings(r.get("verbs"), &format!("{path}.verbs"))?,
        resources,
        namespaces,
        non_resource_urls,
        omit_stages: stages(r.get("omitStages"), &format!("{path}.omitStages"))?,
        omit_managed_fields: boolean(
            r.get("omitManagedFields"),
            &format!("{path}.omitManagedFields"),
        )?,
    })
}

fn group_resources(v: &Value, path: &str) -> Result<GroupResources, Invalid> {
    let Value::Object(g) = v else {
        return Err(format!("{path}: Invalid value: must be an object"));
    };
    let group = match g.get("group") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err(format!("{path}.group: Invalid value: must be a string")),
    };
    if !group.is_empty() && !is_dns_subdomain(&group) {
        return Err(format!(
            "{path}.group: Invalid value: {group:?}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
        ));
    }
    let resources = strings(g.get("resources"), &format!("{path}.resources"))?;
    let resource_names = strings(g.get("resourceNames"), &format!("{path}.resourceNames"))?;
    if !resource_names.is_empty() && resources.is_empty() {
        return Err(format!(
            "{path}.resourceNames: Invalid value: {resource_names:?}: using resourceNames requires at least one resource"
        ));
    }
    Ok(GroupResources {
        group,
        resources,
        resource_names,
    })
}

fn is_dns_subdomain(s: &str) -> bool {
    s.len() <= 253
        && s.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}
