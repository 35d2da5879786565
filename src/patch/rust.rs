//! Where suggested Rust tests go in a project's file: into the file's `#[cfg(test)] mod tests`
//! (when it imports `super::*`, as the tests abex checked do), or a new one at the end of the
//! file. Only functions at the top of their file (free, or in an `impl` there) get their tests
//! placed: a test module at the top of the file reaches those through `use super::*`.

use std::collections::BTreeSet;

use syn::spanned::Spanned;

use crate::mutate::Lines;
use crate::testname::unique;

/// A test to place: the function it calls (its name and, for a method, the type's) and its
/// code, indented for a module at the top of the file.
pub struct Placed<'a> {
    /// The function's name.
    pub function: &'a str,
    /// The test function's name.
    pub name: &'a str,
    /// Its code.
    pub code: &'a str,
}

/// Whether `attrs` hold `#[cfg(test)]`.
fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>().is_ok_and(|m| m.path().is_ident("test"))
    })
}

/// The functions at the top of the file: free ones and those in its `impl` blocks.
fn top_functions(file: &syn::File) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for item in &file.items {
        match item {
            syn::Item::Fn(f) => {
                out.insert(f.sig.ident.to_string());
            }
            syn::Item::Impl(i) => {
                for it in &i.items {
                    if let syn::ImplItem::Fn(f) = it {
                        out.insert(f.sig.ident.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Every `fn name` in `text`: names a placed test must not take.
fn fn_names(text: &str) -> BTreeSet<String> {
    let re = regex::Regex::new(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)").expect("a valid regex");
    re.captures_iter(text).map(|c| c[1].to_string()).collect()
}

/// `text` with `tests` placed (the tests whose function is not at the top of the file are left
/// out), and the names they were placed under (renamed when the file has the name already);
/// `None` when the file does not parse.
pub fn place(text: &str, tests: &[Placed<'_>]) -> Option<(String, Vec<(String, String)>)> {
    let file = syn::parse_file(text).ok()?;
    let reachable = top_functions(&file);
    let mut taken = fn_names(text);
    let mut names = Vec::new();
    let mut codes = Vec::new();
    for t in tests.iter().filter(|t| reachable.contains(t.function)) {
        let name = unique(t.name, &mut taken);
        let code = t.code.replacen(&format!("fn {}(", t.name), &format!("fn {name}("), 1);
        names.push((t.name.to_string(), name));
        codes.push(code.trim_end().to_string());
    }
    if codes.is_empty() {
        return Some((text.to_string(), names));
    }
    let block = codes.join("\n\n");
    let lines = Lines::new(text);
    // The file's test module, when its tests see the file's items (`use super::*`).
    let module = file.items.iter().find_map(|item| match item {
        syn::Item::Mod(m) if is_cfg_test(&m.attrs) && m.ident == "tests" => {
            let (_, items) = m.content.as_ref()?;
            let glob = items.iter().any(|i| match i {
                syn::Item::Use(u) => matches!(&u.tree, syn::UseTree::Path(p)
                    if p.ident == "super" && matches!(*p.tree, syn::UseTree::Glob(_))),
                _ => false,
            });
            glob.then(|| lines.offset(text, m.span().end()))
        }
        _ => None,
    });
    let mut out = String::with_capacity(text.len() + block.len() + 64);
    match module {
        Some(end) if end > 0 && text[..end].ends_with('}') => {
            let close = end - 1;
            let before = text[..close].trim_end();
            out.push_str(before);
            out.push_str("\n\n");
            out.push_str(&block);
            out.push('\n');
            out.push_str(&text[close..]);
        }
        _ => {
            let name = if taken.contains("tests") || module_named(&file, "tests") {
                "suggested_tests"
            } else {
                "tests"
            };
            out.push_str(text.trim_end());
            out.push_str(&format!(
                "\n\n#[cfg(test)]\nmod {name} {{\n    use super::*;\n\n{block}\n}}\n"
            ));
        }
    }
    Some((out, names))
}

fn module_named(file: &syn::File, name: &str) -> bool {
    file.items.iter().any(|i| matches!(i, syn::Item::Mod(m) if m.ident == name))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEST: &str =
        "    /// why\n    #[test]\n    fn f_is_1_for_0() {\n        assert_eq!(f(0), 1);\n    }\n";

    #[test]
    fn tests_go_into_the_file_s_test_module_under_a_free_name() {
        let text = "pub fn f(x: u8) -> u8 { x + 1 }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn f_is_1_for_0() {}\n}\n";
        let t = Placed { function: "f", name: "f_is_1_for_0", code: TEST };
        let (out, names) = place(text, &[t]).unwrap();
        assert_eq!(names, vec![("f_is_1_for_0".to_string(), "f_is_1_for_0_2".to_string())]);
        assert!(
            out.ends_with("    fn f_is_1_for_0() {}\n\n    /// why\n    #[test]\n    fn f_is_1_for_0_2() {\n        assert_eq!(f(0), 1);\n    }\n}\n"),
            "{out}"
        );
        syn::parse_file(&out).unwrap();
    }

    #[test]
    fn a_file_without_a_test_module_gets_one_and_nested_functions_none() {
        let text = "pub fn f(x: u8) -> u8 { x + 1 }\nmod inner { pub fn g() {} }\n";
        let f = Placed { function: "f", name: "f_is_1_for_0", code: TEST };
        let g = Placed { function: "g", name: "g_is_none", code: TEST };
        let (out, names) = place(text, &[f, g]).unwrap();
        assert_eq!(names.len(), 1);
        assert!(out.starts_with(text.trim_end()));
        assert!(
            out.contains("\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    /// why\n"),
            "{out}"
        );
        syn::parse_file(&out).unwrap();
        // A test module that does not import the file's items is left alone.
        let text = "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
        let f = Placed { function: "f", name: "f_is_1_for_0", code: TEST };
        let (out, _) = place(text, &[f]).unwrap();
        assert!(out.contains("mod suggested_tests {"), "{out}");
    }
}
