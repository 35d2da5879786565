//! The entry point: the rule-based mutants of one function, with their ids and locations.

use std::path::Path;

use syn::spanned::Spanned;
use syn::visit::Visit;

use super::items::{collect, FnItem};
use super::operators::{Gen, Peer};
use super::skip::{exclude_attrs, suppressed, SkipRules};
use crate::mutate::Lines;
use crate::mutate::{line_column, mutant_id, Mutant, Origin, Pattern};

/// The rule-based mutants of `function` (its qualified name), the function item whose
/// signature and body lie in `fn_span` (a byte range of `file_text`; the item's own range, or
/// the whole lines around it). Sorted by span start, then operator; no two share a span and a
/// replacement. Empty when the file does not parse, no single function fits `fn_span`, or the
/// function is suppressed.
pub fn mutants_of(
    file_text: &str,
    file: &Path,
    function: &str,
    fn_span: (usize, usize),
    rules: &SkipRules,
) -> Vec<Mutant> {
    let Ok(ast) = syn::parse_file(file_text) else { return Vec::new() };
    let lines = Lines::new(file_text);
    let at = |s: proc_macro2::LineColumn| lines.offset(file_text, s);
    let mut fns = Vec::new();
    collect(&ast.items, &mut vec![&ast.attrs[..]], &mut fns);
    let inside = |f: &FnItem<'_>| {
        let (ident, end) = (at(f.sig.ident.span().start()), at(f.block.span().end()));
        fn_span.0 <= ident && end <= fn_span.1
    };
    let fitting: Vec<&FnItem<'_>> = fns.iter().filter(|f| inside(f)).collect();
    let exact = |f: &&&FnItem<'_>| (at(f.span.start()), at(f.span.end())) == fn_span;
    let found = match fitting.as_slice() {
        [one] => *one,
        many => match many.iter().find(exact) {
            Some(f) => *f,
            None => return Vec::new(),
        },
    };
    let item_start = at(found.span.start());
    let sig_start = at(found.sig.span().start());
    if suppressed(found, file_text, item_start, sig_start) {
        return Vec::new();
    }
    let mut exclude = rules.exclude_re.clone();
    exclude.extend(found.ancestors.iter().chain([&found.attrs]).flat_map(|a| exclude_attrs(a)));
    let exclude: Vec<Pattern> = exclude.iter().map(|p| Pattern::new(p).0).collect();

    let mut gen = Gen {
        text: file_text,
        lines: &lines,
        skip_calls: &rules.skip_calls,
        raw: Vec::new(),
        operand: None,
    };
    gen.replace_body(found.sig, found.block);
    gen.visit_block(found.block);

    let body_start = at(found.block.brace_token.span.open().start());
    let file_name = file.to_string_lossy().replace('\\', "/");
    let returns = match &found.sig.output {
        syn::ReturnType::Default => String::new(),
        syn::ReturnType::Type(..) => {
            let (s, e) = (at(found.sig.output.span().start()), at(found.sig.output.span().end()));
            format!(" {}", file_text[s..e].split_whitespace().collect::<Vec<_>>().join(" "))
        }
    };
    let peer_fn = &found.peer_name;
    let mut out: Vec<Mutant> = Vec::new();
    for r in gen.raw {
        let (line, column) = line_column(file_text, r.span.0);
        let peer_name = match &r.peer {
            Peer::None => None,
            Peer::Change(at, what) => {
                let (l, c) = line_column(file_text, *at);
                Some(format!("{file_name}:{l}:{c}: {what} in {peer_fn}"))
            }
            Peer::Value(at, value) => {
                let (l, c) = line_column(file_text, *at);
                Some(format!("{file_name}:{l}:{c}: replace {peer_fn}{returns} with {value}"))
            }
        };
        let excluded = exclude.iter().any(|p| {
            p.matches(function)
                || p.matches(&format!("{file_name}: {}", r.description))
                || p.matches(&format!(
                    "{file_name}:{line}:{column}: {} in {function}",
                    r.description
                ))
                || peer_name.as_ref().is_some_and(|n| p.matches(n))
        });
        if excluded {
            continue;
        }
        out.push(Mutant {
            id: mutant_id(
                &file_name,
                function,
                r.operator,
                r.span.0 - body_start,
                r.span.1 - r.span.0,
                &r.replacement,
            ),
            origin: Origin::Rules,
            operator: r.operator,
            function: function.to_string(),
            file: file.to_path_buf(),
            line,
            column,
            span: r.span,
            original: file_text[r.span.0..r.span.1].to_string(),
            replacement: r.replacement,
            switchable: r.switchable,
            description: r.description,
            peer_name,
        });
    }
    // Stable: mutants of one operator at one place keep the order they were made in.
    out.sort_by_key(|m| (m.span.0, m.operator));
    let mut seen = std::collections::HashSet::new();
    out.retain(|m| seen.insert((m.span, m.replacement.clone())));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::rust_rules::testing::{check_well_formed, fn_range, mutants, triples, DATE};
    use crate::mutate::Operator;

    #[test]
    fn a_small_function_gets_exactly_these_mutants() {
        let text = "fn clamp(x: i32) -> i32 {\n    if x < 0 { 0 } else if !(x > 100) { x } else { -x }\n}\n";
        let ms = mutants(text, "clamp");
        let body = "{\n    if x < 0 { 0 } else if !(x > 100) { x } else { -x }\n}";
        use Operator::*;
        assert_eq!(
            triples(&ms),
            [
                (ReplaceBody, body, "{ 0 }"),
                (ReplaceBody, body, "{ 1 }"),
                (ReplaceBody, body, "{ -1 }"),
                (BinaryOperator, "x < 0", "x == 0"),
                (BinaryOperator, "x < 0", "x > 0"),
                (ComparisonBoundary, "x < 0", "x <= 0"),
                (NegateCondition, "x < 0", "!(x < 0)"),
                (ConstantPlusOne, "0", "1"),
                (ConstantPlusOne, "0", "1"),
                (DeleteNot, "!(x > 100)", "(x > 100)"),
                (BinaryOperator, "x > 100", "x == 100"),
                (BinaryOperator, "x > 100", "x < 100"),
                (ComparisonBoundary, "x > 100", "x >= 100"),
                (ConstantPlusOne, "100", "101"),
                (ConstantMinusOne, "100", "99"),
                (DeleteNeg, "-x", "x"),
            ]
        );
        let descriptions: Vec<&str> = ms.iter().map(|m| m.description.as_str()).collect();
        assert_eq!(descriptions[0], "replace the body with `0`");
        assert_eq!(descriptions[5], "replace `<` with `<=`");
        assert_eq!(descriptions[6], "negate the `if` condition");
        assert_eq!(descriptions[9], "delete `!`");
        assert!(ms.iter().all(|m| m.switchable && m.origin == Origin::Rules));
        assert!(ms.iter().all(|m| m.function == "clamp" && m.file == Path::new("src/date.rs")));
        assert_eq!((ms[3].line, ms[3].column), (2, 8));
        // cargo-mutants' names: its spans start at the operator, or the body's first statement.
        let peers: Vec<Option<&str>> = ms.iter().map(|m| m.peer_name.as_deref()).collect();
        assert_eq!(
            peers,
            [
                Some("src/date.rs:2:5: replace clamp -> i32 with 0"),
                Some("src/date.rs:2:5: replace clamp -> i32 with 1"),
                Some("src/date.rs:2:5: replace clamp -> i32 with -1"),
                Some("src/date.rs:2:10: replace < with == in clamp"),
                Some("src/date.rs:2:10: replace < with > in clamp"),
                Some("src/date.rs:2:10: replace < with <= in clamp"),
                None,
                None,
                None,
                Some("src/date.rs:2:28: delete ! in clamp"),
                Some("src/date.rs:2:32: replace > with == in clamp"),
                Some("src/date.rs:2:32: replace > with < in clamp"),
                Some("src/date.rs:2:32: replace > with >= in clamp"),
                None,
                None,
                Some("src/date.rs:2:52: delete - in clamp"),
            ]
        );
        check_well_formed(text, "clamp", &ms);
    }

    #[test]
    fn next_date_gets_boundary_arithmetic_and_body_mutants_inside_its_body() {
        let ms = mutants(DATE, "next_date");
        check_well_formed(DATE, "next_date", &ms);
        let t = triples(&ms);
        use Operator::*;
        for want in [
            (ReplaceBody, "Ok((0, 0, 0))"),
            (BinaryOperator, "day != 0"),
            (BinaryOperator, "day == 0 && day > len"),
            (ComparisonBoundary, "day >= len"),
            (ComparisonBoundary, "day <= len"),
            (ComparisonBoundary, "month <= 12"),
            (BinaryOperator, "day - 1"),
            (BinaryOperator, "month - 1"),
            (BinaryOperator, "year - 1"),
            (ConstantPlusOne, "13"),
            (ConstantMinusOne, "11"),
            (NegateCondition, "!(day < len)"),
        ] {
            let hit = t.iter().any(|(op, _, r)| *op == want.0 && r.contains(want.1));
            assert!(hit, "missing {want:?} in {t:#?}");
        }
        // Nothing inside `format!`, nothing in the signature, and `{month:02}` stays.
        assert!(ms
            .iter()
            .all(|m| !m.original.contains("invalid day") || m.operator == ReplaceBody));
        // Results of a tuple: every combination of its elements' values, as cargo-mutants.
        let bodies: Vec<&str> = ms
            .iter()
            .filter(|m| m.operator == ReplaceBody)
            .map(|m| m.replacement.as_str())
            .collect();
        assert_eq!(bodies.len(), 3 * 2 * 2);
        assert_eq!(bodies[0], "{ Ok((0, 0, 0)) }");
        assert_eq!(bodies[11], "{ Ok((-1, 1, 1)) }");
    }

    #[test]
    fn a_method_in_an_impl_is_mutated_like_a_free_function() {
        let text = "struct C { n: u32 }\nimpl C {\n    /// Bumps.\n    pub fn bump(&mut self, by: u32) -> u32 {\n        self.n += by;\n        self.n\n    }\n}\n";
        let ms = mutants_of(
            text,
            Path::new("src/c.rs"),
            "C::bump",
            fn_range(text, "bump"),
            &SkipRules::default(),
        );
        use Operator::*;
        let body = "{\n        self.n += by;\n        self.n\n    }";
        assert_eq!(
            triples(&ms),
            [
                (ReplaceBody, body, "{ 0 }"),
                (ReplaceBody, body, "{ 1 }"),
                (BinaryOperator, "self.n += by", "self.n -= by"),
                (BinaryOperator, "self.n += by", "self.n *= by"),
            ]
        );
        assert_eq!(ms[2].function, "C::bump");
        assert_eq!(
            ms[3].peer_name.as_deref(),
            Some("src/c.rs:5:16: replace += with *= in C::bump")
        );
        assert_eq!(ms[0].peer_name.as_deref(), Some("src/c.rs:5:9: replace C::bump -> u32 with 0"));
        check_well_formed(text, "bump", &ms);
    }

    #[test]
    fn ids_do_not_change_when_lines_are_inserted_above_or_the_doc_changes() {
        let before = mutants(DATE, "next_date");
        let shifted = DATE.replace(
            "/// The day after.",
            "use std::fmt;\n\n/// The day after,\n/// rolling over.",
        );
        let after = mutants(&shifted, "next_date");
        assert_eq!(before.len(), after.len());
        for (a, b) in before.iter().zip(&after) {
            assert_eq!(a.id, b.id);
            assert_eq!(b.line, a.line + 3);
            assert_ne!(a.span, b.span);
        }
        let mut ids: Vec<&str> = before.iter().map(|m| m.id.as_str()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), before.len(), "ids are unique");
    }

    #[test]
    fn apply_and_diff_show_one_hunk() {
        let ms = mutants(DATE, "next_date");
        let m = ms.iter().find(|m| m.replacement == "month <= 12").unwrap();
        let mutated = m.apply(DATE);
        assert!(mutated.contains("} else if month <= 12 {"));
        assert_eq!(
            m.diff(DATE, "src/date.rs"),
            "--- a/src/date.rs\n+++ b/src/date.rs\n@@ -8,7 +8,7 @@\n     }\n     if day < len {\n         Ok((year, month, day + 1))\n-    } else if month < 12 {\n+    } else if month <= 12 {\n         Ok((year, month + 1, 1))\n     } else {\n         Ok((year + 1, 1, 1))\n"
        );
        assert!(!m.applies_to("fn other() {}"));
        assert_eq!(m.apply("fn other() {}"), "fn other() {}");
    }

    #[test]
    fn the_function_is_found_from_its_whole_lines_and_ambiguity_gives_nothing() {
        let start = DATE.find("/// The day after.").unwrap();
        let end = DATE.find("fn days_in_month").unwrap();
        let ms = mutants_of(
            DATE,
            Path::new("src/date.rs"),
            "next_date",
            (start, end),
            &SkipRules::default(),
        );
        assert_eq!(ms, mutants(DATE, "next_date"));
        let all = mutants_of(
            DATE,
            Path::new("src/date.rs"),
            "next_date",
            (0, DATE.len()),
            &SkipRules::default(),
        );
        assert!(all.is_empty());
    }
}
