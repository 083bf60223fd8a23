//! A `/metrics` page as the Python `prometheus_client` parsers read it.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

/// The interpreter with `prometheus_client`, if installed.
pub fn python() -> Option<PathBuf> {
    let py = cairn_tests::python()?;
    let ok = Command::new(&py)
        .args(["-c", "import prometheus_client"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!(
            "SKIPPED: prometheus_client is not installed in the venv (scripts/test installs it)"
        );
    }
    ok.then_some(py)
}

/// The families of one page.
pub struct Page {
    families: Vec<Value>,
}

impl Page {
    /// Parses `text` (`openmetrics` picks that parser) with `py`.
    pub fn parse(py: &PathBuf, text: &str, openmetrics: bool) -> Page {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("page.txt");
        std::fs::write(&file, text).expect("write page");
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("python/metrics_families.py");
        let out = Command::new(py)
            .arg(script)
            .arg(&file)
            .arg(if openmetrics { "openmetrics" } else { "text" })
            .output()
            .expect("run the parser");
        assert!(
            out.status.success(),
            "prometheus_client refused the page: {}\n{text}",
            String::from_utf8_lossy(&out.stderr)
        );
        let families: Vec<Value> = serde_json::from_slice(&out.stdout).expect("parser JSON");
        Page { families }
    }

    /// The family `name` (as the parser names it: counters without `_total`).
    pub fn family(&self, name: &str) -> Option<&Value> {
        self.families.iter().find(|f| f["name"] == name)
    }

    /// The family's type and help.
    pub fn describe(&self, name: &str) -> (String, String) {
        let f = self
            .family(name)
            .unwrap_or_else(|| panic!("no family {name}"));
        (
            f["type"].as_str().unwrap_or_default().to_string(),
            f["help"].as_str().unwrap_or_default().to_string(),
        )
    }

    /// The sum of the samples named `sample` whose labels include `labels`.
    pub fn value(&self, sample: &str, labels: &[(&str, &str)]) -> f64 {
        self.samples(sample, labels)
            .iter()
            .map(|s| s["value"].as_f64().unwrap_or(0.0))
            .sum()
    }

    /// The samples named `sample` whose labels include `labels`.
    pub fn samples(&self, sample: &str, labels: &[(&str, &str)]) -> Vec<&Value> {
        self.families
            .iter()
            .flat_map(|f| f["samples"].as_array().into_iter().flatten())
            .filter(|s| s["name"] == sample)
            .filter(|s| labels.iter().all(|(k, v)| s["labels"][*k] == *v))
            .collect()
    }
}
