//! Crash and stall points for tests (feature `failpoints`, and every debug
//! build so the black-box campaigns can reach them through the server
//! binary), armed by the environment variable `CAIRN_FAILPOINT`:
//! - `name` aborts the process the first time the point is reached, leaving
//!   the files exactly as a crash at that step would; `name@N` aborts on the
//!   N-th time instead;
//! - `name:stall-while=PATH` holds every thread that reaches the point for as
//!   long as the file `PATH` exists (a disk whose syncs hang), so a test
//!   decides when the stall begins and ends without guessing at durations;
//! - `name:eio` makes every I/O step guarded by the point fail with EIO from
//!   its first hit on (a disk whose fsync failed), and
//!   `name:enospc-while=PATH` fails it with ENOSPC while `PATH` exists (a
//!   full disk that a test frees by removing the file). Only points checked
//!   with [`io`] fail; [`hit`] ignores these actions.

#[cfg(any(feature = "failpoints", debug_assertions))]
mod armed {
    use std::path::PathBuf;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// What an armed point does.
    enum Action {
        AbortOnHit(u64),
        StallWhileExists(PathBuf),
        FailEio,
        NoSpaceWhileExists(PathBuf),
    }

    fn parse(spec: &str) -> (String, Action) {
        if let Some((point, path)) = spec.split_once(":stall-while=") {
            return (point.to_string(), Action::StallWhileExists(path.into()));
        }
        if let Some((point, path)) = spec.split_once(":enospc-while=") {
            return (point.to_string(), Action::NoSpaceWhileExists(path.into()));
        }
        if let Some(point) = spec.strip_suffix(":eio") {
            return (point.to_string(), Action::FailEio);
        }
        match spec.split_once('@') {
            Some((point, nth)) => (
                point.to_string(),
                Action::AbortOnHit(nth.parse().unwrap_or(1)),
            ),
            None => (spec.to_string(), Action::AbortOnHit(1)),
        }
    }

    fn armed(name: &str) -> Option<&'static Action> {
        static ARMED: OnceLock<Option<(String, Action)>> = OnceLock::new();
        let armed = ARMED.get_or_init(|| Some(parse(&std::env::var("CAIRN_FAILPOINT").ok()?)));
        armed
            .as_ref()
            .filter(|(point, _)| point == name)
            .map(|(_, action)| action)
    }

    pub(crate) fn io(name: &str) -> std::io::Result<()> {
        match armed(name) {
            Some(Action::FailEio) => {
                eprintln!("failpoint {name}: failing with EIO");
                Err(std::io::Error::from_raw_os_error(libc_errno::EIO))
            }
            Some(Action::NoSpaceWhileExists(path)) if path.exists() => {
                eprintln!("failpoint {name}: failing with ENOSPC");
                Err(std::io::Error::from_raw_os_error(libc_errno::ENOSPC))
            }
            _ => {
                hit(name);
                Ok(())
            }
        }
    }

    /// The two errno values the failing actions answer (Linux numbering).
    mod libc_errno {
        pub const EIO: i32 = 5;
        pub const ENOSPC: i32 = 28;
    }

    pub(crate) fn hit(name: &str) {
        static HITS: AtomicU64 = AtomicU64::new(0);
        let Some(action) = armed(name) else { return };
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
            Action::FailEio | Action::NoSpaceWhileExists(_) => {}
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
            assert!(
                matches!(parse("segment:seal-sync:eio"), (p, Action::FailEio) if p == "segment:seal-sync")
            );
            let (point, action) = parse("segment:create-write:enospc-while=/tmp/full");
            assert_eq!(point, "segment:create-write");
            assert!(
                matches!(action, Action::NoSpaceWhileExists(p) if p == std::path::Path::new("/tmp/full"))
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

/// The I/O step guarded by `name` fails here if `CAIRN_FAILPOINT` arms
/// `name:eio` or `name:enospc-while=PATH`; otherwise as [`hit`].
#[cfg(any(feature = "failpoints", debug_assertions))]
pub(crate) fn io(name: &str) -> std::io::Result<()> {
    armed::io(name)
}

#[cfg(not(any(feature = "failpoints", debug_assertions)))]
#[inline(always)]
pub(crate) fn io(_name: &str) -> std::io::Result<()> {
    Ok(())
}
