//! Positions in a source file: byte offsets to and from 1-based lines and columns, for every
//! language's mutants and for the code that places text into a file.

use proc_macro2::LineColumn;

/// Byte offsets of line starts, to turn `syn` spans (line, column) into byte offsets.
pub(crate) struct Lines(Vec<usize>);

impl Lines {
    pub(crate) fn new(text: &str) -> Lines {
        Lines(std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect())
    }

    pub(crate) fn offset(&self, text: &str, at: LineColumn) -> usize {
        let start = self.0.get(at.line.saturating_sub(1)).copied().unwrap_or(text.len());
        text[start..].char_indices().nth(at.column).map_or(text.len(), |(i, _)| start + i)
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (before.matches('\n').count() + 1, before[line_start..].chars().count() + 1)
}

/// Widens a byte range to whole lines when nothing else shares them, so a deleted match arm or
/// case leaves no blank line behind.
pub(crate) fn whole_lines(text: &str, (start, end): (usize, usize)) -> (usize, usize) {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    if text[line_start..start].trim().is_empty() && text[end..line_end].trim().is_empty() {
        (line_start, line_end)
    } else {
        (start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based_and_count_characters() {
        let t = "ab\né x";
        assert_eq!(line_column(t, 0), (1, 1));
        assert_eq!(line_column(t, 3), (2, 1));
        assert_eq!(line_column(t, 6), (2, 3));
    }
}
