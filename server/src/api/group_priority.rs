//! kube-apiserver's priorities of its built-in group versions (what its
//! local APIServices carry), and the order they give discovery: named
//! groups by falling priority, then by name, as kube-aggregator lists
//! them. Clients such as kubectl prefer the earlier group when two serve
//! a resource of the same name.

/// kube-apiserver's priorities (group minimum, version) of its built-in
/// group versions, by the group's name before the API domain (or whole,
/// for groups without it).
const PRIORITIES: &[(&str, &str, i64, i64)] = &[
    ("", "v1", 18000, 1),
    ("apiregistration", "v1", 18000, 15),
    ("apps", "v1", 17800, 15),
    ("events", "v1", 17750, 15),
    ("authentication", "v1", 17700, 15),
    ("authentication", "v1beta1", 17700, 9),
    ("authentication", "v1alpha1", 17700, 1),
    ("authorization", "v1", 17600, 15),
    ("autoscaling", "v1", 17500, 15),
    ("autoscaling", "v2", 17500, 30),
    ("batch", "v1", 17400, 15),
    ("certificates", "v1", 17300, 15),
    ("networking", "v1", 17200, 15),
    ("policy", "v1", 17100, 15),
    ("rbac.authorization", "v1", 17000, 15),
    ("storage", "v1", 16800, 15),
    ("apiextensions", "v1", 16700, 15),
    ("admissionregistration", "v1", 16700, 15),
    ("scheduling", "v1", 16600, 15),
    ("coordination", "v1", 16500, 15),
    ("node", "v1", 16300, 15),
    ("discovery", "v1", 16200, 15),
    ("flowcontrol.apiserver", "v1", 16100, 21),
];

/// CustomResourceDefinitions' group versions rank below built-in ones.
pub const CRD_PRIORITY: (i64, i64) = (1000, 100);

/// (group minimum, version) priorities of a group version: kube's for a
/// built-in one, CustomResourceDefinitions' otherwise.
#[must_use]
pub fn priority(group: &str, version: &str, domain: &str) -> (i64, i64) {
    let short = short_name(group, domain);
    PRIORITIES
        .iter()
        .find(|(g, v, _, _)| *g == short && *v == version)
        .map_or(CRD_PRIORITY, |(_, _, g, v)| (*g, *v))
}

/// A group's priority in discovery: a built-in group's, else `other`'s
/// answer (an extension server's APIService), else a custom resource's.
#[must_use]
pub fn group_priority(group: &str, domain: &str, other: impl Fn(&str) -> Option<i64>) -> i64 {
    let short = short_name(group, domain);
    PRIORITIES
        .iter()
        .filter(|(g, _, _, _)| *g == short)
        .map(|(_, _, p, _)| *p)
        .max()
        .or_else(|| other(group))
        .unwrap_or(CRD_PRIORITY.0)
}

/// Sorts discovery entries as kube-aggregator does: highest group priority
/// first, then by group name.
pub fn sort_groups<T>(
    entries: &mut [T],
    name: impl Fn(&T) -> &str,
    priority: impl Fn(&str) -> i64,
) {
    entries.sort_by_cached_key(|e| (std::cmp::Reverse(priority(name(e))), name(e).to_string()));
}

fn short_name<'a>(group: &'a str, domain: &str) -> &'a str {
    group
        .strip_suffix(domain)
        .and_then(|g| g.strip_suffix('.'))
        .unwrap_or(group)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_groups_take_kube_apiserver_priorities() {
        assert_eq!(priority("", "v1", "k8s.io"), (18000, 1));
        assert_eq!(priority("apps", "v1", "k8s.io"), (17800, 15));
        assert_eq!(
            priority("rbac.authorization.k8s.io", "v1", "k8s.io"),
            (17000, 15)
        );
        assert_eq!(
            priority("rbac.authorization.svc.io", "v1", "svc.io"),
            (17000, 15)
        );
        assert_eq!(priority("example.com", "v1", "k8s.io"), CRD_PRIORITY);
    }

    #[test]
    fn groups_sort_by_falling_priority_then_name() {
        let mut groups = vec![
            "zeta.example",
            "metrics.k8s.io",
            "apps",
            "alpha.example",
            "apiregistration.k8s.io",
            "batch",
        ];
        let aggregated = |g: &str| (g == "metrics.k8s.io").then_some(100);
        sort_groups(
            &mut groups,
            |g| g,
            |g| group_priority(g, "k8s.io", aggregated),
        );
        assert_eq!(
            groups,
            [
                "apiregistration.k8s.io",
                "apps",
                "batch",
                "alpha.example",
                "zeta.example",
                "metrics.k8s.io"
            ]
        );
    }
}
