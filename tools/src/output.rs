//! Writing results to stdout: aligned tables, JSON documents, JSON lines and
//! raw bytes, with write errors returned (a closed pipe is not a panic).

use std::io::{self, BufWriter, Write};

use comfy_table::presets::NOTHING;
use comfy_table::{Cell, CellAlignment, ContentArrangement, Table};
use serde_json::Value;

/// Buffered stdout (or, in tests, any writer).
pub struct Out {
    w: BufWriter<Box<dyn Write>>,
}

impl Out {
    pub fn new() -> Out {
        Out::to(Box::new(io::stdout()))
    }

    pub fn to(w: Box<dyn Write>) -> Out {
        Out {
            w: BufWriter::with_capacity(1 << 16, w),
        }
    }

    pub fn line(&mut self, s: impl std::fmt::Display) -> io::Result<()> {
        writeln!(self.w, "{s}")
    }

    /// One pretty-printed JSON document.
    pub fn json(&mut self, v: &Value) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut self.w, v)?;
        writeln!(self.w)
    }

    /// One JSON value on one line.
    pub fn json_line(&mut self, v: &Value) -> io::Result<()> {
        serde_json::to_writer(&mut self.w, v)?;
        writeln!(self.w)
    }

    pub fn table(&mut self, t: &Table) -> io::Result<()> {
        for line in t.lines() {
            writeln!(self.w, "{}", line.trim_end())?;
        }
        Ok(())
    }

    pub fn bytes(&mut self, b: &[u8]) -> io::Result<()> {
        self.w.write_all(b)
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// A borderless table with a header row (kubectl's look); `right` lists the
/// columns to align right (numbers).
pub fn table(header: &[&str], right: &[usize]) -> Table {
    let mut t = Table::new();
    t.load_style(NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header.iter().map(Cell::new));
    for (i, col) in t.column_iter_mut().enumerate() {
        col.set_padding((0, 2));
        if right.contains(&i) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    t
}

/// A two-column table of named values, without a header.
pub fn fields(rows: Vec<(&str, String)>) -> Table {
    let mut t = Table::new();
    t.load_style(NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled);
    for (k, v) in rows {
        t.add_row(vec![Cell::new(k), Cell::new(v)]);
    }
    for col in t.column_iter_mut() {
        col.set_padding((0, 2));
    }
    t
}
