//! Reading samples off a Prometheus text page without a parser process:
//! enough for tests that check a few counters beside other behaviour (the
//! `/metrics` suite itself parses pages with Python's `prometheus_client`).

/// A sample's name, labels and value.
type Sample<'a> = (&'a str, Vec<(String, String)>, f64);

/// The labels of a sample line `name{a="x",b="y"} value`, and its value.
fn parse_line(line: &str) -> Option<Sample<'_>> {
    if line.starts_with('#') || line.trim().is_empty() {
        return None;
    }
    let (head, value) = line.rsplit_once(' ')?;
    let value = match value {
        "+Inf" => f64::INFINITY,
        v => v.parse().ok()?,
    };
    let Some((name, rest)) = head.split_once('{') else {
        return Some((head, Vec::new(), value));
    };
    let body = rest.strip_suffix('}')?;
    let mut labels = Vec::new();
    let mut remaining = body;
    while let Some((key, after)) = remaining.split_once("=\"") {
        let mut escaped = false;
        let end = after.char_indices().find_map(|(i, c)| {
            let at_end = c == '"' && !escaped;
            escaped = c == '\\' && !escaped;
            at_end.then_some(i)
        })?;
        labels.push((
            key.trim_start_matches(',').to_string(),
            after[..end].to_string(),
        ));
        remaining = &after[end + 1..];
    }
    Some((name, labels, value))
}

/// The sum of the samples named `name` whose labels include `labels`.
#[must_use]
pub fn sum(page: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    page.lines()
        .filter_map(parse_line)
        .filter(|(n, _, _)| *n == name)
        .filter(|(_, have, _)| {
            labels
                .iter()
                .all(|(k, v)| have.iter().any(|(hk, hv)| hk == k && hv == v))
        })
        .map(|(_, _, v)| v)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_matched_by_name_and_labels() {
        let page = "# HELP x_total X.\n# TYPE x_total counter\n\
                    x_total{code=\"429\",verb=\"POST\"} 2\n\
                    x_total{code=\"200\",verb=\"POST\"} 5\n\
                    x_total{code=\"429\",verb=\"GET\",path=\"a\\\"b\"} 1\n\
                    y 7\n";
        assert_eq!(sum(page, "x_total", &[("code", "429")]), 3.0);
        assert_eq!(sum(page, "x_total", &[("verb", "POST")]), 7.0);
        assert_eq!(sum(page, "x_total", &[("path", "a\\\"b")]), 1.0);
        assert_eq!(sum(page, "y", &[]), 7.0);
        assert_eq!(sum(page, "x_total", &[("code", "500")]), 0.0);
    }
}
