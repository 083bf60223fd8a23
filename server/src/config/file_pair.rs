//! A certificate flag and its key flag (`--x-cert-file`, `--x-key-file`):
//! given both or neither, read whole, every error one line naming the flag
//! and never holding the files' contents.

use std::path::Path;

/// The two flags and what they were given.
pub struct FilePair<'a> {
    pub cert_flag: &'static str,
    pub cert: Option<&'a Path>,
    pub key_flag: &'static str,
    pub key: Option<&'a Path>,
}

/// Both files' bytes and paths.
pub struct PairRead<'a> {
    pub cert: Vec<u8>,
    pub key: Vec<u8>,
    pub cert_path: &'a Path,
    pub key_path: &'a Path,
}

impl<'a> FilePair<'a> {
    /// `None` when neither flag is given.
    pub fn read(&self) -> Result<Option<PairRead<'a>>, String> {
        let (cert_path, key_path) = match (self.cert, self.key) {
            (None, None) => return Ok(None),
            (Some(c), Some(k)) => (c, k),
            (Some(_), None) => {
                return Err(format!(
                    "{}: required with {}",
                    self.key_flag, self.cert_flag
                ));
            }
            (None, Some(_)) => {
                return Err(format!(
                    "{}: required with {}",
                    self.cert_flag, self.key_flag
                ));
            }
        };
        let read = |flag: &str, path: &Path| {
            std::fs::read(path).map_err(|e| format!("{flag}: {}: {e}", path.display()))
        };
        Ok(Some(PairRead {
            cert: read(self.cert_flag, cert_path)?,
            key: read(self.key_flag, key_path)?,
            cert_path,
            key_path,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair<'a>(cert: Option<&'a Path>, key: Option<&'a Path>) -> FilePair<'a> {
        FilePair {
            cert_flag: "--x-cert-file",
            cert,
            key_flag: "--x-key-file",
            key,
        }
    }

    #[test]
    fn both_or_neither() {
        let here = Path::new("/nonexistent/x");
        assert!(pair(None, None).read().expect("neither").is_none());
        let e = pair(Some(here), None).read().err().expect("refused");
        assert_eq!(e, "--x-key-file: required with --x-cert-file");
        let e = pair(None, Some(here)).read().err().expect("refused");
        assert_eq!(e, "--x-cert-file: required with --x-key-file");
        let e = pair(Some(here), Some(here))
            .read()
            .err()
            .expect("unreadable");
        assert!(e.starts_with("--x-cert-file: /nonexistent/x: "), "{e}");
    }
}
