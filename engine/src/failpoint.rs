//! Crash points for tests (feature `failpoints`): when the environment
//! variable `CAIRN_FAILPOINT` names a point, the process aborts there, leaving
//! the files exactly as a crash at that step would.

/// Aborts the process if `CAIRN_FAILPOINT` equals `name`.
#[cfg(feature = "failpoints")]
pub(crate) fn hit(name: &str) {
    static ARMED: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    if ARMED
        .get_or_init(|| std::env::var("CAIRN_FAILPOINT").ok())
        .as_deref()
        == Some(name)
    {
        eprintln!("failpoint {name}: aborting");
        std::process::abort();
    }
}

#[cfg(not(feature = "failpoints"))]
#[inline(always)]
pub(crate) fn hit(_name: &str) {}
