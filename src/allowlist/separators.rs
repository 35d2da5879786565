//! Characters on which two readers of "the same" source text disagree about where a line (and
//! so a comment) ends: tree-sitter-python ends a comment at `\n` only, CPython's tokenizer at a
//! lone `\r` too, so `x = 0  # note\r    import os` is a comment to the one that checks model code
//! and a statement to the one that runs it. Form feed and vertical tab (whitespace with effects
//! on indentation), NUL, NEL (U+0085) and the Unicode line and paragraph separators (U+2028,
//! U+2029) are further such characters. Model-written code holding any of them is refused before
//! it is read at all, in both languages: no honest mutant or test needs one.

/// The characters refused, with their names for the refusal.
const REFUSED: &[(char, &str)] = &[
    ('\r', "a carriage return (U+000D)"),
    ('\u{0b}', "a vertical tab (U+000B)"),
    ('\u{0c}', "a form feed (U+000C)"),
    ('\0', "a NUL byte (U+0000)"),
    ('\u{85}', "a next-line character (U+0085)"),
    ('\u{2028}', "a line separator (U+2028)"),
    ('\u{2029}', "a paragraph separator (U+2029)"),
];

/// Refuses `text` when it holds a character of [`REFUSED`], naming the first one and its line.
pub fn check_line_ends(text: &str) -> Result<(), String> {
    for (i, line) in text.split('\n').enumerate() {
        if let Some((_, name)) = line.chars().find_map(|c| REFUSED.iter().find(|(r, _)| *r == c)) {
            return Err(format!(
                "it holds {name} on its line {}: a character that the checker and the \
                 interpreter or compiler may not agree on as a line end, so it is refused unread",
                i + 1
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_line_ends;

    #[test]
    fn every_disputed_line_end_is_refused_and_plain_text_passes() {
        for c in ['\r', '\u{0b}', '\u{0c}', '\0', '\u{85}', '\u{2028}', '\u{2029}'] {
            let text = format!("def f():\n    x = 1  # a{c}b\n");
            let e = check_line_ends(&text).unwrap_err();
            assert!(e.contains("its line 2") && e.contains(&format!("U+{:04X}", c as u32)), "{e}");
        }
        assert_eq!(check_line_ends("def f():\n\treturn 'é → ✓'\n"), Ok(()));
    }
}
