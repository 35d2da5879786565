//! Inert text: everything a report holds came from the pull request (names, file paths, values
//! its code returned, its test output) or from a model (descriptions, tests), so every surface
//! shows it as data, never as markup or control. For Markdown (review comments, `summary.md`, the
//! job summary): values as code spans or code blocks whose fence outgrows any backtick run
//! inside, free text with its HTML, mentions, links, images and emphasis escaped, all of it on
//! one line and capped. For the terminal and workflow commands: control characters (ESC, OSC,
//! `\r`, bidirectional overrides) written out as `\u{…}` escapes. The renderers call these
//! functions for every value they take from a report.

/// The longest code span or line of free text, in characters.
pub const MAX_INLINE: usize = 200;

/// The longest code block, in characters.
pub const MAX_BLOCK: usize = 20_000;

/// Whether `c` controls a terminal or the layout of text rather than being shown: C0 and C1
/// controls, DEL, the line and paragraph separators, and the bidirectional embeddings,
/// overrides and isolates (which can make text read in another order than it runs).
fn is_control(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// `s` with every control character written as a `\u{…}` escape; a tab and, unless `one_line`,
/// a newline stay as they are (on one line a newline is written `\n`).
pub fn escape_controls(s: &str, one_line: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' => out.push(c),
            '\n' if !one_line => out.push(c),
            '\n' => out.push_str("\\n"),
            c if is_control(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// `s` cut to `max` characters, the cut marked with `…`.
pub fn cap(s: &str, max: usize) -> String {
    super::html::markup::short(s, max)
}

/// Text for the terminal or a log: one line, controls escaped, at most `max` characters.
pub fn terminal(s: &str, max: usize) -> String {
    cap(&escape_controls(s, true), max)
}

fn longest_backtick_run(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Markdown inline code of `s`: one line, controls escaped, capped, delimited by more backticks
/// than any run inside (and padded when it starts or ends with one or with a space). Inside a
/// code span Markdown, HTML, mentions and links are shown, not interpreted. (Not for a table
/// cell, where a `|` would end the cell.)
pub fn code_span(s: &str) -> String {
    let s = cap(&escape_controls(s, true), MAX_INLINE);
    let ticks = longest_backtick_run(&s);
    let fence = "`".repeat(ticks + 1);
    if s.is_empty() {
        return "` `".into();
    }
    if ticks > 0 || s.starts_with(' ') || s.ends_with(' ') {
        format!("{fence} {s} {fence}")
    } else {
        format!("{fence}{s}{fence}")
    }
}

/// A Markdown code block of `text` in `lang`, its fence longer than any backtick run inside
/// (at least three), controls other than newlines and tabs escaped, capped at [`MAX_BLOCK`].
/// `lang` keeps only the characters a language name has.
pub fn fenced(lang: &str, text: &str) -> String {
    let text = cap(&escape_controls(text.trim_end_matches('\n'), false), MAX_BLOCK);
    let fence = "`".repeat((longest_backtick_run(&text) + 1).max(3));
    let lang: String = lang
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-'))
        .collect();
    format!("{fence}{lang}\n{text}\n{fence}\n")
}

/// Text inside HTML (a `<summary>` of a `<details>` block): one line, controls escaped, capped at
/// `max` characters, `&`, `<`, `>`, quotes, brackets and backticks as entities (should Markdown
/// be read there after all) and mentions and bare links broken.
pub fn html_text(s: &str, max: usize) -> String {
    let s = super::html::markup::esc(&cap(&escape_controls(s, true), max));
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '[' => out.push_str("&#91;"),
            ']' => out.push_str("&#93;"),
            '`' => out.push_str("&#96;"),
            '@' => out.push_str("@&#8203;"),
            c => out.push(c),
        }
    }
    out.replace("://", ":&#8203;//").replace("www.", "www&#8203;.")
}

/// Free text as inert Markdown on one line: its backtick-quoted parts (``replace `>=` with
/// `>` ``) become [`code_span`]s, the rest is escaped: HTML (`<`, `>`, `&`), Markdown's
/// punctuation (emphasis, links, images, tables, escapes; a heading, list or quote marker that
/// starts it), mentions (`@name` gets a zero-width space after the `@`) and bare links
/// (`https://`, `www.`). Capped at `max` characters of the text before escaping.
pub fn markdown_text(s: &str, max: usize) -> String {
    let s = cap(&escape_controls(s, true), max);
    let mut out = String::with_capacity(s.len() + 16);
    for (i, part) in s.split('`').enumerate() {
        // Odd parts sit between backticks; a last odd part with no closing backtick is text.
        let closed = i % 2 == 1 && s.matches('`').count() > i;
        if closed {
            out.push_str(&code_span(part));
            continue;
        }
        if i % 2 == 1 {
            out.push_str("\\`");
        }
        let part = part.replace("://", ":\u{200b}//").replace("www.", "www\u{200b}.");
        for c in part.chars() {
            match c {
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '&' => out.push_str("&amp;"),
                '@' => out.push_str("@&#8203;"),
                '\\' | '*' | '_' | '[' | ']' | '!' | '|' | '~' => {
                    out.push('\\');
                    out.push(c);
                }
                // At the start of a line these open a heading, a list or a setext underline.
                '#' | '-' | '+' | '=' if out.is_empty() => {
                    out.push('\\');
                    out.push(c);
                }
                '\u{200b}' => out.push_str("&#8203;"),
                c => out.push(c),
            }
        }
    }
    // `1. ` or `1) ` at the start would open an ordered list.
    let digits = out.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && matches!(out[digits..].chars().next(), Some('.' | ')')) {
        out.insert(digits, '\\');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_written_out_for_the_terminal() {
        assert_eq!(terminal("a\x1b[2Jb\rc\nd", 80), "a\\u{1b}[2Jb\\u{d}c\\nd");
        assert_eq!(terminal("\x1b]52;c;ZXZpbA==\x07", 80), "\\u{1b}]52;c;ZXZpbA==\\u{7}");
        assert_eq!(terminal("abc\u{202e}def", 80), "abc\\u{202e}def");
        assert_eq!(terminal("abcdef", 4), "abc…");
        assert_eq!(escape_controls("a\nb\tc", false), "a\nb\tc");
    }

    #[test]
    fn code_spans_and_fences_outgrow_the_backticks_inside() {
        assert_eq!(code_span("a`b"), "`` a`b ``");
        assert_eq!(code_span("x\ny"), "`x\\ny`");
        assert_eq!(code_span("<img src=x> @org/team"), "`<img src=x> @org/team`");
        assert!(code_span(&"x".repeat(500)).chars().count() < MAX_INLINE + 4);
        let block = fenced("python", "s = '```'\n````\n");
        assert!(block.starts_with("`````python\n") && block.ends_with("\n`````\n"), "{block}");
        assert_eq!(fenced("rust\n# x", "a\x1bb"), "```rustx\na\\u{1b}b\n```\n");
    }

    #[test]
    fn text_inside_html_is_entities() {
        assert_eq!(
            html_text("<img src=\"x\"> @a & b\n", 80),
            "&lt;img src=&quot;x&quot;&gt; @&#8203;a &amp; b\\n"
        );
    }

    #[test]
    fn free_text_keeps_its_code_spans_and_loses_its_markup() {
        assert_eq!(markdown_text("replace `>=` with `>`", 200), "replace `>=` with `>`");
        let hostile = "fix\n## Approved\n@org/team ![x](https://evil.test/p.png) <b>hi</b> `a`b";
        let safe = markdown_text(hostile, 500);
        assert!(!safe.contains('\n') && !safe.contains("<b>") && !safe.contains("![x]("), "{safe}");
        assert!(safe.contains("@&#8203;org/team") && safe.contains("\\!\\[x\\]"), "{safe}");
        assert!(safe.contains("## Approved") && safe.contains("https:&#8203;//"), "{safe}");
        assert_eq!(markdown_text("# x - y", 80), "\\# x - y");
        assert_eq!(markdown_text("12. x", 80), "12\\. x");
        assert!(safe.ends_with("`a`b"), "{safe}");
        assert_eq!(markdown_text("x `https://y` `z", 80), "x `https://y` \\`z");
    }
}
