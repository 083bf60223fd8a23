//! The data directory's exclusive write lock (an advisory lock on `LOCK`,
//! released by the kernel when the holder exits, however it exits).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{Error, Result};

pub(crate) const LOCK_FILE: &str = "LOCK";

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
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(Error::Locked {
                    holder: holder_of(&path).unwrap_or_else(|| "unknown holder".into()),
                    lock_file: path,
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(Error::io("lock", &path, e)),
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

fn holder_of(path: &Path) -> Option<String> {
    let mut s = String::new();
    File::open(path).ok()?.read_to_string(&mut s).ok()?;
    Some(s.trim().to_string()).filter(|s| !s.is_empty())
}
