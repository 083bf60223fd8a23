//! The audit log file with kube's rotation (lumberjack's rules): a line
//! that would take the file past its size moves the file aside as
//! `<name>-<UTC time 2006-01-02T15-04-05.000><ext>` and starts a new one;
//! then backups beyond `maxbackup` (newest kept) and older than `maxage`
//! days (by the time in their name) are removed, and the rest gzipped
//! when asked.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::config::audit::Rotation;
use crate::util::time::{parse_rfc3339, rfc3339_micro};

/// An open log file that rotates itself.
pub struct RotatingFile {
    path: PathBuf,
    rotation: Rotation,
    out: Option<BufWriter<File>>,
    size: u64,
}

const DAY: Duration = Duration::from_secs(24 * 60 * 60);

fn open_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

impl RotatingFile {
    /// Opens (creating) the log at `path`; refused when it cannot be
    /// written, so a bad path stops the start.
    pub fn open(path: &Path, rotation: Rotation) -> io::Result<RotatingFile> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let file = open_append(path)?;
        let size = file.metadata()?.len();
        Ok(RotatingFile {
            path: path.to_path_buf(),
            rotation,
            out: Some(BufWriter::new(file)),
            size,
        })
    }

    /// Appends one line, rotating first when it would not fit.
    pub fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        let len = line.len() as u64;
        if len > self.rotation.max_bytes {
            return Err(io::Error::other(format!(
                "write length {len} exceeds maximum file size {}",
                self.rotation.max_bytes
            )));
        }
        if self.size + len > self.rotation.max_bytes {
            self.rotate()?;
        }
        let out = match &mut self.out {
            Some(out) => out,
            None => self.out.insert(BufWriter::new(open_append(&self.path)?)),
        };
        out.write_all(line)?;
        self.size += len;
        Ok(())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.as_mut().map_or(Ok(()), BufWriter::flush)
    }

    fn rotate(&mut self) -> io::Result<()> {
        if let Some(mut out) = self.out.take() {
            out.flush()?;
        }
        let backup = backup_name(&self.path, SystemTime::now());
        std::fs::rename(&self.path, &backup)?;
        self.out = Some(BufWriter::new(open_append(&self.path)?));
        self.size = 0;
        if let Err(e) = self.clean_backups() {
            tracing::warn!("cannot clean up rotated audit logs: {e}");
        }
        Ok(())
    }

    /// Removes backups beyond the count and age limits; gzips the rest if asked.
    fn clean_backups(&self) -> io::Result<()> {
        let mut backups = list_backups(&self.path)?;
        // Newest first.
        backups.sort_by_key(|b| std::cmp::Reverse(b.0));
        let mut keep = Vec::new();
        let oldest_kept = (self.rotation.max_age_days > 0)
            .then(|| {
                SystemTime::now().checked_sub(
                    DAY * u32::try_from(self.rotation.max_age_days).unwrap_or(u32::MAX),
                )
            })
            .flatten();
        for (i, (time, path)) in backups.into_iter().enumerate() {
            let too_many = self.rotation.max_backups > 0 && i >= self.rotation.max_backups;
            let too_old = oldest_kept.is_some_and(|limit| time < limit);
            if too_many || too_old {
                std::fs::remove_file(&path)?;
            } else {
                keep.push(path);
            }
        }
        if self.rotation.compress {
            for path in keep
                .iter()
                .filter(|p| p.extension().is_none_or(|e| e != "gz"))
            {
                gzip(path)?;
            }
        }
        Ok(())
    }
}

/// `dir/<stem>` and `<ext>` (with its dot) of the log's file name.
fn split_name(path: &Path) -> (String, String) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.rfind('.').filter(|&i| i > 0) {
        Some(i) => (name[..i].to_string(), name[i..].to_string()),
        None => (name, String::new()),
    }
}

/// `<dir>/<stem>-2006-01-02T15-04-05.000<ext>` in UTC.
#[must_use]
pub fn backup_name(path: &Path, at: SystemTime) -> PathBuf {
    let (stem, ext) = split_name(path);
    // 2026-11-26T09:01:50.123456Z → 2026-11-26T09-01-50.123
    let stamp = rfc3339_micro(at);
    let stamp = stamp[..23].replace(':', "-");
    path.with_file_name(format!("{stem}-{stamp}{ext}"))
}

/// The time in a backup's name, if it is one of this log's backups.
fn backup_time(path: &Path, name: &str) -> Option<SystemTime> {
    let (stem, ext) = split_name(path);
    let rest = name.strip_prefix(&stem)?.strip_prefix('-')?;
    let rest = rest.strip_suffix(".gz").unwrap_or(rest);
    let stamp = rest.strip_suffix(ext.as_str())?;
    if stamp.len() != 23 {
        return None;
    }
    let (date, clock) = stamp.split_at(10);
    parse_rfc3339(&format!("{date}{}Z", clock.replace('-', ":")))
}

fn list_backups(path: &Path) -> io::Result<Vec<(SystemTime, PathBuf)>> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(time) = backup_time(path, &name) {
            found.push((time, entry.path()));
        }
    }
    Ok(found)
}

fn gzip(path: &Path) -> io::Result<()> {
    let mut target = path.as_os_str().to_owned();
    target.push(".gz");
    let mut input = File::open(path)?;
    let mut encoder =
        flate2::write::GzEncoder::new(File::create(&target)?, flate2::Compression::default());
    io::copy(&mut input, &mut encoder)?;
    encoder.finish()?.sync_all()?;
    std::fs::remove_file(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rotation(max_bytes: u64, max_backups: usize) -> Rotation {
        Rotation {
            max_bytes,
            max_backups,
            max_age_days: 0,
            compress: false,
        }
    }

    #[test]
    fn backup_names_carry_the_utc_time_before_the_extension() {
        let at = parse_rfc3339("2026-11-26T09:01:50.123456Z").expect("time");
        let name = backup_name(Path::new("/var/log/audit.log"), at);
        assert_eq!(
            name,
            Path::new("/var/log/audit-2026-11-26T09-01-50.123.log")
        );
        let t = backup_time(
            Path::new("/var/log/audit.log"),
            "audit-2026-11-26T09-01-50.123.log.gz",
        );
        assert_eq!(t, parse_rfc3339("2026-11-26T09:01:50.123Z"));
        assert_eq!(
            backup_time(Path::new("audit.log"), "other-2026-11-26T09-01-50.123.log"),
            None
        );
    }

    #[test]
    fn rotates_at_the_size_and_keeps_max_backups() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("audit.log");
        // Two old backups that the limit of one must remove.
        for stamp in ["2020-01-01T00-00-00.000", "2020-01-02T00-00-00.000"] {
            std::fs::write(dir.path().join(format!("audit-{stamp}.log")), "old\n").expect("write");
        }
        let mut log = RotatingFile::open(&path, rotation(10, 1)).expect("open");
        log.write_line(b"12345\n").expect("write");
        log.write_line(b"67890\n").expect("write");
        log.flush().expect("flush");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "67890\n");
        let backups = list_backups(&path).expect("list");
        assert_eq!(backups.len(), 1, "{backups:?}");
        assert_eq!(
            std::fs::read_to_string(&backups[0].1).expect("read"),
            "12345\n"
        );
        assert!(
            log.write_line(&[b'x'; 11]).is_err(),
            "a line larger than the file"
        );
    }

    #[test]
    fn old_backups_go_by_age_and_the_rest_are_gzipped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("audit.log");
        let ancient = dir.path().join("audit-2020-01-01T00-00-00.000.log");
        std::fs::write(&ancient, "old\n").expect("write");
        let unrelated = dir.path().join("other.log");
        std::fs::write(&unrelated, "keep\n").expect("write");
        let settings = Rotation {
            max_age_days: 1,
            compress: true,
            ..rotation(10, 0)
        };
        let mut log = RotatingFile::open(&path, settings).expect("open");
        log.write_line(b"12345\n").expect("write");
        log.write_line(b"67890\n").expect("write");
        assert!(!ancient.exists(), "older than maxage");
        assert!(unrelated.exists(), "not a backup of this log");
        let backups = list_backups(&path).expect("list");
        assert_eq!(backups.len(), 1, "{backups:?}");
        let gz = &backups[0].1;
        assert_eq!(gz.extension().and_then(|e| e.to_str()), Some("gz"));
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::GzDecoder::new(File::open(gz).expect("open")),
            &mut text,
        )
        .expect("gunzip");
        assert_eq!(text, "12345\n");
    }
}
