//! Crash and stall points for tests (feature `failpoints`, and every debug
//! build so the black-box campaigns can reach them through the server
//! binary), armed by the environment variable `CAIRN_FAILPOINT`:
//! - `name` aborts the process the first time the point is reached, leaving
//!   the files exactly as a crash at that step would; `name@N` aborts on the
//!   N-th time instead;
//! - `name:stall-while=PATH` holds every thread that reaches the point for as
//!   long as the file `PATH` exists (a disk whose syncs hang), so a test
//!   decides when the stall begins and ends without guessing at durations.

#[cfg(any(feature = "failpoints", debug_assertions))]
mod armed {
    use std::path::PathBuf;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// What an armed point does.
    enum Action {
        AbortOnHit(u64),
        StallWhileExists(PathBuf),
    }

    fn parse(spec: &str) -> (String, Action) {
        if let Some((point, path)) = spec.split_once(":stall-while=") {
            return (point.to_string(), Action::StallWhileExists(path.into()));
        }
        match spec.split_once('@') {
            Some((point, nth)) => (
                point.to_string(),
                Action::AbortOnHit(nth.parse().unwrap_or(1)),
            ),
            None => (spec.to_string(), Action::AbortOnHit(1)),
        }
    }

    pub(crate) fn hit(name: &str) {
        static ARMED: OnceLock<Option<(String, Action)>> = OnceLock::new();
        static HITS: AtomicU64 = AtomicU64::new(0);
        let armed = ARMED.get_or_init(|| Some(parse(&std::env::var("CAIRN_FAILPOINT").ok()?)));
        let Some((point, action)) = armed else { return };
        if point != name {
            return;
        }
        match action {
            Action::AbortOnHit(nth) => {
                if HITS.fetch_add(1, Ordering::SeqCst) + 1 == *nth {
                    eprintln!("failpoint {name}: aborting");
                    std::process::abort();
                }
            }
            Action::StallWhileExists(path) => {
                if path.exists() {
                    eprintln!("failpoint {name}: stalled while {} exists", path.display());
                    while path.exists() {
                        std::thread::sleep(std::time::Duration::from_millis(5));
                    }
                }
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn specs_name_a_point_and_what_it_does() {
            assert!(
                matches!(parse("commit:before-sync"), (p, Action::AbortOnHit(1)) if p == "commit:before-sync")
            );
            assert!(
                matches!(parse("roll:sealed@7"), (p, Action::AbortOnHit(7)) if p == "roll:sealed")
            );
            let (point, action) = parse("commit:before-sync:stall-while=/tmp/x:y");
            assert_eq!(point, "commit:before-sync");
            assert!(
                matches!(action, Action::StallWhileExists(p) if p == std::path::Path::new("/tmp/x:y"))
            );
        }
    }
}

/// Aborts or stalls here if `CAIRN_FAILPOINT` arms `name` (see the module).
#[cfg(any(feature = "failpoints", debug_assertions))]
pub(crate) fn hit(name: &str) {
    armed::hit(name);
}

#[cfg(not(any(feature = "failpoints", debug_assertions)))]
#[inline(always)]
pub(crate) fn hit(_name: &str) {}
