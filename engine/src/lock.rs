//! The data directory's exclusive write lock (an advisory lock on `LOCK`,
//! released by the kernel when the holder exits, however it exits).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::{Error, Result};

pub(crate) const LOCK_FILE: &str = "LOCK";
/// How long a lock last taken by this very process is waited for.
const OWN_LOCK_PATIENCE: Duration = Duration::from_secs(2);
const OWN_LOCK_POLL: Duration = Duration::from_millis(10);

/// Held for as long as the engine is open for writing.
#[derive(Debug)]
pub(crate) struct DirLock {
    _file: File,
}

impl DirLock {
    pub(crate) fn acquire(dir: &Path) -> Result<DirLock> {
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::io("open", &path, e))?;
        let mut waited = Duration::ZERO;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) => {
                    let holder = holder_of(&path).unwrap_or_else(|| "unknown holder".into());
                    // The lock follows the open file, which a child this
                    // process is spawning shares until it execs: a lock
                    // this process just released may still be held for
                    // a moment. Another holder is refused at once.
                    if waited >= OWN_LOCK_PATIENCE || !held_by_this_process(&holder) {
                        return Err(Error::Locked {
                            holder,
                            lock_file: path,
                        });
                    }
                    std::thread::sleep(OWN_LOCK_POLL);
                    waited += OWN_LOCK_POLL;
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(Error::io("lock", &path, e)),
            }
        }
        let since = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let note = format!("pid {} since unix time {since}\n", std::process::id());
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(note.as_bytes()))
            .map_err(|e| Error::io("write", &path, e))?;
        Ok(DirLock { _file: file })
    }
}

/// What the current holder wrote into the lock file, if anyone holds it.
pub fn lock_holder(dir: &Path) -> Option<String> {
    let path: PathBuf = dir.join(LOCK_FILE);
    let file = File::open(&path).ok()?;
    match file.try_lock_shared() {
        Ok(()) => None,
        Err(_) => holder_of(&path),
    }
}

/// Whether the lock file's note names this process.
fn held_by_this_process(holder: &str) -> bool {
    holder
        .strip_prefix("pid ")
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|pid| pid.parse::<u32>().ok())
        == Some(std::process::id())
}

fn holder_of(path: &Path) -> Option<String> {
    let mut s = String::new();
    File::open(path).ok()?.read_to_string(&mut s).ok()?;
    Some(s.trim().to_string()).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_this_processs_note_counts_as_its_own() {
        let own = format!("pid {} since unix time 1795833602", std::process::id());
        assert!(held_by_this_process(&own));
        assert!(!held_by_this_process("pid 1 since unix time 1795833602"));
        assert!(!held_by_this_process("unknown holder"));
    }

    #[test]
    fn a_lock_held_in_this_process_is_refused_after_a_short_wait() {
        let dir = tempfile::tempdir().expect("tempdir");
        let held = DirLock::acquire(dir.path()).expect("first");
        assert!(matches!(
            DirLock::acquire(dir.path()),
            Err(Error::Locked { .. })
        ));
        drop(held);
        DirLock::acquire(dir.path()).expect("free again");
    }
}
