//! Constructor synthesis: how to build a value of each crate type a function takes, from the
//! type table (Randoop and EvoSuite build objects the same way: from the constructors and
//! factories the code offers, with generated arguments). For a struct, its literal; for an enum,
//! each variant; then the associated functions that return the type (`new`, `parse`, `from_*`,
//! `with_*`, `Result<Self, _>` and `Option<Self>` ones too), its constants, `FromStr`, `From`,
//! `TryFrom`, `Default` and `arbitrary::Arbitrary`. Each becomes an [`Arm`] of the type's
//! [`Builder`] in the crate's [`Book`]; a type is synthesised once, the first time a plan meets
//! it, so recursive types simply point back at their own builder.
//!
//! A [`Place`] is where a type is written (its module, what `Self` and the generic parameters
//! stand for): it is the [`Resolve`] the type plans go through.

use std::cell::RefCell;
use std::collections::BTreeMap;

use quote::ToTokens;
use syn::visit_mut::VisitMut;
use syn::{Fields, FnArg, GenericArgument, ImplItem, PathArguments, ReturnType, Type};

use super::args::{generic_args, value_params};
use super::book::{placeholder, Arm, Book, Builder, Fallible};
use super::table::{tight, Resolved, TypeKind, TypeTable};
use crate::rust::types::{self, owned, pass_expr, ArgPlan, Pass, Resolve};
use crate::value::{CtorForm, Ty};

/// The most constructors a type keeps (enum variants aside).
const MAX_ARMS: usize = 10;
/// The most variants an enum keeps.
const MAX_VARIANTS: usize = 40;

/// The primitive and prelude names that mean the same everywhere.
const PORTABLE: [&str; 22] = [
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32",
    "f64", "bool", "char", "str", "String", "Vec", "Option", "Box", "Result",
];

/// Full paths of the std types a generic argument may name.
const STD_PATHS: [(&str, &str); 14] = [
    ("Duration", "::std::time::Duration"),
    ("SystemTime", "::std::time::SystemTime"),
    ("PathBuf", "::std::path::PathBuf"),
    ("Path", "::std::path::Path"),
    ("HashMap", "::std::collections::HashMap"),
    ("HashSet", "::std::collections::HashSet"),
    ("BTreeMap", "::std::collections::BTreeMap"),
    ("BTreeSet", "::std::collections::BTreeSet"),
    ("VecDeque", "::std::collections::VecDeque"),
    ("Rc", "::std::rc::Rc"),
    ("Arc", "::std::sync::Arc"),
    ("Cow", "::std::borrow::Cow"),
    ("Ordering", "::std::cmp::Ordering"),
    ("PhantomData", "::std::marker::PhantomData"),
];

/// The crate's constructor synthesis: its type table and the book being filled.
pub struct Recipes<'t, 'a> {
    /// The type table.
    pub table: &'t TypeTable<'a>,
    book: RefCell<Book>,
    /// Builder index by type key (definition and generic arguments).
    memo: RefCell<BTreeMap<(usize, String), usize>>,
}

/// Where a type is written: what its names resolve against.
#[derive(Clone)]
pub struct Place<'r, 't, 'a> {
    /// The synthesis it plans for.
    pub recipes: &'r Recipes<'t, 'a>,
    /// The module the type is written in.
    pub module: Vec<String>,
    /// What `Self` stands for.
    pub self_ty: Option<Type>,
    /// What generic parameters stand for.
    pub subst: BTreeMap<String, Type>,
}

/// Replaces `Self` and generic parameters in a type.
struct Subst<'p> {
    self_ty: Option<&'p Type>,
    subst: &'p BTreeMap<String, Type>,
}

impl VisitMut for Subst<'_> {
    fn visit_type_mut(&mut self, t: &mut Type) {
        if let Type::Path(p) = t {
            if p.qself.is_none() {
                if let Some(id) = p.path.get_ident() {
                    let name = id.to_string();
                    if name == "Self" {
                        if let Some(s) = self.self_ty {
                            *t = s.clone();
                            return;
                        }
                    }
                    if let Some(s) = self.subst.get(&name) {
                        *t = s.clone();
                        return;
                    }
                }
            }
        }
        syn::visit_mut::visit_type_mut(self, t);
    }

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let Some(v) = super::args::const_value(self.subst, e) {
            *e = v;
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

/// Replaces every lifetime by `'static` (`static_`) or `'_`.
struct Lifetimes(bool);

impl VisitMut for Lifetimes {
    fn visit_lifetime_mut(&mut self, l: &mut syn::Lifetime) {
        let name = if self.0 { "static" } else { "_" };
        *l = syn::Lifetime::new(&format!("'{name}"), l.apostrophe);
    }
}

/// `ty` with its lifetimes replaced by `'static` or `'_`, as text.
pub fn with_lifetimes(ty: &impl ToTokens, static_: bool) -> String {
    let mut t: Type = match syn::parse2(ty.to_token_stream()) {
        Ok(t) => t,
        Err(_) => return tight(ty),
    };
    Lifetimes(static_).visit_type_mut(&mut t);
    tight(&t)
}

/// A path's generic type arguments.
pub fn type_args(args: &PathArguments) -> Vec<&Type> {
    match args {
        PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| if let GenericArgument::Type(t) = g { Some(t) } else { None })
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether a type mentions a lifetime.
fn has_lifetime(ty: &Type) -> bool {
    ty.to_token_stream().to_string().contains('\'')
}

impl<'r, 't, 'a> Place<'r, 't, 'a> {
    /// `ty` with `Self` and the generic parameters replaced.
    pub fn substitute_in(&self, ty: &Type) -> Type {
        let mut t = ty.clone();
        Subst { self_ty: self.self_ty.as_ref(), subst: &self.subst }.visit_type_mut(&mut t);
        t
    }

    /// The plan of a parameter type written here.
    pub fn plan(&self, ty: &Type) -> Result<ArgPlan, String> {
        types::plan(ty, self)
    }

    /// `ty` (written here) as it can be written in any module of the crate: crate types by
    /// their `crate::` path, std types by their full path; `None` when some name cannot be.
    pub fn portable(&self, ty: &Type) -> Option<Type> {
        let mut t = self.substitute_in(ty);
        let mut ok = true;
        let mut fix = Portable { place: self, ok: &mut ok };
        fix.visit_type_mut(&mut t);
        ok.then_some(t)
    }
}

struct Portable<'p, 'r, 't, 'a> {
    place: &'p Place<'r, 't, 'a>,
    ok: &'p mut bool,
}

impl VisitMut for Portable<'_, '_, '_, '_> {
    fn visit_type_path_mut(&mut self, p: &mut syn::TypePath) {
        syn::visit_mut::visit_type_path_mut(self, p);
        if p.qself.is_some() {
            *self.ok = false;
            return;
        }
        let first = p.path.segments.first().map(|s| s.ident.to_string()).unwrap_or_default();
        if p.path.leading_colon.is_some() || first == "crate" {
            return;
        }
        if p.path.segments.len() == 1 && PORTABLE.contains(&first.as_str()) {
            return;
        }
        let table = self.place.recipes.table;
        let last = p.path.segments.last().cloned();
        let Some(last) = last else { return };
        let full = match table.resolve_path(&self.place.module, &p.path) {
            Some(Resolved::Crate(i)) => {
                let def = &table.types[i];
                let mut s = String::from("crate");
                for m in &def.module {
                    s.push_str("::");
                    s.push_str(m);
                }
                s.push_str("::");
                s.push_str(&def.name);
                s
            }
            Some(Resolved::Std(name)) => match STD_PATHS.iter().find(|(n, _)| *n == name) {
                Some((_, path)) => path.to_string(),
                None if PORTABLE.contains(&name.as_str()) => return,
                None => {
                    *self.ok = false;
                    return;
                }
            },
            None => {
                *self.ok = false;
                return;
            }
        };
        match syn::parse_str::<syn::Path>(&full) {
            Ok(mut path) => {
                if let Some(seg) = path.segments.last_mut() {
                    seg.arguments = last.arguments;
                }
                p.path = path;
            }
            Err(_) => *self.ok = false,
        }
    }
}

impl Resolve for Place<'_, '_, '_> {
    fn substitute(&self, p: &syn::TypePath) -> Option<Type> {
        let id = p.path.get_ident()?.to_string();
        if id == "Self" {
            return self.self_ty.clone();
        }
        self.subst.get(&id).cloned()
    }

    fn std_name(&self, p: &syn::TypePath) -> Option<String> {
        match self.recipes.table.resolve_path(&self.module, &p.path)? {
            Resolved::Std(name) => Some(name),
            Resolved::Crate(_) => None,
        }
    }

    fn crate_type(&self, p: &syn::TypePath) -> Option<Result<(Ty, String), String>> {
        let table = self.recipes.table;
        let Resolved::Crate(i) = table.resolve_path(&self.module, &p.path)? else { return None };
        let def = &table.types[i];
        let written = self.substitute_in(&Type::Path(p.clone()));
        if let TypeKind::Alias(target) = def.kind {
            if def.generics.params.iter().any(|g| !matches!(g, syn::GenericParam::Lifetime(_))) {
                return Some(Err(format!("generic type alias `{}`", def.name)));
            }
            let at = Place {
                recipes: self.recipes,
                module: def.module.clone(),
                self_ty: None,
                subst: BTreeMap::new(),
            };
            // The alias's value type; the owned type keeps the alias's name, which resolves here.
            return Some(owned(target, &at).map(|(ty, _)| (ty, with_lifetimes(&written, false))));
        }
        let args: Vec<Type> = match &written {
            Type::Path(w) => {
                w.path.segments.last().map(|s| generic_args(&s.arguments)).unwrap_or_default()
            }
            _ => Vec::new(),
        };
        if args.len() != value_params(def.generics).len() {
            return Some(Err(format!("generic type `{}` without its type arguments", def.name)));
        }
        let mut portable = Vec::new();
        for a in &args {
            match self.portable(a) {
                Some(t) => portable.push(t),
                None => {
                    return Some(Err(format!(
                        "`{}` with a type argument abex cannot name (`{}`)",
                        def.name,
                        tight(a)
                    )))
                }
            }
        }
        let b = self.recipes.builder(i, portable);
        Some(Ok((placeholder(b), with_lifetimes(&written, false))))
    }
}

/// What an associated function returns, when it builds the type: how it can fail.
fn returns_self(place: &Place<'_, '_, '_>, out: &ReturnType, ty: usize) -> Option<Fallible> {
    let ReturnType::Type(_, t) = out else { return None };
    let is_self = |t: &Type| match t {
        Type::Path(p) if p.qself.is_none() => {
            p.path.is_ident("Self")
                || place.recipes.table.resolve_path(&place.module, &p.path)
                    == Some(Resolved::Crate(ty))
        }
        _ => false,
    };
    if is_self(t) {
        return Some(Fallible::No);
    }
    let Type::Path(p) = &**t else { return None };
    let seg = p.path.segments.last()?;
    let first = type_args(&seg.arguments).into_iter().next()?;
    match seg.ident.to_string().as_str() {
        "Result" if is_self(first) => Some(Fallible::Result),
        "Option" if is_self(first) => Some(Fallible::Option),
        _ => None,
    }
}

/// Binds an impl's generic parameters by matching its self type's arguments against `args`
/// (the instantiation asked for); `None` when they do not match.
fn bind(imp: &syn::ItemImpl, args: &[Type]) -> Option<BTreeMap<String, Type>> {
    let params = value_params(&imp.generics);
    let Type::Path(p) = &*imp.self_ty else { return None };
    let written = generic_args(&p.path.segments.last()?.arguments);
    if written.len() != args.len() {
        return None;
    }
    let mut map = BTreeMap::new();
    for (w, a) in written.iter().zip(args) {
        let name = match w {
            Type::Path(wp) => wp.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        match name {
            Some(n) if params.contains(&n) => {
                map.insert(n, a.clone());
            }
            _ if tight(w) == tight(a) => {}
            _ => return None,
        }
    }
    // Every parameter must be bound by the self type.
    params.iter().all(|p| map.contains_key(p)).then_some(map)
}

fn is_pub(v: &syn::Visibility) -> bool {
    !matches!(v, syn::Visibility::Inherited)
}

/// Passes decoded argument `var` into a constructor; values of a type that borrows (it has a
/// lifetime) are leaked, so that the built value may keep the borrow.
fn pass_into(var: &str, pass: &Pass, leak: bool) -> String {
    match (pass, leak) {
        (Pass::Ref, true) => format!("&*crate::__abex_harness::leak({var})"),
        (Pass::RefMut, true) => format!("&mut *crate::__abex_harness::leak({var})"),
        _ => pass_expr(var, pass),
    }
}

impl<'t, 'a> Recipes<'t, 'a> {
    /// A synthesis over `table`, with an empty book.
    pub fn new(table: &'t TypeTable<'a>) -> Self {
        Recipes { table, book: RefCell::new(Book::default()), memo: RefCell::new(BTreeMap::new()) }
    }

    /// The builders `ty` reaches.
    pub fn reached(&self, ty: &Ty) -> std::collections::BTreeSet<usize> {
        self.book.borrow().reached(ty)
    }

    /// `ty` with its placeholders expanded (every constructor kept).
    pub fn expand(&self, ty: &Ty) -> Result<Ty, String> {
        self.book.borrow().expand(ty, &|_, _| true)
    }

    /// Runs `f` on the book being filled (to add seeds).
    pub fn with_book<R>(&self, f: impl FnOnce(&mut Book) -> R) -> R {
        f(&mut self.book.borrow_mut())
    }

    /// The place of module `module`, with no `Self`.
    pub fn place(&self, module: &[String]) -> Place<'_, 't, 'a> {
        Place { recipes: self, module: module.to_vec(), self_ty: None, subst: BTreeMap::new() }
    }

    /// The book, once every plan is made.
    pub fn finish(self, modules: &[Vec<String>]) -> Book {
        let mut book = self.book.into_inner();
        let memo = self.memo.into_inner();
        for ((ty, _), b) in memo {
            for m in modules {
                let path = self.table.path_from(ty, m);
                book.builders[b].paths.insert(m.clone(), path);
            }
        }
        book
    }

    /// The builder of crate type `ty` instantiated with `args` (portable types), synthesised
    /// the first time.
    fn builder(&self, ty: usize, args: Vec<Type>) -> usize {
        let key_args: Vec<String> = args.iter().map(tight).collect();
        let key = (ty, key_args.join(", "));
        if let Some(b) = self.memo.borrow().get(&key) {
            return *b;
        }
        let def = &self.table.types[ty];
        let clash = self.table.types.iter().filter(|t| t.name == def.name).count() > 1
            || super::std::BUILT_NAMES.contains(&def.name.as_str());
        let mut name = if clash && !def.module.is_empty() {
            format!("{}::{}", def.module.join("::"), def.name)
        } else {
            def.name.clone()
        };
        let mut self_text = def.name.clone();
        let mut turbofish = String::new();
        if !key_args.is_empty() {
            // The label reads as the source would (`AsKebabCase<String>`); the code keeps the
            // absolute paths a `no_std` crate needs (see `generics::parse`).
            let short = key.1.replace("::std::string::String", "String");
            name.push_str(&format!("<{}>", short.replace("::std::vec::Vec<", "Vec<")));
            turbofish = format!("::<{}>", key.1);
        }
        let lifetimes: Vec<&syn::LifetimeParam> = def.generics.lifetimes().collect();
        let mut generic_text: Vec<String> =
            lifetimes.iter().map(|_| "'static".to_string()).collect();
        generic_text.extend(key_args.iter().cloned());
        if !generic_text.is_empty() {
            self_text.push_str(&format!("<{}>", generic_text.join(", ")));
        }
        let b = {
            let mut book = self.book.borrow_mut();
            book.builders.push(Builder {
                name,
                module: def.module.clone(),
                self_text: self_text.clone(),
                turbofish,
                ..Builder::default()
            });
            book.builders.len() - 1
        };
        self.memo.borrow_mut().insert(key, b);
        let display = self.book.borrow().builders[b].name.clone();
        let (arms, left_out) =
            self.synthesize(ty, &args, (&display, &self_text), !lifetimes.is_empty());
        let mut book = self.book.borrow_mut();
        book.builders[b].arms = arms;
        book.builders[b].left_out = left_out;
        b
    }

    /// The constructors of crate type `ty` instantiated with `args`, and those left out.
    fn synthesize(
        &self,
        ty: usize,
        args: &[Type],
        (display, self_text): (&str, &str),
        leak: bool,
    ) -> (Vec<Arm>, Vec<String>) {
        let def = &self.table.types[ty];
        let self_ty: Option<Type> = syn::parse_str(self_text).ok();
        let params = value_params(def.generics);
        let place = Place {
            recipes: self,
            module: def.module.clone(),
            self_ty: self_ty.clone(),
            subst: params.iter().cloned().zip(args.iter().cloned()).collect(),
        };
        let mut arms = Vec::new();
        let mut left = Vec::new();
        let new_arm = |ctor: String, form: CtorForm, params: Vec<(String, ArgPlan)>| Arm {
            ctor,
            form,
            params,
            home: def.module.clone(),
            ret_text: self_text.to_string(),
            build: String::new(),
            fallible: Fallible::No,
            code: String::new(),
            private: !def.public,
            bypasses_api: false,
            seeds: Vec::new(),
        };
        // Literals and variants.
        let is_struct = matches!(def.kind, TypeKind::Struct(_));
        let mut literal = |path: &str, code_path: &str, fields: &Fields, ctor: String| {
            let mut params = Vec::new();
            let mut private = false;
            for (k, f) in fields.iter().enumerate() {
                let name = f.ident.as_ref().map_or(k.to_string(), |i| i.to_string());
                private |= is_struct && !is_pub(&f.vis);
                match place.plan(&f.ty) {
                    Ok(p) => params.push((name, p)),
                    Err(e) => {
                        left.push(format!("`{ctor}`: field `{name}`: {e}"));
                        return None;
                    }
                }
            }
            let passed: Vec<String> = params
                .iter()
                .enumerate()
                .map(|(k, (_, p))| pass_into(&format!("a{k}"), &p.pass, leak))
                .collect();
            let (form, build, code) = match fields {
                Fields::Named(_) => {
                    let b: Vec<String> =
                        params.iter().zip(&passed).map(|((n, _), v)| format!("{n}: {v}")).collect();
                    let c: Vec<String> = params
                        .iter()
                        .enumerate()
                        .map(|(k, (n, _))| format!("{n}: {{{k}}}"))
                        .collect();
                    (
                        CtorForm::Fields,
                        format!("{path} {{ {} }}", b.join(", ")),
                        format!("{code_path} {{ {} }}", c.join(", ")),
                    )
                }
                Fields::Unnamed(_) => {
                    let c: Vec<String> = (0..params.len()).map(|k| format!("{{{k}}}")).collect();
                    (
                        CtorForm::Call,
                        format!("{path}({})", passed.join(", ")),
                        format!("{code_path}({})", c.join(", ")),
                    )
                }
                Fields::Unit => (CtorForm::Unit, path.to_string(), code_path.to_string()),
            };
            let mut arm = new_arm(ctor, form, params);
            arm.build = build;
            arm.code = code;
            arm.private |= private;
            arm.bypasses_api = private;
            Some(arm)
        };
        match &def.kind {
            TypeKind::Struct(fields) => {
                arms.extend(literal(&def.name, "{T}", fields, display.to_string()));
            }
            TypeKind::Enum(variants) => {
                for v in variants.iter().take(MAX_VARIANTS) {
                    let path = format!("{}::{}", def.name, v.ident);
                    let code = format!("{{T}}::{}", v.ident);
                    arms.extend(literal(
                        &path,
                        &code,
                        &v.fields,
                        format!("{display}::{}", v.ident),
                    ));
                }
            }
            TypeKind::Alias(_) => {}
        }
        // Associated functions, constants and trait impls.
        let mut extra = Vec::new();
        let mut from_count = 0;
        for imp in self.table.impls_of(ty) {
            let item = imp.item;
            if item.unsafety.is_some() {
                continue;
            }
            let Some(subst) = bind(item, args) else { continue };
            let at = Place {
                recipes: self,
                module: imp.module.clone(),
                self_ty: None,
                subst: subst.clone(),
            };
            let impl_self = at.substitute_in(&item.self_ty);
            let at = Place { self_ty: Some(impl_self.clone()), ..at };
            let ret_text = with_lifetimes(&impl_self, true);
            let self_expr = with_lifetimes(&impl_self, false);
            let mk = |ctor: String, form: CtorForm, params: Vec<(String, ArgPlan)>| Arm {
                home: imp.module.clone(),
                ret_text: ret_text.clone(),
                ..new_arm(ctor, form, params)
            };
            match &item.trait_ {
                None => {
                    for it in &item.items {
                        match it {
                            ImplItem::Fn(f) => {
                                let sig = &f.sig;
                                if sig.receiver().is_some()
                                    || sig.unsafety.is_some()
                                    || sig.asyncness.is_some()
                                    || sig.generics.type_params().next().is_some()
                                    || crate::rust::files::is_cfg_test(&f.attrs)
                                {
                                    continue;
                                }
                                let Some(fallible) = returns_self(&at, &sig.output, ty) else {
                                    continue;
                                };
                                let name = sig.ident.to_string();
                                let mut params = Vec::new();
                                let mut ok = true;
                                for (k, input) in sig.inputs.iter().enumerate() {
                                    let FnArg::Typed(pt) = input else { continue };
                                    let pname = match &*pt.pat {
                                        syn::Pat::Ident(i) => i.ident.to_string(),
                                        _ => format!("arg{k}"),
                                    };
                                    match at.plan(&pt.ty) {
                                        Ok(p) => params.push((pname, p)),
                                        Err(e) => {
                                            left.push(format!("`{display}::{name}`: {e}"));
                                            ok = false;
                                            break;
                                        }
                                    }
                                }
                                if !ok {
                                    continue;
                                }
                                let passed: Vec<String> = params
                                    .iter()
                                    .enumerate()
                                    .map(|(k, (_, p))| pass_into(&format!("a{k}"), &p.pass, leak))
                                    .collect();
                                let codes: Vec<String> =
                                    (0..params.len()).map(|k| format!("{{{k}}}")).collect();
                                let (ctor, form) = if params.is_empty() {
                                    (format!("{display}::{name}()"), CtorForm::Unit)
                                } else {
                                    (format!("{display}::{name}"), CtorForm::Call)
                                };
                                let mut arm = mk(ctor, form, params);
                                arm.build = format!("<{self_expr}>::{name}({})", passed.join(", "));
                                arm.code = format!("{{T}}::{name}({})", codes.join(", "));
                                arm.fallible = fallible;
                                arm.private |= !is_pub(&f.vis);
                                extra.push((rank(&name), arm));
                            }
                            ImplItem::Const(c) => {
                                let is_self = match &c.ty {
                                    Type::Path(p) => {
                                        p.path.is_ident("Self")
                                            || self.table.resolve_path(&imp.module, &p.path)
                                                == Some(Resolved::Crate(ty))
                                    }
                                    _ => false,
                                };
                                if is_self {
                                    let name = c.ident.to_string();
                                    let mut arm =
                                        mk(format!("{display}::{name}"), CtorForm::Unit, vec![]);
                                    arm.build = format!("<{self_expr}>::{name}");
                                    arm.code = format!("{{T}}::{name}");
                                    arm.private |= !is_pub(&c.vis);
                                    extra.push((3, arm));
                                }
                            }
                            _ => {}
                        }
                    }
                }
                Some((_, path, _)) => {
                    let Some(last) = path.segments.last() else { continue };
                    let trait_args = type_args(&last.arguments);
                    let mut one = |name: &str, ty: &Type| -> Option<(String, ArgPlan)> {
                        match at.plan(ty) {
                            Ok(p) => Some((name.to_string(), p)),
                            Err(e) => {
                                left.push(format!("`{display}` from `{}`: {e}", tight(ty)));
                                None
                            }
                        }
                    };
                    match (last.ident.to_string().as_str(), trait_args.as_slice()) {
                        ("FromStr", []) => {
                            let s: Type = syn::parse_quote!(&str);
                            let Some(p) = one("s", &s) else { continue };
                            let mut arm =
                                mk(format!("{display}::from_str"), CtorForm::Call, vec![p]);
                            arm.build =
                                format!("<{self_expr} as ::std::str::FromStr>::from_str(&a0)");
                            arm.code = "{0}.parse::<{T}>()".into();
                            arm.fallible = Fallible::Result;
                            extra.push((2, arm));
                        }
                        ("Default", []) => {
                            let mut arm =
                                mk(format!("{display}::default()"), CtorForm::Unit, vec![]);
                            arm.build =
                                format!("<{self_expr} as ::std::default::Default>::default()");
                            arm.code = "{T}::default()".into();
                            extra.push((6, arm));
                        }
                        ("From" | "TryFrom", [x]) => {
                            let xs = at.substitute_in(x);
                            if has_lifetime(&xs) && leak {
                                continue;
                            }
                            let Some(p) = one("value", &xs) else { continue };
                            let t = last.ident.to_string();
                            let method = if t == "From" { "from" } else { "try_from" };
                            from_count += 1;
                            let ctor = if from_count == 1 {
                                format!("{display}::{method}")
                            } else {
                                format!("{display}::{method}#{from_count}")
                            };
                            let x_text = with_lifetimes(&xs, false);
                            let pass = pass_into("a0", &p.1.pass, leak);
                            let mut arm = mk(ctor, CtorForm::Call, vec![p]);
                            arm.build = format!(
                                "<{self_expr} as ::std::convert::{t}<{x_text}>>::{method}({pass})"
                            );
                            if t == "From" {
                                arm.code = "{T}::from({0})".into();
                            } else {
                                arm.code =
                                    "<{T} as std::convert::TryFrom<_>>::try_from({0})".into();
                                arm.fallible = Fallible::Result;
                            }
                            extra.push((5, arm));
                        }
                        ("Arbitrary", _) => {
                            let bytes: Type = syn::parse_quote!(Vec<u8>);
                            let Some(p) = one("bytes", &bytes) else { continue };
                            let mut arm =
                                mk(format!("{display}::arbitrary"), CtorForm::Call, vec![p]);
                            arm.build = format!(
                                "<{self_expr} as ::arbitrary::Arbitrary<'_>>::arbitrary(&mut ::arbitrary::Unstructured::new(&a0))"
                            );
                            arm.code = "<{T} as arbitrary::Arbitrary>::arbitrary(&mut arbitrary::Unstructured::new(&{0}))".into();
                            arm.fallible = Fallible::Result;
                            extra.push((8, arm));
                        }
                        _ => {}
                    }
                }
            }
        }
        if def.derives.iter().any(|d| d == "Default") {
            let mut arm = new_arm(format!("{display}::default()"), CtorForm::Unit, vec![]);
            let expr = self_ty.as_ref().map_or(def.name.clone(), |t| with_lifetimes(t, false));
            arm.build = format!("<{expr} as ::std::default::Default>::default()");
            arm.code = "{T}::default()".into();
            extra.push((6, arm));
        }
        extra.sort_by_key(|(r, _)| *r);
        let mut added = 0;
        for (_, arm) in extra {
            if added >= MAX_ARMS {
                break;
            }
            if !arms.iter().any(|a| a.ctor == arm.ctor) {
                arms.push(arm);
                added += 1;
            }
        }
        (arms, left)
    }
}

/// The order associated functions are kept in when a type has many: `new` first, then
/// parsers, converters and builders, then the rest.
fn rank(name: &str) -> u8 {
    match name {
        "new" => 0,
        "parse" => 1,
        n if n.starts_with("from_") || n.starts_with("with_") => 4,
        n if n.starts_with("new_") => 4,
        _ => 7,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rust::source::{Callee, SourceFile, Via};
    use crate::rust::types::book::Fallible;
    use crate::rust::types::fnplan::{self, ImplHead};

    const CRATE: &str = r#"
        use std::str::FromStr;
        #[derive(Debug, Default)]
        pub struct Version { pub major: u64, pub minor: u64, pub pre: Prerelease }
        #[derive(Debug, Default)]
        pub struct Prerelease { text: String }
        impl Prerelease {
            pub const EMPTY: Self = Prerelease { text: String::new() };
            pub fn new(text: &str) -> Result<Self, String> { Ok(Prerelease { text: text.into() }) }
        }
        impl Version {
            pub fn new(major: u64, minor: u64) -> Self { Version { major, minor, pre: Prerelease::EMPTY } }
            pub fn parse(text: &str) -> Result<Version, String> { text.parse() }
            pub fn bump(&self) -> Self { Version::new(self.major + 1, 0) }
        }
        impl FromStr for Version {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> { Err(s.into()) }
        }
        impl From<u64> for Version { fn from(major: u64) -> Self { Version::new(major, 0) } }
        #[derive(Debug)]
        pub enum Op { Exact, Tilde(u8), Range { lo: u64, hi: u64 } }
        pub enum Tree { Leaf(i32), Node(Box<Tree>, Box<Tree>) }
        impl std::fmt::Display for Version {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { write!(f, "{}", self.major) }
        }
    "#;

    fn parsed() -> Vec<(SourceFile, syn::File)> {
        let f = SourceFile { path: "lib.rs".into(), module: vec![], text: CRATE.into() };
        vec![(f, syn::parse_file(CRATE).unwrap())]
    }

    fn fn_sig(s: &str) -> syn::Signature {
        syn::parse_str::<syn::ItemFn>(&format!("{s} {{}}")).unwrap().sig
    }

    #[test]
    fn constructors_are_synthesised_from_literals_variants_functions_constants_and_traits() {
        let files = parsed();
        let table = TypeTable::new(&files, &[]);
        let recipes = Recipes::new(&table);
        let planned =
            fnplan::plan(&recipes, &[], &fn_sig("fn f(v: &Version, op: Op, t: Tree)"), None);
        let plan = planned.plan.unwrap();
        assert_eq!(plan.builders.len(), 4, "Version, Prerelease, Op, Tree");
        let book = recipes.finish(&[vec![]]);
        let version = book.by_name("Version").unwrap().1;
        let ctors: Vec<(&str, CtorForm, Fallible)> =
            version.arms.iter().map(|a| (a.ctor.as_str(), a.form, a.fallible)).collect();
        assert_eq!(
            ctors,
            [
                ("Version", CtorForm::Fields, Fallible::No),
                ("Version::new", CtorForm::Call, Fallible::No),
                ("Version::parse", CtorForm::Call, Fallible::Result),
                ("Version::from_str", CtorForm::Call, Fallible::Result),
                ("Version::from", CtorForm::Call, Fallible::No),
                ("Version::default()", CtorForm::Unit, Fallible::No),
            ]
        );
        let parse = &version.arms[2];
        assert_eq!(parse.build, "<Version>::parse(&a0)");
        assert_eq!(parse.code, "{T}::parse({0})");
        assert_eq!(version.arms[3].code, "{0}.parse::<{T}>()");
        let pre = book.by_name("Prerelease").unwrap().1;
        let names: Vec<&str> = pre.arms.iter().map(|a| a.ctor.as_str()).collect();
        assert_eq!(
            names,
            ["Prerelease", "Prerelease::new", "Prerelease::EMPTY", "Prerelease::default()"]
        );
        assert!(pre.arms[0].private && pre.arms[0].bypasses_api, "a private field");
        let op = book.by_name("Op").unwrap().1;
        let forms: Vec<CtorForm> = op.arms.iter().map(|a| a.form).collect();
        assert_eq!(forms, [CtorForm::Unit, CtorForm::Call, CtorForm::Fields]);
        assert_eq!(op.arms[2].build, "Op::Range { lo: a0, hi: a1 }");
        // The value type: the private literal of `Prerelease` gives way to its API, `parse`
        // and `from_str` (no seeds) to the constructors that cannot fail; the recursive `Tree`
        // is cut.
        let v = planned.params[0].ty.as_ref().unwrap();
        let Ty::Built { name, ctors } = v else { panic!("{v:?}") };
        assert_eq!(name, "Version");
        let kept: Vec<&str> = ctors.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(kept, ["Version", "Version::new", "Version::from", "Version::default()"]);
        let Ty::Built { ctors: pre_ctors, .. } = &ctors[0].params[2].1 else { panic!() };
        assert!(pre_ctors.iter().all(|c| c.name != "Prerelease"), "{pre_ctors:?}");
        let tree = planned.params[2].ty.as_ref().unwrap();
        assert!(serde_json::to_string(tree).unwrap().len() < 20_000);
    }

    #[test]
    fn methods_take_their_receiver_first_and_trait_methods_go_through_their_trait() {
        let files = parsed();
        let table = TypeTable::new(&files, &[]);
        let recipes = Recipes::new(&table);
        let head = |t: Option<&str>| ImplHead {
            generics: syn::Generics::default(),
            self_ty: syn::parse_str("Version").unwrap(),
            trait_: t.map(|t| syn::parse_str(t).unwrap()),
        };
        let bump =
            fnplan::plan(&recipes, &[], &fn_sig("fn bump(&self) -> Self"), Some(&head(None)));
        assert_eq!(bump.params[0].name, "self");
        let plan = bump.plan.unwrap();
        assert!(matches!(plan.callee, Callee::Method { .. }));
        let fmt = fnplan::plan(
            &recipes,
            &[],
            &fn_sig("fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result"),
            Some(&head(Some("std::fmt::Display"))),
        );
        let names: Vec<&str> = fmt.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["self", "alternate", "width", "precision"]);
        let plan = fmt.plan.unwrap();
        assert_eq!(plan.via, Via::Format("display"));
        assert_eq!(plan.trait_.as_deref(), Some("std::fmt::Display"));
        let from_str = fnplan::plan(
            &recipes,
            &[],
            &fn_sig("fn from_str(s: &str) -> Result<Self, Self::Err>"),
            Some(&head(Some("FromStr"))),
        );
        let plan = from_str.plan.unwrap();
        assert!(matches!(plan.callee, Callee::Assoc { .. }) && plan.trait_.is_some());
        let drop =
            fnplan::plan(&recipes, &[], &fn_sig("fn drop(&mut self)"), Some(&head(Some("Drop"))));
        assert!(drop.plan.unwrap_err().contains("Drop"));
    }

    #[test]
    fn generic_parameters_are_instantiated_and_self_is_substituted() {
        let files = parsed();
        let table = TypeTable::new(&files, &[]);
        let recipes = Recipes::new(&table);
        let kib =
            fnplan::plan(&recipes, &[], &fn_sig("fn kib<V: Into<u64>>(size: V) -> u64"), None);
        let plan = kib.plan.unwrap();
        assert_eq!(plan.turbofish, "::<u64>");
        assert_eq!(kib.params[0].ty, Some(Ty::int(64, false)));
        let by_impl =
            fnplan::plan(&recipes, &[], &fn_sig("fn kb(size: impl Into<u64>) -> u64"), None);
        assert_eq!(by_impl.plan.unwrap().turbofish, "", "no turbofish for `impl Trait`");
        let head = ImplHead {
            generics: syn::Generics::default(),
            self_ty: syn::parse_str("u64").unwrap(),
            trait_: Some(syn::parse_str("OverflowOp").unwrap()),
        };
        let mul = fnplan::plan(
            &recipes,
            &[],
            &fn_sig("fn mul(self, other: Self) -> Result<Self, String>"),
            Some(&head),
        );
        let tys: Vec<Option<Ty>> = mul.params.iter().map(|p| p.ty.clone()).collect();
        assert_eq!(tys, [Some(Ty::int(64, false)), Some(Ty::int(64, false))]);
    }
}
