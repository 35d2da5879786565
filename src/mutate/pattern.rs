//! The `exclude_re` patterns that suppress mutants (from `.cargo/mutants.toml` or a
//! `#[mutants::exclude_re("…")]` attribute): regular expressions in the `regex` crate's syntax,
//! as cargo-mutants reads them, matched anywhere in the text.
//!
//! A pattern that is not a valid regex is matched as plain text (a substring), so that a pattern
//! such as `f(x` still suppresses what it names; [`Pattern::new`] says why it is not a regex, and
//! the rules loaded from `.cargo/mutants.toml` keep that as an [`InvalidPattern`] warning.

use std::path::PathBuf;

use regex::Regex;

/// One compiled `exclude_re` pattern.
#[derive(Clone, Debug)]
pub struct Pattern {
    text: String,
    /// `None` for a pattern that is not a valid regex: it is matched as plain text.
    regex: Option<Regex>,
}

impl Pattern {
    /// Compiles `text`. A pattern that is not a valid regex still works, as plain text; the
    /// error says why it is not a regex.
    pub fn new(text: &str) -> (Pattern, Option<regex::Error>) {
        match Regex::new(text) {
            Ok(regex) => (Pattern { text: text.to_string(), regex: Some(regex) }, None),
            Err(e) => (Pattern { text: text.to_string(), regex: None }, Some(e)),
        }
    }

    /// Whether the pattern matches anywhere in `text`.
    pub fn matches(&self, text: &str) -> bool {
        match &self.regex {
            Some(re) => re.is_match(text),
            None => text.contains(&self.text),
        }
    }
}

/// Whether `pattern` matches anywhere in `text` (a regex, or plain text when it is not a valid
/// regex). Compiles the pattern on every call: use [`Pattern`] to match one pattern often.
pub fn pattern_matches(pattern: &str, text: &str) -> bool {
    Pattern::new(pattern).0.matches(text)
}

/// An `exclude_re` pattern that is not a valid regex, and so is matched as plain text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the `exclude_re` pattern `{pattern}` in `{}` is not a valid regex ({reason}); it is matched as plain text\nhint: escape the characters to match literally with `\\`, as in `f\\(x`", file.display())]
pub struct InvalidPattern {
    /// The file that holds it (`.cargo/mutants.toml`).
    pub file: PathBuf,
    /// The pattern as written.
    pub pattern: String,
    /// Why it is not a regex, from the `regex` crate.
    pub reason: String,
}

impl InvalidPattern {
    /// The warning for `pattern` of `file`, which failed to compile with `error`.
    pub fn new(file: PathBuf, pattern: &str, error: &regex::Error) -> InvalidPattern {
        InvalidPattern { file, pattern: pattern.to_string(), reason: short_reason(error) }
    }
}

/// The last line of a `regex` error (`unclosed group`), without the pattern and caret lines
/// above it.
fn short_reason(error: &regex::Error) -> String {
    let text = error.to_string();
    let last = text.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
    last.trim().trim_start_matches("error: ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_regexes_matched_anywhere() {
        let cases = [
            ("with_capacity", "src/a.rs: replace `+` with `-` in with_capacity", true),
            ("^src/.*\\.rs: replace `<`", "src/date.rs: replace `<` with `<=`", true),
            ("^date::", "parse::date::f", false),
            ("(next|prev)_date$", "date::next_date", true),
            ("(?:next|prev)_date$", "date::next_dates", false),
            ("fmt|Debug", "impl Debug", true),
            ("[0-9]+ with [^0-9]", "replace 5 with x", true),
            ("[0-9]+ with [^0-9]", "replace 5 with 6", false),
            ("\\d{2,3}x", "a 123x", true),
            ("\\d{4}x", "a 123x", false),
            ("a\\w*z", "a_b9z", true),
            ("colou?r", "color", true),
            ("x(ab)*y", "xababy", true),
            ("x(a*)*y", "xy", true),
            ("a.b", "a\nb", false),
        ];
        for (p, t, want) in cases {
            assert_eq!(pattern_matches(p, t), want, "{p:?} on {t:?}");
        }
    }

    #[test]
    fn an_invalid_regex_is_matched_as_plain_text_and_says_why() {
        assert!(pattern_matches("f(x", "call f(x)"));
        assert!(!pattern_matches("f(x", "call fx"));
        let (p, error) = Pattern::new("f(x");
        assert!(p.matches("f(x)"));
        let warning = InvalidPattern::new(".cargo/mutants.toml".into(), "f(x", &error.unwrap());
        assert_eq!(warning.reason, "unclosed group");
        assert_eq!(
            warning.to_string(),
            "the `exclude_re` pattern `f(x` in `.cargo/mutants.toml` is not a valid regex \
             (unclosed group); it is matched as plain text\n\
             hint: escape the characters to match literally with `\\`, as in `f\\(x`"
        );
        assert!(Pattern::new("(next|prev)_date$").1.is_none());
    }
}
