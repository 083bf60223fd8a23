//! What identifies one request series in the request metrics' map: its
//! labels, compared in full when two hash alike.

use super::request::Observed;

/// A series' labels, kept to tell apart two whose hashes collide.
#[derive(Debug, PartialEq, Eq)]
pub struct SeriesKey {
    verb: &'static str,
    dry_run: &'static str,
    /// group, version, resource, subresource.
    target: [Box<str>; 4],
    scope: &'static str,
    code: u16,
}

impl SeriesKey {
    pub fn of(o: &Observed<'_>) -> SeriesKey {
        SeriesKey {
            verb: o.verb,
            dry_run: o.dry_run,
            target: [o.group, o.version, o.resource, o.subresource].map(Box::from),
            scope: o.scope,
            code: o.code,
        }
    }

    pub fn matches(&self, o: &Observed<'_>) -> bool {
        let [group, version, resource, subresource] = &self.target;
        self.verb == o.verb
            && self.dry_run == o.dry_run
            && self.scope == o.scope
            && self.code == o.code
            && **group == *o.group
            && **version == *o.version
            && **resource == *o.resource
            && **subresource == *o.subresource
    }
}
