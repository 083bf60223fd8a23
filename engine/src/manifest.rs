//! The MANIFEST file: written whole to a temporary file, synced, and renamed
//! over the old one, so it is always either the old or the new list.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::codec::Manifest;
use crate::error::{Error, Result};
use crate::segment::writer::sync_dir;

pub(crate) const MANIFEST_FILE: &str = "MANIFEST";

pub(crate) fn manifest_path(dir: &Path) -> PathBuf {
    dir.join(MANIFEST_FILE)
}

/// Reads the manifest; `Ok(None)` when the directory has none yet.
pub(crate) fn read(dir: &Path) -> Result<Option<Manifest>> {
    let path = manifest_path(dir);
    match fs::read(&path) {
        Ok(buf) => Manifest::decode(&buf)
            .map(Some)
            .map_err(|(offset, reason)| Error::corrupt(&path, offset, reason)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("read", &path, e)),
    }
}

/// Replaces the manifest atomically and durably.
pub(crate) fn write(dir: &Path, manifest: &Manifest) -> Result<()> {
    let path = manifest_path(dir);
    let tmp = dir.join("MANIFEST.tmp");
    let mut f = File::create(&tmp).map_err(|e| Error::io("create", &tmp, e))?;
    f.write_all(&manifest.encode())
        .map_err(|e| Error::io("write", &tmp, e))?;
    f.sync_all().map_err(|e| Error::io("fsync", &tmp, e))?;
    crate::failpoint::hit("manifest:before-rename");
    fs::rename(&tmp, &path).map_err(|e| Error::io("rename", &path, e))?;
    sync_dir(dir)
}
