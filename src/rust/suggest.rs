//! Suggested tests for Rust: a `#[test]` that calls the function on a witness and asserts the
//! original outcome, so that it fails on the mutant. The code is placed in a `#[cfg(test)]` module
//! next to the function (private functions stay reachable), built and run in the scratch copy;
//! only tests that pass on the original and fail on their mutant are suggested.

use super::source::{CallPlan, Callee, FoundFn, Receiver};
use super::types::{ArgPlan, Pass, Ret};
use crate::report::Witness;
use crate::value::{CtorForm, Outcome, Ty, Value};

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

/// A Rust expression of the owned type of `ty` with value `v`.
pub fn literal(ty: &Ty, v: &Value) -> Option<String> {
    Some(match (ty, v) {
        (Ty::Int { bits, signed }, Value::Int(i)) => {
            let suffix = match (bits, signed) {
                (8, true) => "i8",
                (16, true) => "i16",
                (32, true) => "i32",
                (64, true) => "i64",
                (128, true) => "i128",
                (8, false) => "u8",
                (16, false) => "u16",
                (32, false) => "u32",
                (64, false) => "u64",
                _ => "u128",
            };
            if *i < 0 {
                format!("({i}{suffix})")
            } else {
                format!("{i}{suffix}")
            }
        }
        (Ty::Int { .. }, Value::BigUint(u)) => format!("{u}u128"),
        (Ty::Float { bits }, Value::Float(x)) => {
            let t = if *bits == 32 { "f32" } else { "f64" };
            if x.is_nan() {
                format!("{t}::NAN")
            } else if x.is_infinite() {
                format!("{}{t}::INFINITY", if *x < 0.0 { "-" } else { "" })
            } else {
                format!("({x:?}{t})")
            }
        }
        (Ty::Bool, Value::Bool(b)) => b.to_string(),
        (Ty::Char, Value::Str(s)) => format!("{:?}", s.chars().next()?),
        (Ty::Str, Value::Str(s)) => format!("{}.to_string()", escape(s)),
        (Ty::List { item }, Value::List(xs)) | (Ty::Array { item, .. }, Value::List(xs)) => {
            let items: Option<Vec<String>> = xs.iter().map(|x| literal(item, x)).collect();
            let items = items?.join(", ");
            if matches!(ty, Ty::Array { .. }) {
                format!("[{items}]")
            } else {
                format!("vec![{items}]")
            }
        }
        (Ty::Built { ctors, .. }, Value::Built { ctor, args }) => {
            let c = ctors.iter().find(|c| c.name == *ctor)?;
            let parts: Option<Vec<String>> =
                c.params.iter().zip(args).map(|((_, t), x)| literal(t, x)).collect();
            let parts = parts?;
            match c.form {
                CtorForm::Unit => c.name.clone(),
                CtorForm::Call => format!("{}({})", c.name, parts.join(", ")),
                CtorForm::Fields => {
                    let fields: Vec<String> = c
                        .params
                        .iter()
                        .zip(&parts)
                        .map(|((n, _), p)| format!("{n}: {p}"))
                        .collect();
                    format!("{} {{ {} }}", c.name, fields.join(", "))
                }
            }
        }
        (Ty::Option { .. }, Value::Null) => "None".into(),
        (Ty::Option { item }, v) => format!("Some({})", literal(item, v)?),
        (Ty::Tuple { items }, Value::List(xs)) if items.len() == xs.len() => {
            let parts: Option<Vec<String>> =
                items.iter().zip(xs).map(|(t, x)| literal(t, x)).collect();
            let parts = parts?;
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
        _ => return None,
    })
}

/// The argument expression passing `v` for a parameter planned as `a`, written inline.
fn inline_arg(a: &ArgPlan, v: &Value) -> Option<String> {
    let boxed = |lit: String| {
        if a.owned.starts_with("::std::boxed::Box<") {
            format!("Box::new({lit})")
        } else {
            lit
        }
    };
    Some(match (&a.pass, &a.ty, v) {
        (Pass::Ref, Ty::Str, Value::Str(s)) => escape(s),
        (Pass::Value, _, _) => boxed(literal(&a.ty, v)?),
        (Pass::Ref, _, _) => format!("&{}", boxed(literal(&a.ty, v)?)),
        (Pass::RefMut, _, _) => format!("&mut {}", boxed(literal(&a.ty, v)?)),
        (Pass::AsDeref, _, Value::Null) | (Pass::AsRef, _, Value::Null) => "None".into(),
        (Pass::AsDeref, Ty::Option { item }, v) => match (&**item, v) {
            (Ty::Str, Value::Str(s)) => format!("Some({})", escape(s)),
            (item, v) => format!("Some(&{}[..])", literal(item, v)?),
        },
        (Pass::AsRef, Ty::Option { item }, v) => format!("Some(&{})", literal(item, v)?),
        (Pass::StrVec { by_ref }, _, Value::List(xs)) => {
            let items: Option<Vec<String>> = xs
                .iter()
                .map(|x| if let Value::Str(s) = x { Some(escape(s)) } else { None })
                .collect();
            let items = items?.join(", ");
            if *by_ref {
                format!("&[{items}]")
            } else {
                format!("vec![{items}]")
            }
        }
        _ => return None,
    })
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
pub fn test_fn(f: &FoundFn, plan: &CallPlan, w: &Witness, name: &str, why: &str) -> Option<String> {
    if w.original.is_cut() {
        return None; // the original's full value is not known: nothing to assert
    }
    let mut s = format!("    /// {why}\n    #[test]\n");
    if let Outcome::Panic { message } = &w.original {
        s.push_str(&format!("    #[should_panic(expected = {})]\n", escape(message)));
    }
    s.push_str(&format!("    fn {name}() {{\n"));
    let args: Option<Vec<String>> =
        plan.args.iter().zip(&w.input).map(|(a, v)| inline_arg(a, v)).collect();
    let args = args?.join(", ");
    let call = match &plan.callee {
        Callee::Free => format!("{}({args})", f.name),
        Callee::Assoc { self_ty } => format!("{self_ty}::{}({args})", f.name),
        Callee::Method { self_ty, receiver } => {
            let m = if *receiver == Receiver::RefMut { "mut " } else { "" };
            s.push_str(&format!("        let {m}receiver = {self_ty}::default();\n"));
            format!("receiver.{}({args})", f.name)
        }
    };
    match (&w.original, plan.ret) {
        (Outcome::Panic { .. }, _) => s.push_str(&format!("        let _ = {call};\n")),
        (Outcome::Ok { value }, Ret::Value) if literal_return(&f.signature, value) => {
            s.push_str(&format!("        assert_eq!({call}, {value});\n"));
        }
        (Outcome::Ok { value }, Ret::Value) => {
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
    s.push_str("    }\n");
    Some(s)
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
        assert!(test_fn(f, plan, &w(whole.clone()), "abex_pad_1", "why").is_some());
        assert!(test_fn(f, plan, &w(crate::value::cut(whole)), "abex_pad_1", "why").is_none());
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
            let code = test_fn(f, f.plan.as_ref().unwrap(), &w, name, "why").unwrap();
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

    #[test]
    fn literals_are_typed_rust_expressions() {
        assert_eq!(literal(&Ty::int(32, true), &Value::Int(-5)).unwrap(), "(-5i32)");
        assert_eq!(
            literal(&Ty::Str, &Value::Str("a\"b".into())).unwrap(),
            "\"a\\\"b\".to_string()"
        );
        let opt = Ty::Option { item: Box::new(Ty::int(8, false)) };
        assert_eq!(literal(&opt, &Value::Null).unwrap(), "None");
        assert_eq!(literal(&opt, &Value::Int(3)).unwrap(), "Some(3u8)");
        let t = Ty::Tuple { items: vec![Ty::Bool, Ty::Char] };
        let v = Value::List(vec![Value::Bool(true), Value::Str("x".into())]);
        assert_eq!(literal(&t, &v).unwrap(), "(true, 'x')");
        assert_eq!(literal(&Ty::Float { bits: 64 }, &Value::Float(f64::NAN)).unwrap(), "f64::NAN");
        let l = Ty::List { item: Box::new(Ty::Str) };
        assert_eq!(
            literal(&l, &Value::List(vec![Value::Str("a".into())])).unwrap(),
            "vec![\"a\".to_string()]"
        );
    }
}
