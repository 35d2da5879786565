//! Mutation switching for Rust (Stryker's mutant schemata): every switchable mutant of a file is
//! compiled into one build, each behind a runtime check of `ABEX_MUTANT`, so a mutant costs one
//! test run instead of one build.
//!
//! An expression mutant becomes `(if crate::__abex_mutants::on(N) { REPLACEMENT } else { ORIGINAL })`;
//! mutants of the same span share one `if … else if …` chain, and mutants nested inside another's
//! span are switched inside its `else` branch (only one mutant is ever active, so the replacement
//! branches stay verbatim). A body replacement becomes `if on(N) { return VALUE; }` at the top of
//! the body. Mutants whose spans partly overlap another's cannot be switched together; they are
//! returned for a build of their own.

use crate::mutate::{Mutant, Operator};

/// The module added at the crate root that reads the active mutant.
pub const SWITCH_MODULE: &str = r#"
#[doc(hidden)]
#[allow(warnings, missing_docs, unused, clippy::all)]
pub mod __abex_mutants {
    /// Whether mutant `id` is the one named by `ABEX_MUTANT`.
    pub fn on(id: u32) -> bool {
        static ACTIVE: ::std::sync::OnceLock<u32> = ::std::sync::OnceLock::new();
        *ACTIVE.get_or_init(|| {
            ::std::env::var("ABEX_MUTANT").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(0)
        }) == id
    }
}
"#;

/// A text edit: replace `start..end` by `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// Start byte.
    pub start: usize,
    /// End byte.
    pub end: usize,
    /// New text.
    pub text: String,
    /// The mutants (numbers) whose switch this edit holds.
    pub mutants: Vec<u32>,
}

/// The switched edits of one file.
#[derive(Debug, Default)]
pub struct Switched {
    /// Non-overlapping edits.
    pub edits: Vec<Edit>,
    /// Mutants that could not be switched here.
    pub rejected: Vec<u32>,
}

fn on(n: u32) -> String {
    format!("crate::__abex_mutants::on({n})")
}

/// A group of mutants with the same span.
struct Group<'a> {
    span: (usize, usize),
    alts: Vec<(u32, &'a Mutant)>,
}

/// Renders the `if` chain of a group, with `children` (already grouped, inside its span) switched
/// inside the original branch.
fn render(
    text: &str,
    g: &Group<'_>,
    children: &[usize],
    groups: &[Group<'_>],
    kids: &[Vec<usize>],
) -> String {
    let mut original = String::new();
    let mut at = g.span.0;
    for &c in children {
        let cg = &groups[c];
        original.push_str(&text[at..cg.span.0]);
        original.push_str(&render(text, cg, &kids[c], groups, kids));
        at = cg.span.1;
    }
    original.push_str(&text[at..g.span.1]);
    let mut s = String::from("(");
    for (k, (n, m)) in g.alts.iter().enumerate() {
        if k > 0 {
            s.push_str(" else ");
        }
        s.push_str(&format!("if {} {{ ({}) }}", on(*n), m.replacement));
    }
    // Parenthesised so that an expression that starts like a statement (`unsafe { … } as u8`)
    // stays one expression inside the block.
    s.push_str(&format!(" else {{ ({original}) }})"));
    s
}

/// Computes the switched edits for `mutants` (number, mutant) of one file's `text`.
pub fn switch(text: &str, mutants: &[(u32, &Mutant)]) -> Switched {
    let mut out = Switched::default();
    let mut groups: Vec<Group<'_>> = Vec::new();
    for &(n, m) in mutants {
        if !m.switchable
            || m.span.1 > text.len()
            || text.get(m.span.0..m.span.1) != Some(m.original.as_str())
        {
            out.rejected.push(n);
            continue;
        }
        if m.operator == Operator::ReplaceBody {
            let inner = m.replacement.trim();
            let value =
                inner.strip_prefix('{').and_then(|s| s.strip_suffix('}')).unwrap_or(inner).trim();
            let value = if value.is_empty() { "()" } else { value };
            out.edits.push(Edit {
                start: m.span.0 + 1,
                end: m.span.0 + 1,
                text: format!(" if {} {{ return {value}; }} ", on(n)),
                mutants: vec![n],
            });
            continue;
        }
        match groups.iter_mut().find(|g| g.span == m.span) {
            Some(g) => g.alts.push((n, m)),
            None => groups.push(Group { span: m.span, alts: vec![(n, m)] }),
        }
    }
    // Outer spans first; a group nests in the closest earlier group that contains it.
    groups.sort_by(|a, b| a.span.0.cmp(&b.span.0).then(b.span.1.cmp(&a.span.1)));
    let mut parent: Vec<Option<usize>> = vec![None; groups.len()];
    let mut keep = vec![true; groups.len()];
    let mut stack: Vec<usize> = Vec::new();
    for i in 0..groups.len() {
        let (s, e) = groups[i].span;
        while let Some(&top) = stack.last() {
            if groups[top].span.1 <= s {
                stack.pop();
            } else {
                break;
            }
        }
        match stack.last() {
            Some(&top) if e <= groups[top].span.1 => {
                parent[i] = Some(top);
                stack.push(i);
            }
            Some(_) => {
                // Partly overlaps an enclosing span: cannot be switched alongside it.
                keep[i] = false;
                out.rejected.extend(groups[i].alts.iter().map(|(n, _)| *n));
            }
            None => stack.push(i),
        }
    }
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); groups.len()];
    for i in 0..groups.len() {
        if let (true, Some(p)) = (keep[i], parent[i]) {
            kids[p].push(i);
        }
    }
    for i in 0..groups.len() {
        if !keep[i] || parent[i].is_some() {
            continue;
        }
        let mut nums = Vec::new();
        let mut todo = vec![i];
        while let Some(g) = todo.pop() {
            nums.extend(groups[g].alts.iter().map(|(n, _)| *n));
            todo.extend(&kids[g]);
        }
        nums.sort_unstable();
        out.edits.push(Edit {
            start: groups[i].span.0,
            end: groups[i].span.1,
            text: render(text, &groups[i], &kids[i], &groups, &kids),
            mutants: nums,
        });
    }
    // A body insertion never falls inside an expression span, but keep the edits disjoint anyway.
    out.edits.sort_by_key(|e| (e.start, e.end));
    let mut last_end = 0;
    let mut disjoint = Vec::new();
    for e in out.edits.drain(..) {
        if e.start < last_end {
            out.rejected.extend(e.mutants);
        } else {
            last_end = e.end.max(e.start);
            disjoint.push(e);
        }
    }
    out.edits = disjoint;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::Origin;
    use std::path::PathBuf;

    fn m(text: &str, original: &str, nth: usize, replacement: &str, op: Operator) -> Mutant {
        let start = text.match_indices(original).nth(nth).unwrap().0;
        Mutant {
            id: format!("{start}{replacement}"),
            origin: Origin::Rules,
            operator: op,
            function: "f".into(),
            file: PathBuf::from("src/lib.rs"),
            line: 1,
            column: start + 1,
            span: (start, start + original.len()),
            original: original.into(),
            replacement: replacement.into(),
            switchable: true,
            description: String::new(),
        }
    }

    fn apply(text: &str, s: &Switched) -> String {
        let mut t = text.to_string();
        for e in s.edits.iter().rev() {
            t.replace_range(e.start..e.end, &e.text);
        }
        t
    }

    #[test]
    fn nested_and_same_span_mutants_share_one_switch() {
        let text = "fn f(a: i32, b: i32) -> bool { a + b < 10 }";
        let outer1 = m(text, "a + b < 10", 0, "a + b <= 10", Operator::ComparisonBoundary);
        let outer2 = m(text, "a + b < 10", 0, "a + b > 10", Operator::ComparisonBoundary);
        let inner = m(text, "a + b", 0, "a - b", Operator::BinaryOperator);
        let lit = m(text, "10", 0, "11", Operator::ConstantPlusOne);
        let body = m(text, "{ a + b < 10 }", 0, "{ true }", Operator::ReplaceBody);
        let all = [(1, &outer1), (2, &outer2), (3, &inner), (4, &lit), (5, &body)];
        let s = switch(text, &all);
        assert!(s.rejected.is_empty(), "{:?}", s.rejected);
        let out = apply(text, &s);
        assert_eq!(
            out,
            "fn f(a: i32, b: i32) -> bool { if crate::__abex_mutants::on(5) { return true; }  \
             (if crate::__abex_mutants::on(1) { (a + b <= 10) } else if crate::__abex_mutants::on(2) { (a + b > 10) } \
             else { ((if crate::__abex_mutants::on(3) { (a - b) } else { (a + b) }) < \
             (if crate::__abex_mutants::on(4) { (11) } else { (10) })) }) }"
        );
        assert!(syn::parse_file(&out).is_ok());
    }

    #[test]
    fn partly_overlapping_and_unswitchable_mutants_are_rejected() {
        let text = "fn f(a: i32) -> i32 { a * 2 + 1 }";
        let x = m(text, "a * 2", 0, "a / 2", Operator::BinaryOperator);
        let y = m(text, "2 + 1", 0, "2 - 1", Operator::BinaryOperator);
        let mut z = m(text, "1", 0, "2", Operator::ConstantPlusOne);
        z.switchable = false;
        let s = switch(text, &[(1, &x), (2, &y), (3, &z)]);
        assert_eq!(s.rejected, vec![3, 2]);
        assert_eq!(s.edits.len(), 1);
    }
}
