//! Maps Rust parameter and return types, as written, to abex value types and to the code that
//! decodes and passes an argument in the generated harness. Names that are not primitives,
//! strings, `Vec` or `Option` go to a [`Resolve`]: the crate's own types (recipes), `Self` and
//! generic parameters (substituted), then the std types of [`super::std`].

use quote::ToTokens;
use syn::{ReturnType, Type};

use super::std as std_types;
use crate::value::Ty;

/// What a plan needs to know about the place a type is written in.
pub trait Resolve {
    /// The type that `Self` or a generic parameter written as `p` stands for.
    fn substitute(&self, _p: &syn::TypePath) -> Option<Type> {
        None
    }
    /// A type of the crate: its value type and owned type as the harness writes it, or why it
    /// cannot be built; `None` when `p` is not the crate's.
    fn crate_type(&self, _p: &syn::TypePath) -> Option<Result<(Ty, String), String>> {
        None
    }
    /// The std type `p` names, by its own name (`StdDuration` → `Duration`), when it is one.
    fn std_name(&self, _p: &syn::TypePath) -> Option<String> {
        None
    }
}

/// A place that knows no crate type, no `Self` and no generic parameter.
pub struct Plain;

impl Resolve for Plain {}

/// How the harness passes a decoded (owned) argument to the function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pass {
    /// By value: `a`.
    Value,
    /// By shared reference: `&a` (also `&str` from `String`, `&[T]` from `Vec<T>`).
    Ref,
    /// By mutable reference: `&mut a`.
    RefMut,
    /// `a.as_deref()`: `Option<&str>`, `Option<&[T]>`.
    AsDeref,
    /// `a.as_ref()`: `Option<&T>`.
    AsRef,
    /// A `Vec<&str>` built from a `Vec<String>`; by reference when `by_ref` (`&[&str]`).
    StrVec {
        /// Whether the parameter is `&[&str]` rather than `Vec<&str>`.
        by_ref: bool,
    },
}

/// The decode-and-pass plan of one parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgPlan {
    /// The value type generated for it.
    pub ty: Ty,
    /// The owned Rust type the harness decodes into.
    pub owned: String,
    /// How it is passed.
    pub pass: Pass,
}

/// How the harness renders a return value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ret {
    /// `Debug` of the value.
    Value,
    /// A `Result`-like value: `Ok` is rendered, `Err` is an error outcome.
    Result,
    /// An `impl Iterator`: its first items, collected (at most [`ITEMS`]).
    Iter,
}

/// How many items of an iterator the harness collects.
pub const ITEMS: usize = 16;

pub(crate) fn text(t: &impl ToTokens) -> String {
    t.to_token_stream().to_string()
}

/// The value type and owned Rust type of a type with no references in it.
pub fn owned(ty: &Type, cx: &dyn Resolve) -> Result<(Ty, String), String> {
    let owned = |t: &Type| owned(t, cx);
    match ty {
        Type::Paren(p) => owned(&p.elem),
        Type::Group(g) => owned(&g.elem),
        Type::Tuple(t) if t.elems.is_empty() => Err("a `()` parameter".into()),
        Type::Tuple(t) => {
            let mut items = Vec::new();
            let mut texts = Vec::new();
            for e in &t.elems {
                let (ty, s) = owned(e)?;
                items.push(ty);
                texts.push(s);
            }
            let comma = if texts.len() == 1 { "," } else { "" };
            Ok((Ty::Tuple { items }, format!("({}{comma})", texts.join(", "))))
        }
        Type::Array(a) => {
            // A const parameter's name (`[u8; N]`) stands for the value it is instantiated with.
            let given = match &a.len {
                syn::Expr::Path(p) if p.qself.is_none() => cx
                    .substitute(&syn::TypePath { qself: None, path: p.path.clone() })
                    .and_then(|t| super::args::as_expr(&t)),
                _ => None,
            };
            let len: usize = match given.as_ref().unwrap_or(&a.len) {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => {
                    i.base10_parse().map_err(|e| e.to_string())?
                }
                other => return Err(format!("array length `{}` is not a literal", text(other))),
            };
            let (item, s) = owned(&a.elem)?;
            Ok((Ty::Array { item: Box::new(item), len }, format!("[{s}; {len}]")))
        }
        Type::Path(p) if p.qself.is_none() => {
            if let Some(t) = cx.substitute(p) {
                return owned(&t);
            }
            let seg = p.path.segments.last().ok_or("an empty path")?;
            let name = seg.ident.to_string();
            // Const arguments count: heapless 0.8's `String<4>` and `Vec<u8, 4>` are not std's.
            let args = super::args::generic_args(&seg.arguments);
            let args: Vec<&Type> = args.iter().collect();
            let prim = |ty: Ty| Ok((ty, name.clone()));
            match (name.as_str(), args.as_slice()) {
                ("i8", []) => prim(Ty::int(8, true)),
                ("i16", []) => prim(Ty::int(16, true)),
                ("i32", []) => prim(Ty::int(32, true)),
                ("i64", []) => prim(Ty::int(64, true)),
                ("i128", []) => prim(Ty::int(128, true)),
                ("isize", []) => prim(Ty::int(64, true)),
                ("u8", []) => prim(Ty::int(8, false)),
                ("u16", []) => prim(Ty::int(16, false)),
                ("u32", []) => prim(Ty::int(32, false)),
                ("u64", []) => prim(Ty::int(64, false)),
                ("u128", []) => prim(Ty::int(128, false)),
                ("usize", []) => prim(Ty::int(64, false)),
                ("f32", []) => prim(Ty::Float { bits: 32 }),
                ("f64", []) => prim(Ty::Float { bits: 64 }),
                ("bool", []) => prim(Ty::Bool),
                ("char", []) => prim(Ty::Char),
                ("String", []) => Ok((Ty::Str, "::std::string::String".into())),
                ("Vec", [item]) => {
                    let (t, s) = owned(item)?;
                    Ok((Ty::List { item: Box::new(t) }, format!("::std::vec::Vec<{s}>")))
                }
                ("Option", [item]) => {
                    let (t, s) = owned(item)?;
                    Ok((Ty::Option { item: Box::new(t) }, format!("::std::option::Option<{s}>")))
                }
                _ => {
                    if let Some(found) = cx.crate_type(p) {
                        return found;
                    }
                    let std_name = cx.std_name(p).unwrap_or(name);
                    std_types::owned(&std_name, &args, &owned).unwrap_or_else(|| {
                        Err(format!("unsupported parameter type `{}`", text(ty)))
                    })
                }
            }
        }
        Type::Reference(_) => Err(format!("a reference nested inside `{}`", text(ty))),
        Type::ImplTrait(_) => Err(format!("`impl Trait` parameter `{}`", text(ty))),
        _ => Err(format!("unsupported parameter type `{}`", text(ty))),
    }
}

fn is_str_ref(ty: &Type) -> bool {
    matches!(ty, Type::Reference(r) if r.mutability.is_none() && matches!(&*r.elem, Type::Path(p) if p.path.is_ident("str")))
}

/// The plan for one parameter type as written.
pub fn plan(ty: &Type, cx: &dyn Resolve) -> Result<ArgPlan, String> {
    let owned = |t: &Type| owned(t, cx);
    match ty {
        Type::Reference(r) => {
            let pass = if r.mutability.is_some() { Pass::RefMut } else { Pass::Ref };
            match &*r.elem {
                Type::Path(p) if p.path.is_ident("str") => {
                    Ok(ArgPlan { ty: Ty::Str, owned: "::std::string::String".into(), pass })
                }
                Type::Slice(s) if is_str_ref(&s.elem) && pass == Pass::Ref => Ok(ArgPlan {
                    ty: Ty::List { item: Box::new(Ty::Str) },
                    owned: "::std::vec::Vec<::std::string::String>".into(),
                    pass: Pass::StrVec { by_ref: true },
                }),
                Type::Slice(s) => {
                    let (t, o) = owned(&s.elem)?;
                    Ok(ArgPlan {
                        ty: Ty::List { item: Box::new(t) },
                        owned: format!("::std::vec::Vec<{o}>"),
                        pass,
                    })
                }
                inner => {
                    let (t, o) = owned(inner)?;
                    Ok(ArgPlan { ty: t, owned: o, pass })
                }
            }
        }
        Type::Path(p) if p.qself.is_none() && cx.substitute(p).is_some() => {
            plan(&cx.substitute(p).expect("checked"), cx)
        }
        Type::Path(p) if p.qself.is_none() => {
            let seg = p.path.segments.last().ok_or("an empty path")?;
            // Const arguments count: heapless 0.8's `String<4>` and `Vec<u8, 4>` are not std's.
            let args = super::args::generic_args(&seg.arguments);
            let args: Vec<&Type> = args.iter().collect();
            match (seg.ident.to_string().as_str(), args.as_slice()) {
                ("Option", [Type::Reference(r)]) if r.mutability.is_none() => {
                    let (t, o, pass) = match &*r.elem {
                        Type::Path(p) if p.path.is_ident("str") => {
                            (Ty::Str, "::std::string::String".to_string(), Pass::AsDeref)
                        }
                        Type::Slice(s) => {
                            let (t, o) = owned(&s.elem)?;
                            let list = Ty::List { item: Box::new(t) };
                            (list, format!("::std::vec::Vec<{o}>"), Pass::AsDeref)
                        }
                        inner => {
                            let (t, o) = owned(inner)?;
                            (t, o, Pass::AsRef)
                        }
                    };
                    Ok(ArgPlan {
                        ty: Ty::Option { item: Box::new(t) },
                        owned: format!("::std::option::Option<{o}>"),
                        pass,
                    })
                }
                ("Vec", [item]) if is_str_ref(item) => Ok(ArgPlan {
                    ty: Ty::List { item: Box::new(Ty::Str) },
                    owned: "::std::vec::Vec<::std::string::String>".into(),
                    pass: Pass::StrVec { by_ref: false },
                }),
                _ => owned(ty).map(|(t, o)| ArgPlan { ty: t, owned: o, pass: Pass::Value }),
            }
        }
        Type::Paren(p) => plan(&p.elem, cx),
        Type::Group(g) => plan(&g.elem, cx),
        _ => owned(ty).map(|(t, o)| ArgPlan { ty: t, owned: o, pass: Pass::Value }),
    }
}

fn is_iterator(b: &syn::TypeParamBound) -> bool {
    matches!(b, syn::TypeParamBound::Trait(t) if t.path.segments.last().is_some_and(|s| s.ident == "Iterator"))
}

/// How to render what a function returns; `Err` when the harness cannot.
pub fn ret(output: &ReturnType) -> Result<Ret, String> {
    match output {
        ReturnType::Default => Ok(Ret::Value),
        ReturnType::Type(_, ty) => match &**ty {
            Type::ImplTrait(t) if t.bounds.iter().any(is_iterator) => Ok(Ret::Iter),
            Type::ImplTrait(_) => Err(format!("returns `{}`", text(ty))),
            Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Result") => {
                Ok(Ret::Result)
            }
            _ => Ok(Ret::Value),
        },
    }
}

/// The expression passing decoded argument `var` according to `pass`.
pub fn pass_expr(var: &str, pass: &Pass) -> String {
    match pass {
        Pass::Value => var.to_string(),
        Pass::Ref => format!("&{var}"),
        Pass::RefMut => format!("&mut {var}"),
        Pass::AsDeref => format!("{var}.as_deref()"),
        Pass::AsRef => format!("{var}.as_ref()"),
        Pass::StrVec { by_ref } => {
            let v = format!("{var}.iter().map(|s| s.as_str()).collect::<::std::vec::Vec<&str>>()");
            if *by_ref {
                format!("&{v}[..]")
            } else {
                v
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<ArgPlan, String> {
        plan(&syn::parse_str::<Type>(s).unwrap(), &Plain)
    }

    #[test]
    fn primitives_strings_and_containers_are_supported() {
        assert_eq!(p("u16").unwrap().ty, Ty::int(16, false));
        let s = p("&str").unwrap();
        assert_eq!((s.ty, s.owned.as_str(), s.pass), (Ty::Str, "::std::string::String", Pass::Ref));
        let v = p("&[i64]").unwrap();
        assert_eq!(v.ty, Ty::List { item: Box::new(Ty::int(64, true)) });
        assert_eq!(v.owned, "::std::vec::Vec<i64>");
        let o = p("Option<&str>").unwrap();
        assert_eq!(o.pass, Pass::AsDeref);
        let t = p("(i32, Vec<Option<char>>)").unwrap();
        assert_eq!(t.owned, "(i32, ::std::vec::Vec<::std::option::Option<char>>)");
        let a = p("[u8; 4]").unwrap();
        assert_eq!(a.ty, Ty::Array { item: Box::new(Ty::int(8, false)), len: 4 });
        assert_eq!(p("&[&str]").unwrap().pass, Pass::StrVec { by_ref: true });
        assert_eq!(p("&mut Vec<u8>").unwrap().pass, Pass::RefMut);
    }

    #[test]
    fn unsupported_types_say_why() {
        assert!(p("Point").unwrap_err().contains("`Point`"));
        assert!(p("impl Fn(i32) -> i32").unwrap_err().contains("impl Trait"));
        assert!(p("Vec<&str>").is_ok());
        assert!(p("Vec<&u8>").unwrap_err().contains("reference"));
        assert!(p("[u8; N]").unwrap_err().contains("not a literal"));
    }

    #[test]
    fn result_aliases_are_rendered_as_results() {
        let r = |s: &str| ret(&syn::parse_str::<syn::Signature>(s).unwrap().output);
        assert_eq!(r("fn f() -> io::Result<u8>").unwrap(), Ret::Result);
        assert_eq!(r("fn f() -> Option<u8>").unwrap(), Ret::Value);
        assert_eq!(r("fn f()").unwrap(), Ret::Value);
        assert_eq!(r("fn f() -> impl Iterator<Item = u8> + '_").unwrap(), Ret::Iter);
        assert!(r("fn f() -> impl Fn(u8)").is_err());
    }
}
