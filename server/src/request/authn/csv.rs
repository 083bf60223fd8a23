//! Comma-separated records read as Go's `encoding/csv` reads them with its
//! defaults (what kube-apiserver's `--token-auth-file` reader uses):
//! RFC 4180 quoting (`""` is a quote inside a quoted field, quoted fields
//! may span lines), `\r\n` read as `\n`, empty lines skipped, no comment
//! lines, spaces kept, any number of fields per record. A bare quote in an
//! unquoted field or a stray one after a quoted field is an error that
//! names the line and column, never the field's text.

use std::fmt;

/// One record and the line it starts on.
#[derive(Debug, PartialEq, Eq)]
pub struct Record {
    pub fields: Vec<String>,
    pub line: usize,
}

/// Why the text is not CSV, and where (1-based line and byte column).
#[derive(Debug, PartialEq, Eq)]
pub struct ParseError {
    pub start_line: usize,
    pub line: usize,
    pub column: usize,
    pub bare_quote: bool,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.bare_quote {
            "bare \" in non-quoted-field"
        } else {
            "extraneous or missing \" in quoted-field"
        };
        if self.start_line != self.line {
            write!(f, "record on line {}; ", self.start_line)?;
        }
        write!(
            f,
            "parse error on line {}, column {}: {what}",
            self.line, self.column
        )
    }
}

/// Reads records one by one.
pub struct Reader<'a> {
    text: &'a [u8],
    pos: usize,
    line: usize,
    /// Where the current line starts, for error columns.
    line_start: usize,
}

impl<'a> Reader<'a> {
    #[must_use]
    pub fn new(text: &'a str) -> Reader<'a> {
        Reader {
            text: text.as_bytes(),
            pos: 0,
            line: 1,
            line_start: 0,
        }
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.text.get(self.pos + ahead).copied()
    }

    /// The length of a line end at the cursor (`\n` or `\r\n`), 0 if none.
    fn line_end(&self) -> usize {
        match (self.peek(0), self.peek(1)) {
            (Some(b'\n'), _) => 1,
            (Some(b'\r'), Some(b'\n')) => 2,
            // Go drops a `\r` that ends the file.
            (Some(b'\r'), None) => 1,
            _ => 0,
        }
    }

    fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    fn next_line(&mut self, end_len: usize) {
        self.pos += end_len;
        self.line += 1;
        self.line_start = self.pos;
    }

    fn column(&self) -> usize {
        self.pos - self.line_start + 1
    }

    fn text_between(&self, from: usize, to: usize) -> &'a str {
        // Splits happen only at ASCII bytes, so every piece is UTF-8.
        std::str::from_utf8(&self.text[from..to]).unwrap_or_default()
    }

    /// An unquoted field, up to a comma or the line's end.
    fn unquoted(&mut self, start_line: usize) -> Result<String, ParseError> {
        let from = self.pos;
        while !self.at_end() && self.peek(0) != Some(b',') && self.line_end() == 0 {
            if self.peek(0) == Some(b'"') {
                return Err(ParseError {
                    start_line,
                    line: self.line,
                    column: self.column(),
                    bare_quote: true,
                });
            }
            self.pos += 1;
        }
        Ok(self.text_between(from, self.pos).to_string())
    }

    /// A quoted field, the cursor on its opening quote; leaves the cursor
    /// after the closing quote.
    fn quoted(&mut self, start_line: usize) -> Result<String, ParseError> {
        self.pos += 1;
        let mut field = String::new();
        loop {
            let from = self.pos;
            while !self.at_end() && self.peek(0) != Some(b'"') && self.line_end() == 0 {
                self.pos += 1;
            }
            field.push_str(self.text_between(from, self.pos));
            if self.at_end() {
                return Err(ParseError {
                    start_line,
                    line: self.line,
                    column: self.column(),
                    bare_quote: false,
                });
            }
            let end = self.line_end();
            if end > 0 {
                field.push('\n');
                self.next_line(end);
                continue;
            }
            // On a quote: an escaped quote, or the field's end.
            if self.peek(1) == Some(b'"') {
                field.push('"');
                self.pos += 2;
                continue;
            }
            self.pos += 1;
            let follows_well = self.at_end() || self.peek(0) == Some(b',') || self.line_end() > 0;
            if !follows_well {
                return Err(ParseError {
                    start_line,
                    line: self.line,
                    column: self.column() - 1,
                    bare_quote: false,
                });
            }
            return Ok(field);
        }
    }
}

impl Iterator for Reader<'_> {
    type Item = Result<Record, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.at_end() {
                return None;
            }
            let end = self.line_end();
            if end == 0 {
                break;
            }
            self.next_line(end);
        }
        let start_line = self.line;
        let mut fields = Vec::new();
        loop {
            let field = if self.peek(0) == Some(b'"') {
                self.quoted(start_line)
            } else {
                self.unquoted(start_line)
            };
            match field {
                Ok(f) => fields.push(f),
                Err(e) => {
                    // Nothing more is read after an error.
                    self.pos = self.text.len();
                    return Some(Err(e));
                }
            }
            if self.peek(0) == Some(b',') {
                self.pos += 1;
                continue;
            }
            let end = self.line_end();
            if end > 0 {
                self.next_line(end);
            }
            return Some(Ok(Record {
                fields,
                line: start_line,
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Vec<Vec<String>>, String> {
        Reader::new(text)
            .map(|r| r.map(|r| r.fields))
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())
    }

    fn rows(rows: &[&[&str]]) -> Result<Vec<Vec<String>>, String> {
        Ok(rows
            .iter()
            .map(|r| r.iter().map(|f| (*f).to_string()).collect())
            .collect())
    }

    #[test]
    fn fields_records_and_empty_lines() {
        assert_eq!(
            read("a,b,c\n\n\r\nd, e ,\"f,g\"\r\nlast,x"),
            rows(&[&["a", "b", "c"], &["d", " e ", "f,g"], &["last", "x"]])
        );
        assert_eq!(read(""), rows(&[]));
        assert_eq!(read("a,,\n"), rows(&[&["a", "", ""]]));
        // No comment lines in Go's defaults: `#` is text.
        assert_eq!(read("# x,y,z\n"), rows(&[&["# x", "y", "z"]]));
        // A line of spaces is a record of one field.
        assert_eq!(read("  \n"), rows(&[&["  "]]));
    }

    #[test]
    fn quoted_fields_escape_quotes_and_span_lines() {
        assert_eq!(
            read("\"say \"\"hi\"\"\",\"two\r\nlines\",x\ny,z,w"),
            rows(&[&["say \"hi\"", "two\nlines", "x"], &["y", "z", "w"]])
        );
        let records: Vec<usize> = Reader::new("\"a\nb\",c\nd\n")
            .map(|r| r.expect("valid").line)
            .collect();
        assert_eq!(records, [1, 3]);
    }

    #[test]
    fn stray_quotes_are_errors_with_a_place() {
        assert_eq!(
            read("ok,1,2\nab\"c,d"),
            Err("parse error on line 2, column 3: bare \" in non-quoted-field".into())
        );
        assert_eq!(
            read("\"ab\"c,d"),
            Err("parse error on line 1, column 4: extraneous or missing \" in quoted-field".into())
        );
        assert_eq!(
            read("x\n\"open\nnever closed"),
            Err("record on line 2; parse error on line 3, column 13: extraneous or missing \" in quoted-field".into())
        );
    }
}
