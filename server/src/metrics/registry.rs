//! The registry behind `/metrics`: metrics registered through their
//! `Definition` (HELP text with stability, deprecation warnings, hidden
//! metrics left out), plus collectors plugged in from elsewhere, encoded as
//! Prometheus text 0.0.4 or OpenMetrics 1.0.0.

use std::fmt::Debug;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;

use super::definition::{Definition, Version};

/// A metric with kube's HELP text, exposed under kube's exact name.
#[derive(Debug)]
pub struct Described<M> {
    definition: Definition,
    help: String,
    metric: M,
}

impl<M: EncodeMetric> Described<M> {
    pub fn new(definition: Definition, metric: M) -> Described<M> {
        Described {
            help: definition.described_help(),
            definition,
            metric,
        }
    }

    /// Writes this metric's family through `encoder` (a collector's).
    ///
    /// # Errors
    /// When the output cannot be written.
    pub fn encode_into(&self, encoder: &mut DescriptorEncoder<'_>) -> Result<(), std::fmt::Error> {
        // Kube leaves a labelled family with no series out entirely.
        if self.metric.is_empty() {
            return Ok(());
        }
        let kind = self.metric.metric_type();
        let counter = matches!(kind, MetricType::Counter);
        let name = self.definition.base_name(counter);
        if counter && name == self.definition.name {
            UNSUFFIXED.with(|names| names.borrow_mut().push(name));
        }
        let family = encoder.encode_descriptor(name, &self.help, None, kind)?;
        self.metric.encode(family)
    }
}

impl<M: EncodeMetric + Debug + Send + Sync + 'static> Collector for Described<M> {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        self.encode_into(&mut encoder)
    }
}

thread_local! {
    /// Counters written during this thread's encoding whose kube name has
    /// no `_total`: the encoder appends one to every counter, which the
    /// Prometheus text format (unlike OpenMetrics) must not show.
    static UNSUFFIXED: std::cell::RefCell<Vec<&'static str>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// `page` with each counter in `names` under its own name, not `<name>_total`
/// (in its HELP and TYPE lines and its samples).
fn unsuffix(page: &str, names: &[&str]) -> String {
    let mut out = String::with_capacity(page.len());
    for line in page.split_inclusive('\n') {
        let (head, rest) = match line
            .strip_prefix("# HELP ")
            .or_else(|| line.strip_prefix("# TYPE "))
        {
            Some(rest) => line.split_at(line.len() - rest.len()),
            None => ("", line),
        };
        let token_end = rest.find([' ', '{']).unwrap_or(rest.len());
        let (token, tail) = rest.split_at(token_end);
        match token
            .strip_suffix("_total")
            .filter(|base| names.contains(base))
        {
            Some(base) => {
                out.push_str(head);
                out.push_str(base);
                out.push_str(tail);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// The exposition formats `/metrics` speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `text/plain; version=0.0.4`, the default.
    PrometheusText,
    /// `application/openmetrics-text`, at the version the client asked for.
    OpenMetrics { version: &'static str },
}

impl Format {
    /// Picks the format an `Accept` header asks for, as Prometheus'
    /// negotiation does: OpenMetrics when offered (1.0.0 unless 0.0.1 is
    /// named), the text format otherwise.
    #[must_use]
    pub fn negotiate(accept: Option<&str>) -> Format {
        for offer in accept.unwrap_or_default().split(',') {
            let mut parts = offer.split(';').map(str::trim);
            let media = parts.next().unwrap_or_default();
            if !media.eq_ignore_ascii_case("application/openmetrics-text") {
                continue;
            }
            let version = parts
                .filter_map(|p| p.split_once('='))
                .find(|(k, _)| k.trim().eq_ignore_ascii_case("version"))
                .map(|(_, v)| v.trim());
            return match version {
                Some("0.0.1") => Format::OpenMetrics { version: "0.0.1" },
                _ => Format::OpenMetrics { version: "1.0.0" },
            };
        }
        Format::PrometheusText
    }

    /// The response's Content-Type.
    #[must_use]
    pub fn content_type(self) -> String {
        match self {
            Format::PrometheusText => {
                prometheus_client::encoding::prometheus_text::CONTENT_TYPE.to_string()
            }
            Format::OpenMetrics { version } => {
                format!("application/openmetrics-text; version={version}; charset=utf-8")
            }
        }
    }
}

/// Every metric `/metrics` shows.
#[derive(Debug)]
pub struct MetricsRegistry {
    inner: Registry,
    current: Version,
    show_hidden: bool,
}

impl MetricsRegistry {
    #[must_use]
    pub fn new(current: Version, show_hidden: bool) -> MetricsRegistry {
        MetricsRegistry {
            inner: Registry::default(),
            current,
            show_hidden,
        }
    }

    /// Registers `metric` under `definition`, unless the lifecycle hides it
    /// (and hidden metrics are not asked for). Returns whether it shows.
    /// The metric records either way: hiding only keeps it off the page.
    pub fn register<M>(&mut self, definition: Definition, metric: M) -> bool
    where
        M: EncodeMetric + Debug + Send + Sync + 'static,
    {
        if definition.is_hidden(self.current) && !self.show_hidden {
            return false;
        }
        if let Some(since) = definition.deprecated {
            tracing::warn!(
                metric = definition.name,
                deprecated_version = %since,
                "registering a deprecated metric"
            );
        }
        self.inner
            .register_collector(Box::new(Described::new(definition, metric)));
        true
    }

    /// Plugs in a collector that writes its own families (each through
    /// `Described::encode_into` to keep kube's HELP text), read on every
    /// scrape.
    pub fn register_collector(&mut self, collector: Box<dyn Collector>) {
        self.inner.register_collector(collector);
    }

    /// The page in `format`.
    #[must_use]
    pub fn encode(&self, format: Format) -> String {
        let mut out = String::with_capacity(64 * 1024);
        UNSUFFIXED.with(|names| names.borrow_mut().clear());
        // Writing into a String cannot fail.
        let _ = match format {
            Format::PrometheusText => {
                prometheus_client::encoding::prometheus_text::encode(&mut out, &self.inner)
            }
            Format::OpenMetrics { .. } => {
                prometheus_client::encoding::text::encode(&mut out, &self.inner)
            }
        };
        let names = UNSUFFIXED.with(|names| std::mem::take(&mut *names.borrow_mut()));
        if format == Format::PrometheusText && !names.is_empty() {
            return unsuffix(&out, &names);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use prometheus_client::metrics::counter::Counter;
    use prometheus_client::metrics::family::Family;

    use super::*;

    fn page(show_hidden: bool) -> String {
        let mut registry = MetricsRegistry::new(Version::new(1, 32, 0), show_hidden);
        let requests = Counter::<u64>::default();
        requests.inc_by(3);
        let live = Definition::stable("demo_requests_total", "Requests.");
        assert!(registry.register(live, requests));
        let old =
            Definition::alpha("demo_old_total", "Old.").deprecated_since(Version::new(1, 27, 0));
        assert_eq!(
            registry.register(old, Counter::<u64>::default()),
            show_hidden
        );
        let fresh =
            Definition::alpha("demo_fresh", "Fresh.").deprecated_since(Version::new(1, 32, 0));
        assert!(registry.register(
            fresh,
            prometheus_client::metrics::gauge::Gauge::<i64>::default()
        ));
        let unused = Family::<Vec<(String, String)>, Counter>::default();
        registry.register(Definition::alpha("demo_unused_total", "Unused."), unused);
        registry.encode(Format::PrometheusText)
    }

    #[test]
    fn text_page_has_kube_help_and_hides_what_the_lifecycle_hides() {
        let text = page(false);
        assert!(
            text.contains("# HELP demo_requests_total [STABLE] Requests.\n"),
            "{text}"
        );
        assert!(text.contains("# TYPE demo_requests_total counter\ndemo_requests_total 3\n"));
        assert!(text.contains("# HELP demo_fresh [ALPHA] (Deprecated since 1.32.0) Fresh.\n"));
        assert!(!text.contains("demo_old"));
        assert!(!text.contains("demo_unused"), "empty families are left out");
        assert!(!text.contains("# EOF"));
        assert!(
            page(true).contains("# HELP demo_old_total [ALPHA] (Deprecated since 1.27.0) Old.\n")
        );
    }

    #[test]
    fn counters_kube_names_without_total_keep_their_name_in_text() {
        let mut registry = MetricsRegistry::new(Version::new(1, 32, 0), false);
        let attempts = Family::<Vec<(String, String)>, Counter>::default();
        attempts
            .get_or_create(&vec![("result".into(), "success".into())])
            .inc();
        registry.register(Definition::alpha("demo_attempts", "A."), attempts);
        registry.register(
            Definition::alpha("demo_attempts_more_total", "B."),
            Counter::<u64>::default(),
        );
        let text = registry.encode(Format::PrometheusText);
        assert!(
            text.contains(
                "# HELP demo_attempts [ALPHA] A.\n# TYPE demo_attempts counter\ndemo_attempts{result=\"success\"} 1\n"
            ),
            "{text}"
        );
        assert!(text.contains("demo_attempts_more_total 0\n"), "{text}");
        let open = registry.encode(Format::OpenMetrics { version: "1.0.0" });
        assert!(
            open.contains("demo_attempts_total{result=\"success\"} 1\n"),
            "OpenMetrics counters keep _total: {open}"
        );
    }

    #[test]
    fn openmetrics_page_ends_with_eof() {
        let mut registry = MetricsRegistry::new(Version::new(1, 32, 0), false);
        registry.register(
            Definition::alpha("demo_total", "D."),
            Counter::<u64>::default(),
        );
        let text = registry.encode(Format::OpenMetrics { version: "1.0.0" });
        assert!(
            text.starts_with("# HELP demo [ALPHA] D.\n# TYPE demo counter\ndemo_total 0\n"),
            "{text}"
        );
        assert!(text.ends_with("# EOF\n"));
    }

    #[test]
    fn accept_picks_the_format() {
        assert_eq!(Format::negotiate(None), Format::PrometheusText);
        assert_eq!(
            Format::negotiate(Some("text/plain;version=0.0.4;q=0.3,*/*;q=0.1")),
            Format::PrometheusText
        );
        let om = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
        assert_eq!(
            Format::negotiate(Some(om)),
            Format::OpenMetrics { version: "1.0.0" }
        );
        assert_eq!(
            Format::negotiate(Some("application/openmetrics-text; version=0.0.1")).content_type(),
            "application/openmetrics-text; version=0.0.1; charset=utf-8"
        );
        assert_eq!(
            Format::PrometheusText.content_type(),
            "text/plain; version=0.0.4; charset=utf-8"
        );
    }
}
