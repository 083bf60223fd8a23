//! `--feature-gates`: every gate cairn knows with its Kubernetes 1.32 stage
//! and default, parsed with kube-apiserver's lifecycle rules: alpha gates
//! start off, beta gates on, GA gates are locked on (setting one warns it
//! will be removed; setting it false fails), deprecated gates warn, and a
//! gate Kubernetes has removed is as unknown as a misspelt one.

use std::collections::BTreeMap;

/// Maturity of a gate, spelled as kube-apiserver prints it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Alpha,
    Beta,
    Ga,
    Deprecated,
}

impl Stage {
    fn label(self) -> &'static str {
        match self {
            Stage::Alpha => "ALPHA",
            Stage::Beta => "BETA",
            Stage::Ga => "GA",
            Stage::Deprecated => "DEPRECATED",
        }
    }
}

/// One gate: its name, stage, default, and whether the default is locked.
#[derive(Clone, Copy, Debug)]
pub struct Gate {
    pub name: &'static str,
    pub stage: Stage,
    pub default: bool,
    pub locked: bool,
}

const fn gate(name: &'static str, stage: Stage, default: bool) -> Gate {
    Gate {
        name,
        stage,
        default,
        // Kubernetes locks every GA gate cairn lists to its default.
        locked: matches!(stage, Stage::Ga),
    }
}

/// Turns every alpha gate not named explicitly on or off.
pub const ALL_ALPHA: &str = "AllAlpha";
/// Turns every beta gate not named explicitly on or off.
pub const ALL_BETA: &str = "AllBeta";

/// Every gate cairn knows, at Kubernetes 1.32's stage and default. Gates
/// Kubernetes removed by 1.32 (KMSv2, KMSv2KDF, ValidatingAdmissionPolicy,
/// ServerSideApply, …) are absent: naming one is refused.
pub const KNOWN: &[Gate] = &[
    gate("AllowUnsafeMalformedObjectDeletion", Stage::Alpha, false),
    gate("CBORServingAndStorage", Stage::Alpha, false),
    // certificates/v1alpha1 ClusterTrustBundle storage (and its admission).
    gate("ClusterTrustBundle", Stage::Alpha, false),
    // cairn's own: list and watch one shard of a collection.
    gate("ShardedListAndWatch", Stage::Alpha, false),
    gate("APIResponseCompression", Stage::Beta, true),
    // Known so they may be named; their kinds are served by --runtime-config
    // alone, as in Kubernetes 1.32.
    gate("MultiCIDRServiceAllocator", Stage::Beta, false),
    gate("VolumeAttributesClass", Stage::Beta, false),
    gate("AnonymousAuthConfigurableEndpoints", Stage::Beta, true),
    gate("StructuredAuthenticationConfiguration", Stage::Beta, true),
    gate("WatchList", Stage::Beta, true),
    gate("AggregatedDiscoveryEndpoint", Stage::Ga, true),
    gate("APIListChunking", Stage::Ga, true),
    gate("CustomResourceFieldSelectors", Stage::Ga, true),
    gate("RemainingItemCount", Stage::Ga, true),
    gate("RetryGenerateName", Stage::Ga, true),
    gate("StructuredAuthorizationConfiguration", Stage::Ga, true),
    gate("WatchBookmark", Stage::Ga, true),
    // cairn has no KMS v1 client: enabling the gate changes nothing.
    gate("KMSv1", Stage::Deprecated, false),
];

fn known(name: &str) -> Option<&'static Gate> {
    KNOWN.iter().find(|g| g.name == name)
}

/// Go's `strconv.ParseBool`, which kube-apiserver reads gate and
/// `--runtime-config` values with.
pub(crate) fn parse_bool(value: &str) -> Result<bool, String> {
    match value {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok(false),
        _ => Err(format!(
            "strconv.ParseBool: parsing {value:?}: invalid syntax"
        )),
    }
}

/// Enabled/disabled state of every known gate, and the warnings setting
/// them produced (logged once logging is up).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeatureGates {
    enabled: BTreeMap<&'static str, bool>,
    warnings: Vec<String>,
}

impl Default for FeatureGates {
    fn default() -> Self {
        FeatureGates {
            enabled: KNOWN.iter().map(|g| (g.name, g.default)).collect(),
            warnings: Vec::new(),
        }
    }
}

impl FeatureGates {
    /// Parses `A=true,B=false` as kube-apiserver does; the error is its
    /// message (several errors as its aggregate `[a, b]`).
    pub fn parse(spec: &str) -> Result<FeatureGates, String> {
        let mut asked: Vec<(&str, bool)> = Vec::new();
        for pair in spec.split(',').filter(|p| !p.is_empty()) {
            let (name, value) = match pair.split_once('=') {
                Some((n, v)) => (n.trim(), v.trim()),
                None => return Err(format!("missing bool value for {}", pair.trim())),
            };
            let on = parse_bool(value)
                .map_err(|e| format!("invalid value of {name}={value}, err: {e}"))?;
            asked.retain(|(n, _)| *n != name);
            asked.push((name, on));
        }
        let mut gates = FeatureGates::default();
        let mut errors = Vec::new();
        for &(name, on) in &asked {
            if name == ALL_ALPHA || name == ALL_BETA {
                continue;
            }
            let Some(gate) = known(name) else {
                return Err(format!("unrecognized feature gate: {name}"));
            };
            if gate.locked && gate.default != on {
                errors.push(format!(
                    "cannot set feature gate {name} to {on}, feature is locked to {}",
                    gate.default
                ));
                continue;
            }
            gates.enabled.insert(gate.name, on);
            match gate.stage {
                Stage::Ga => gates.warnings.push(format!(
                    "Setting GA feature gate {name}={on}. It will be removed in a future release."
                )),
                Stage::Deprecated => gates.warnings.push(format!(
                    "Setting deprecated feature gate {name}={on}. It will be removed in a future release."
                )),
                Stage::Alpha | Stage::Beta => {}
            }
        }
        match errors.len() {
            0 => {}
            1 => return Err(errors.remove(0)),
            _ => return Err(format!("[{}]", errors.join(", "))),
        }
        for &(name, on) in &asked {
            let stage = match name {
                ALL_ALPHA => Stage::Alpha,
                ALL_BETA => Stage::Beta,
                _ => continue,
            };
            for gate in KNOWN.iter().filter(|g| g.stage == stage) {
                if !asked.iter().any(|(n, _)| *n == gate.name) {
                    gates.enabled.insert(gate.name, on);
                }
            }
        }
        Ok(gates)
    }

    /// Whether gate `name` is on (unknown names are off).
    #[must_use]
    pub fn enabled(&self, name: &str) -> bool {
        self.enabled.get(name).copied().unwrap_or(false)
    }

    /// What setting the gates warned of (GA and deprecated gates named).
    #[must_use]
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Logs the warnings of [`FeatureGates::warnings`].
    pub fn log_warnings(&self) {
        for w in &self.warnings {
            tracing::warn!("{w}");
        }
    }

    /// The flag's help: kube-apiserver's sentence and one
    /// `Name=true|false (STAGE - default=…)` line per settable gate, sorted.
    /// Like kube-apiserver it leaves out GA gates (locked); deprecated gates
    /// stay listed, as the deprecation rules ask of them.
    #[must_use]
    pub fn help() -> String {
        let mut lines: Vec<String> = KNOWN
            .iter()
            .filter(|g| g.stage != Stage::Ga)
            .map(|g| line(g.name, g.stage, g.default))
            .chain([
                line(ALL_ALPHA, Stage::Alpha, false),
                line(ALL_BETA, Stage::Beta, false),
            ])
            .collect();
        lines.sort();
        format!(
            "A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\n{}",
            lines.join("\n")
        )
    }
}

fn line(name: &str, stage: Stage, default: bool) -> String {
    format!("{name}=true|false ({} - default={default})", stage.label())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_gates_with_go_booleans() {
        let g =
            FeatureGates::parse("ShardedListAndWatch=T, APIResponseCompression=0").expect("parse");
        assert!(g.enabled("ShardedListAndWatch"));
        assert!(!g.enabled("APIResponseCompression"));
        assert!(g.enabled("WatchList"));
        assert_eq!(
            FeatureGates::parse("WatchList=maybe").unwrap_err(),
            "invalid value of WatchList=maybe, err: strconv.ParseBool: parsing \"maybe\": invalid syntax"
        );
        assert_eq!(
            FeatureGates::parse("WatchList").unwrap_err(),
            "missing bool value for WatchList"
        );
        assert_eq!(
            FeatureGates::parse("").expect("empty"),
            FeatureGates::default()
        );
    }

    #[test]
    fn lifecycle_rules() {
        assert_eq!(
            FeatureGates::parse("StructuredAuthorizationConfiguration=false").unwrap_err(),
            "cannot set feature gate StructuredAuthorizationConfiguration to false, feature is locked to true"
        );
        let ga = FeatureGates::parse("CustomResourceFieldSelectors=true").expect("GA true");
        assert_eq!(
            ga.warnings(),
            [
                "Setting GA feature gate CustomResourceFieldSelectors=true. It will be removed in a future release."
            ]
        );
        let deprecated = FeatureGates::parse("KMSv1=true").expect("deprecated");
        assert!(deprecated.enabled("KMSv1"));
        assert_eq!(
            deprecated.warnings(),
            ["Setting deprecated feature gate KMSv1=true. It will be removed in a future release."]
        );
        assert_eq!(
            FeatureGates::parse("KMSv2=true").unwrap_err(),
            "unrecognized feature gate: KMSv2"
        );
        assert!(
            FeatureGates::parse("WatchList=false")
                .unwrap()
                .warnings()
                .is_empty()
        );
    }

    #[test]
    fn all_alpha_and_all_beta_leave_named_gates_alone() {
        let g = FeatureGates::parse("AllAlpha=true,CBORServingAndStorage=false,AllBeta=false")
            .expect("parse");
        assert!(g.enabled("ShardedListAndWatch"));
        assert!(!g.enabled("CBORServingAndStorage"));
        assert!(!g.enabled("WatchList"));
        assert!(g.enabled("StructuredAuthorizationConfiguration"));
    }

    #[test]
    fn help_lists_settable_gates_as_kube_apiserver_does() {
        let help = FeatureGates::help();
        assert!(help.contains("\nAllAlpha=true|false (ALPHA - default=false)\n"));
        assert!(help.contains("\nAllBeta=true|false (BETA - default=false)\n"));
        assert!(help.contains("\nWatchList=true|false (BETA - default=true)"));
        assert!(help.contains("\nKMSv1=true|false (DEPRECATED - default=false)"));
        assert!(!help.contains("StructuredAuthorizationConfiguration"));
    }
}
