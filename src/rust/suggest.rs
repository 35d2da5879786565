//! Suggested tests for Rust: a `#[test]` that calls the function on a witness and asserts the
//! original outcome, so that it fails on the mutant. The code is placed in a `#[cfg(test)]` module
//! next to the function (private functions stay reachable), built and run in the scratch copy;
//! only tests that pass on the original and fail on their mutant are suggested.

use super::book::Book;
use super::literal::Cx;
use super::source::{CallPlan, Callee, FoundFn, Receiver, Via};
use super::types::{Ret, ITEMS};
use super::wrapper::{observed, AFTER};
use crate::report::Witness;
use crate::value::{Outcome, Value};

/// Start of the name of the module holding the suggested tests next to a function.
pub const MODULE: &str = "abex_suggested";

/// The module of the suggested test `test`: [`MODULE`] and the test's name without its last
/// `_` part (the mutant's id), which the tests of one function share; the tests of two
/// functions of one Rust module then live in two modules, not in two of the same name.
fn module_of(test: &str) -> String {
    format!("{MODULE}_{}", test.rsplit_once('_').map_or(test, |(group, _)| group))
}

fn escape(s: &str) -> String {
    format!("{s:?}")
}

/// Traits of the prelude: their methods are called with method syntax.
const PRELUDE_TRAITS: [&str; 14] = [
    "PartialEq",
    "PartialOrd",
    "Ord",
    "Eq",
    "Clone",
    "Iterator",
    "IntoIterator",
    "ToString",
    "From",
    "Into",
    "AsRef",
    "AsMut",
    "Default",
    "ToOwned",
];

/// The last segment of a trait path as written (`fmt::Display` → `Display`).
fn trait_name(t: &str) -> &str {
    let t = t.split('<').next().unwrap_or(t);
    t.rsplit("::").next().unwrap_or(t).trim()
}

/// The format string `format!` writes a formatting trait's flags with.
fn format_spec(spec: &str, flags: &[Value]) -> Option<String> {
    let ch = match spec {
        "display" => "",
        "debug" => "?",
        "lower_hex" => "x",
        "upper_hex" => "X",
        "octal" => "o",
        "binary" => "b",
        "lower_exp" => "e",
        "upper_exp" => "E",
        _ => return None,
    };
    let mut s = String::from("{:");
    if matches!(flags.first(), Some(Value::Bool(true))) {
        s.push('#');
    }
    if let Some(Value::Int(w)) = flags.get(1) {
        s.push_str(&w.to_string());
    }
    if let Some(Value::Int(p)) = flags.get(2) {
        s.push_str(&format!(".{p}"));
    }
    s.push_str(ch);
    s.push('}');
    Some(if s == "{:}" { "{}".into() } else { s })
}

/// The call of `f` on the witness's input, as a test writes it, with the statements that come
/// before it (a receiver bound to a name).
fn call_expr(
    f: &FoundFn,
    plan: &CallPlan,
    cx: &Cx<'_>,
    input: &[Value],
) -> Option<(String, String)> {
    let mut pre = String::new();
    let printed: Option<Vec<String>> =
        plan.args.iter().zip(input).map(|(a, v)| cx.arg(a, v)).collect();
    let mut printed = printed?;
    // An argument whose state after the call is asserted is bound first (the receiver is below).
    for (i, name) in observed(plan) {
        let (a, v) = (plan.args.get(i)?, input.get(i)?);
        if name != "receiver" {
            let value = cx.expr(&a.ty, &syn::parse_str(&a.owned).ok()?, v)?;
            pre.push_str(&format!("        let mut {name} = {value};\n"));
            printed[i] = format!("&mut {name}");
        }
    }
    let tf = &plan.turbofish;
    let name = &f.name;
    let trait_ = plan.trait_.as_deref();
    let call = match &plan.callee {
        Callee::Free => format!("{name}{tf}({})", printed.join(", ")),
        Callee::Assoc { self_ty } => match (trait_.map(trait_name), name.as_str()) {
            (Some("FromStr"), "from_str") => format!("{}.parse::<{self_ty}>()", printed.first()?),
            (Some(t), _) if !PRELUDE_TRAITS.contains(&t) => {
                format!("<{self_ty} as {}>::{name}{tf}({})", trait_?, printed.join(", "))
            }
            _ => format!("{self_ty}::{name}{tf}({})", printed.join(", ")),
        },
        Callee::Method { self_ty, receiver } => {
            let recv = plan.args.first()?;
            let value = cx.expr(&recv.ty, &syn::parse_str(&recv.owned).ok()?, input.first()?)?;
            let mutable = *receiver == Receiver::RefMut || plan.via == Via::Collect;
            let m = if mutable { "mut " } else { "" };
            pre.push_str(&format!(
                "        let {m}receiver = {value};
"
            ));
            let rest = printed[1..].join(", ");
            match plan.via {
                Via::Format(spec) => {
                    format!("format!({:?}, receiver)", format_spec(spec, &input[1..])?)
                }
                Via::Collect => {
                    format!("receiver.by_ref().take({ITEMS}).collect::<Vec<_>>()")
                }
                Via::Hash => {
                    let t = trait_?;
                    format!("{{ let mut hasher = std::collections::hash_map::DefaultHasher::new(); <{self_ty} as {t}>::hash(&receiver, &mut hasher); std::hash::Hasher::finish(&hasher) }}")
                }
                Via::Direct => match trait_ {
                    Some(t) if !PRELUDE_TRAITS.contains(&trait_name(t)) => {
                        let r = match receiver {
                            Receiver::Ref => "&receiver",
                            Receiver::RefMut => "&mut receiver",
                            Receiver::Value => "receiver",
                        };
                        let sep = if rest.is_empty() { "" } else { ", " };
                        format!("<{self_ty} as {t}>::{name}{tf}({r}{sep}{rest})")
                    }
                    _ => format!("receiver.{name}{tf}({rest})"),
                },
            }
        }
    };
    let call = match plan.ret {
        Ret::Iter => format!("{call}.take({ITEMS}).collect::<Vec<_>>()"),
        _ => call,
    };
    Some((pre, call))
}

/// Whether a return value rendered as `value` can be written as a literal of the return type in
/// `signature`: integers, `bool`, `char`, strings, and finite floats (their `Debug` text is a
/// Rust literal of the same value).
fn literal_return(signature: &str, value: &str) -> bool {
    let Some((_, ret)) = signature.rsplit_once("->") else { return false };
    let ret = ret.trim().trim_start_matches("&'static ").trim_start_matches('&').trim();
    let int =
        ["i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize"];
    match ret {
        r if int.contains(&r) => value.parse::<i128>().is_ok() || value.parse::<u128>().is_ok(),
        "bool" => value == "true" || value == "false",
        "char" => value.starts_with('\''),
        "str" | "String" => value.starts_with('"'),
        "f32" | "f64" => value.parse::<f64>().is_ok_and(f64::is_finite) && value.contains('.'),
        _ => false,
    }
}

/// The body of a suggested test: call `f` on the witness and assert the original outcome.
pub fn test_fn(
    f: &FoundFn,
    plan: &CallPlan,
    book: &Book,
    w: &Witness,
    name: &str,
    why: &str,
) -> Option<String> {
    if w.original.is_cut() {
        return None; // the original's full value is not known: nothing to assert
    }
    if matches!(&w.original, Outcome::Error { ty, .. } if ty.starts_with("abex: ")) {
        return None; // the arguments could not be built: a test cannot write that call
    }
    let cx = Cx { book, module: &f.module };
    let (pre, call) = call_expr(f, plan, &cx, &w.input)?;
    let mut s = format!("    /// {why}\n    #[test]\n");
    if let Outcome::Panic { message } = &w.original {
        s.push_str(&format!("    #[should_panic(expected = {})]\n", escape(message)));
    }
    s.push_str(&format!("    fn {name}() {{\n{pre}"));
    // The state of `&mut` arguments after the call follows the value (see `wrapper::AFTER`).
    let (original, states) = split_after(&w.original);
    if !states.is_empty() && !observed(plan).iter().all(|(_, n)| states.iter().any(|(m, _)| m == n))
    {
        return None;
    }
    match (&original, plan.ret) {
        (Outcome::Ok { value }, Ret::Value) if !states.is_empty() && value == "()" => {
            s.push_str(&format!("        {call};\n"));
        }
        (Outcome::Panic { .. }, _) => s.push_str(&format!("        let _ = {call};\n")),
        (Outcome::Ok { value }, Ret::Value) if matches!(plan.via, Via::Format(_)) => {
            s.push_str(&format!("        assert_eq!({call}, {value});\n"));
        }
        (Outcome::Ok { value }, Ret::Value)
            if plan.via == Via::Direct && literal_return(&f.signature, value) =>
        {
            s.push_str(&format!("        assert_eq!({call}, {value});\n"));
        }
        (Outcome::Ok { value }, Ret::Value | Ret::Iter) => {
            s.push_str(&format!(
                "        assert_eq!(format!(\"{{:?}}\", {call}), {});\n",
                escape(value)
            ));
        }
        (Outcome::Ok { value }, Ret::Result) => {
            let expected = format!("Ok({value})");
            s.push_str(&format!(
                "        assert_eq!(format!(\"{{:?}}\", {call}), {});\n",
                escape(&expected)
            ));
        }
        (Outcome::Error { ty, message }, Ret::Result) => {
            let shown =
                if ty == "String" || ty == "&str" { escape(message) } else { message.clone() };
            let expected = format!("Err({shown})");
            s.push_str(&format!(
                "        assert_eq!(format!(\"{{:?}}\", {call}), {});\n",
                escape(&expected)
            ));
        }
        _ => return None,
    }
    for (var, state) in &states {
        s.push_str(&format!(
            "        assert_eq!(format!(\"{{:?}}\", {var}), {});\n",
            escape(state)
        ));
    }
    s.push_str("    }\n");
    Some(s)
}

/// An outcome without the states of its `&mut` arguments after the call, and those states
/// (`(name, state)`), as the harness wrote them (see [`wrapper::AFTER`]).
fn split_after(o: &Outcome) -> (Outcome, Vec<(String, String)>) {
    let split = |text: &str| -> (String, Vec<(String, String)>) {
        let mut parts = text.split(AFTER);
        let head = parts.next().unwrap_or_default().to_string();
        let states = parts
            .filter_map(|p| p.split_once(" = ").map(|(n, v)| (n.to_string(), v.to_string())))
            .collect();
        (head, states)
    };
    match o {
        Outcome::Ok { value } => {
            let (value, states) = split(value);
            (Outcome::Ok { value }, states)
        }
        Outcome::Error { ty, message } => {
            let (message, states) = split(message);
            (Outcome::Error { ty: ty.clone(), message }, states)
        }
        other => (other.clone(), Vec::new()),
    }
}

/// The `#[cfg(test)]` module holding `tests` (from [`test_fn`]).
pub fn module(tests: &[String]) -> String {
    let first = tests
        .first()
        .and_then(|t| t.lines().find_map(|l| l.trim_start().strip_prefix("fn ")))
        .and_then(|l| l.split('(').next());
    let name = module_of(first.unwrap_or(""));
    format!("\n#[cfg(test)]\n#[allow(non_snake_case, unused)]\nmod {name} {{\n    use super::*;\n\n{}}}\n", tests.join("\n"))
}

/// The path libtest knows a suggested test by, from the crate root.
pub fn test_path(f: &FoundFn, name: &str) -> String {
    let mut parts = f.module.clone();
    parts.push(module_of(name));
    parts.push(name.to_string());
    parts.join("::")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_witness_whose_original_value_was_cut_gets_no_test() {
        let d = tempfile::tempdir().unwrap();
        let lib = d.path().join("src/lib.rs");
        std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
        std::fs::write(&lib, "pub fn pad(n: u32) -> String { \"a\".repeat(n as usize) }\n")
            .unwrap();
        let c = super::super::source::read_crate(&lib).unwrap();
        let (f, plan) = (&c.fns[0], c.fns[0].plan.as_ref().unwrap());
        let w = |value: String| Witness {
            input: vec![Value::Int(5000)],
            original: Outcome::Ok { value },
            mutant: Outcome::Ok { value: "\"\"".into() },
            found_by: "search".into(),
        };
        let whole = format!("{:?}", "a".repeat(5000));
        let book = &c.book;
        assert!(test_fn(f, plan, book, &w(whole.clone()), "abex_pad_1", "why").is_some());
        assert!(test_fn(f, plan, book, &w(crate::value::cut(whole)), "abex_pad_1", "why").is_none());
    }

    #[test]
    fn the_tests_of_two_functions_of_one_module_live_in_two_modules() {
        let d = tempfile::tempdir().unwrap();
        let lib = d.path().join("src/lib.rs");
        std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
        std::fs::write(&lib, "pub fn a(n: u32) -> u32 { n }\npub fn b(n: u32) -> u32 { n }\n")
            .unwrap();
        let c = super::super::source::read_crate(&lib).unwrap();
        let w = Witness {
            input: vec![Value::Int(5)],
            original: Outcome::Ok { value: "5".into() },
            mutant: Outcome::Ok { value: "6".into() },
            found_by: "search".into(),
        };
        let mut modules = Vec::new();
        for (f, name) in c.fns.iter().zip(["abex_a_12345678", "abex_b_87654321"]) {
            let code = test_fn(f, f.plan.as_ref().unwrap(), &c.book, &w, name, "why").unwrap();
            let m = module(&[code]);
            let path = test_path(f, name);
            let (module_name, _) = path.rsplit_once("::").unwrap();
            assert!(m.contains(&format!("mod {module_name} {{")), "{m}\n{path}");
            modules.push(module_name.to_string());
        }
        assert_ne!(modules[0], modules[1]);
    }

    #[test]
    fn plain_return_values_are_compared_as_literals() {
        assert!(literal_return("fn f(x: u32) -> u32", "5"));
        assert!(literal_return("fn f(s: &str) -> &'static str", "\"small\""));
        assert!(literal_return("fn f() -> f64", "0.4"));
        assert!(!literal_return("fn f() -> f64", "NaN"));
        assert!(!literal_return("fn f() -> Option<u8>", "Some(1)"));
        assert!(!literal_return("fn f()", "()"));
    }
}
