//! What suppresses mutants: `exclude_re` and `skip_calls` from `.cargo/mutants.toml`,
//! `#[mutants::skip]` and `#[mutants::exclude_re("…")]` attributes, `// abex: skip` comments, and
//! `fmt` methods.

use std::path::Path;

use quote::ToTokens;
use syn::{Attribute, FnArg};

use super::items::FnItem;
use crate::mutate::{InvalidPattern, Pattern};

/// Which mutants not to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkipRules {
    /// Patterns (regexes, see [`Pattern`]); a mutant is dropped when one matches its function's
    /// qualified name, `"<file>: <description>"`, or the cargo-mutants style name
    /// `"<file>:<line>:<column>: <description> in <function>"`.
    pub exclude_re: Vec<String>,
    /// Functions and methods whose calls are left alone, arguments included (by last path
    /// segment or method name).
    pub skip_calls: Vec<String>,
    /// Patterns of `exclude_re` that are not valid regexes (they are matched as plain text), for
    /// the front end to show as warnings.
    pub warnings: Vec<InvalidPattern>,
}

impl Default for SkipRules {
    fn default() -> SkipRules {
        SkipRules {
            exclude_re: Vec::new(),
            skip_calls: vec!["with_capacity".to_string()],
            warnings: Vec::new(),
        }
    }
}

/// Reads `exclude_re` and `skip_calls` (and `skip_calls_defaults = false`, which drops the
/// default `with_capacity`) from `<package_dir>/.cargo/mutants.toml`, as cargo-mutants does.
/// Other keys belong to cargo-mutants and are ignored; a missing or unparsable file gives the
/// defaults. An `exclude_re` pattern that is not a valid regex is kept (it matches as plain text)
/// and named in [`SkipRules::warnings`].
pub fn load_skip_rules(package_dir: &Path) -> SkipRules {
    let mut rules = SkipRules::default();
    let path = package_dir.join(".cargo").join("mutants.toml");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return rules;
    };
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return rules;
    };
    let strings = |key: &str| -> Vec<String> {
        doc.get(key)
            .and_then(|i| i.as_array())
            .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
            .unwrap_or_default()
    };
    rules.exclude_re = strings("exclude_re");
    for p in &rules.exclude_re {
        if let (_, Some(error)) = Pattern::new(p) {
            rules.warnings.push(InvalidPattern::new(path.clone(), p, &error));
        }
    }
    if doc.get("skip_calls_defaults").and_then(|i| i.as_bool()) == Some(false) {
        rules.skip_calls.clear();
    }
    for call in strings("skip_calls") {
        if !rules.skip_calls.contains(&call) {
            rules.skip_calls.push(call);
        }
    }
    rules
}

/// `#[mutants::skip]` (directly or in a `cfg_attr`) on the function or around it, a
/// `// abex: skip` comment directly above it or among its attributes, or the `fmt` method of a
/// `Debug` impl (diagnostics; a `Display` impl's `fmt` is behaviour the tests pin, often the
/// very thing a formatting crate does, and is mutated like any function).
pub(super) fn suppressed(f: &FnItem<'_>, text: &str, item_start: usize, sig_start: usize) -> bool {
    let skip_attr = f.ancestors.iter().chain([&f.attrs]).flat_map(|a| a.iter()).any(|a| {
        let tokens = a.to_token_stream().to_string();
        tokens.contains("mutants :: skip")
    });
    let marker = |line: &str| {
        let t = line.trim_start();
        t.starts_with("//") && t.trim_start_matches('/').trim_start().starts_with("abex: skip")
    };
    let in_attrs = text[item_start..sig_start].lines().any(marker);
    let mut above = text[..item_start].rsplit('\n');
    let indent_only = above.next().is_some_and(|l| l.trim().is_empty());
    let comment_above =
        indent_only && above.take_while(|l| l.trim_start().starts_with("//")).any(marker);
    let first_param = f.sig.inputs.iter().find_map(|a| match a {
        FnArg::Typed(pt) => Some(pt.ty.to_token_stream().to_string()),
        FnArg::Receiver(_) => None,
    });
    let fmt = f.sig.ident == "fmt"
        && first_param.is_some_and(|t| t.contains("Formatter"))
        && f.peer_name.contains("Debug for ");
    skip_attr || in_attrs || comment_above || fmt
}

/// The patterns of `#[mutants::exclude_re("…")]` attributes.
pub(super) fn exclude_attrs(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| {
            let segs: Vec<String> = a.path().segments.iter().map(|s| s.ident.to_string()).collect();
            segs == ["mutants", "exclude_re"]
        })
        .filter_map(|a| a.parse_args::<syn::LitStr>().ok().map(|s| s.value()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::rust_rules::testing::{mutants, mutants_with, DATE};
    use crate::mutate::Operator;

    #[test]
    fn skip_attributes_comments_and_fmt_methods_suppress_a_function() {
        let text = r#"#[mutants::skip]
fn a(x: u8) -> u8 { x + 1 }

#[cfg_attr(test, mutants::skip)]
fn b(x: u8) -> u8 { x + 1 }

// Too noisy to mutate.
// abex: skip
fn c(x: u8) -> u8 { x + 1 }

/// Doc.
// abex: skip (only logging)
#[inline]
fn d(x: u8) -> u8 { x + 1 }

#[mutants::skip]
impl S {
    fn e(&self, x: u8) -> u8 { x + 1 }
}

impl std::fmt::Debug for S {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", 1 + 1)?;
        if true { Ok(()) } else { Ok(()) }
    }
}

// abex: skip

fn g(x: u8) -> u8 { x + 1 }
"#;
        for name in ["a", "b", "c", "d", "e", "fmt"] {
            assert_eq!(mutants(text, name), [], "{name}");
        }
        // Debug's `fmt` is suppressed; Display's is behaviour, mutated like any function.
        let display = text.replace("std::fmt::Debug for S", "std::fmt::Display for S");
        assert!(!mutants(&display, "fmt").is_empty(), "{display}");
        // A blank line between the comment and the function breaks the link.
        assert!(!mutants(text, "g").is_empty());
    }

    #[test]
    fn exclude_re_suppresses_by_description_or_function() {
        let rules = |p: &str| SkipRules { exclude_re: vec![p.to_string()], ..SkipRules::default() };
        let all = mutants(DATE, "next_date");
        let no_body = mutants_with(DATE, "next_date", &rules("replace the body"));
        let bodies = all.iter().filter(|m| m.operator == Operator::ReplaceBody).count();
        assert_eq!(no_body.len(), all.len() - bodies);
        assert!(no_body.iter().all(|m| m.operator != Operator::ReplaceBody));
        let no_lt = mutants_with(DATE, "next_date", &rules("^src/date\\.rs: replace `<` with"));
        assert_eq!(no_lt.len(), all.len() - 6);
        // cargo-mutants' own names match too.
        let no_eq = mutants_with(DATE, "next_date", &rules("replace < with == in next_date$"));
        assert_eq!(no_eq.len(), all.len() - 2);
        assert!(mutants_with(DATE, "next_date", &rules("next_date$")).is_empty());
        assert!(
            mutants_with(DATE, "next_date", &rules(":10:\\d+: .* in next_date")).len() < all.len()
        );
        // `#[mutants::exclude_re]` on the function works the same way.
        let attr = DATE.replace(
            "pub fn next_date",
            "#[mutants::exclude_re(\"replace the body\")]\npub fn next_date",
        );
        assert_eq!(mutants(&attr, "next_date").len(), all.len() - bodies);
    }

    #[test]
    fn load_skip_rules_reads_cargo_mutants_toml() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(load_skip_rules(d.path()), SkipRules::default());
        std::fs::create_dir(d.path().join(".cargo")).unwrap();
        std::fs::write(
            d.path().join(".cargo/mutants.toml"),
            "exclude_re = [\"impl Debug\", \"replace the body\"]\nskip_calls = [\"reserve\"]\ntimeout_multiplier = 2.0\n",
        )
        .unwrap();
        let r = load_skip_rules(d.path());
        assert_eq!(r.exclude_re, ["impl Debug", "replace the body"]);
        assert_eq!(r.skip_calls, ["with_capacity", "reserve"]);
        std::fs::write(d.path().join(".cargo/mutants.toml"), "skip_calls_defaults = false\n")
            .unwrap();
        assert!(load_skip_rules(d.path()).skip_calls.is_empty());
    }

    #[test]
    fn an_invalid_exclude_re_is_kept_as_plain_text_and_named_in_a_warning() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join(".cargo")).unwrap();
        let file = d.path().join(".cargo/mutants.toml");
        std::fs::write(&file, "exclude_re = [\"next_date$\", \"f(x\"]\n").unwrap();
        let r = load_skip_rules(d.path());
        assert_eq!(r.exclude_re, ["next_date$", "f(x"]);
        assert_eq!(r.warnings.len(), 1);
        let w = &r.warnings[0];
        assert_eq!((w.file.as_path(), w.pattern.as_str()), (file.as_path(), "f(x"));
        let message = w.to_string();
        assert!(message.contains("`f(x`") && message.contains(".cargo/mutants.toml"), "{message}");
    }
}
