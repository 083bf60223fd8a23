//! `--feature-gates`: the gates the spec names, with stage and default;
//! `Name=true|false` pairs separated by commas.

use std::collections::BTreeMap;

/// Maturity of a gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Alpha,
    Beta,
    Ga,
}

/// Every known gate: (name, stage, default).
pub const KNOWN: &[(&str, Stage, bool)] = &[
    ("APIResponseCompression", Stage::Beta, true),
    ("AllowUnsafeMalformedObjectDeletion", Stage::Alpha, false),
    ("CBORServingAndStorage", Stage::Alpha, false),
    ("ShardedListAndWatch", Stage::Alpha, false),
    ("WatchList", Stage::Beta, true),
];

/// Enabled/disabled state of every known gate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeatureGates {
    enabled: BTreeMap<&'static str, bool>,
}

impl Default for FeatureGates {
    fn default() -> Self {
        FeatureGates {
            enabled: KNOWN.iter().map(|(n, _, d)| (*n, *d)).collect(),
        }
    }
}

impl FeatureGates {
    /// Parses `A=true,B=false`; unknown gates and bad values are errors.
    pub fn parse(spec: &str) -> Result<FeatureGates, String> {
        let mut gates = FeatureGates::default();
        for pair in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("missing bool value for feature gate {pair:?}"))?;
            let (name, value) = (name.trim(), value.trim());
            let known = KNOWN.iter().find(|(n, ..)| *n == name).ok_or_else(|| {
                let names: Vec<&str> = KNOWN.iter().map(|(n, ..)| *n).collect();
                format!(
                    "unrecognized feature gate: {name} (known: {})",
                    names.join(", ")
                )
            })?;
            let on = match value.to_ascii_lowercase().as_str() {
                "true" => true,
                "false" => false,
                _ => {
                    return Err(format!(
                        "invalid value of {name}={value}, err: must be true or false"
                    ));
                }
            };
            gates.enabled.insert(known.0, on);
        }
        Ok(gates)
    }

    #[must_use]
    pub fn enabled(&self, name: &str) -> bool {
        self.enabled.get(name).copied().unwrap_or(false)
    }

    /// Help text listing every gate.
    #[must_use]
    pub fn help() -> String {
        let lines: Vec<String> = KNOWN
            .iter()
            .map(|(n, s, d)| {
                format!(
                    "{n}=true|false ({}, default={d})",
                    match s {
                        Stage::Alpha => "ALPHA",
                        Stage::Beta => "BETA",
                        Stage::Ga => "GA",
                    }
                )
            })
            .collect();
        format!(
            "A set of key=value pairs that describe feature gates:\n{}",
            lines.join("\n")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_gates() {
        let g = FeatureGates::parse("ShardedListAndWatch=true, APIResponseCompression=false")
            .expect("parse");
        assert!(g.enabled("ShardedListAndWatch"));
        assert!(!g.enabled("APIResponseCompression"));
        assert!(g.enabled("WatchList"));
        assert!(FeatureGates::parse("Nope=true").is_err());
        assert!(FeatureGates::parse("WatchList=maybe").is_err());
        assert!(FeatureGates::parse("WatchList").is_err());
        assert_eq!(
            FeatureGates::parse("").expect("empty"),
            FeatureGates::default()
        );
    }
}
