//! Helpers shared by the tests of the Rust mutation rules.

use std::path::Path;

use syn::spanned::Spanned;
use syn::Expr;

use super::items::collect;
use super::{mutants_of, SkipRules};
use crate::mutate::Lines;
use crate::mutate::{Mutant, Operator};

/// The byte range of the function item named `name` (free, in an impl or a trait).
pub(super) fn fn_range(text: &str, name: &str) -> (usize, usize) {
    let ast = syn::parse_file(text).unwrap();
    let mut fns = Vec::new();
    collect(&ast.items, &mut Vec::new(), &mut fns);
    let f = fns.iter().find(|f| f.sig.ident == name).unwrap();
    let lines = Lines::new(text);
    (lines.offset(text, f.span.start()), lines.offset(text, f.span.end()))
}

pub(super) fn mutants(text: &str, name: &str) -> Vec<Mutant> {
    mutants_with(text, name, &SkipRules::default())
}

pub(super) fn mutants_with(text: &str, name: &str, rules: &SkipRules) -> Vec<Mutant> {
    mutants_of(text, Path::new("src/date.rs"), name, fn_range(text, name), rules)
}

pub(super) fn triples(ms: &[Mutant]) -> Vec<(Operator, &str, &str)> {
    ms.iter().map(|m| (m.operator, m.original.as_str(), m.replacement.as_str())).collect()
}

/// Every mutant applies, parses, and stays inside the function body.
pub(super) fn check_well_formed(text: &str, name: &str, ms: &[Mutant]) {
    let ast = syn::parse_file(text).unwrap();
    let mut fns = Vec::new();
    collect(&ast.items, &mut Vec::new(), &mut fns);
    let f = fns.iter().find(|f| f.sig.ident == name).unwrap();
    let lines = Lines::new(text);
    let body = f.block.span();
    let (lo, hi) = (lines.offset(text, body.start()), lines.offset(text, body.end()));
    for m in ms {
        assert!(lo <= m.span.0 && m.span.1 <= hi, "{m:?} leaves the body {lo}..{hi}");
        assert_eq!(&text[m.span.0..m.span.1], m.original);
        let mutated = m.apply(text);
        assert_ne!(mutated, text, "{m:?} changes nothing");
        syn::parse_file(&mutated).unwrap_or_else(|e| panic!("{m:?} does not parse: {e}"));
        if m.switchable && !matches!(m.operator, Operator::ReplaceBody | Operator::DeleteMatchArm) {
            syn::parse_str::<Expr>(&m.original).unwrap();
            syn::parse_str::<Expr>(&m.replacement).unwrap();
        }
    }
}

pub(super) const DATE: &str = r#"//! Dates.

/// The day after.
pub fn next_date(year: i32, month: u32, day: u32) -> Result<(i32, u32, u32), String> {
    let len = days_in_month(year, month)?;
    if day == 0 || day > len {
        return Err(format!("invalid day {day} for {year}-{month:02}"));
    }
    if day < len {
        Ok((year, month, day + 1))
    } else if month < 12 {
        Ok((year, month + 1, 1))
    } else {
        Ok((year + 1, 1, 1))
    }
}

fn days_in_month(_y: i32, _m: u32) -> Result<u32, String> {
    Ok(30)
}
"#;
