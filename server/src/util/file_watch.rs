//! Noticing that a configuration file changed, by polling: its
//! modification time and length are compared first, then its contents, so
//! a touch without a change (or an editor's rewrite of the same bytes) is
//! not a change.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How often reloadable configuration files are looked at.
pub const POLL_INTERVAL: Duration = Duration::from_secs(2);

/// The last seen state of one file.
pub struct FileWatch {
    path: PathBuf,
    stamp: Option<(SystemTime, u64)>,
    contents: Option<Vec<u8>>,
}

impl FileWatch {
    /// Remembers the file as it is now.
    #[must_use]
    pub fn new(path: &Path) -> FileWatch {
        FileWatch {
            path: path.to_path_buf(),
            stamp: stamp(path),
            contents: std::fs::read(path).ok(),
        }
    }

    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file's contents differ from the last time this was
    /// asked. A file that became unreadable counts once, so the caller's
    /// reload fails and says why.
    pub fn changed(&mut self) -> bool {
        let now = stamp(&self.path);
        if now == self.stamp {
            return false;
        }
        self.stamp = now;
        let fresh = std::fs::read(&self.path).ok();
        if fresh.is_some() && fresh == self.contents {
            return false;
        }
        self.contents = fresh;
        true
    }
}

fn stamp(path: &Path) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_new_contents_are_a_change() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config");
        std::fs::write(&path, "one").expect("write");
        let mut watch = FileWatch::new(&path);
        assert!(!watch.changed());
        std::fs::write(&path, "two!").expect("write");
        assert!(watch.changed());
        assert!(!watch.changed());
        std::fs::write(&path, "two!").expect("write");
        assert!(!watch.changed(), "same bytes again");
        std::fs::remove_file(&path).expect("remove");
        assert!(watch.changed(), "a missing file is reported once");
        assert!(!watch.changed());
    }
}
