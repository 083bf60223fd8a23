//! A small filesystem of the test's own (tmpfs with a size limit), so the
//! data directory can run out of space without touching the machine's disk.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A mounted tmpfs, unmounted when dropped.
pub struct SmallFs {
    pub path: PathBuf,
}

impl SmallFs {
    /// Mounts a tmpfs of `megabytes` at `path`; `None` where the machine
    /// forbids mounting (not root, no CAP_SYS_ADMIN, a locked container).
    pub fn mount(path: &Path, megabytes: u64) -> Option<SmallFs> {
        std::fs::create_dir_all(path).expect("mount point");
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"])
            .arg(path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        mounted.then(|| SmallFs {
            path: path.to_path_buf(),
        })
    }

    /// Writes a file of zeros until the filesystem is full; returns its path.
    pub fn fill(&self) -> PathBuf {
        use std::io::Write;
        let filler = self.path.join("filler");
        let mut file = std::fs::File::create(&filler).expect("filler");
        let chunk = vec![0u8; 64 << 10];
        loop {
            match file.write(&chunk) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(28) => break,
                Err(e) => panic!("filling {}: {e}", filler.display()),
            }
        }
        filler
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(&self.path)
            .stderr(Stdio::null())
            .status();
    }
}
