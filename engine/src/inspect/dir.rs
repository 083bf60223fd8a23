//! What a data directory holds, read without opening an engine: the manifest
//! (if it decodes) and the engine files present, by kind.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::codec::Manifest;
use crate::error::{Error, Result};
use crate::manifest;

/// The engine files found in a data directory.
pub(crate) struct Listing {
    /// The decoded manifest: `Ok(None)` when there is none.
    pub manifest: Result<Option<Manifest>>,
    /// `{id:016x}.seg` files by id.
    pub segments: BTreeMap<u64, PathBuf>,
    /// `{id:016x}.idx` files by id.
    pub sidecars: BTreeMap<u64, PathBuf>,
    /// `*.tmp` files (never valid; deleted by a writable open).
    pub temporary: Vec<PathBuf>,
}

/// The id of a file named `{id:016x}{ext}`.
pub(crate) fn id_of(name: &str, ext: &str) -> Option<u64> {
    let stem = name.strip_suffix(ext)?;
    (stem.len() == 16)
        .then(|| u64::from_str_radix(stem, 16).ok())
        .flatten()
}

/// Lists `dir`. Fails only when the directory itself cannot be read.
pub(crate) fn list(dir: &Path) -> Result<Listing> {
    let entries = fs::read_dir(dir).map_err(|e| Error::io("read directory", dir, e))?;
    let mut out = Listing {
        manifest: manifest::read(dir),
        segments: BTreeMap::new(),
        sidecars: BTreeMap::new(),
        temporary: Vec::new(),
    };
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("read directory", dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(id) = id_of(&name, ".seg") {
            out.segments.insert(id, entry.path());
        } else if let Some(id) = id_of(&name, ".idx") {
            out.sidecars.insert(id, entry.path());
        } else if name.ends_with(".tmp") {
            out.temporary.push(entry.path());
        }
    }
    out.temporary.sort();
    Ok(out)
}

/// Refuses a path that is not a cairn data directory, as
/// [`crate::Engine::open_read_only`] does.
pub(crate) fn require_data_dir(dir: &Path, listing: &Listing) -> Result<()> {
    if matches!(listing.manifest, Ok(None)) && listing.segments.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{} is not a cairn data directory (no MANIFEST)",
            dir.display()
        )));
    }
    Ok(())
}

/// Opens `dir` for listing, refusing what is not a directory.
pub(crate) fn list_data_dir(dir: &Path) -> Result<Listing> {
    if !dir.is_dir() {
        return Err(Error::io(
            "open",
            dir,
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such directory"),
        ));
    }
    let listing = list(dir)?;
    require_data_dir(dir, &listing)?;
    Ok(listing)
}
