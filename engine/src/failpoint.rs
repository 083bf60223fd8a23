//! Crash points for tests (feature `failpoints`, and every debug build so
//! the black-box crash campaign can reach them through the server binary):
//! when the environment variable `CAIRN_FAILPOINT` names a point, the process
//! aborts there, leaving the files exactly as a crash at that step would.
//! `name@N` aborts on the N-th time the point is reached instead of the first.

/// Aborts the process if `CAIRN_FAILPOINT` names `name` and this is the
/// armed hit.
#[cfg(any(feature = "failpoints", debug_assertions))]
pub(crate) fn hit(name: &str) {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};
    static ARMED: OnceLock<Option<(String, u64)>> = OnceLock::new();
    static HITS: AtomicU64 = AtomicU64::new(0);
    let armed = ARMED.get_or_init(|| {
        let spec = std::env::var("CAIRN_FAILPOINT").ok()?;
        Some(match spec.split_once('@') {
            Some((point, nth)) => (point.to_string(), nth.parse().unwrap_or(1)),
            None => (spec, 1),
        })
    });
    if let Some((point, nth)) = armed
        && point == name
        && HITS.fetch_add(1, Ordering::SeqCst) + 1 == *nth
    {
        eprintln!("failpoint {name}: aborting");
        std::process::abort();
    }
}

#[cfg(not(any(feature = "failpoints", debug_assertions)))]
#[inline(always)]
pub(crate) fn hit(_name: &str) {}
