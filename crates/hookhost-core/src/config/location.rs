//! Where in a configuration file something is: a line and a character column, found from a
//! byte offset.

use std::fmt;

/// A 1-based line and column (in characters) in a configuration file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Location {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
}

impl Location {
    /// The location of byte `offset` in `text` (for one location; many go through one
    /// line index).
    pub fn of_offset(text: &str, offset: usize) -> Location {
        LineIndex::new(text).locate(offset)
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// The start of every line of a text, for locating byte offsets in O(log n).
#[derive(Debug)]
pub struct LineIndex<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> LineIndex<'t> {
    pub(crate) fn new(text: &'t str) -> LineIndex<'t> {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, byte)| *byte == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { text, starts }
    }

    /// The 1-based line and character column of byte `offset`.
    pub fn locate(&self, offset: usize) -> Location {
        let offset = self.text.floor_char_boundary(offset.min(self.text.len()));
        let line = self.starts.partition_point(|&start| start <= offset);
        let line_start = self.starts[line - 1];
        Location {
            line,
            column: self.text[line_start..offset].chars().count() + 1,
        }
    }
}
