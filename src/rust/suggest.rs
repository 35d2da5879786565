//! Suggested tests for Rust: a `#[test]` that calls the function on a witness and asserts the
//! original outcome, so that it fails on the mutant. The code is placed in a `#[cfg(test)]` module
//! next to the function (private functions stay reachable), built and run in the scratch copy;
//! only tests that pass on the original and fail on their mutant are suggested.

use crate::report::Witness;
use crate::rust::harness::wrapper::observed;
use crate::rust::literal::Cx;
use crate::rust::source::{CallPlan, Callee, FoundFn, Receiver, Via};
use crate::rust::types::book::Book;
use crate::rust::types::{Ret, ITEMS};
use crate::value::{Outcome, Value};

/// Start of the name of the module holding the suggested tests next to a function.
pub const MODULE: &str = "abex_suggested";

/// The module of the suggested test `test` in the scratch copy: [`MODULE`] and the test's
/// name, one module per test, so that a test that does not compile is dropped alone.
fn module_of(test: &str) -> String {
    format!("{MODULE}_{test}")
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
    format: &str,
    input: &[Value],
) -> Option<(String, String)> {
    let mut pre = String::new();
    let mut printed = printed_args(f, plan, cx, input)?;
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
            _ => format!("{}::{name}{tf}({})", expr_path(self_ty), printed.join(", ")),
        },
        Callee::Method { self_ty, receiver } => {
            let recv = plan.args.first()?;
            let value = cx.expr(&recv.ty, &syn::parse_str(&recv.owned).ok()?, input.first()?)?;
            let mutable = *receiver == Receiver::RefMut || plan.via == Via::Collect;
            let m = if mutable { "mut " } else { "" };
            // A receiver that borrows a temporary (`Shlex::new(&vec![92u8])`) would outlive it:
            // the temporary gets a `let` of its own first.
            let (lets, value) = hoisted(&value);
            for (k, v) in lets.iter().enumerate() {
                let n = if k == 0 { "input".to_string() } else { format!("input{}", k + 1) };
                pre.push_str(&format!("        let {n} = {v};\n"));
            }
            pre.push_str(&format!(
                "        let {m}receiver = {value};
"
            ));
            let rest = printed[1..].join(", ");
            match plan.via {
                Via::Format(spec) => {
                    format!("{format}({:?}, receiver)", format_spec(spec, &input[1..])?)
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

/// The arguments of the call of `f` on `input` as a test writes them (`-5`, `"a"`, `&[1, 2]`).
fn printed_args(f: &FoundFn, plan: &CallPlan, cx: &Cx<'_>, input: &[Value]) -> Option<Vec<String>> {
    let printed: Option<Vec<String>> =
        plan.args.iter().zip(input).map(|(a, v)| cx.arg(a, v)).collect();
    let mut printed = printed?;
    // A number passed to a parameter declared as a primitive needs no suffix: `f(-5)`, not
    // `f((-5i32))`.
    let plain = numeric_params(&f.signature);
    for (i, p) in printed.iter_mut().enumerate() {
        if plain.get(i).copied().unwrap_or(false) {
            if let Some(bare) = unsuffixed(p) {
                *p = bare;
            }
        }
    }
    Some(printed)
}

/// The parameter of a table test that carries the original's value.
const EXPECTED: &str = "expected";

/// Where the crate's tests use `rstest`: `cases` as one `#[rstest]` test named `name`, a
/// `#[case(…)]` per witness over the function's parameters and [`EXPECTED`]. `None` unless the
/// function is called plainly (a free or inherent associated function without generics, its
/// parameters plain names, none whose state after the call is asserted) and every case returns
/// a value a literal can write.
pub fn table(
    f: &FoundFn,
    plan: &CallPlan,
    book: &Book,
    cases: &[&Witness],
    name: &str,
    why: &str,
) -> Option<String> {
    if plan.via != Via::Direct || plan.ret != Ret::Value || !observed(plan).is_empty() {
        return None;
    }
    let sig: syn::Signature = syn::parse_str(f.signature.trim().trim_end_matches('{')).ok()?;
    if !sig.generics.params.is_empty() || sig.asyncness.is_some() || cases.len() < 2 {
        return None;
    }
    let mut params: Vec<(String, String)> = Vec::new();
    for arg in &sig.inputs {
        let syn::FnArg::Typed(t) = arg else { return None };
        let syn::Pat::Ident(p) = &*t.pat else { return None };
        if p.by_ref.is_some() || p.subpat.is_some() || p.ident == EXPECTED {
            return None;
        }
        params.push((p.ident.to_string(), type_text(&t.ty)?));
    }
    let ret = return_type(&f.signature)?;
    // A `String` compares equal to the `&str` a literal is.
    let owned_string =
        matches!(&ret, syn::Type::Path(_)) && head(&ret).is_some_and(|h| h.0 == "String");
    let expected_ty = if owned_string { "&str".to_string() } else { type_text(&ret)? };
    let names: Vec<&str> = params.iter().map(|(n, _)| n.as_str()).collect();
    let call = match (&plan.callee, &plan.trait_) {
        (Callee::Free, _) => format!("{}{}({})", f.name, plan.turbofish, names.join(", ")),
        (Callee::Assoc { self_ty }, None) => {
            format!("{}::{}{}({})", expr_path(self_ty), f.name, plan.turbofish, names.join(", "))
        }
        _ => return None,
    };
    let cx = Cx { book, module: &f.module };
    let mut rows = String::new();
    for w in cases {
        let (original, states) = w.original.split_after();
        let Outcome::Ok { value } = &original else { return None };
        if w.original.is_cut() || !states.is_empty() {
            return None;
        }
        let args = printed_args(f, plan, &cx, &w.input)?;
        if args.len() != params.len() {
            return None;
        }
        let expected = literal_of(&ret, value, false)?;
        rows.push_str(&format!("    #[case({}, {expected})]\n", args.join(", ")));
    }
    let columns: Vec<String> = params
        .iter()
        .map(|(n, t)| format!("#[case] {n}: {t}"))
        .chain([format!("#[case] {EXPECTED}: {expected_ty}")])
        .collect();
    Some(format!(
        "    /// {why}\n    #[rstest::rstest]\n{rows}    fn {name}({}) {{\n        assert_eq!({call}, {EXPECTED});\n    }}\n",
        columns.join(", ")
    ))
}

/// A type as a person writes it (`&'static str`, `Vec<u8>`), not as its tokens print
/// (`& 'static str`); `None` for what a test's parameter cannot be declared as (`impl Trait`,
/// `Self`).
fn type_text(ty: &syn::Type) -> Option<String> {
    use quote::ToTokens;
    let raw = ty.to_token_stream().to_string();
    if raw.contains("impl ") || raw.split(|c: char| !c.is_alphanumeric()).any(|w| w == "Self") {
        return None;
    }
    let mut out = raw;
    for (from, to) in [
        (" < ", "<"),
        ("< ", "<"),
        (" <", "<"),
        (" >", ">"),
        ("& ", "&"),
        (" ,", ","),
        (" ;", ";"),
        (" :: ", "::"),
        (":: ", "::"),
        (" ::", "::"),
        ("[ ", "["),
        (" ]", "]"),
        ("( ", "("),
        (" )", ")"),
    ] {
        out = out.replace(from, to);
    }
    Some(out)
}

/// Per input of `signature` (the receiver first), whether it is declared as a primitive number
/// (`x: i32`), so that an unsuffixed literal has its type.
fn numeric_params(signature: &str) -> Vec<bool> {
    let Ok(sig) = syn::parse_str::<syn::Signature>(signature.trim().trim_end_matches('{')) else {
        return Vec::new();
    };
    sig.inputs
        .iter()
        .map(|arg| match arg {
            syn::FnArg::Typed(t) => match &*t.ty {
                syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                    let name = p.path.segments[0].ident.to_string();
                    INTS.contains(&name.as_str()) || name == "f32" || name == "f64"
                }
                _ => false,
            },
            syn::FnArg::Receiver(_) => false,
        })
        .collect()
}

/// A suffixed number literal without its suffix and parentheses (`(-5i32)` → `-5`,
/// `2.5f64` → `2.5`); `None` for anything else.
fn unsuffixed(text: &str) -> Option<String> {
    let t = text.trim();
    let t = t.strip_prefix('(').and_then(|t| t.strip_suffix(')')).unwrap_or(t);
    let suffix = INTS.iter().chain(&["f32", "f64"]).find(|s| t.ends_with(**s))?;
    let number = &t[..t.len() - suffix.len()];
    let digits = number.strip_prefix('-').unwrap_or(number);
    let ok = !digits.is_empty()
        && digits.starts_with(|c: char| c.is_ascii_digit())
        && digits.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '-' | '_'));
    ok.then(|| number.to_string())
}

/// The type `signature` returns, if it returns one.
fn return_type(signature: &str) -> Option<syn::Type> {
    let sig: syn::Signature = syn::parse_str(signature.trim().trim_end_matches('{')).ok()?;
    match sig.output {
        syn::ReturnType::Type(_, t) => Some(*t),
        syn::ReturnType::Default => None,
    }
}

/// The last segment's name of a path type and its type arguments (`Result<u16, String>` →
/// `Result`, [`u16`, `String`]); references are looked through.
fn head(ty: &syn::Type) -> Option<(String, Vec<&syn::Type>)> {
    match ty {
        syn::Type::Reference(r) => head(&r.elem),
        syn::Type::Paren(p) => head(&p.elem),
        syn::Type::Path(p) => {
            let last = p.path.segments.last()?;
            let args = match &last.arguments {
                syn::PathArguments::AngleBracketed(a) => a
                    .args
                    .iter()
                    .filter_map(|g| match g {
                        syn::GenericArgument::Type(t) => Some(t),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            Some((last.ident.to_string(), args))
        }
        _ => None,
    }
}

const INTS: [&str; 12] =
    ["i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize"];

/// A literal of type `ty` equal to the value whose `Debug` text is `value`, as `assert_eq!`
/// compares it with a value of `ty`: integers, `bool`, `char`, strings (a `String` only at
/// the top, `nested` false, where `String == &str` holds), finite floats, `Option`s of them.
fn literal_of(ty: &syn::Type, value: &str, nested: bool) -> Option<String> {
    if let syn::Type::Tuple(t) = ty {
        let inner = value.trim().strip_prefix('(')?.strip_suffix(')')?;
        let items = crate::value::split_top(inner);
        if t.elems.is_empty() || items.len() != t.elems.len() {
            return None;
        }
        let parts: Option<Vec<String>> =
            t.elems.iter().zip(&items).map(|(e, x)| literal_of(e, x, true)).collect();
        return Some(format!("({})", parts?.join(", ")));
    }
    let (name, args) = head(ty)?;
    let value = value.trim();
    match name.as_str() {
        n if INTS.contains(&n) => {
            (value.parse::<i128>().is_ok() || value.parse::<u128>().is_ok()).then(|| value.into())
        }
        "bool" => (value == "true" || value == "false").then(|| value.into()),
        "char" => value.starts_with('\'').then(|| value.into()),
        "str" => value.starts_with('"').then(|| value.into()),
        "String" if !nested => value.starts_with('"').then(|| value.into()),
        "f32" | "f64" => {
            let finite = value.parse::<f64>().is_ok_and(f64::is_finite);
            (finite && value.contains('.')).then(|| value.into())
        }
        "Vec" => {
            let inner = value.strip_prefix('[')?.strip_suffix(']')?;
            let items = crate::value::split_top(inner);
            if items.is_empty() {
                return None; // `vec![]` needs its type
            }
            let parts: Option<Vec<String>> =
                items.iter().map(|x| literal_of(args.first()?, x, true)).collect();
            Some(format!("vec![{}]", parts?.join(", ")))
        }
        "Option" if value == "None" => Some("None".into()),
        "Option" => {
            let inner = value.strip_prefix("Some(")?.strip_suffix(')')?;
            Some(format!("Some({})", literal_of(args.first()?, inner, true)?))
        }
        _ => None,
    }
}

/// Whether values of `ty` compare with `==` for sure (so a `Result` with it as error does).
fn known_partial_eq(ty: &syn::Type) -> bool {
    let Some((name, _)) = head(ty) else {
        return matches!(ty, syn::Type::Tuple(t) if t.elems.is_empty());
    };
    INTS.contains(&name.as_str()) || matches!(name.as_str(), "bool" | "char" | "str" | "String")
}

/// How a readable test asserts what the original returned: `assert_eq!(f(x), 5)`,
/// `assert_eq!(f(x), Ok(5))`, `assert_eq!(f(x).unwrap(), "a")`,
/// `assert!(matches!(f(x), Err(..)))`, `assert_eq!(f(x).unwrap_err(), "too big")`; `None`
/// when only the `Debug` text can say it.
fn readable_assert(
    signature: &str,
    plan: &CallPlan,
    call: &str,
    original: &Outcome,
    mutant: &Outcome,
) -> Option<String> {
    if plan.via != Via::Direct {
        return None;
    }
    let ret = return_type(signature)?;
    let args = head(&ret).map(|(_, args)| args).unwrap_or_default();
    match (original, plan.ret) {
        (Outcome::Ok { value }, Ret::Value) => {
            Some(format!("assert_eq!({call}, {});", literal_of(&ret, value, false)?))
        }
        (Outcome::Ok { value }, Ret::Result) => {
            let ok = args.first()?;
            let error_compares = args.get(1).is_some_and(|e| known_partial_eq(e));
            match literal_of(ok, value, true) {
                Some(lit) if error_compares => Some(format!("assert_eq!({call}, Ok({lit}));")),
                _ => {
                    let lit = literal_of(ok, value, false)?;
                    Some(format!("assert_eq!({call}.unwrap(), {lit});"))
                }
            }
        }
        (Outcome::Error { .. }, Ret::Result) if !matches!(mutant, Outcome::Error { .. }) => {
            Some(format!("assert!(matches!({call}, Err(..)));"))
        }
        (Outcome::Error { ty, message }, Ret::Result) if ty == "String" || ty == "&str" => {
            Some(format!("assert_eq!({call}.unwrap_err(), {});", escape(message)))
        }
        _ => None,
    }
}

/// The ways of writing the suggested test `name` for witness `w`, most readable first: plain
/// value comparisons where the value can be written as a literal, then the `Debug` text
/// comparison they fall back to (named by [`crate::testname::candidate`]). Empty when the
/// original's outcome cannot be asserted.
pub fn candidates(
    f: &FoundFn,
    plan: &CallPlan,
    krate: &Crate<'_>,
    w: &Witness,
    name: &str,
    why: &str,
) -> Vec<String> {
    crate::testname::readable_then_fallback(name, |n, readable| {
        test_fn(f, plan, krate, w, n, why, readable)
    })
}

/// What a suggested test needs of its crate: how to build its types, and whether it is
/// `no_std` (its tests then name std's `format!` by path: tinyvec 1.8's tests asserting a
/// value by its `Debug` text did not compile, "cannot find macro `format`").
pub struct Crate<'b> {
    /// How to build the crate's types.
    pub book: &'b Book,
    /// The crate root is `no_std`.
    pub no_std: bool,
}

impl Crate<'_> {
    /// `format!` as the crate's tests can name it.
    fn format(&self) -> &'static str {
        if self.no_std {
            "::std::format!"
        } else {
            "format!"
        }
    }
}

/// The suggested test `name`: call `f` on the witness and assert the original outcome, as a
/// person writes it when `readable`, else by its `Debug` text.
fn test_fn(
    f: &FoundFn,
    plan: &CallPlan,
    krate: &Crate<'_>,
    w: &Witness,
    name: &str,
    why: &str,
    readable: bool,
) -> Option<String> {
    let body = case_body(f, plan, krate, w, readable)?;
    let mut s = format!("    /// {why}\n    #[test]\n");
    if let Outcome::Panic { message } = &w.original {
        s.push_str(&format!("    #[should_panic(expected = {})]\n", escape(message)));
    }
    s.push_str(&format!("    fn {name}() {{\n{body}    }}\n"));
    Some(s)
}

/// One test named `name` that asserts every case of `cases` (witnesses of one function) one
/// after the other, readable where it can be; `None` when a case cannot be asserted or panics
/// (a `#[should_panic]` test holds one case).
pub fn joined(
    f: &FoundFn,
    plan: &CallPlan,
    krate: &Crate<'_>,
    cases: &[&Witness],
    name: &str,
    why: &str,
) -> Option<String> {
    if cases.iter().any(|w| matches!(w.original, Outcome::Panic { .. })) {
        return None;
    }
    let bodies: Option<Vec<String>> =
        cases.iter().map(|w| case_body(f, plan, krate, w, true)).collect();
    Some(format!("    /// {why}\n    #[test]\n    fn {name}() {{\n{}    }}\n", bodies?.concat()))
}

/// The statements of a test of witness `w`: the call and the assertion of the original's
/// outcome, as a person writes it when `readable`, else by its `Debug` text.
fn case_body(
    f: &FoundFn,
    plan: &CallPlan,
    krate: &Crate<'_>,
    w: &Witness,
    readable: bool,
) -> Option<String> {
    let (book, format) = (krate.book, krate.format());
    if w.original.is_cut() {
        return None; // the original's full value is not known: nothing to assert
    }
    if matches!(&w.original, Outcome::Error { ty, .. } if ty.starts_with("abex: ")) {
        return None; // the arguments could not be built: a test cannot write that call
    }
    let cx = Cx { book, module: &f.module };
    let (pre, call) = call_expr(f, plan, &cx, format, &w.input)?;
    let mut s = pre;
    // The state of `&mut` arguments after the call follows the value (see `value::AFTER`).
    let (original, states) = w.original.split_after();
    if !states.is_empty() && !observed(plan).iter().all(|(_, n)| states.iter().any(|(m, _)| m == n))
    {
        return None;
    }
    let plain = if readable {
        readable_assert(&f.signature, plan, &call, &original, &w.mutant)
    } else {
        None
    };
    match (&original, plan.ret) {
        (Outcome::Ok { value }, Ret::Value) if !states.is_empty() && value == "()" => {
            s.push_str(&format!("        {call};\n"));
        }
        (Outcome::Panic { .. }, _) => s.push_str(&format!("        let _ = {call};\n")),
        (Outcome::Ok { value }, Ret::Value) if matches!(plan.via, Via::Format(_)) => {
            s.push_str(&format!("        assert_eq!({call}, {value});\n"));
        }
        _ if plain.is_some() => {
            s.push_str(&format!("        {}\n", plain.unwrap_or_default()));
        }
        (Outcome::Ok { value }, Ret::Value | Ret::Iter) => {
            s.push_str(&format!(
                "        assert_eq!({format}(\"{{:?}}\", {call}), {});\n",
                escape(value)
            ));
        }
        (Outcome::Ok { value }, Ret::Result) => {
            let expected = format!("Ok({value})");
            s.push_str(&format!(
                "        assert_eq!({format}(\"{{:?}}\", {call}), {});\n",
                escape(&expected)
            ));
        }
        (Outcome::Error { ty, message }, Ret::Result) => {
            let shown =
                if ty == "String" || ty == "&str" { escape(message) } else { message.clone() };
            let expected = format!("Err({shown})");
            s.push_str(&format!(
                "        assert_eq!({format}(\"{{:?}}\", {call}), {});\n",
                escape(&expected)
            ));
        }
        _ => return None,
    }
    // A state the harness could only name (`<shlex::bytes::Shlex<'_>>`: no `Debug`) is no
    // assertion a test can write; the check keeps the test only where what it does assert kills.
    for (var, state) in states.iter().filter(|(_, state)| !opaque(state)) {
        s.push_str(&format!(
            "        assert_eq!({format}(\"{{:?}}\", {var}), {});\n",
            escape(state)
        ));
    }
    Some(s)
}

/// `value` with each borrowed `vec![…]` in it (`&vec![92u8, 92u8]`) replaced by a borrow of
/// a variable (`&input`, `&input2`, …), and those `vec![…]` expressions in order: a `let` of
/// a value that borrows a temporary does not compile ("temporary value dropped while
/// borrowed").
fn hoisted(value: &str) -> (Vec<String>, String) {
    let mut lets = Vec::new();
    let mut out = String::new();
    let mut rest = value;
    while let Some(at) = rest.find("&vec![") {
        // The matching `]` of the `vec![`, brackets nested in the items counted, strings
        // skipped.
        let body = &rest[at + 1..];
        let (mut depth, mut end, mut in_str, mut escaped) = (0usize, None, false, false);
        for (k, c) in body.char_indices().skip(4) {
            match (in_str, escaped, c) {
                (true, true, _) => escaped = false,
                (true, false, '\\') => escaped = true,
                (true, false, '"') => in_str = false,
                (true, false, _) => {}
                (false, _, '"') => in_str = true,
                (false, _, '[') => depth += 1,
                (false, _, ']') => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(k);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        let name =
            if lets.is_empty() { "input".to_string() } else { format!("input{}", lets.len() + 1) };
        lets.push(body[..=end].to_string());
        out.push_str(&rest[..at]);
        out.push_str(&format!("&{name}"));
        rest = &body[end + 1..];
    }
    out.push_str(rest);
    (lets, out)
}

/// Whether `state` is how the harness shows a value of a type without `Debug`: its type's
/// name in angle brackets.
fn opaque(state: &str) -> bool {
    state.starts_with('<') && state.ends_with('>') && state.contains("::")
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

/// Type path `ty` as an expression writes it: its arguments after `::` (`Stack<4>` is
/// `Stack::<4>`, `Wrapper<i32>` is `Wrapper::<i32>`), which the compiler needs where it cannot
/// infer them (a const capacity, a type no argument names).
fn expr_path(ty: &str) -> String {
    match ty.find('<') {
        Some(k) if !ty[..k].ends_with("::") => format!("{}::{}", &ty[..k], &ty[k..]),
        _ => ty.to_string(),
    }
}

/// Whether libtest's failing test `failed` is the suggested test at `path`, or one case of it
/// (`rstest` names a table's cases `path::case_1`, …).
pub fn is_case_of(failed: &str, path: &str) -> bool {
    failed.strip_prefix(path).is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
}

/// Whether the suggested test at `path` is among the `failed` tests (one failing case fails a
/// table).
pub fn fails(failed: &[String], path: &str) -> bool {
    failed.iter().any(|f| is_case_of(f, path))
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

    fn std_crate(c: &crate::rust::source::CrateSources) -> Crate<'_> {
        Crate { book: &c.book, no_std: false }
    }

    #[test]
    fn a_witness_whose_original_value_was_cut_gets_no_test() {
        let d = tempfile::tempdir().unwrap();
        let lib = d.path().join("src/lib.rs");
        std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
        std::fs::write(&lib, "pub fn pad(n: u32) -> String { \"a\".repeat(n as usize) }\n")
            .unwrap();
        let c = crate::rust::source::read_crate(&lib).unwrap();
        let (f, plan) = (&c.fns[0], c.fns[0].plan.as_ref().unwrap());
        let w = |value: String| Witness {
            input: vec![Value::Int(5000)],
            original: Outcome::Ok { value },
            mutant: Outcome::Ok { value: "\"\"".into() },
            found_by: "search".into(),
            shrunk_from: None,
        };
        let whole = format!("{:?}", "a".repeat(5000));
        let book = &Crate { book: &c.book, no_std: false };
        assert!(test_fn(f, plan, book, &w(whole.clone()), "abex_pad_1", "why", true).is_some());
        assert!(
            candidates(f, plan, book, &w(crate::value::cut(whole)), "abex_pad_1", "why").is_empty()
        );
    }

    #[test]
    fn the_tests_of_two_functions_of_one_module_live_in_two_modules() {
        let d = tempfile::tempdir().unwrap();
        let lib = d.path().join("src/lib.rs");
        std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
        std::fs::write(&lib, "pub fn a(n: u32) -> u32 { n }\npub fn b(n: u32) -> u32 { n }\n")
            .unwrap();
        let c = crate::rust::source::read_crate(&lib).unwrap();
        let w = Witness {
            input: vec![Value::Int(5)],
            original: Outcome::Ok { value: "5".into() },
            mutant: Outcome::Ok { value: "6".into() },
            found_by: "search".into(),
            shrunk_from: None,
        };
        let mut modules = Vec::new();
        for (f, name) in c.fns.iter().zip(["abex_a_12345678", "abex_b_87654321"]) {
            let code = test_fn(f, f.plan.as_ref().unwrap(), &std_crate(&c), &w, name, "why", true)
                .unwrap();
            let m = module(&[code]);
            let path = test_path(f, name);
            let (module_name, _) = path.rsplit_once("::").unwrap();
            assert!(m.contains(&format!("mod {module_name} {{")), "{m}\n{path}");
            modules.push(module_name.to_string());
        }
        assert_ne!(modules[0], modules[1]);
    }

    #[test]
    fn a_joined_test_asserts_each_case_and_never_holds_a_panic() {
        let c = one_fn("pub fn is_leap(y: i32) -> bool { y % 4 == 0 }\n");
        let (f, plan) = (&c.fns[0], c.fns[0].plan.as_ref().unwrap());
        let case = |y: i128, value: &str| Witness {
            input: vec![Value::Int(y)],
            original: Outcome::Ok { value: value.into() },
            mutant: Outcome::Ok { value: "x".into() },
            found_by: "search".into(),
            shrunk_from: None,
        };
        let (a, b) = (case(1899, "false"), case(1900, "true"));
        let code =
            joined(f, plan, &std_crate(&c), &[&a, &b], "is_leap_at_1899_and_1900", "why").unwrap();
        assert_eq!(
            code,
            "    /// why\n    #[test]\n    fn is_leap_at_1899_and_1900() {\n        assert_eq!(is_leap(1899), false);\n        assert_eq!(is_leap(1900), true);\n    }\n"
        );
        let panics = Witness { original: Outcome::Panic { message: "m".into() }, ..a.clone() };
        assert!(joined(f, plan, &std_crate(&c), &[&panics, &b], "t", "why").is_none());
    }

    #[test]
    fn a_table_is_one_rstest_case_per_witness_over_the_written_parameter_types() {
        let c = one_fn("pub fn bucket(age: u32, names: &[&str]) -> &'static str { \"x\" }\n");
        let (f, plan) = (&c.fns[0], c.fns[0].plan.as_ref().unwrap());
        let case = |age: i128, value: &str| Witness {
            input: vec![Value::Int(age), Value::List(vec![])],
            original: Outcome::Ok { value: value.into() },
            mutant: Outcome::Ok { value: "x".into() },
            found_by: "search".into(),
            shrunk_from: None,
        };
        let (a, b) = (case(12, "\"child\""), case(13, "\"teen\""));
        let code = table(f, plan, &c.book, &[&a, &b], "bucket_cases", "why").unwrap();
        assert!(code.starts_with("    /// why\n    #[rstest::rstest]\n    #[case(12, "), "{code}");
        assert!(code.contains(", \"teen\")]\n    fn bucket_cases(#[case] age: u32, #[case] names: &[&str], #[case] expected: &'static str) {\n        assert_eq!(bucket(age, names), expected);\n"), "{code}");
        // A value a literal cannot write is no row.
        let odd = case(14, "Bucket { n: 1 }");
        assert!(table(f, plan, &c.book, &[&a, &odd], "t", "why").is_none());
        let s = one_fn("pub fn name(n: u8) -> String { String::new() }\n");
        let (f, plan) = (&s.fns[0], s.fns[0].plan.as_ref().unwrap());
        let (a, b) = (case(1, "\"a\""), case(2, "\"b\""));
        let (a, b) = (
            Witness { input: vec![Value::Int(1)], ..a },
            Witness { input: vec![Value::Int(2)], ..b },
        );
        let code = table(f, plan, &s.book, &[&a, &b], "t", "why").unwrap();
        assert!(code.contains("#[case] expected: &str"), "{code}");
    }

    #[test]
    fn plain_return_values_are_compared_as_literals() {
        let ty = |s: &str| return_type(s).unwrap();
        assert_eq!(literal_of(&ty("fn f(x: u32) -> u32"), "5", false).as_deref(), Some("5"));
        let s = ty("fn f(s: &str) -> &'static str");
        assert_eq!(literal_of(&s, "\"small\"", false).as_deref(), Some("\"small\""));
        assert_eq!(literal_of(&ty("fn f() -> f64"), "0.4", false).as_deref(), Some("0.4"));
        assert_eq!(literal_of(&ty("fn f() -> f64"), "NaN", false), None);
        let o = ty("fn f() -> Option<u8>");
        assert_eq!(literal_of(&o, "Some(1)", false).as_deref(), Some("Some(1)"));
        assert_eq!(literal_of(&ty("fn f() -> Option<String>"), "Some(\"a\")", false), None);
        assert_eq!(literal_of(&ty("fn f() -> String"), "\"a\"", false).as_deref(), Some("\"a\""));
        assert_eq!(literal_of(&ty("fn f() -> Vec<u8>"), "[1]", false).as_deref(), Some("vec![1]"));
        assert_eq!(literal_of(&ty("fn f() -> HashSet<u8>"), "{1}", false), None);
        assert!(return_type("fn f()").is_none());
    }

    fn one_fn(src: &str) -> crate::rust::source::CrateSources {
        let d = tempfile::tempdir().unwrap();
        let lib = d.path().join("src/lib.rs");
        std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
        std::fs::write(&lib, src).unwrap();
        crate::rust::source::read_crate(&lib).unwrap()
    }

    #[test]
    fn a_receiver_without_debug_is_not_asserted_and_a_changed_argument_is() {
        // shlex 1.3.0's `Shlex::parse_double(&mut self, result: &mut Vec<u8>) -> Result<(), ()>`:
        // the harness shows the receiver (no `Debug`) by its type's name; the test asserted it
        // by its `Debug` text, which did not compile, and the gap had no test.
        let c = one_fn(
            "pub struct Words { at: usize }\nimpl Words {\n    pub fn new(at: usize) -> Self { Words { at } }\n    pub fn take(&mut self, out: &mut Vec<u8>) -> Result<(), ()> { out.push(1); self.at += 1; Err(()) }\n}\n",
        );
        let f = c.fns.iter().find(|f| f.name == "take").unwrap();
        let plan = f.plan.as_ref().unwrap();
        let receiver = Value::Built { ctor: "Words::new".into(), args: vec![Value::Int(0)] };
        let after = |out: &str| Outcome::Error {
            ty: "()".into(),
            message: format!(
                "(){AFTER}receiver = <demo::Words>{AFTER}arg1 = {out}",
                AFTER = crate::value::AFTER
            ),
        };
        let w = Witness {
            input: vec![receiver, Value::List(Vec::new())],
            original: after("[1]"),
            mutant: after("[1, 1]"),
            found_by: "search".into(),
            shrunk_from: None,
        };
        let code = test_fn(f, plan, &std_crate(&c), &w, "take_at_0", "why", false).unwrap();
        assert!(!code.contains("<demo::Words>"), "{code}");
        assert!(code.contains("\"[1]\""), "{code}");
        assert!(code.contains("\"Err(())\""), "{code}");
    }

    #[test]
    fn a_borrowed_vec_in_a_receiver_gets_a_let_of_its_own() {
        let (lets, value) = hoisted("Shlex::new(&vec![92u8, 92u8])");
        assert_eq!(
            (lets, value.as_str()),
            (vec!["vec![92u8, 92u8]".to_string()], "Shlex::new(&input)")
        );
        let (lets, value) = hoisted("P::new(&vec![vec![1u8]], &vec![\"]\".to_string()], 3)");
        assert_eq!(lets, ["vec![vec![1u8]]", "vec![\"]\".to_string()]"]);
        assert_eq!(value, "P::new(&input, &input2, 3)");
        assert_eq!(hoisted("Words::new(0)"), (Vec::new(), "Words::new(0)".to_string()));
    }

    #[test]
    fn results_are_asserted_as_values_and_errors_by_their_variant() {
        let c = one_fn("pub fn parse_port(s: &str) -> Result<u16, String> { s.parse().map_err(|_| String::new()) }\n");
        let (f, plan) = (&c.fns[0], c.fns[0].plan.as_ref().unwrap());
        let w = Witness {
            input: vec![Value::Str("65535".into())],
            original: Outcome::Ok { value: "65535".into() },
            mutant: Outcome::Error { ty: "String".into(), message: "port".into() },
            found_by: "search".into(),
            shrunk_from: None,
        };
        let tests = candidates(f, plan, &std_crate(&c), &w, "parse_port_is_65535", "why");
        assert!(tests[0].contains("assert_eq!(parse_port(\"65535\"), Ok(65535));"), "{}", tests[0]);
        assert!(tests[1].contains("fn parse_port_is_65535__abex_alt1()"), "{}", tests[1]);
        assert!(tests[1].contains("format!(\"{:?}\""), "{}", tests[1]);
        // A `no_std` crate's tests name std's `format!` by path (tinyvec 1.8).
        let bare = Crate { book: &c.book, no_std: true };
        let tests = candidates(f, plan, &bare, &w, "parse_port_is_65535", "why");
        assert!(tests[1].contains("::std::format!(\"{:?}\""), "{}", tests[1]);
        let err = Witness {
            original: Outcome::Error { ty: "String".into(), message: "port 0".into() },
            mutant: Outcome::Ok { value: "0".into() },
            ..w.clone()
        };
        let code = &candidates(f, plan, &std_crate(&c), &err, "t", "why")[0];
        assert!(code.contains("assert!(matches!(parse_port(\"65535\"), Err(..)));"), "{code}");
        let other = Witness {
            mutant: Outcome::Error { ty: "String".into(), message: "port 1".into() },
            ..err
        };
        let code = &candidates(f, plan, &std_crate(&c), &other, "t", "why")[0];
        assert!(
            code.contains("assert_eq!(parse_port(\"65535\").unwrap_err(), \"port 0\");"),
            "{code}"
        );
        // An error type that may not compare: the value is unwrapped.
        let c = one_fn("pub fn p(s: &str) -> Result<u16, std::num::ParseIntError> { s.parse() }\n");
        let (f, plan) = (&c.fns[0], c.fns[0].plan.as_ref().unwrap());
        let code = &candidates(f, plan, &std_crate(&c), &w, "t", "why")[0];
        assert!(code.contains("assert_eq!(p(\"65535\").unwrap(), 65535);"), "{code}");
    }

    #[test]
    fn tuples_and_vectors_are_literals_and_plain_numbers_lose_their_suffix() {
        let ty = |s: &str| return_type(s).unwrap();
        let t = ty("fn f() -> (i32, u32, u32)");
        assert_eq!(
            literal_of(&t, "(2147483647, 12, 1)", false).as_deref(),
            Some("(2147483647, 12, 1)")
        );
        let v = ty("fn f() -> Vec<(u8, &'static str)>");
        assert_eq!(
            literal_of(&v, "[(1, \"a, b\"), (2, \"c\")]", false).as_deref(),
            Some("vec![(1, \"a, b\"), (2, \"c\")]")
        );
        assert_eq!(literal_of(&v, "[]", false), None);
        assert_eq!(unsuffixed("(-2100i32)").as_deref(), Some("-2100"));
        assert_eq!(unsuffixed("2.5f64").as_deref(), Some("2.5"));
        assert_eq!(unsuffixed("x_u8"), None);
        assert_eq!(
            numeric_params("fn f(&self, a: i32, b: T, c: &str)"),
            vec![false, true, false, false]
        );
    }
}
