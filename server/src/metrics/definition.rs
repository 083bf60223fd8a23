//! Kubernetes' metric stability framework: every metric is defined with a
//! stability level (shown in its HELP text as `[ALPHA]`, `[STABLE]`, …) and
//! optionally the release that deprecated it. A deprecated metric's HELP says
//! `(Deprecated since x.y.z)`; one deprecated before the current minor release
//! is hidden (not registered) unless `--show-hidden-metrics-for-version`
//! names the previous minor release.

use std::fmt;

/// How long a metric is promised to keep its name and labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stability {
    Internal,
    Alpha,
    Beta,
    Stable,
}

impl Stability {
    /// The word kube prints in brackets at the start of HELP.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Stability::Internal => "INTERNAL",
            Stability::Alpha => "ALPHA",
            Stability::Beta => "BETA",
            Stability::Stable => "STABLE",
        }
    }
}

/// A release, `major.minor.patch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Version {
    #[must_use]
    pub const fn new(major: u32, minor: u32, patch: u32) -> Version {
        Version {
            major,
            minor,
            patch,
        }
    }

    /// The first release of this version's minor line (`1.32.4` → `1.32.0`).
    #[must_use]
    pub const fn minor_start(self) -> Version {
        Version::new(self.major, self.minor, 0)
    }

    /// `major.minor` of the minor release before this one.
    #[must_use]
    pub fn previous_minor(self) -> String {
        format!("{}.{}", self.major, self.minor.saturating_sub(1))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The Kubernetes release whose metrics cairn reproduces.
pub const CURRENT: Version = Version::new(1, 32, 0);

/// Checks `--show-hidden-metrics-for-version` as kube does: empty, or
/// exactly the previous minor release (`1.31` for 1.32).
///
/// # Errors
/// kube's message naming the one accepted value.
pub fn validate_show_hidden(value: &str, current: Version) -> Result<(), String> {
    let accepted = current.previous_minor();
    if value.is_empty() || value == accepted {
        return Ok(());
    }
    Err(format!(
        "--show-hidden-metrics-for-version must be omitted or have the value '{accepted}'. \
         Only the previous minor version is allowed"
    ))
}

/// What a metric is: its exposed name, help and lifecycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Definition {
    /// The name kube exposes (counters include their `_total`).
    pub name: &'static str,
    pub help: &'static str,
    pub stability: Stability,
    pub deprecated: Option<Version>,
}

impl Definition {
    #[must_use]
    pub const fn new(name: &'static str, stability: Stability, help: &'static str) -> Definition {
        Definition {
            name,
            help,
            stability,
            deprecated: None,
        }
    }

    #[must_use]
    pub const fn alpha(name: &'static str, help: &'static str) -> Definition {
        Definition::new(name, Stability::Alpha, help)
    }

    #[must_use]
    pub const fn stable(name: &'static str, help: &'static str) -> Definition {
        Definition::new(name, Stability::Stable, help)
    }

    /// The same metric, deprecated since `version`.
    #[must_use]
    pub const fn deprecated_since(mut self, version: Version) -> Definition {
        self.deprecated = Some(version);
        self
    }

    /// Whether the lifecycle hides it in `current`: deprecated before
    /// `current`'s minor release began.
    #[must_use]
    pub fn is_hidden(&self, current: Version) -> bool {
        self.deprecated
            .is_some_and(|since| since < current.minor_start())
    }

    /// HELP as kube prints it: stability first, then the deprecation notice.
    #[must_use]
    pub fn described_help(&self) -> String {
        let stability = self.stability.as_str();
        match self.deprecated {
            Some(since) => format!("[{stability}] (Deprecated since {since}) {}", self.help),
            None => format!("[{stability}] {}", self.help),
        }
    }

    /// The name to hand the encoder: it appends `_total` to counters itself.
    #[must_use]
    pub fn base_name(&self, counter: bool) -> &'static str {
        if counter {
            self.name.strip_suffix("_total").unwrap_or(self.name)
        } else {
            self.name
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: Definition = Definition::stable("apiserver_request_total", "Counter of requests.");

    #[test]
    fn help_carries_stability_then_deprecation() {
        assert_eq!(PLAIN.described_help(), "[STABLE] Counter of requests.");
        let old =
            Definition::alpha("old_seconds", "Latency.").deprecated_since(Version::new(1, 27, 0));
        assert_eq!(
            old.described_help(),
            "[ALPHA] (Deprecated since 1.27.0) Latency."
        );
        let internal = Definition::new("x", Stability::Internal, "y");
        assert_eq!(internal.described_help(), "[INTERNAL] y");
    }

    #[test]
    fn deprecated_before_the_current_minor_is_hidden() {
        let current = Version::new(1, 32, 3);
        assert!(!PLAIN.is_hidden(current));
        let this_release = PLAIN.deprecated_since(Version::new(1, 32, 0));
        assert!(!this_release.is_hidden(current));
        let last_release = PLAIN.deprecated_since(Version::new(1, 31, 5));
        assert!(last_release.is_hidden(current));
        let future = PLAIN.deprecated_since(Version::new(1, 33, 0));
        assert!(!future.is_hidden(current));
    }

    #[test]
    fn only_the_previous_minor_may_show_hidden_metrics() {
        assert_eq!(validate_show_hidden("", CURRENT), Ok(()));
        assert_eq!(validate_show_hidden("1.31", CURRENT), Ok(()));
        for refused in ["1.30", "1.32", "1.31.0", "v1.31", "junk"] {
            let err = validate_show_hidden(refused, CURRENT).expect_err(refused);
            assert_eq!(
                err,
                "--show-hidden-metrics-for-version must be omitted or have the value '1.31'. \
                 Only the previous minor version is allowed"
            );
        }
    }

    #[test]
    fn counters_lose_their_total_for_the_encoder() {
        assert_eq!(PLAIN.base_name(true), "apiserver_request");
        assert_eq!(PLAIN.base_name(false), "apiserver_request_total");
        let attempts = Definition::alpha("authentication_attempts", "Attempts.");
        assert_eq!(attempts.base_name(true), "authentication_attempts");
    }
}
