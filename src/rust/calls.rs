//! Who calls whom in a crate target: the names each function's body calls (plain calls, paths
//! and method calls), read from its tokens, so that a function abex cannot call itself can be
//! driven through one that calls it (its "vehicle").

use std::collections::BTreeSet;

use proc_macro2::{Delimiter, TokenStream, TokenTree};

use crate::rust::source::FoundFn;

/// How many calls deep a vehicle may be looked for.
const DEPTH: usize = 3;

/// The names `source` (a function item) calls: `f(..)`, `a::f(..)`, `x.f(..)`; not macros, not
/// the item's own name in its signature.
pub fn callees(source: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Ok(tokens) = source.parse::<TokenStream>() {
        walk(tokens, &mut out);
    }
    out
}

fn walk(tokens: TokenStream, out: &mut BTreeSet<String>) {
    // The identifier just before, when it may be a callee's name.
    let mut last: Option<String> = None;
    let mut after_fn = false;
    for t in tokens {
        match t {
            TokenTree::Ident(i) => {
                let name = i.to_string();
                // The identifier after `fn` is an item's own name, never a call.
                last = (!after_fn && name != "fn").then(|| name.clone());
                after_fn = name == "fn";
            }
            TokenTree::Group(g) => {
                if g.delimiter() == Delimiter::Parenthesis {
                    if let Some(name) = last.take() {
                        out.insert(name);
                    }
                }
                walk(g.stream(), out);
                last = None;
                after_fn = false;
            }
            // `name!(…)` is a macro; `a::f(…)` and `x.f(…)` keep the last identifier.
            TokenTree::Punct(p) if p.as_char() == '!' => last = None,
            TokenTree::Punct(_) => {}
            TokenTree::Literal(_) => last = None,
        }
    }
}

/// A callable function (`fns[k].plan` is `Ok`) that calls `fns[target]`, directly or through at
/// most [`DEPTH`] calls: the nearest, then the one with the fewest parameters, then the first.
pub fn vehicle(fns: &[FoundFn], target: usize) -> Option<usize> {
    let called: Vec<BTreeSet<String>> = fns.iter().map(|f| callees(&f.source)).collect();
    let mut frontier: Vec<usize> = vec![target];
    let mut seen: BTreeSet<usize> = BTreeSet::from([target]);
    for _ in 0..DEPTH {
        let names: BTreeSet<&str> = frontier.iter().map(|&k| fns[k].name.as_str()).collect();
        let callers: Vec<usize> = (0..fns.len())
            .filter(|k| !seen.contains(k))
            .filter(|&k| names.iter().any(|n| called[k].contains(*n)))
            .collect();
        let best = callers
            .iter()
            .copied()
            .filter(|&k| fns[k].plan.is_ok())
            .min_by_key(|&k| (fns[k].params.len(), k));
        if best.is_some() {
            return best;
        }
        if callers.is_empty() {
            return None;
        }
        seen.extend(&callers);
        frontier = callers;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_paths_and_methods_are_callees_but_macros_and_the_own_name_are_not() {
        let src = "fn outer(x: u8) -> u8 { let v = inner(x); Self::assoc(v); v.method(1); \
                   println!(\"{}\", x); helper::<u8>(x); outer_too() }";
        let c = callees(src);
        for name in ["inner", "assoc", "method", "outer_too"] {
            assert!(c.contains(name), "{name} in {c:?}");
        }
        assert!(!c.contains("println") && !c.contains("outer"), "{c:?}");
    }

    #[test]
    fn the_nearest_callable_caller_with_the_fewest_parameters_is_the_vehicle() {
        let d = tempfile::tempdir().unwrap();
        let lib = d.path().join("lib.rs");
        std::fs::write(
            &lib,
            "fn hidden(w: &dyn std::fmt::Write) -> u8 { 1 }\n\
             fn middle(w: &dyn std::fmt::Write) -> u8 { hidden(w) }\n\
             pub fn top(a: u8, b: u8) -> u8 { let mut s = String::new(); middle(&mut s) + a + b }\n\
             pub fn small(a: u8) -> u8 { let mut s = String::new(); middle(&mut s) + a }\n\
             pub fn unrelated(a: u8) -> u8 { a }\n",
        )
        .unwrap();
        let fns = crate::rust::source::read_crate(&lib).unwrap().fns;
        let at = |n: &str| fns.iter().position(|f| f.name == n).unwrap();
        assert!(fns[at("hidden")].plan.is_err() && fns[at("middle")].plan.is_err());
        assert_eq!(vehicle(&fns, at("hidden")), Some(at("small")));
        assert_eq!(vehicle(&fns, at("unrelated")), None);
    }
}
