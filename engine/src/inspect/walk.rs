//! Walking one segment's records front to back without opening an engine,
//! shared by the offline readers ([`crate::inspect::Log`] and `verify`): the
//! header, then each record whose checksum holds, and at a bad one what the
//! reader needs to judge it — where the next valid record is, or the torn
//! tail it would be. What a bad record means is the reader's to decide.

use std::path::Path;

use crate::codec::{FILE_HEADER_LEN, HeaderError, SEGMENT_MAGIC, decode_file_header};
use crate::error::Result;
use crate::inspect::records::TornTail;
use crate::inspect::stream::{Next, Stream, next_record, resync};

/// What a walk finds where it stands.
pub(crate) enum Step<'a> {
    /// A whole record (length prefix included) whose checksum holds; the
    /// walk has moved past it.
    Record { offset: u64, record: &'a [u8] },
    /// No valid record starts at `offset`. The walk stays there until told
    /// where to go on ([`SegmentWalk::skip_to`]).
    Bad { offset: u64, reason: &'static str },
    /// The file ends here, or only its zero fill follows.
    End,
}

/// One segment file, read record by record through a [`Stream`].
pub(crate) struct SegmentWalk<'p> {
    stream: Stream,
    /// Where the next record starts.
    pos: u64,
    max_body: usize,
    /// Told how many more bytes were read, now and then.
    progress: &'p dyn Fn(u64),
    /// Bytes read that `progress` has been told of.
    reported: u64,
}

impl<'p> SegmentWalk<'p> {
    /// A walk of `stream`'s records, which start after the file header.
    pub(crate) fn new(stream: Stream, max_body: usize, progress: &'p dyn Fn(u64)) -> Self {
        SegmentWalk {
            stream,
            pos: FILE_HEADER_LEN as u64,
            max_body,
            progress,
            reported: 0,
        }
    }

    /// The file's length when it was opened.
    pub(crate) fn len(&self) -> u64 {
        self.stream.len()
    }

    /// Where the walk stands: the next record, or the bad one it stopped at.
    pub(crate) fn offset(&self) -> u64 {
        self.pos
    }

    /// The segment id the file header names, or what is wrong with it.
    pub(crate) fn header(&mut self) -> Result<Result<u64, HeaderError>> {
        let head = self.stream.window(0, FILE_HEADER_LEN)?;
        Ok(decode_file_header(head, SEGMENT_MAGIC))
    }

    /// Reads what starts where the walk stands, moving past it if it is a
    /// valid record.
    pub(crate) fn step(&mut self) -> Result<Step<'_>> {
        self.report_progress();
        let offset = self.pos;
        Ok(
            match next_record(&mut self.stream, offset, self.max_body)? {
                Next::Record(record) => {
                    self.pos += record.len() as u64;
                    Step::Record { offset, record }
                }
                Next::Bad(reason) => Step::Bad { offset, reason },
                Next::End => Step::End,
            },
        )
    }

    /// Where the next valid record newer than `after_rev` starts, after the
    /// bad one the walk stands at; `None` when none follows.
    pub(crate) fn resync(&mut self, after_rev: u64) -> Result<Option<u64>> {
        resync(&mut self.stream, self.pos, self.max_body, after_rev)
    }

    /// Goes on from `offset` (a record [`SegmentWalk::resync`] found).
    pub(crate) fn skip_to(&mut self, offset: u64) {
        self.pos = offset;
    }

    /// Everything from where the walk stands to the end of the file, as the
    /// torn tail a bad record with nothing valid after it makes.
    pub(crate) fn torn_tail(&self, reason: &str) -> TornTail {
        TornTail {
            file: self.path().to_path_buf(),
            offset: self.pos,
            bytes: self.stream.len() - self.pos,
            reason: reason.to_string(),
        }
    }

    fn path(&self) -> &Path {
        self.stream.path()
    }

    /// Tells `progress` of the bytes read since it last heard.
    pub(crate) fn report_progress(&mut self) {
        let read = self.stream.bytes_read();
        if read > self.reported {
            (self.progress)(read - self.reported);
            self.reported = read;
        }
    }
}
