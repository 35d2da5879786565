//! Values written as the Rust a person would write in a test: `5u32`, `"a".to_string()`,
//! `vec![1u8]`, `std::collections::HashSet::from([1u8])`, and built values as their recipes
//! (`Version::parse("1.2.3").unwrap()`, `Comparator { op: Op::Caret, major: 1, … }`,
//! `"1.2".parse::<Version>().unwrap()`, `std::time::Duration::from_millis(1500)`), with the type
//! named the way the test's module can name it. `None` when a value cannot be written there.

use syn::Type;

use crate::rust::types::book::{placeholder_of, Book, Fallible};
use crate::rust::types::recipes::type_args;
use crate::rust::types::std as std_types;
use crate::rust::types::{ArgPlan, Pass};
use crate::value::{Ty, Value};

/// Where a test is written: its module and the crate's recipes.
pub struct Cx<'a> {
    /// The crate's recipe book.
    pub book: &'a Book,
    /// The module the test is in.
    pub module: &'a [String],
}

fn int_suffix(bits: u8, signed: bool) -> &'static str {
    match (bits, signed) {
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
    }
}

/// The name of a float constant a person writes by name (`f64::EPSILON`), when `x` is one.
fn float_name(bits: u8, x: f64) -> Option<&'static str> {
    let named: [(&str, f64); 4] = if bits == 32 {
        [
            ("EPSILON", f32::EPSILON.into()),
            ("MAX", f32::MAX.into()),
            ("MIN", f32::MIN.into()),
            ("MIN_POSITIVE", f32::MIN_POSITIVE.into()),
        ]
    } else {
        [
            ("EPSILON", f64::EPSILON),
            ("MAX", f64::MAX),
            ("MIN", f64::MIN),
            ("MIN_POSITIVE", f64::MIN_POSITIVE),
        ]
    };
    named.iter().find(|(_, v)| *v == x).map(|(n, _)| *n)
}

/// A literal of a primitive value type.
fn primitive(ty: &Ty, v: &Value) -> Option<String> {
    primitive_as(ty, v, None)
}

/// The pointer-sized integer type `owned` names (`usize`, `isize`), which a value type holds as
/// 64 bits: its literals need that suffix, not `u64`'s.
fn pointer_sized(owned: &Type) -> Option<&'static str> {
    let Type::Path(p) = owned else { return None };
    match p.path.get_ident()?.to_string().as_str() {
        "usize" => Some("usize"),
        "isize" => Some("isize"),
        _ => None,
    }
}

/// [`primitive`], an integer suffixed `suffix` when given (`0usize`, `usize::MAX`).
fn primitive_as(ty: &Ty, v: &Value, suffix: Option<&str>) -> Option<String> {
    Some(match (ty, v) {
        (Ty::Int { bits, signed }, Value::Int(i)) => {
            let suffix = suffix.unwrap_or(int_suffix(*bits, *signed));
            // The bounds of a wide type by name (`i32::MAX`, not `2147483647i32`).
            let (min, max) = Ty::int_range(*bits, *signed);
            let is_max = u128::try_from(*i).is_ok_and(|u| u == max);
            if *bits >= 32 && (is_max || (*signed && *i == min)) {
                return Some(format!("{suffix}::{}", if is_max { "MAX" } else { "MIN" }));
            }
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
            } else if let Some(name) = float_name(*bits, *x) {
                format!("{t}::{name}")
            } else {
                format!("({x:?}{t})")
            }
        }
        (Ty::Bool, Value::Bool(b)) => b.to_string(),
        (Ty::Char, Value::Str(s)) => format!("{:?}", s.chars().next()?),
        _ => return None,
    })
}

/// The last segment of an owned type's path, and its type arguments.
fn head(owned: &Type) -> Option<(String, Vec<&Type>)> {
    match owned {
        Type::Path(p) => {
            let seg = p.path.segments.last()?;
            Some((seg.ident.to_string(), type_args(&seg.arguments)))
        }
        _ => None,
    }
}

fn parse(owned: &str) -> Type {
    syn::parse_str(owned).unwrap_or_else(|_| syn::parse_quote!(_))
}

impl Cx<'_> {
    /// An expression of type `owned` (as the harness writes it) holding `v`, of value type `ty`.
    pub fn expr(&self, ty: &Ty, owned: &Type, v: &Value) -> Option<String> {
        if let Some(b) = placeholder_of(ty) {
            return self.built(b, v);
        }
        // A struct's `usize` field takes `0usize` (`0u64` does not compile: humansize 2.1.3's
        // `decimal_places`, whose gaps went without a test).
        if let Some(p) = primitive_as(ty, v, pointer_sized(owned)) {
            return Some(p);
        }
        let (name, args) = head(owned).unwrap_or_default();
        let first = args.first().copied();
        let inner = |t: &Ty| -> Option<String> { self.expr(t, first?, v) };
        let seq = |item: &Ty, xs: &[Value]| -> Option<Vec<String>> {
            xs.iter().map(|x| self.expr(item, first?, x)).collect()
        };
        Some(match (ty, v, name.as_str()) {
            (_, _, "Box") if matches!(ty, Ty::Str) => format!("Box::<str>::from({})", str_lit(v)?),
            (_, _, "Rc" | "Arc" | "Box" | "Cow") if matches!(ty, Ty::Str) => {
                format!("{}::from({})", std_path(&name), str_lit(v)?)
            }
            (Ty::Str, Value::Str(s), "Chars") => format!("{s:?}.chars()"),
            (Ty::List { item }, Value::List(xs), "IntoIter") => {
                format!("vec![{}].into_iter()", seq(item, xs)?.join(", "))
            }
            (_, _, "Box") => format!("Box::new({})", inner(ty)?),
            (_, _, "Rc" | "Arc" | "RefCell" | "Cell") => {
                format!("{}::new({})", std_path(&name), inner(ty)?)
            }
            (_, _, "Cow") => format!("std::borrow::Cow::Owned({})", inner(ty)?),
            (Ty::Str, Value::Str(s), _) => format!("{s:?}.to_string()"),
            (Ty::Option { .. }, Value::Null, _) => "None".into(),
            (Ty::Option { item }, v, _) => format!("Some({})", self.expr(item, first?, v)?),
            (Ty::List { item }, Value::List(xs), "Vec") => {
                format!("vec![{}]", seq(item, xs)?.join(", "))
            }
            (Ty::List { item }, Value::List(xs), "HashMap" | "BTreeMap") => {
                let pair = parse(&format!(
                    "({}, {})",
                    quote::ToTokens::to_token_stream(args.first()?),
                    quote::ToTokens::to_token_stream(args.get(1)?)
                ));
                let items: Option<Vec<String>> =
                    xs.iter().map(|x| self.expr(item, &pair, x)).collect();
                format!("{}::from([{}])", std_path(&name), items?.join(", "))
            }
            (Ty::List { item }, Value::List(xs), n) if !n.is_empty() => {
                format!("{}::from([{}])", std_path(n), seq(item, xs)?.join(", "))
            }
            (Ty::Array { item, .. }, Value::List(xs), _) => {
                let Type::Array(a) = owned else { return None };
                let items: Option<Vec<String>> =
                    xs.iter().map(|x| self.expr(item, &a.elem, x)).collect();
                format!("[{}]", items?.join(", "))
            }
            (Ty::Tuple { items }, Value::List(xs), _) if items.len() == xs.len() => {
                let Type::Tuple(t) = owned else { return None };
                let parts: Option<Vec<String>> = items
                    .iter()
                    .zip(xs)
                    .zip(&t.elems)
                    .map(|((ty, x), o)| self.expr(ty, o, x))
                    .collect();
                let parts = parts?;
                if parts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }
            (Ty::Built { .. }, Value::Built { ctor, args }, _) => {
                let (code, fallible) = std_types::ctor_code(ctor)?;
                let params = match ty {
                    Ty::Built { ctors, .. } => &ctors.iter().find(|c| c.name == *ctor)?.params,
                    _ => return None,
                };
                let mut out = code;
                for (k, ((_, t), x)) in params.iter().zip(args).enumerate() {
                    let arg = match (t, x) {
                        (Ty::Str, Value::Str(s)) => format!("{s:?}"),
                        (t, x) => primitive(t, x)?,
                    };
                    out = out.replace(&format!("{{{k}}}"), &arg);
                }
                if fallible {
                    out.push_str(".unwrap()");
                }
                out
            }
            _ => return None,
        })
    }

    /// A crate type's recipe.
    fn built(&self, b: usize, v: &Value) -> Option<String> {
        let Value::Built { ctor, args } = v else { return None };
        let builder = self.book.builders.get(b)?;
        let arm = builder.arms.iter().find(|a| a.ctor == *ctor)?;
        if arm.code.is_empty() || (arm.private && !self.module.starts_with(&arm.home)) {
            return None;
        }
        let path = builder.paths.get(self.module)?.as_ref()?;
        let mut out = arm.code.replace("{T}", &format!("{path}{}", builder.turbofish));
        for (k, ((_, p), x)) in arm.params.iter().zip(args).enumerate() {
            out = out.replace(&format!("{{{k}}}"), &self.arg(p, x)?);
        }
        if arm.fallible != Fallible::No {
            out.push_str(".unwrap()");
        }
        Some(out)
    }

    /// The argument expression passing `v` for a parameter planned as `a`.
    pub fn arg(&self, a: &ArgPlan, v: &Value) -> Option<String> {
        let owned = parse(&a.owned);
        Some(match (&a.pass, &a.ty, v) {
            (Pass::Ref, Ty::Str, Value::Str(s)) if a.owned.ends_with("String") => format!("{s:?}"),
            (Pass::Value, _, _) => self.expr(&a.ty, &owned, v)?,
            (Pass::Ref, _, _) => format!("&{}", self.expr(&a.ty, &owned, v)?),
            (Pass::RefMut, _, _) => format!("&mut {}", self.expr(&a.ty, &owned, v)?),
            (Pass::AsDeref | Pass::AsRef, _, Value::Null) => "None".into(),
            (Pass::AsDeref, Ty::Option { item }, v) => match (&**item, v) {
                (Ty::Str, Value::Str(s)) => format!("Some({s:?})"),
                (item, v) => {
                    let inner =
                        head(&owned).and_then(|(_, args)| args.first().copied().cloned())?;
                    format!("Some(&{}[..])", self.expr(item, &inner, v)?)
                }
            },
            (Pass::AsRef, Ty::Option { item }, v) => {
                let inner = head(&owned).and_then(|(_, args)| args.first().copied().cloned())?;
                format!("Some(&{})", self.expr(item, &inner, v)?)
            }
            (Pass::StrVec { by_ref }, _, Value::List(xs)) => {
                let items: Option<Vec<String>> = xs
                    .iter()
                    .map(|x| if let Value::Str(s) = x { Some(format!("{s:?}")) } else { None })
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
}

fn str_lit(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) => Some(format!("{s:?}")),
        _ => None,
    }
}

/// The path a test writes a std type by.
fn std_path(name: &str) -> String {
    match name {
        "Rc" => "std::rc::Rc".into(),
        "Arc" => "std::sync::Arc".into(),
        "Cow" => "std::borrow::Cow".into(),
        "Box" => "Box".into(),
        "RefCell" | "Cell" => format!("std::cell::{name}"),
        n => format!("std::collections::{n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rust::types::book::{placeholder, Arm, Builder};
    use crate::value::CtorForm;

    fn plan(ty: Ty, owned: &str, pass: Pass) -> ArgPlan {
        ArgPlan { ty, owned: owned.into(), pass }
    }

    fn book() -> Book {
        let arm = |ctor: &str, code: &str, params: Vec<(&str, ArgPlan)>, fallible| Arm {
            ctor: ctor.into(),
            form: CtorForm::Call,
            params: params.into_iter().map(|(n, p)| (n.to_string(), p)).collect(),
            home: vec![],
            ret_text: String::new(),
            build: String::new(),
            fallible,
            code: code.into(),
            private: false,
            bypasses_api: false,
            seeds: vec![],
        };
        let text = || plan(Ty::Str, "::std::string::String", Pass::Ref);
        let op = Builder {
            name: "Op".into(),
            arms: vec![arm("Op::Caret", "{T}::Caret", vec![], Fallible::No)],
            paths: [(vec!["eval".to_string()], Some("Op".to_string()))].into(),
            ..Builder::default()
        };
        let version = Builder {
            name: "Version".into(),
            arms: vec![
                arm("Version::parse", "{T}::parse({0})", vec![("text", text())], Fallible::Result),
                arm(
                    "Version::from_str",
                    "{0}.parse::<{T}>()",
                    vec![("s", text())],
                    Fallible::Result,
                ),
                arm(
                    "Comparator",
                    "{T} { op: {0}, major: {1} }",
                    vec![
                        ("op", plan(placeholder(0), "Op", Pass::Value)),
                        ("major", plan(Ty::int(64, false), "u64", Pass::Value)),
                    ],
                    Fallible::No,
                ),
            ],
            paths: [(vec!["eval".to_string()], Some("crate::Version".to_string()))].into(),
            ..Builder::default()
        };
        Book { builders: vec![op, version] }
    }

    #[test]
    fn the_bounds_of_wide_types_and_float_constants_are_written_by_name() {
        let int = |bits, signed, i| primitive(&Ty::Int { bits, signed }, &Value::Int(i)).unwrap();
        assert_eq!(int(32, true, 2147483647), "i32::MAX");
        assert_eq!(int(64, true, i128::from(i64::MIN)), "i64::MIN");
        assert_eq!(int(64, false, i128::from(u64::MAX)), "u64::MAX");
        assert_eq!(int(32, false, 0), "0u32");
        // Narrow types keep their digits: `255u8` reads as well as `u8::MAX`.
        assert_eq!(int(8, false, 255), "255u8");
        let sized = |owned: &str, i| {
            let cx = Cx { book: &Book::default(), module: &[] };
            cx.expr(&Ty::int(64, owned == "isize"), &parse(owned), &Value::Int(i)).unwrap()
        };
        assert_eq!(sized("usize", 0), "0usize");
        assert_eq!(sized("usize", i128::from(u64::MAX)), "usize::MAX");
        assert_eq!(sized("isize", -5), "(-5isize)");
        assert_eq!(sized("u64", 7), "7u64");
        let float = |bits, x| primitive(&Ty::Float { bits }, &Value::Float(x)).unwrap();
        assert_eq!(float(64, f64::EPSILON), "f64::EPSILON");
        assert_eq!(float(32, f64::from(f32::MAX)), "f32::MAX");
        assert_eq!(float(64, 2.5), "(2.5f64)");
    }

    #[test]
    fn recipes_are_written_the_way_a_person_writes_them() {
        let book = book();
        let cx = Cx { book: &book, module: &["eval".to_string()] };
        let v =
            Value::Built { ctor: "Version::parse".into(), args: vec![Value::Str("1.2.3".into())] };
        let a = plan(placeholder(1), "Version", Pass::Ref);
        assert_eq!(cx.arg(&a, &v).unwrap(), "&crate::Version::parse(\"1.2.3\").unwrap()");
        let v =
            Value::Built { ctor: "Version::from_str".into(), args: vec![Value::Str("1.2".into())] };
        assert_eq!(cx.arg(&a, &v).unwrap(), "&\"1.2\".parse::<crate::Version>().unwrap()");
        let op = Value::Built { ctor: "Op::Caret".into(), args: vec![] };
        let v = Value::Built { ctor: "Comparator".into(), args: vec![op, Value::Int(1)] };
        assert_eq!(cx.arg(&a, &v).unwrap(), "&crate::Version { op: Op::Caret, major: 1u64 }");
        // A module the type cannot be named from gets no test.
        let elsewhere = Cx { book: &book, module: &["other".to_string()] };
        assert!(elsewhere.arg(&a, &v).is_none());
    }

    #[test]
    fn std_types_are_written_with_their_paths() {
        let book = Book::default();
        let cx = Cx { book: &book, module: &[] };
        let set = plan(
            Ty::List { item: Box::new(Ty::int(8, false)) },
            "::std::collections::HashSet<u8>",
            Pass::Ref,
        );
        let v = Value::List(vec![Value::Int(1), Value::Int(2)]);
        assert_eq!(cx.arg(&set, &v).unwrap(), "&std::collections::HashSet::from([1u8, 2u8])");
        let (dur, owned) =
            std_types::owned("Duration", &[], &|_| Err(String::new())).unwrap().unwrap();
        let d = Value::Built { ctor: "Duration::from_millis".into(), args: vec![Value::Int(1500)] };
        assert_eq!(
            cx.arg(&plan(dur, &owned, Pass::Value), &d).unwrap(),
            "std::time::Duration::from_millis(1500u64)"
        );
        let rc = plan(Ty::Str, "::std::rc::Rc<str>", Pass::Value);
        assert_eq!(cx.arg(&rc, &Value::Str("a".into())).unwrap(), "std::rc::Rc::from(\"a\")");
        let s = plan(Ty::Str, "::std::string::String", Pass::Ref);
        assert_eq!(cx.arg(&s, &Value::Str("a".into())).unwrap(), "\"a\"");
        let map = plan(
            Ty::List { item: Box::new(Ty::Tuple { items: vec![Ty::Str, Ty::Bool] }) },
            "::std::collections::BTreeMap<::std::string::String, bool>",
            Pass::Value,
        );
        let v = Value::List(vec![Value::List(vec![Value::Str("k".into()), Value::Bool(true)])]);
        assert_eq!(
            cx.arg(&map, &v).unwrap(),
            "std::collections::BTreeMap::from([(\"k\".to_string(), true)])"
        );
    }
}
