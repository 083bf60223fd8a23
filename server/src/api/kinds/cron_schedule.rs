//! A CronJob's `schedule` and `timeZone` checked as Kubernetes checks them:
//! the standard five-field cron syntax or an `@hourly`-style descriptor,
//! with the cron parser's own error texts, and IANA zone names.

use std::path::Path;

/// Where zone names are looked up, as Go's `time.LoadLocation` does.
const ZONEINFO: &str = "/usr/share/zoneinfo";

const DESCRIPTORS: &[&str] = &[
    "@yearly",
    "@annually",
    "@monthly",
    "@weekly",
    "@daily",
    "@midnight",
    "@hourly",
];

/// Field bounds and the names a field accepts (months, weekdays).
struct Bounds {
    min: u32,
    max: u32,
    names: &'static [&'static str],
}

const MONTHS: &[&str] = &[
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const WEEKDAYS: &[&str] = &["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

const FIELDS: [Bounds; 5] = [
    Bounds {
        min: 0,
        max: 59,
        names: &[],
    },
    Bounds {
        min: 0,
        max: 23,
        names: &[],
    },
    Bounds {
        min: 1,
        max: 31,
        names: &[],
    },
    Bounds {
        min: 1,
        max: 12,
        names: MONTHS,
    },
    Bounds {
        min: 0,
        max: 6,
        names: WEEKDAYS,
    },
];

/// Why `schedule` does not parse, in the cron parser's words; `None` when
/// it is a valid standard schedule.
#[must_use]
pub fn schedule_error(schedule: &str) -> Option<String> {
    if schedule.is_empty() {
        return Some("empty spec string".into());
    }
    let mut spec = schedule;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        let (zone, rest) = spec.split_once(' ').unwrap_or((spec, ""));
        let name = zone.split_once('=').map_or("", |(_, n)| n);
        if !zone_exists(name) {
            return Some(format!(
                "provided bad location {name}: unknown time zone {name}"
            ));
        }
        spec = rest.trim_start();
    }
    if spec.starts_with('@') {
        return descriptor_error(spec);
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != 5 {
        return Some(format!(
            "expected exactly 5 fields, found {}: [{}]",
            fields.len(),
            fields.join(" ")
        ));
    }
    fields
        .iter()
        .zip(FIELDS.iter())
        .find_map(|(field, bounds)| field_error(field, bounds))
}

fn descriptor_error(spec: &str) -> Option<String> {
    if DESCRIPTORS.contains(&spec) {
        return None;
    }
    if let Some(duration) = spec.strip_prefix("@every ") {
        return (!go_duration(duration)).then(|| {
            format!("failed to parse duration {spec}: time: invalid duration \"{duration}\"")
        });
    }
    Some(format!("unrecognized descriptor: {spec}"))
}

/// Go's `time.ParseDuration` syntax: signed decimal numbers with units.
fn go_duration(text: &str) -> bool {
    let body = text.strip_prefix(['+', '-']).unwrap_or(text);
    if body == "0" {
        return true;
    }
    let mut rest = body;
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(rest.len());
        if digits == 0 || rest[..digits].matches('.').count() > 1 || rest[..digits] == *"." {
            return false;
        }
        rest = &rest[digits..];
        let unit = ["ns", "us", "µs", "μs", "ms", "s", "m", "h"]
            .iter()
            .find(|u| rest.starts_with(*u));
        match unit {
            Some(u) => rest = &rest[u.len()..],
            None => return false,
        }
    }
    true
}

fn field_error(field: &str, bounds: &Bounds) -> Option<String> {
    field
        .split(',')
        .find_map(|range| range_error(range, bounds))
}

fn number(text: &str, bounds: &Bounds) -> Result<u32, String> {
    let lower = text.to_ascii_lowercase();
    if let Some(i) = bounds.names.iter().position(|n| *n == lower) {
        // Month names count from 1, weekday names from 0.
        return Ok(u32::try_from(i).unwrap_or(0) + bounds.min);
    }
    match text.parse::<i64>() {
        Ok(n) if n < 0 => Err(format!("negative number ({n}) not allowed: {text}")),
        Ok(n) => Ok(u32::try_from(n).unwrap_or(u32::MAX)),
        Err(_) => Err(format!(
            "failed to parse int from {text}: strconv.Atoi: parsing \"{text}\": invalid syntax"
        )),
    }
}

fn range_error(expr: &str, bounds: &Bounds) -> Option<String> {
    let steps: Vec<&str> = expr.split('/').collect();
    let ranges: Vec<&str> = steps[0].split('-').collect();
    let single = ranges.len() == 1;
    let (start, end) = if ranges[0] == "*" || ranges[0] == "?" {
        (bounds.min, bounds.max)
    } else {
        let start = match number(ranges[0], bounds) {
            Ok(n) => n,
            Err(e) => return Some(e),
        };
        let end = match ranges.len() {
            1 => start,
            2 => match number(ranges[1], bounds) {
                Ok(n) => n,
                Err(e) => return Some(e),
            },
            _ => return Some(format!("too many hyphens: {expr}")),
        };
        (start, end)
    };
    match steps.len() {
        1 => {}
        2 => match number(steps[1], bounds) {
            Err(e) => return Some(e),
            Ok(0) => return Some(format!("step of range should be a positive number: {expr}")),
            Ok(_) if single && ranges[0] != "*" && ranges[0] != "?" => {
                // `N/step` runs from N to the field's maximum.
                return bounds_error(start, bounds.max, bounds, expr);
            }
            Ok(_) => {}
        },
        _ => return Some(format!("too many slashes: {expr}")),
    }
    bounds_error(start, end, bounds, expr)
}

fn bounds_error(start: u32, end: u32, bounds: &Bounds, expr: &str) -> Option<String> {
    if start < bounds.min {
        Some(format!(
            "beginning of range ({start}) below minimum ({}): {expr}",
            bounds.min
        ))
    } else if end > bounds.max {
        Some(format!(
            "end of range ({end}) above maximum ({}): {expr}",
            bounds.max
        ))
    } else if start > end {
        Some(format!(
            "beginning of range ({start}) beyond end of range ({end}): {expr}"
        ))
    } else {
        None
    }
}

fn zone_exists(name: &str) -> bool {
    name == "UTC" || Path::new(ZONEINFO).join(name).is_file()
}

/// Why `zone` is not a usable `timeZone`, in Kubernetes' words.
#[must_use]
pub fn time_zone_error(zone: &str) -> Option<String> {
    if zone.is_empty() {
        return Some("timeZone must be nil or non-empty string".into());
    }
    let well_formed = zone.split('/').all(|part| {
        part != "."
            && part != ".."
            && !part.starts_with('-')
            && (1..=14).contains(&part.len())
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-+".contains(c))
    });
    if !well_formed {
        return Some(format!("unknown time zone {zone}"));
    }
    if zone.eq_ignore_ascii_case("Local") {
        return Some(
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"
                .into(),
        );
    }
    (!zone_exists(zone)).then(|| format!("unknown time zone {zone}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_schedules_and_descriptors_parse() {
        for ok in [
            "*/5 * * * *",
            "0 0 1 jan-mar MON-FRI",
            "@hourly",
            "@every 1h30m",
            "0 9 * * 1,3,5",
            "5/15 * * * *",
        ] {
            assert_eq!(schedule_error(ok), None, "{ok}");
        }
    }

    #[test]
    fn bad_schedules_say_why_as_the_cron_parser_does() {
        assert_eq!(
            schedule_error("x").as_deref(),
            Some("expected exactly 5 fields, found 1: [x]")
        );
        assert_eq!(
            schedule_error("61 * * * *").as_deref(),
            Some("end of range (61) above maximum (59): 61")
        );
        assert_eq!(
            schedule_error("* * 0 * *").as_deref(),
            Some("beginning of range (0) below minimum (1): 0")
        );
        assert_eq!(
            schedule_error("@fortnightly").as_deref(),
            Some("unrecognized descriptor: @fortnightly")
        );
        assert_eq!(
            schedule_error("a * * * *").as_deref(),
            Some("failed to parse int from a: strconv.Atoi: parsing \"a\": invalid syntax")
        );
        assert_eq!(
            schedule_error("*/0 * * * *").as_deref(),
            Some("step of range should be a positive number: */0")
        );
    }

    #[test]
    fn time_zones_are_iana_names() {
        assert_eq!(time_zone_error("Europe/Berlin"), None);
        assert_eq!(time_zone_error("UTC"), None);
        assert_eq!(
            time_zone_error("Mars/Olympus").as_deref(),
            Some("unknown time zone Mars/Olympus")
        );
        assert!(time_zone_error("Local").is_some());
    }
}
