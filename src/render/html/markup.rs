//! Small pieces of markup every part of the HTML report uses: escaping text for HTML (and SVG),
//! shortening long texts, and printing numbers compactly. Nothing here knows the report.

/// `s` escaped for an HTML or SVG text node or a double-quoted attribute.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters (a function may return any text) are not allowed in HTML.
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// `s` cut to at most `n` characters, `…` marking the cut.
pub fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n.saturating_sub(1)).chain(['…']).collect()
    }
}

/// `s` shortened to `n` characters and escaped: the usual form of a value in the page.
pub fn esc_short(s: &str, n: usize) -> String {
    esc(&short(s, n))
}

/// A number for people: integers as integers, large or tiny ones in scientific notation,
/// others with up to 3 decimals; `∞` for an infinity.
pub fn num(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "∞".into() } else { "−∞".into() };
    }
    let a = v.abs();
    if a != 0.0 && !(1e-3..1e6).contains(&a) {
        return format!("{v:.2e}");
    }
    if v.fract() == 0.0 {
        return format!("{v:.0}");
    }
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A coordinate in an SVG, with one decimal.
pub fn px(v: f64) -> String {
    format!("{:.1}", v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_characters_and_controls_are_escaped() {
        assert_eq!(esc("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
        assert_eq!(esc("a\u{1b}[1mb\n"), "a\u{FFFD}[1mb\n");
    }

    #[test]
    fn numbers_read_compactly() {
        assert_eq!(num(1000.0), "1000");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(2147483647.0), "2.15e9");
        assert_eq!(num(f64::INFINITY), "∞");
        assert_eq!(short("abcdef", 4), "abc…");
    }
}
