//! Mutants: small faults confined to one function, as byte-range replacements in its file.
//!
//! This module owns the language-neutral record of a mutant ([`Mutant`]), what kind of fault it
//! is ([`Operator`]) and who wrote it ([`Origin`]), plus the small pattern matcher used for
//! `exclude_re` suppressions. The rule-based generators live beside it, one file per language
//! ([`rust_rules`]); model-written mutants fill the same record.

pub mod python_rules;
pub mod rust_rules;

use std::path::PathBuf;

use serde::Serialize;

/// What kind of fault a mutant is.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
    /// The function body replaced by a value of its return type.
    ReplaceBody,
    /// An arithmetic, logical, bitwise or equality operator swapped (`+`→`-`, `&&`→`||`, …).
    BinaryOperator,
    /// A comparison's boundary shifted (`<`↔`<=`, `>`↔`>=`).
    ComparisonBoundary,
    /// The condition of an `if` or `while` negated.
    NegateCondition,
    /// A unary `!` deleted.
    DeleteNot,
    /// A unary `-` deleted.
    DeleteNeg,
    /// An integer literal increased by one.
    ConstantPlusOne,
    /// An integer literal decreased by one.
    ConstantMinusOne,
    /// A match arm deleted, where a wildcard arm catches what it matched.
    DeleteMatchArm,
    /// A match guard replaced by `true` or `false`.
    MatchArmGuard,
    /// Return early. The rules do not produce it (replacing the body covers it); a model-written
    /// mutant may be labelled with it.
    ReturnEarly,
    /// A free-form edit inside the function, as a model writes it.
    Rewrite,
}

impl Operator {
    /// The snake_case name, as serialized.
    pub fn name(self) -> &'static str {
        match self {
            Operator::ReplaceBody => "replace_body",
            Operator::BinaryOperator => "binary_operator",
            Operator::ComparisonBoundary => "comparison_boundary",
            Operator::NegateCondition => "negate_condition",
            Operator::DeleteNot => "delete_not",
            Operator::DeleteNeg => "delete_neg",
            Operator::ConstantPlusOne => "constant_plus_one",
            Operator::ConstantMinusOne => "constant_minus_one",
            Operator::DeleteMatchArm => "delete_match_arm",
            Operator::MatchArmGuard => "match_arm_guard",
            Operator::ReturnEarly => "return_early",
            Operator::Rewrite => "rewrite",
        }
    }
}

/// Who produced a mutant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The built-in rule-based operators.
    Rules,
    /// A language model.
    Model,
}

/// One mutant: replace `span` of `file` (whose text is `original`) by `replacement`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mutant {
    /// Stable id: 12 hex digits of a hash of the file, function, operator, the span's offset
    /// from the function body's opening brace, its length and the replacement, so edits
    /// elsewhere in the file (or in the function's doc comment) leave it unchanged.
    pub id: String,
    /// Who produced it.
    pub origin: Origin,
    /// What kind of fault it is.
    pub operator: Operator,
    /// Qualified name of the mutated function.
    pub function: String,
    /// The file, as given to the generator.
    pub file: PathBuf,
    /// 1-based line of the replaced range's start.
    pub line: usize,
    /// 1-based column (in characters) of the replaced range's start.
    pub column: usize,
    /// Byte range of the file text that is replaced.
    pub span: (usize, usize),
    /// The text of that range.
    pub original: String,
    /// What replaces it.
    pub replacement: String,
    /// Whether `original` and `replacement` are expressions of the same type, so both can be
    /// compiled side by side as `(if ON(id) { (replacement) } else { (original) })` (mutation
    /// switching; the inner parentheses keep `unsafe { … } as T + 1` an expression).
    pub switchable: bool,
    /// What the mutant does, for people: "replace `<` with `<=`".
    pub description: String,
}

impl Mutant {
    /// The mutated file. A span that no longer holds `original` (the file changed since the
    /// mutant was made) leaves the text as it is; check with [`Mutant::applies_to`].
    pub fn apply(&self, file_text: &str) -> String {
        if !self.applies_to(file_text) {
            return file_text.to_string();
        }
        let (start, end) = self.span;
        let mut out = String::with_capacity(file_text.len() + self.replacement.len());
        out.push_str(&file_text[..start]);
        out.push_str(&self.replacement);
        out.push_str(&file_text[end..]);
        out
    }

    /// Whether `file_text` still holds `original` at `span`.
    pub fn applies_to(&self, file_text: &str) -> bool {
        file_text.get(self.span.0..self.span.1) == Some(self.original.as_str())
    }

    /// A unified diff of the mutation (3 lines of context, headers `a/<path>` and `b/<path>`).
    pub fn diff(&self, file_text: &str, display_path: &str) -> String {
        let mutated = self.apply(file_text);
        similar::TextDiff::from_lines(file_text, &mutated)
            .unified_diff()
            .context_radius(3)
            .header(&format!("a/{display_path}"), &format!("b/{display_path}"))
            .to_string()
    }
}

/// The stable id of a mutant: FNV-1a 64 over its identifying fields, 12 hex digits.
pub(crate) fn mutant_id(
    file: &str,
    function: &str,
    operator: Operator,
    relative_offset: usize,
    len: usize,
    replacement: &str,
) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let fields = [
        file,
        function,
        operator.name(),
        &relative_offset.to_string(),
        &len.to_string(),
        replacement,
    ];
    for field in fields {
        for b in field.bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")[..12].to_string()
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (before.matches('\n').count() + 1, before[line_start..].chars().count() + 1)
}

/// Whether `pattern` matches anywhere in `text`.
///
/// Supports a regex subset: literals, `.`, `^`, `$`, classes (`[a-z_]`, `[^0-9]`), escapes
/// (`\.`, `\d`, `\w`, `\s` and their negations), groups (`(…)`, `(?:…)`) with `|`, and the
/// greedy quantifiers `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`. A pattern outside that subset
/// is matched as a plain substring.
pub fn pattern_matches(pattern: &str, text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    match Regex::parse(pattern) {
        Some(re) => (0..=chars.len()).any(|at| seq(&re.0, at, &chars, &|_| true)),
        None => text.contains(pattern),
    }
}

/// A parsed pattern: alternatives of sequences.
struct Regex(Vec<Node>);

enum Node {
    Char(char),
    Any,
    Class(Vec<(char, char)>, bool),
    Start,
    End,
    Group(Vec<Vec<Node>>),
    Repeat(Box<Node>, usize, usize),
}

impl Regex {
    fn parse(pattern: &str) -> Option<Regex> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut at = 0;
        let alts = alternatives(&chars, &mut at)?;
        (at == chars.len()).then(|| Regex(vec![Node::Group(alts)]))
    }
}

fn alternatives(p: &[char], at: &mut usize) -> Option<Vec<Vec<Node>>> {
    let mut alts = vec![Vec::new()];
    while *at < p.len() && p[*at] != ')' {
        let c = p[*at];
        *at += 1;
        let node = match c {
            '|' => {
                alts.push(Vec::new());
                continue;
            }
            '.' => Node::Any,
            '^' => Node::Start,
            '$' => Node::End,
            '(' => {
                if p[*at..].starts_with(&['?', ':']) {
                    *at += 2;
                }
                let inner = alternatives(p, at)?;
                (p.get(*at) == Some(&')')).then_some(())?;
                *at += 1;
                Node::Group(inner)
            }
            '[' => class(p, at)?,
            '\\' => escape(*p.get(*at)?, at),
            '*' | '+' | '?' | '{' => {
                let (min, max) = match c {
                    '*' => (0, usize::MAX),
                    '+' => (1, usize::MAX),
                    '?' => (0, 1),
                    _ => counts(p, at)?,
                };
                let last = alts.last_mut()?.pop()?;
                Node::Repeat(Box::new(last), min, max)
            }
            c => Node::Char(c),
        };
        alts.last_mut()?.push(node);
    }
    Some(alts)
}

fn escape(c: char, at: &mut usize) -> Node {
    *at += 1;
    let digit = vec![('0', '9')];
    let word = vec![('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')];
    let space = vec![(' ', ' '), ('\t', '\t'), ('\n', '\n'), ('\r', '\r')];
    match c {
        'd' => Node::Class(digit, false),
        'D' => Node::Class(digit, true),
        'w' => Node::Class(word, false),
        'W' => Node::Class(word, true),
        's' => Node::Class(space, false),
        'S' => Node::Class(space, true),
        'n' => Node::Char('\n'),
        't' => Node::Char('\t'),
        c => Node::Char(c),
    }
}

fn class(p: &[char], at: &mut usize) -> Option<Node> {
    let negated = p.get(*at) == Some(&'^');
    if negated {
        *at += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let c = *p.get(*at)?;
        *at += 1;
        if c == ']' && !first {
            return Some(Node::Class(ranges, negated));
        }
        first = false;
        let lo = if c == '\\' {
            let e = *p.get(*at)?;
            *at += 1;
            match escape(e, &mut 0) {
                Node::Class(r, false) => {
                    ranges.extend(r);
                    continue;
                }
                Node::Char(c) => c,
                _ => return None,
            }
        } else {
            c
        };
        if p.get(*at) == Some(&'-') && p.get(*at + 1).is_some_and(|&c| c != ']') {
            ranges.push((lo, p[*at + 1]));
            *at += 2;
        } else {
            ranges.push((lo, lo));
        }
    }
}

fn counts(p: &[char], at: &mut usize) -> Option<(usize, usize)> {
    let close = p[*at..].iter().position(|&c| c == '}')? + *at;
    let body: String = p[*at..close].iter().collect();
    *at = close + 1;
    let (lo, hi) = match body.split_once(',') {
        None => (body.parse().ok()?, body.parse().ok()?),
        Some((lo, "")) => (lo.parse().ok()?, usize::MAX),
        Some((lo, hi)) => (lo.parse().ok()?, hi.parse().ok()?),
    };
    (lo <= hi).then_some((lo, hi))
}

/// Matches `nodes` at `at`, then calls `k` with where the match ends (backtracking).
fn seq(nodes: &[Node], at: usize, t: &[char], k: &dyn Fn(usize) -> bool) -> bool {
    match nodes.split_first() {
        None => k(at),
        Some((n, rest)) => node(n, at, t, &|p| seq(rest, p, t, k)),
    }
}

fn node(n: &Node, at: usize, t: &[char], k: &dyn Fn(usize) -> bool) -> bool {
    match n {
        Node::Char(c) => t.get(at) == Some(c) && k(at + 1),
        Node::Any => t.get(at).is_some_and(|&c| c != '\n') && k(at + 1),
        Node::Class(ranges, negated) => {
            t.get(at)
                .is_some_and(|c| ranges.iter().any(|(lo, hi)| (lo..=hi).contains(&c)) != *negated)
                && k(at + 1)
        }
        Node::Start => at == 0 && k(at),
        Node::End => at == t.len() && k(at),
        Node::Group(alts) => alts.iter().any(|alt| seq(alt, at, t, k)),
        Node::Repeat(inner, min, max) => repeat(inner, *min, *max, 0, at, t, k),
    }
}

fn repeat(
    inner: &Node,
    min: usize,
    max: usize,
    count: usize,
    at: usize,
    t: &[char],
    k: &dyn Fn(usize) -> bool,
) -> bool {
    // Greedy: one more repetition first; an empty repetition only counts towards `min`.
    (count < max
        && node(inner, at, t, &|p| {
            (p != at || count < min) && repeat(inner, min, max, count + 1, p, t, k)
        }))
        || (count >= min && k(at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pattern_subset_matches_like_a_regex() {
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
        ];
        for (p, t, want) in cases {
            assert_eq!(pattern_matches(p, t), want, "{p:?} on {t:?}");
        }
    }

    #[test]
    fn a_pattern_outside_the_subset_is_a_substring() {
        assert!(pattern_matches("f(x", "call f(x)"));
        assert!(!pattern_matches("f(x", "call fx"));
    }

    #[test]
    fn ids_are_twelve_hex_digits_and_depend_on_every_field() {
        let a = mutant_id("src/a.rs", "f", Operator::BinaryOperator, 3, 5, "a - b");
        assert_eq!(a.len(), 12);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, mutant_id("src/a.rs", "f", Operator::BinaryOperator, 4, 5, "a - b"));
        assert_ne!(a, mutant_id("src/a.rs", "g", Operator::BinaryOperator, 3, 5, "a - b"));
        assert_eq!(a, mutant_id("src/a.rs", "f", Operator::BinaryOperator, 3, 5, "a - b"));
    }

    #[test]
    fn line_and_column_are_one_based_and_count_characters() {
        let t = "ab\né x";
        assert_eq!(line_column(t, 0), (1, 1));
        assert_eq!(line_column(t, 3), (2, 1));
        assert_eq!(line_column(t, 6), (2, 3));
    }
}
