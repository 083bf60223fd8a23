//! PEM blocks as Kubernetes' certificate validation reads them: a sequence
//! of `-----BEGIN T-----` … `-----END T-----` blocks with nothing but
//! whitespace around them.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// One decoded block.
#[derive(Debug, PartialEq, Eq)]
pub struct Block {
    pub label: String,
    pub has_headers: bool,
    pub der: Vec<u8>,
}

/// Every block of `text`, or why it is not only PEM.
pub fn blocks(text: &str) -> Result<Vec<Block>, &'static str> {
    let mut out = Vec::new();
    let mut lines = text.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if line.is_empty() {
            continue;
        }
        let Some(label) = line
            .strip_prefix("-----BEGIN ")
            .and_then(|l| l.strip_suffix("-----"))
        else {
            return Err("data contains non-PEM content");
        };
        let end = format!("-----END {label}-----");
        let mut body = String::new();
        let mut has_headers = false;
        let mut closed = false;
        for line in lines.by_ref() {
            if line == end {
                closed = true;
                break;
            }
            if line.contains(':') {
                has_headers = true;
            } else {
                body.push_str(line);
            }
        }
        let der = STANDARD.decode(body.as_bytes()).ok().filter(|_| closed);
        let Some(der) = der else {
            return Err("data contains non-PEM content");
        };
        out.push(Block {
            label: label.to_string(),
            has_headers,
            der,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_read_and_anything_else_is_refused() {
        let two = "-----BEGIN A-----\nAAEC\n-----END A-----\n\n-----BEGIN B-----\nAw==\n-----END B-----\n";
        let read = blocks(two).expect("pem");
        assert_eq!(read.len(), 2);
        assert_eq!(read[0].der, [0, 1, 2]);
        assert_eq!(read[1].label, "B");
        assert!(blocks("hello").is_err());
        assert!(blocks("-----BEGIN A-----\nAAEC\n").is_err());
        assert!(blocks("-----BEGIN A-----\n!!\n-----END A-----").is_err());
        assert_eq!(blocks("").expect("empty"), []);
    }
}
