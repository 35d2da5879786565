//! Who calls whom in a Python project: the names each function's body calls (`f(…)`,
//! `mod.f(…)`, `self.f(…)`), read with tree-sitter, so that a function abex cannot call itself
//! can be driven through one that calls it (its "vehicle").

use std::collections::BTreeSet;

use tree_sitter::{Node, Parser};

use super::project::Project;

/// How many calls deep a vehicle may be looked for.
const DEPTH: usize = 3;

/// The names `source` (a function's text) calls: the last name of each call's callee.
pub fn callees(source: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut parser = Parser::new();
    if parser.set_language(&tree_sitter_python::LANGUAGE.into()).is_err() {
        return out;
    }
    if let Some(tree) = parser.parse(source, None) {
        walk(tree.root_node(), source.as_bytes(), &mut out);
    }
    out
}

fn walk(n: Node<'_>, src: &[u8], out: &mut BTreeSet<String>) {
    if n.kind() == "call" {
        let callee = n.child_by_field_name("function");
        let name = match callee {
            Some(f) if f.kind() == "identifier" => Some(f),
            Some(f) if f.kind() == "attribute" => f.child_by_field_name("attribute"),
            _ => None,
        };
        if let Some(text) = name.and_then(|x| x.utf8_text(src).ok()) {
            out.insert(text.to_string());
        }
    }
    let mut c = n.walk();
    for child in n.children(&mut c) {
        walk(child, src, out);
    }
}

/// A callable function of `project` (file and function index) that calls the function `f` of
/// file `file`, directly or through at most [`DEPTH`] calls: the nearest, then the one with the
/// fewest parameters, then the first.
pub fn vehicle(project: &Project, file: usize, f: usize) -> Option<(usize, usize)> {
    let all: Vec<(usize, usize)> = project
        .files
        .iter()
        .enumerate()
        .flat_map(|(i, pf)| (0..pf.fns.len()).map(move |k| (i, k)))
        .collect();
    let called: Vec<BTreeSet<String>> = all
        .iter()
        .map(|&(i, k)| {
            let pf = &project.files[i];
            let (s, e) = pf.fns[k].byte_span;
            callees(pf.text.get(s..e).unwrap_or_default())
        })
        .collect();
    let fun = |&(i, k): &(usize, usize)| &project.files[i].fns[k];
    let mut frontier = vec![(file, f)];
    let mut seen: BTreeSet<(usize, usize)> = BTreeSet::from([(file, f)]);
    for _ in 0..DEPTH {
        let names: BTreeSet<&str> = frontier.iter().map(|x| fun(x).name.as_str()).collect();
        let callers: Vec<usize> = (0..all.len())
            .filter(|&j| !seen.contains(&all[j]))
            .filter(|&j| names.iter().any(|n| called[j].contains(*n)))
            .collect();
        let best = callers
            .iter()
            .copied()
            .filter(|&j| fun(&all[j]).unsupported.is_none())
            .min_by_key(|&j| (fun(&all[j]).params.len(), j));
        if let Some(j) = best {
            return Some(all[j]);
        }
        if callers.is_empty() {
            return None;
        }
        frontier = callers.iter().map(|&j| all[j]).collect();
        seen.extend(frontier.iter().copied());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_by_name_attribute_and_method_are_callees() {
        let c = callees("def f(x):\n    y = g(x) + mod.h(x)\n    return self.k(y)\n");
        assert_eq!(c.into_iter().collect::<Vec<_>>(), ["g", "h", "k"]);
    }
}
