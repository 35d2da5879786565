//! Body replacements a crate is known not to compile, told from its sources without a build.
//!
//! cargo-mutants' values for a return type (`crate::mutate::rust_rules`) include some that
//! cannot compile in a given crate:
//!
//! - `Default::default()` for a type parameter that has no `Default` bound, for a crate type
//!   that neither derives nor implements `Default` (shlex 1.3.0's `QuotingStrategy`, inside a
//!   tuple), or for an alias of `Result` (strsim 0.10.0);
//! - `Name::new()` or `Name::from_iter(…)` for a crate type that has no such function;
//! - `Name::from_iter(…)` in a crate of an edition before 2021 whose function's module does not
//!   bring `FromIterator` into scope (the older preludes lack it; url 2.5.8);
//! - `Name::from(Default::default())` where `Name` has a `From` impl besides the reflexive one
//!   (the argument's type cannot be inferred);
//! - `Name::new(…)`, `Name::from(…)` and `Name::from_iter(…)` for an alias of `Result`, which has
//!   no `new`, no `From` impl but the reflexive one, and collects only `Result` items (url 2.5.8).
//!
//! Each such mutant otherwise costs a failed round of the switched build, and rustc reports an
//! ambiguity only once the other errors are gone, so humantime-serde's three cost two rounds
//! (about 2 s, on every run and push).
//!
//! The rules refuse a mutant only when the crate's own items show that the compiler would;
//! wherever a macro, an attribute, a derive or an import could supply what is missing, they
//! say nothing and the build decides. A refused mutant is reported unviable, as the build
//! would have reported it, with the compiler's error code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Expr, GenericParam, Generics, Type, TypeParamBound, WherePredicate};

use crate::mutate::Lines;
use crate::rust::source::CrateSources;

/// Traits whose bound on a type parameter does not make it `Default` (none of them has
/// `Default` as a supertrait).
const NOT_DEFAULT: [&str; 28] = [
    "Clone",
    "Copy",
    "Debug",
    "Display",
    "PartialEq",
    "Eq",
    "PartialOrd",
    "Ord",
    "Hash",
    "Send",
    "Sync",
    "Sized",
    "Unpin",
    "ToString",
    "AsRef",
    "AsMut",
    "Borrow",
    "Into",
    "From",
    "TryFrom",
    "TryInto",
    "Fn",
    "FnMut",
    "FnOnce",
    "Iterator",
    "IntoIterator",
    "Serialize",
    "Deserialize",
];

/// Derives that add no associated function a body value calls (`new`, `from_iter`, `from`).
const PLAIN_DERIVES: [&str; 11] = [
    "Debug",
    "Clone",
    "Copy",
    "PartialEq",
    "Eq",
    "PartialOrd",
    "Ord",
    "Hash",
    "Default",
    "Serialize",
    "Deserialize",
];

/// Attributes that change nothing about a type's or an impl's associated functions.
const PLAIN_ATTRS: [&str; 14] = [
    "doc",
    "derive",
    "allow",
    "warn",
    "deny",
    "forbid",
    "expect",
    "cfg",
    "repr",
    "must_use",
    "non_exhaustive",
    "serde",
    "inline",
    "automatically_derived",
];

/// How a type name is defined in the crate.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Def {
    /// Once, as a struct, enum or union with plain attributes.
    Plain,
    /// Once, as an alias of a type whose last path segment is the string.
    Alias(String),
    /// Twice, or with attributes or derives that may add functions: a build decides.
    Unknown,
}

/// What a crate's items say about its types.
#[derive(Debug, Default)]
struct Items {
    /// The crate's type names.
    types: BTreeMap<String, Def>,
    /// The function names of every impl block of each self type (by its last path segment).
    assoc: BTreeMap<String, BTreeSet<String>>,
    /// Types that derive or implement `Default`.
    defaults: BTreeSet<String>,
    /// Self types with an `impl From<…> for Name<…>` that fits every instance of `Name`.
    from_any: BTreeSet<String>,
    /// The names of the functions the crate's traits declare (a blanket impl may give them to
    /// any type).
    trait_fns: BTreeSet<String>,
    /// Names an item-level macro invocation mentions, or whose impl blocks carry attributes
    /// that may add functions: anything may be defined for them.
    opaque: BTreeSet<String>,
}

fn last_ident(path: &syn::Path) -> Option<String> {
    path.segments.last().map(|s| s.ident.to_string())
}

fn plain_attrs(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().all(|a| {
        let Some(name) = last_ident(a.path()) else { return false };
        if !PLAIN_ATTRS.contains(&name.as_str()) {
            return false;
        }
        if name != "derive" {
            return true;
        }
        let mut plain = true;
        let parsed = a.parse_nested_meta(|m| {
            plain &= last_ident(&m.path).is_some_and(|d| PLAIN_DERIVES.contains(&d.as_str()));
            Ok(())
        });
        parsed.is_ok() && plain
    })
}

fn idents(tokens: proc_macro2::TokenStream, out: &mut BTreeSet<String>) {
    for t in tokens {
        match t {
            proc_macro2::TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
            _ => {}
        }
    }
}

/// The name of a type written as a path (`Serde<T>` -> `Serde`).
fn type_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) if p.qself.is_none() => last_ident(&p.path),
        Type::Paren(p) => type_name(&p.elem),
        Type::Group(g) => type_name(&g.elem),
        _ => None,
    }
}

impl Items {
    fn define(&mut self, name: String, def: Def) {
        self.types.entry(name).and_modify(|d| *d = Def::Unknown).or_insert(def);
    }

    /// Notes `name` as `Default` when `attrs` derive it.
    fn derives(&mut self, name: &syn::Ident, attrs: &[syn::Attribute]) {
        for a in attrs.iter().filter(|a| a.path().is_ident("derive")) {
            let _ = a.parse_nested_meta(|m| {
                if last_ident(&m.path).as_deref() == Some("Default") {
                    self.defaults.insert(name.to_string());
                }
                Ok(())
            });
        }
    }
}

impl<'ast> Visit<'ast> for Items {
    fn visit_item_struct(&mut self, i: &'ast syn::ItemStruct) {
        self.derives(&i.ident, &i.attrs);
        let def = if plain_attrs(&i.attrs) { Def::Plain } else { Def::Unknown };
        self.define(i.ident.to_string(), def);
        visit::visit_item_struct(self, i);
    }

    fn visit_item_enum(&mut self, i: &'ast syn::ItemEnum) {
        self.derives(&i.ident, &i.attrs);
        let def = if plain_attrs(&i.attrs) { Def::Plain } else { Def::Unknown };
        self.define(i.ident.to_string(), def);
        visit::visit_item_enum(self, i);
    }

    fn visit_item_union(&mut self, i: &'ast syn::ItemUnion) {
        self.derives(&i.ident, &i.attrs);
        let def = if plain_attrs(&i.attrs) { Def::Plain } else { Def::Unknown };
        self.define(i.ident.to_string(), def);
        visit::visit_item_union(self, i);
    }

    fn visit_item_type(&mut self, i: &'ast syn::ItemType) {
        let def = match type_name(&i.ty) {
            Some(target) if plain_attrs(&i.attrs) => Def::Alias(target),
            _ => Def::Unknown,
        };
        self.define(i.ident.to_string(), def);
        visit::visit_item_type(self, i);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if let Some(name) = type_name(&i.self_ty) {
            let fns = self.assoc.entry(name.clone()).or_default();
            for item in &i.items {
                match item {
                    syn::ImplItem::Fn(f) => {
                        fns.insert(f.sig.ident.to_string());
                    }
                    syn::ImplItem::Macro(_) | syn::ImplItem::Verbatim(_) => {
                        self.opaque.insert(name.clone());
                    }
                    _ => {}
                }
            }
            if !plain_attrs(&i.attrs) {
                self.opaque.insert(name.clone());
            }
            let implemented = i.trait_.as_ref().and_then(|(_, t, _)| last_ident(t));
            if implemented.as_deref() == Some("Default") {
                self.defaults.insert(name.clone());
            }
            let from = implemented.as_deref() == Some("From");
            if from && fits_every_instance(&i.self_ty, &i.generics) {
                self.from_any.insert(name);
            }
        }
        visit::visit_item_impl(self, i);
    }

    fn visit_item_trait(&mut self, i: &'ast syn::ItemTrait) {
        for item in &i.items {
            if let syn::TraitItem::Fn(f) = item {
                self.trait_fns.insert(f.sig.ident.to_string());
            }
        }
        visit::visit_item_trait(self, i);
    }

    fn visit_item_macro(&mut self, i: &'ast syn::ItemMacro) {
        idents(i.mac.tokens.clone(), &mut self.opaque);
    }
}

/// Whether `self_ty` (`Name` or `Name<A, B>`) names every instance of `Name`: each argument is
/// one of the impl's own type or const parameters.
fn fits_every_instance(self_ty: &Type, generics: &Generics) -> bool {
    let Type::Path(p) = self_ty else { return false };
    let Some(last) = p.path.segments.last() else { return false };
    let params: BTreeSet<String> = generics
        .type_params()
        .map(|t| t.ident.to_string())
        .chain(generics.const_params().map(|c| c.ident.to_string()))
        .collect();
    match &last.arguments {
        syn::PathArguments::None => true,
        syn::PathArguments::AngleBracketed(a) => a.args.iter().all(|g| match g {
            syn::GenericArgument::Type(t) => {
                type_name(t).is_some_and(|n| params.contains(&n)) && is_bare(t)
            }
            syn::GenericArgument::Lifetime(_) => true,
            _ => false,
        }),
        syn::PathArguments::Parenthesized(_) => false,
    }
}

/// A type that is one identifier without arguments (`T`).
fn is_bare(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some())
}

/// The function whose body block is at a byte range of its file, with the generics in scope
/// (its own and its impl's).
struct Finder<'a> {
    text: &'a str,
    lines: &'a Lines,
    body: (usize, usize),
    impls: Vec<&'a Generics>,
    /// The items of the modules around the visit, innermost last (the file's first).
    modules: Vec<&'a [syn::Item]>,
    /// How many function bodies the visit is in.
    bodies: usize,
    found: Option<(&'a syn::Signature, Vec<&'a Generics>)>,
    /// The items of the module the found function's names resolve in; `None` for a function
    /// nested in another's body, whose block may import too.
    module: Option<&'a [syn::Item]>,
}

impl<'a> Finder<'a> {
    fn new(file: &'a syn::File, text: &'a str, lines: &'a Lines, body: (usize, usize)) -> Self {
        let modules = vec![file.items.as_slice()];
        Finder {
            text,
            lines,
            body,
            impls: Vec::new(),
            modules,
            bodies: 0,
            found: None,
            module: None,
        }
    }

    fn check(&mut self, sig: &'a syn::Signature, block: &'a syn::Block) {
        let s = block.span();
        let at = (self.lines.offset(self.text, s.start()), self.lines.offset(self.text, s.end()));
        if at == self.body && self.found.is_none() {
            let mut scope = self.impls.clone();
            scope.push(&sig.generics);
            self.found = Some((sig, scope));
            self.module = if self.bodies == 0 { self.modules.last().copied() } else { None };
        }
    }
}

impl<'a> Visit<'a> for Finder<'a> {
    fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
        if let Some((_, items)) = &m.content {
            self.modules.push(items);
            visit::visit_item_mod(self, m);
            self.modules.pop();
        }
    }

    fn visit_block(&mut self, b: &'a syn::Block) {
        self.bodies += 1;
        visit::visit_block(self, b);
        self.bodies -= 1;
    }

    fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
        self.impls.push(&i.generics);
        visit::visit_item_impl(self, i);
        self.impls.pop();
    }

    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        self.check(&f.sig, &f.block);
        // A function nested in the body has none of the impl's parameters.
        let outer = std::mem::take(&mut self.impls);
        visit::visit_impl_item_fn(self, f);
        self.impls = outer;
    }

    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        let outer = std::mem::take(&mut self.impls);
        self.check(&f.sig, &f.block);
        visit::visit_item_fn(self, f);
        self.impls = outer;
    }

    // A trait's default body: its `Self` and parameters are not looked at.
    fn visit_item_trait(&mut self, _: &'a syn::ItemTrait) {}
}

/// The type parameters in `scope` none of whose bounds can make them `Default`.
fn without_default(scope: &[&Generics]) -> BTreeSet<String> {
    let bound_ok = |b: &TypeParamBound| match b {
        TypeParamBound::Trait(t) => {
            last_ident(&t.path).is_some_and(|n| NOT_DEFAULT.contains(&n.as_str()))
        }
        TypeParamBound::Lifetime(_) => true,
        _ => false,
    };
    let mut out = BTreeSet::new();
    let mut spoiled = BTreeSet::new();
    for g in scope {
        for p in &g.params {
            if let GenericParam::Type(t) = p {
                let name = t.ident.to_string();
                match t.bounds.iter().all(bound_ok) {
                    true => out.insert(name),
                    false => spoiled.insert(name),
                };
            }
        }
        for w in g.where_clause.iter().flat_map(|w| &w.predicates) {
            match w {
                // A bound on anything but a bare parameter: what it implies is not judged here.
                WherePredicate::Type(t) if !is_bare(&t.bounded_ty) => return BTreeSet::new(),
                WherePredicate::Type(t) => {
                    if !t.bounds.iter().all(bound_ok) {
                        spoiled.extend(type_name(&t.bounded_ty));
                    }
                }
                WherePredicate::Lifetime(_) => {}
                _ => return BTreeSet::new(),
            }
        }
    }
    out.retain(|n| !spoiled.contains(n));
    out
}

/// `Default::default()`.
fn is_default_call(e: &Expr) -> bool {
    let Expr::Call(c) = e else { return false };
    let Expr::Path(p) = &*c.func else { return false };
    let names: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
    c.args.is_empty() && names == ["Default", "default"]
}

/// The first type argument of a path type named `name` (`Result<T, E>` -> `T`).
fn first_arg<'t>(ty: &'t Type, name: &str) -> Option<&'t Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != name {
        return None;
    }
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else { return None };
    a.args.iter().find_map(|g| match g {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// What one body value of a function needs from the crate.
struct Cx<'a> {
    items: &'a Items,
    /// Type parameters in scope that are not `Default`.
    no_default: BTreeSet<String>,
    /// Every type parameter in scope.
    params: BTreeSet<String>,
    /// Names the file imports from elsewhere (a `use` that ends in them).
    imported: &'a BTreeSet<String>,
    /// Whether `FromIterator` may be in scope in the function's module: the crate's prelude has
    /// it (edition 2021 on), or the module may import it (`may_import_from_iterator`).
    from_iterator: bool,
}

impl Cx<'_> {
    /// A crate type the file does not import from elsewhere, defined once with plain
    /// attributes, that no macro mentions.
    fn plain(&self, name: &str) -> bool {
        self.items.types.get(name) == Some(&Def::Plain)
            && !self.items.opaque.contains(name)
            && !self.imported.contains(name)
    }

    /// Whether `name` is the crate's one alias of one of `targets` (`Result`), not imported
    /// from elsewhere and mentioned by no macro, where the crate defines no other type of the
    /// target's name (a `struct Result` of its own).
    fn alias_of(&self, name: &str, targets: &[&str]) -> bool {
        let Some(Def::Alias(t)) = self.items.types.get(name) else { return false };
        targets.contains(&t.as_str())
            && matches!(self.items.types.get(t.as_str()), None | Some(Def::Alias(_)))
            && !self.imported.contains(name)
            && !self.items.opaque.contains(name)
    }

    fn lacks(&self, name: &str, f: &str) -> bool {
        !self.items.assoc.get(name).is_some_and(|fns| fns.contains(f))
            && !self.items.trait_fns.contains(f)
    }

    /// Why the value `e` of type `ty` does not compile, when the crate says so.
    fn why(&self, e: &Expr, ty: &Type) -> Option<String> {
        let ty = match ty {
            Type::Paren(p) => &*p.elem,
            Type::Group(g) => &*g.elem,
            ty => ty,
        };
        if let Expr::Paren(p) = e {
            return self.why(&p.expr, ty);
        }
        if let (Expr::Tuple(values), Type::Tuple(types)) = (e, ty) {
            if values.elems.len() == types.elems.len() {
                return values.elems.iter().zip(&types.elems).find_map(|(v, t)| self.why(v, t));
            }
            return None;
        }
        if is_default_call(e) {
            let name = type_name(ty)?;
            if self.alias_of(&name, &["Result"]) {
                return Some(format!(
                    "error[E0277]: the trait bound `{name}: Default` is not satisfied: `{name}` is \
                     an alias of `Result`, which is not `Default` (known from the crate's sources, \
                     without a build)"
                ));
            }
            let crate_type = self.plain(&name)
                && !self.params.contains(&name)
                && !self.items.defaults.contains(&name);
            if crate_type {
                return Some(format!(
                    "error[E0277]: the trait bound `{name}: Default` is not satisfied: the \
                     crate's `{name}` neither derives nor implements `Default` (known from the \
                     crate's sources, without a build)"
                ));
            }
            let name = Some(name).filter(|n| is_bare(ty) && self.no_default.contains(n))?;
            return Some(format!(
                "error[E0277]: the trait bound `{name}: Default` is not satisfied: `{name}` is a \
                 type parameter without a `Default` bound (known from the crate's sources, \
                 without a build)"
            ));
        }
        let Expr::Call(call) = e else { return None };
        let Expr::Path(func) = &*call.func else { return None };
        let segments: Vec<String> =
            func.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let args: Vec<&Expr> = call.args.iter().collect();
        match (segments.as_slice(), args.as_slice()) {
            ([ok], [arg]) if ok == "Ok" => self.why(arg, first_arg(ty, "Result")?),
            ([some], [arg]) if some == "Some" => self.why(arg, first_arg(ty, "Option")?),
            ([name, f], _) if type_name(ty).as_deref() == Some(name.as_str()) => {
                let alias_of = |targets: &[&str]| self.alias_of(name, targets);
                let missing =
                    (f == "new" || f == "from_iter") && self.plain(name) && self.lacks(name, f);
                if f == "from_iter" && !self.from_iterator && self.lacks(name, f) {
                    return Some(format!(
                        "error[E0599]: no function or associated item named `from_iter` found \
                         for `{name}`: the trait `FromIterator` is not in scope (the crate's \
                         edition has no `FromIterator` in its prelude, and the file does not \
                         import it; known from the crate's sources, without a build)"
                    ));
                }
                if missing || (f == "new" && alias_of(&["Result", "Option"])) {
                    return Some(format!(
                        "error[E0599]: no function or associated item named `{f}` found for \
                         `{name}`: none of the crate's impls of `{name}` has one (known from \
                         the crate's sources, without a build)"
                    ));
                }
                // `Result` has no `From` impl but the reflexive one, and collects only
                // `Result` items: values of its `Ok` type fit neither (rustc: E0277, E0308).
                if (f == "from" || f == "from_iter")
                    && alias_of(&["Result"])
                    && !args.iter().any(|a| builds_result(a))
                {
                    return Some(format!(
                        "error[E0277]: `{name}::{f}` takes a `Result` here: `{name}` is an alias \
                         of `Result`, whose only `From` impl is the reflexive one and which \
                         collects only `Result` items (known from the crate's sources, without a \
                         build)"
                    ));
                }
                let ambiguous = f == "from"
                    && matches!(args.as_slice(), [a] if is_default_call(a))
                    && self.plain(name)
                    && self.items.from_any.contains(name);
                ambiguous.then(|| {
                    format!(
                        "error[E0283]: type annotations needed: `{name}` has a `From` impl \
                         besides `From<{name}>`, so the type of `Default::default()` cannot be \
                         inferred (known from the crate's sources, without a build)"
                    )
                })
            }
            _ => None,
        }
    }
}

/// The names a file's `use` items import from outside the crate (their last segment or
/// rename); `self::`, `crate::` and `super::` paths bring the crate's own items.
fn imported(file: &syn::File) -> BTreeSet<String> {
    fn walk(tree: &syn::UseTree, first: Option<&str>, out: &mut BTreeSet<String>) {
        let own = matches!(first, Some("crate" | "self" | "super"));
        match tree {
            syn::UseTree::Path(p) => {
                let head = p.ident.to_string();
                walk(&p.tree, Some(first.unwrap_or(&head)), out);
            }
            syn::UseTree::Name(n) if !own => {
                out.insert(n.ident.to_string());
            }
            syn::UseTree::Rename(r) if !own => {
                out.insert(r.rename.to_string());
            }
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| walk(t, first, out)),
            _ => {}
        }
    }
    struct Uses(BTreeSet<String>);
    impl<'ast> Visit<'ast> for Uses {
        fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
            walk(&u.tree, None, &mut self.0);
        }
    }
    let mut uses = Uses(BTreeSet::new());
    uses.visit_file(file);
    uses.0
}

/// Whether `e` may make a `Result`: it calls `Ok` or `Err` anywhere.
fn builds_result(e: &Expr) -> bool {
    struct Finds(bool);
    impl<'ast> Visit<'ast> for Finds {
        fn visit_path(&mut self, p: &'ast syn::Path) {
            self.0 |= p.segments.last().is_some_and(|s| s.ident == "Ok" || s.ident == "Err");
            visit::visit_path(self, p);
        }
    }
    let mut finds = Finds(false);
    finds.visit_expr(e);
    finds.0
}

/// Whether the items of a module may bring `FromIterator` into its scope: a `use` names it
/// (renamed or not) or imports a glob (`use super::*` brings the parent's imports too), or an
/// item macro is invoked, whose expansion is not known here (`macro_rules!` definitions do not
/// count). Imports of other modules, its parent's or a `tests` module's, do not reach it.
fn may_import_from_iterator(items: &[syn::Item]) -> bool {
    fn opens(tree: &syn::UseTree) -> bool {
        match tree {
            syn::UseTree::Path(p) => opens(&p.tree),
            syn::UseTree::Name(n) => n.ident == "FromIterator",
            syn::UseTree::Rename(r) => r.ident == "FromIterator",
            syn::UseTree::Glob(_) => true,
            syn::UseTree::Group(g) => g.items.iter().any(opens),
        }
    }
    items.iter().any(|i| match i {
        syn::Item::Use(u) => opens(&u.tree),
        syn::Item::Macro(m) => m.ident.is_none(),
        _ => false,
    })
}

/// A body replacement to judge: the mutant's number, its function's file and body block (a
/// byte range of the file), and the replacement (`{ value }`).
pub struct Ask<'a> {
    /// The mutant's number.
    pub n: u32,
    /// The file of the mutated function.
    pub file: &'a Path,
    /// The byte range of its body block.
    pub body: (usize, usize),
    /// The replacement block.
    pub replacement: &'a str,
}

/// The body replacements among `asks` that `sources` (a crate target's files) show cannot
/// compile, by number, each with the compiler's error code and why.
///
/// `edition` is the crate target's Rust edition (`2018`), for what its prelude holds.
pub fn refused(sources: &CrateSources, asks: &[Ask<'_>], edition: &str) -> BTreeMap<u32, String> {
    // `FromIterator` joined the prelude in 2021; an edition abex does not know counts as later.
    let prelude_from_iterator = !matches!(edition, "2015" | "2018");
    let worth = |r: &str| {
        ["Default::default()", "::new(", "::from_iter(", "::from("].iter().any(|p| r.contains(p))
    };
    let asks: Vec<&Ask<'_>> = asks.iter().filter(|a| worth(a.replacement)).collect();
    let mut out = BTreeMap::new();
    if asks.is_empty() {
        return out;
    }
    let mut parsed = BTreeMap::new();
    let mut items = Items::default();
    for f in &sources.files {
        // A file that does not parse hides its items: nothing is refused.
        let Ok(ast) = syn::parse_file(&f.text) else { return out };
        items.visit_file(&ast);
        // Per file, once: its line starts and what it imports from elsewhere.
        let (lines, outside) = (Lines::new(&f.text), imported(&ast));
        parsed.insert(f.path.as_path(), (ast, f.text.as_str(), lines, outside));
    }
    for ask in asks {
        let Some((ast, text, lines, outside)) = parsed.get(ask.file) else { continue };
        let mut finder = Finder::new(ast, text, lines, ask.body);
        finder.visit_file(ast);
        let Some((sig, scope)) = finder.found else { continue };
        let syn::ReturnType::Type(_, ty) = &sig.output else { continue };
        let Ok(block) = syn::parse_str::<syn::Block>(ask.replacement) else { continue };
        let [syn::Stmt::Expr(value, None)] = block.stmts.as_slice() else { continue };
        let cx = Cx {
            items: &items,
            no_default: without_default(&scope),
            params: scope
                .iter()
                .flat_map(|g| g.type_params())
                .map(|t| t.ident.to_string())
                .collect(),
            imported: outside,
            from_iterator: prelude_from_iterator
                || finder.module.is_none_or(may_import_from_iterator),
        };
        if let Some(why) = cx.why(value, ty) {
            out.insert(ask.n, why);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rust::source::SourceFile;
    use std::path::PathBuf;

    /// The verdict on each replacement of the body of `function` in the one-file crate `text`.
    fn judge(text: &str, function: &str, replacements: &[&str]) -> Vec<Option<String>> {
        judge_in(text, function, replacements, "2021")
    }

    /// [`judge`] in a crate of `edition`; the first function named `function` is judged, at
    /// any depth.
    fn judge_in(
        text: &str,
        function: &str,
        replacements: &[&str],
        edition: &str,
    ) -> Vec<Option<String>> {
        let path = PathBuf::from("/x/src/lib.rs");
        let ast = syn::parse_file(text).unwrap();
        let lines = Lines::new(text);
        struct ByName<'a>(&'a str, Option<proc_macro2::Span>);
        impl<'ast> Visit<'ast> for ByName<'_> {
            fn visit_signature(&mut self, _: &'ast syn::Signature) {}
            fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
                if f.sig.ident == self.0 && self.1.is_none() {
                    self.1 = Some(f.block.span());
                }
                visit::visit_item_fn(self, f);
            }
            fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
                if f.sig.ident == self.0 && self.1.is_none() {
                    self.1 = Some(f.block.span());
                }
            }
        }
        let mut by = ByName(function, None);
        by.visit_file(&ast);
        let s = by.1.expect("the function");
        let body = (lines.offset(text, s.start()), lines.offset(text, s.end()));
        let sources = CrateSources {
            files: vec![SourceFile { path: path.clone(), module: Vec::new(), text: text.into() }],
            ..Default::default()
        };
        let asks: Vec<Ask<'_>> = replacements
            .iter()
            .enumerate()
            .map(|(k, r)| Ask { n: k as u32, file: &path, body, replacement: r })
            .collect();
        let got = refused(&sources, &asks, edition);
        (0..replacements.len() as u32).map(|k| got.get(&k).cloned()).collect()
    }

    const SERDE: &str = r#"
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct Serde<T>(T);
        impl<T> Serde<T> {
            pub fn into_inner(self) -> T { self.0 }
        }
        impl<T> From<T> for Serde<T> {
            fn from(val: T) -> Serde<T> { Serde(val) }
        }
        pub fn parse(s: &str) -> Result<Serde<u64>, String> { Ok(Serde(s.len() as u64)) }
    "#;

    #[test]
    fn humantime_serdes_three_unviable_body_values_are_refused_and_its_viable_ones_kept() {
        let v = judge(SERDE, "into_inner", &["{ Default::default() }"]);
        assert!(v[0].as_deref().is_some_and(|w| w.contains("E0277")), "{v:?}");
        let v = judge(
            SERDE,
            "parse",
            &[
                "{ Ok(Serde::new()) }",
                "{ Ok(Serde::from_iter([0])) }",
                "{ Ok(Serde::from(Default::default())) }",
                "{ Ok(Serde::new(0)) }",
                "{ Ok(Serde::from(0)) }",
                "{ Ok(Default::default()) }",
            ],
        );
        assert!(v[0].as_deref().is_some_and(|w| w.contains("E0599") && w.contains("`new`")));
        assert!(v[1].as_deref().is_some_and(|w| w.contains("E0599") && w.contains("from_iter")));
        assert!(v[2].as_deref().is_some_and(|w| w.contains("E0283")), "{v:?}");
        assert!(v[3].as_deref().is_some_and(|w| w.contains("E0599")), "{v:?}");
        // `Serde::from(0)` compiles (`From<u64>`), and `Serde<u64>` is `Default`.
        assert_eq!(v[4], None);
        assert_eq!(v[5], None);
    }

    #[test]
    fn a_type_parameter_that_is_or_may_be_default_is_left_to_the_build() {
        let text = r#"
            pub trait Fresh: Default {}
            pub fn a<T: Clone + std::fmt::Debug>(x: T) -> T { x }
            pub fn b<T: Default>(x: T) -> T { x }
            pub fn c<T>(x: T) -> T where T: Fresh { x }
            pub fn d<T: Fresh>(x: T) -> T { x }
            pub fn e<T>(x: T) -> Option<T> { Some(x) }
        "#;
        let v = judge(text, "a", &["{ Default::default() }"]);
        assert!(v[0].as_deref().is_some_and(|w| w.contains("`T: Default`")), "{v:?}");
        for f in ["b", "c", "d"] {
            assert_eq!(judge(text, f, &["{ Default::default() }"]), [None], "{f}");
        }
        let v = judge(text, "e", &["{ Some(Default::default()) }", "{ None }"]);
        assert!(v[0].is_some() && v[1].is_none(), "{v:?}");
    }

    #[test]
    fn a_function_a_macro_a_derive_a_trait_or_an_import_may_supply_is_left_to_the_build() {
        let with = |extra: &str| {
            let text = format!("pub struct W(u8);\n{extra}\npub fn f(x: u8) -> W {{ W(x) }}\n");
            judge(&text, "f", &["{ W::new() }"])[0].clone()
        };
        assert!(with("").is_some());
        assert_eq!(with("impl W { pub fn new() -> W { W(0) } }"), None);
        assert_eq!(with("impl Make for W { fn new() -> W { W(0) } }"), None);
        assert_eq!(with("pub trait Make { fn new() -> Self; }"), None);
        assert_eq!(with("make_new!(W);"), None);
        assert_eq!(with("#[pyo3::pymethods] impl W {}"), None);
        // A second `W` elsewhere, or one imported: which one the body names is not known here.
        assert_eq!(with("mod inner { pub struct W; }"), None);
        let text = "use other::W;\nmod m { pub struct W(u8); }\npub fn f() -> W { other::w() }\n";
        assert_eq!(judge(text, "f", &["{ W::new() }"]), [None]);
        let text =
            "#[derive(Debug, derive_new::new)]\npub struct W(u8);\npub fn f() -> W { W(0) }\n";
        assert_eq!(judge(text, "f", &["{ W::new() }"]), [None]);
    }

    #[test]
    fn from_iter_before_edition_2021_needs_from_iterator_in_scope() {
        // url 2.5.8 (edition 2018): a `from_iter` body failed the first round of every run's
        // switched build with E0599 (`ParseResult::from_iter`, which the rule for `Result`
        // aliases refuses in any edition; `BTreeSet::from_iter` is one cargo-mutants makes too).
        let judge_in = |text: &str, edition: &str| {
            judge_in(text, "p", &["{ BTreeSet::from_iter([1]) }"], edition).remove(0)
        };
        let function = "pub fn p() -> BTreeSet<u8> { BTreeSet::new() }\n";
        let plain = format!("use std::collections::BTreeSet;\n{function}");
        for edition in ["2015", "2018"] {
            let why = judge_in(&plain, edition);
            let why = why.unwrap_or_else(|| panic!("{edition}: not refused"));
            assert!(why.contains("E0599") && why.contains("FromIterator"), "{why}");
        }
        assert_eq!(judge_in(&plain, "2021"), None);
        assert_eq!(judge_in(&plain, "2024"), None);
        // Whatever may bring the trait into the function's module leaves it to the build.
        for opening in [
            "use std::iter::FromIterator;\n",
            "use std::iter::FromIterator as _;\n",
            "use std::iter::*;\n",
            "use super::*;\n",
            "brings_the_trait!();\n",
            "pub trait Gather { fn from_iter(v: [u8; 1]) -> Self; }\n",
        ] {
            assert_eq!(judge_in(&format!("{opening}{plain}"), "2018"), None, "{opening}");
        }
        let inner = format!("mod inner {{\nuse std::iter::FromIterator;\n{plain}}}\n");
        assert_eq!(judge_in(&inner, "2018"), None);
        let nested = format!("pub fn outer() {{\nuse std::iter::FromIterator;\n{plain}}}\n");
        assert_eq!(judge_in(&nested, "2018"), None);
        // Imports of other modules do not reach it: a tests module's glob, a sibling's import;
        // nor does a `macro_rules!` definition.
        for other in [
            "#[cfg(test)]\nmod tests {\nuse super::*;\n}\n",
            "mod sibling {\nuse std::iter::FromIterator;\n}\n",
            "macro_rules! m {\n() => {};\n}\n",
        ] {
            assert!(judge_in(&format!("{plain}{other}"), "2018").is_some(), "{other}");
        }
    }

    #[test]
    fn a_crate_type_without_default_has_no_default_value_even_inside_a_tuple() {
        // shlex 1.3.0: `quoting_strategy -> (usize, QuotingStrategy)`, two failing values.
        let with = |def: &str| {
            let text = format!("{def}\npub fn p() -> (usize, Q) {{ (0, Q::A) }}\n");
            judge(&text, "p", &["{ (0, Default::default()) }", "{ (Default::default(), Q::A) }"])
        };
        let v = with("#[derive(Clone, Copy, PartialEq)]\nenum Q { A, B }");
        assert!(v[0].as_deref().is_some_and(|w| w.contains("E0277") && w.contains("`Q`")), "{v:?}");
        assert_eq!(v[1], None);
        let none = [None, None];
        assert_eq!(with("#[derive(Clone, Default)]\nenum Q { #[default] A, B }"), none);
        assert_eq!(
            with("enum Q { A, B }\nimpl Default for Q { fn default() -> Q { Q::A } }"),
            none
        );
        assert_eq!(with("#[derive(SmartDefault)]\nenum Q { A, B }"), none);
        assert_eq!(with("enum Q { A, B }\ndefaults!(Q);"), none);
        assert_eq!(with("enum Q { A, B }\nmod m { pub enum Q { C } }"), none);
        // A type parameter of that name is not the crate's type.
        let text = "pub struct Q;\npub fn p<Q: Default>() -> Q { Q::default() }\n";
        assert_eq!(judge(text, "p", &["{ Default::default() }"]), [None]);
    }

    #[test]
    fn a_result_alias_has_no_new_and_takes_only_results_in_from_and_from_iter() {
        let text = "pub type ParseResult<T> = Result<T, String>;\npub fn p() -> ParseResult<u8> { Ok(1) }\n";
        // strsim 0.10.0's `hamming -> HammingResult`: its one mutant failed a build round.
        let v = judge(text, "p", &["{ Default::default() }"]);
        assert!(v[0].as_deref().is_some_and(|w| w.contains("E0277")), "{v:?}");
        let option = "pub type Maybe<T> = Option<T>;\npub fn p() -> Maybe<u8> { None }\n";
        assert_eq!(judge(option, "p", &["{ Default::default() }"]), [None]);
        let own =
            format!("#[derive(Default)]\npub struct Result<T, E>(Option<T>, Option<E>);\n{text}");
        assert_eq!(judge(&own, "p", &["{ Default::default() }"]), [None]);
        let asks = [
            "{ ParseResult::new() }",
            "{ ParseResult::from_iter([1]) }",
            "{ ParseResult::from(Default::default()) }",
            "{ ParseResult::from(Ok(1)) }",
            "{ ParseResult::from(1) }",
            "{ ParseResult::from_iter([Ok(1)]) }",
        ];
        let v = judge(text, "p", &asks);
        assert!(v[0].as_deref().is_some_and(|w| w.contains("E0599")), "{v:?}");
        // rustc 1.95, edition 2021: E0271 and E0277, E0277 (url 2.5.8: `Result<Ipv4Addr,
        // ParseError>: Default` is not satisfied), E0308.
        for k in [1, 2, 4] {
            assert!(v[k].as_deref().is_some_and(|w| w.contains("E0277")), "{k}: {v:?}");
        }
        // What may be a `Result` is left to the build.
        assert_eq!(v[3], None);
        assert_eq!(v[5], None);
    }

    #[test]
    fn from_default_is_ambiguous_only_beside_a_from_impl_that_fits_every_instance() {
        let text =
            |from: &str| format!("pub struct W<T>(T);\n{from}\npub fn f() -> W<u8> {{ W(0) }}\n");
        let ask = ["{ W::from(Default::default()) }"];
        let v =
            judge(&text("impl<T> From<T> for W<T> { fn from(t: T) -> Self { W(t) } }"), "f", &ask);
        assert!(v[0].as_deref().is_some_and(|w| w.contains("E0283")), "{v:?}");
        // Only the reflexive impl fits `W<u8>` then: a build decides.
        let narrow = "impl From<String> for W<String> { fn from(t: String) -> Self { W(t) } }";
        assert_eq!(judge(&text(narrow), "f", &ask), [None]);
        assert_eq!(judge(&text(""), "f", &ask), [None]);
    }
}
