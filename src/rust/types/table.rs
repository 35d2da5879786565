//! The crate's type table, read with syn: every struct, enum and type alias outside test code,
//! every impl block (inherent and trait), and each module's `use` imports, so that a type written
//! in a signature (`Version`, `crate::Comparator`, `super::Op`, `fmt::Formatter`, `Self`) can be
//! resolved to the crate's definition or recognised as a std type. Resolution is syntactic and
//! approximate (no macro expansion, no trait solving): a wrong guess costs a harness part that
//! does not compile, never the build.

use std::collections::BTreeMap;

use quote::ToTokens;
use syn::{Item, UseTree, Visibility};

use crate::rust::files::{is_cfg_test, SourceFile};

/// A struct, enum or type alias of the crate.
pub struct TypeDef<'a> {
    /// Its name.
    pub name: String,
    /// The module that defines it.
    pub module: Vec<String>,
    /// Whether it is `pub` (any `pub(...)` included).
    pub public: bool,
    /// Its generics.
    pub generics: &'a syn::Generics,
    /// What it is.
    pub kind: TypeKind<'a>,
    /// The traits it derives (`Default`, `Debug`, …), by last path segment.
    pub derives: Vec<String>,
    /// Whether an attribute of it may add impls that the table cannot see: an attribute
    /// macro, a `cfg_attr`, or a derive that is not one of the compiler's own.
    pub macro_attrs: bool,
}

/// What a [`TypeDef`] is.
pub enum TypeKind<'a> {
    /// A struct with its fields.
    Struct(&'a syn::Fields),
    /// An enum with its variants.
    Enum(Vec<&'a syn::Variant>),
    /// A type alias.
    Alias(&'a syn::Type),
}

/// An impl block outside test code.
pub struct ImplDef<'a> {
    /// The module it is written in.
    pub module: Vec<String>,
    /// The impl.
    pub item: &'a syn::ItemImpl,
}

/// One module: its imports.
#[derive(Default)]
pub struct ModuleDef {
    /// `use` imports: the name in scope and the path it stands for.
    pub uses: Vec<(String, Vec<String>)>,
    /// Glob imports (`use path::*`).
    pub globs: Vec<Vec<String>>,
    /// Whether the module is declared `pub` or `pub(crate)` (the root counts as public).
    pub public: bool,
}

/// What a type path stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// A type of the crate (index into [`TypeTable::types`]).
    Crate(usize),
    /// A std type (or an unknown one that is not the crate's), by its last segment.
    Std(String),
}

/// The crate's types, impls and modules.
pub struct TypeTable<'a> {
    /// Every type definition.
    pub types: Vec<TypeDef<'a>>,
    /// Every impl block.
    pub impls: Vec<ImplDef<'a>>,
    /// Every module, by path.
    pub modules: BTreeMap<Vec<String>, ModuleDef>,
    /// Every trait the crate defines: its module and name.
    pub traits: Vec<(Vec<String>, String)>,
    /// The tokens of every macro invoked where items go (outside test code), as text: what
    /// they expand to is not known, so a type they name may have impls the table cannot see.
    pub item_macros: Vec<String>,
}

fn derives_of(attrs: &[syn::Attribute]) -> Vec<String> {
    let mut out = Vec::new();
    for a in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let _ = a.parse_nested_meta(|m| {
            if let Some(s) = m.path.segments.last() {
                out.push(s.ident.to_string());
            }
            Ok(())
        });
    }
    out
}

/// What [`TypeTable::item_macros`] holds for an `include!`: code that may name anything.
const INCLUDED: &str = "include!";

/// The derives whose impls the compiler writes itself, all of them visible in `derives`.
const STD_DERIVES: [&str; 9] =
    ["Clone", "Copy", "PartialEq", "Eq", "PartialOrd", "Ord", "Hash", "Default", "Debug"];

/// Attributes that add no impl.
const INERT_ATTRS: [&str; 12] = [
    "doc",
    "cfg",
    "allow",
    "warn",
    "deny",
    "expect",
    "forbid",
    "repr",
    "non_exhaustive",
    "must_use",
    "deprecated",
    "derive",
];

/// Whether `attrs` hold an attribute macro, a `cfg_attr` (which may derive `Debug` under a
/// feature) or a derive other than the compiler's own (a `thiserror::Error` derive writes
/// `Display`, `derivative`'s can write `Debug`).
fn macro_attrs(attrs: &[syn::Attribute]) -> bool {
    let inert = |a: &syn::Attribute| {
        a.path()
            .segments
            .last()
            .is_some_and(|s| INERT_ATTRS.contains(&s.ident.to_string().as_str()))
    };
    attrs.iter().any(|a| !inert(a))
        || derives_of(attrs).iter().any(|d| !STD_DERIVES.contains(&d.as_str()))
}

fn is_public(v: &Visibility) -> bool {
    !matches!(v, Visibility::Inherited)
}

/// Flattens a use tree into (name, path) pairs and glob paths.
fn flatten(prefix: &[String], tree: &UseTree, out: &mut ModuleDef) {
    match tree {
        UseTree::Path(p) => {
            let mut next = prefix.to_vec();
            next.push(p.ident.to_string());
            flatten(&next, &p.tree, out);
        }
        UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                if let Some(last) = prefix.last() {
                    out.uses.push((last.clone(), prefix.to_vec()));
                }
            } else {
                let mut path = prefix.to_vec();
                path.push(name.clone());
                out.uses.push((name, path));
            }
        }
        UseTree::Rename(r) => {
            let mut path = prefix.to_vec();
            let ident = r.ident.to_string();
            if ident != "self" {
                path.push(ident);
            }
            out.uses.push((r.rename.to_string(), path));
        }
        UseTree::Glob(_) => out.globs.push(prefix.to_vec()),
        UseTree::Group(g) => {
            for t in &g.items {
                flatten(prefix, t, out);
            }
        }
    }
}

/// Standard crates whose paths name std types.
const STD_ROOTS: [&str; 3] = ["std", "core", "alloc"];

impl<'a> TypeTable<'a> {
    /// Reads the table from a crate's parsed files (each with its module path).
    pub fn new(files: &'a [(SourceFile, syn::File)], public_mods: &[Vec<String>]) -> Self {
        let mut t = TypeTable {
            types: Vec::new(),
            impls: Vec::new(),
            modules: BTreeMap::new(),
            traits: Vec::new(),
            item_macros: Vec::new(),
        };
        for (f, ast) in files {
            t.items(&ast.items, &f.module);
        }
        for (m, def) in t.modules.iter_mut() {
            def.public = m.is_empty() || public_mods.contains(m);
        }
        t
    }

    fn items(&mut self, items: &'a [Item], module: &[String]) {
        self.modules.entry(module.to_vec()).or_default();
        for item in items {
            match item {
                Item::Struct(s) if !is_cfg_test(&s.attrs) => self.types.push(TypeDef {
                    name: s.ident.to_string(),
                    module: module.to_vec(),
                    public: is_public(&s.vis),
                    generics: &s.generics,
                    kind: TypeKind::Struct(&s.fields),
                    derives: derives_of(&s.attrs),
                    macro_attrs: macro_attrs(&s.attrs),
                }),
                Item::Enum(e) if !is_cfg_test(&e.attrs) => self.types.push(TypeDef {
                    name: e.ident.to_string(),
                    module: module.to_vec(),
                    public: is_public(&e.vis),
                    generics: &e.generics,
                    kind: TypeKind::Enum(e.variants.iter().collect()),
                    derives: derives_of(&e.attrs),
                    macro_attrs: macro_attrs(&e.attrs),
                }),
                Item::Type(a) if !is_cfg_test(&a.attrs) => self.types.push(TypeDef {
                    name: a.ident.to_string(),
                    module: module.to_vec(),
                    public: is_public(&a.vis),
                    generics: &a.generics,
                    kind: TypeKind::Alias(&a.ty),
                    derives: Vec::new(),
                    macro_attrs: false,
                }),
                Item::Trait(tr) if !is_cfg_test(&tr.attrs) => {
                    self.traits.push((module.to_vec(), tr.ident.to_string()))
                }
                Item::Impl(i) if !is_cfg_test(&i.attrs) => {
                    self.impls.push(ImplDef { module: module.to_vec(), item: i })
                }
                // An `include!` brings in code the table never reads (a build script's output):
                // any name may be in it.
                Item::Macro(m) if !is_cfg_test(&m.attrs) && m.mac.path.is_ident("include") => {
                    self.item_macros.push(INCLUDED.to_string())
                }
                Item::Macro(m) if !is_cfg_test(&m.attrs) && !m.mac.path.is_ident("macro_rules") => {
                    self.item_macros.push(m.mac.tokens.to_string())
                }
                Item::Use(u) if !is_cfg_test(&u.attrs) => {
                    let def = self.modules.entry(module.to_vec()).or_default();
                    flatten(&[], &u.tree, def);
                }
                Item::Mod(m) if !is_cfg_test(&m.attrs) => {
                    if let Some((_, inner)) = &m.content {
                        let mut child = module.to_vec();
                        child.push(m.ident.to_string());
                        self.items(inner, &child);
                    }
                }
                _ => {}
            }
        }
    }

    /// The type named `name` defined in `module`.
    pub fn local(&self, module: &[String], name: &str) -> Option<usize> {
        self.types.iter().position(|t| t.module == module && t.name == name)
    }

    /// What the type path `segs` written in `module` stands for; `None` when it is neither the
    /// crate's nor recognisably std's (an external crate's type, a generic parameter).
    pub fn resolve(&self, module: &[String], segs: &[String], absolute: bool) -> Option<Resolved> {
        self.resolve_depth(module, segs, absolute, 0)
    }

    fn resolve_depth(
        &self,
        module: &[String],
        segs: &[String],
        absolute: bool,
        depth: usize,
    ) -> Option<Resolved> {
        if depth > 8 || segs.is_empty() {
            return None;
        }
        let first = segs[0].as_str();
        if absolute || STD_ROOTS.contains(&first) {
            return STD_ROOTS.contains(&first).then(|| Resolved::Std(segs[segs.len() - 1].clone()));
        }
        match first {
            "crate" => return self.lookup(&[], &segs[1..], depth),
            "self" => return self.lookup(module, &segs[1..], depth),
            "super" => {
                let mut m = module.to_vec();
                let mut rest = segs;
                while rest.first().map(String::as_str) == Some("super") {
                    m.pop();
                    rest = &rest[1..];
                }
                return self.lookup(&m, rest, depth);
            }
            _ => {}
        }
        if let Some(r) = self.lookup(module, segs, depth) {
            return Some(r);
        }
        // 2015-style paths from the crate root.
        if segs.len() > 1 && self.modules.contains_key(&[first.to_string()][..]) {
            return self.lookup(&[], segs, depth);
        }
        // A std type used by its prelude or usual name.
        (segs.len() == 1).then(|| Resolved::Std(first.to_string()))
    }

    /// `segs` looked up inside `module`: its types, its child modules, its imports, its globs.
    fn lookup(&self, module: &[String], segs: &[String], depth: usize) -> Option<Resolved> {
        let first = segs.first()?;
        if segs.len() == 1 {
            if let Some(i) = self.local(module, first) {
                return Some(Resolved::Crate(i));
            }
        } else {
            let mut child = module.to_vec();
            child.push(first.clone());
            if self.modules.contains_key(&child) {
                return self.lookup(&child, &segs[1..], depth + 1);
            }
        }
        let def = self.modules.get(module)?;
        if let Some((_, path)) = def.uses.iter().find(|(n, _)| n == first) {
            let mut full = path.clone();
            full.extend(segs[1..].iter().cloned());
            return self.resolve_depth(module, &full, false, depth + 1);
        }
        for g in &def.globs {
            let mut full = g.clone();
            full.extend(segs.iter().cloned());
            if let Some(r @ Resolved::Crate(_)) =
                self.resolve_depth(module, &full, false, depth + 1)
            {
                return Some(r);
            }
        }
        None
    }

    /// The resolution of a syn type path written in `module` (generic arguments ignored).
    pub fn resolve_path(&self, module: &[String], path: &syn::Path) -> Option<Resolved> {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.resolve(module, &segs, path.leading_colon.is_some())
    }

    /// The impls whose self type is the crate type `ty` (by resolution in the impl's module).
    pub fn impls_of(&self, ty: usize) -> Vec<&ImplDef<'a>> {
        self.impls
            .iter()
            .filter(|i| match &*i.item.self_ty {
                syn::Type::Path(p) if p.qself.is_none() => {
                    self.resolve_path(&i.module, &p.path) == Some(Resolved::Crate(ty))
                }
                _ => false,
            })
            .collect()
    }

    /// Whether a value of crate type `ty` may be shown: it derives or implements `Debug` (or
    /// `Display`, when `display` counts), or the table cannot tell (a type alias, an attribute
    /// macro on it, a macro invocation of the crate that names it). `false` only when the
    /// crate's sources show it has neither.
    pub fn may_show(&self, ty: usize, display: bool) -> bool {
        let def = &self.types[ty];
        if matches!(def.kind, TypeKind::Alias(_)) || def.macro_attrs {
            return true;
        }
        if def.derives.iter().any(|d| d == "Debug") {
            return true;
        }
        let shows = |i: &&ImplDef<'_>| {
            let trait_ = i.item.trait_.as_ref().and_then(|(_, p, _)| p.segments.last());
            trait_.is_some_and(|t| t.ident == "Debug" || (display && t.ident == "Display"))
        };
        if self.impls_of(ty).iter().any(shows) {
            return true;
        }
        let word = |text: &str| {
            text.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|w| w == def.name)
        };
        self.item_macros.iter().any(|m| m == INCLUDED || word(m))
    }

    /// The name by which a person writes crate type `ty` in `module`: its bare name when that
    /// resolves there, otherwise a `crate::` path; `None` when a private module or the type's
    /// own privacy hides it from `module`.
    pub fn path_from(&self, ty: usize, module: &[String]) -> Option<String> {
        let def = &self.types[ty];
        if self.resolve(module, std::slice::from_ref(&def.name), false) == Some(Resolved::Crate(ty))
        {
            return Some(def.name.clone());
        }
        let inside = |m: &[String]| module.starts_with(m);
        if !def.public && !inside(&def.module) {
            return None;
        }
        // Each module on the way must be visible: public, or declared in an ancestor of `module`.
        for k in 1..=def.module.len() {
            let m = &def.module[..k];
            let public = self.modules.get(m).is_some_and(|d| d.public);
            if !public && !inside(&m[..k - 1]) {
                return None;
            }
        }
        let mut parts = vec!["crate".to_string()];
        parts.extend(def.module.iter().cloned());
        parts.push(def.name.clone());
        Some(parts.join("::"))
    }
}

/// The text of tokens, with spaces only where Rust needs them (`Vec<u8>`, `&'a str`, `dyn Fn`).
pub fn tight(t: &impl ToTokens) -> String {
    let raw = t.to_token_stream().to_string();
    let mut out = String::with_capacity(raw.len());
    let chars: Vec<char> = raw.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' {
            let (prev, next) = (out.chars().last(), chars.get(i + 1).copied());
            let word = |x: Option<char>| x.is_some_and(|x| x.is_alphanumeric() || x == '_');
            let keep = word(prev) && (word(next) || next == Some('\''))
                || prev == Some(',')
                || (word(prev) && next == Some('='))
                || prev == Some('=');
            if keep {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table_of(files: &[(&str, &str)]) -> Vec<(SourceFile, syn::File)> {
        files
            .iter()
            .map(|(m, text)| {
                let module: Vec<String> = if m.is_empty() {
                    Vec::new()
                } else {
                    m.split("::").map(String::from).collect()
                };
                let f = SourceFile { path: "x.rs".into(), module, text: text.to_string() };
                (f, syn::parse_file(text).unwrap())
            })
            .collect()
    }

    fn segs(s: &str) -> Vec<String> {
        s.split("::").map(String::from).collect()
    }

    #[test]
    fn names_resolve_through_modules_imports_globs_and_std() {
        let files = table_of(&[
            ("", "mod eval; mod wrapper; pub struct Version { pub major: u64 } pub enum Op { Exact }\nmod inner { pub struct Deep; }\n#[cfg(test)] mod tests { struct Hidden; }"),
            ("eval", "use crate::{Op, Version as V};\nuse super::inner::*;\nuse std::time::Duration;\nfn f() {}"),
            ("wrapper", "use std::time::Duration as StdDuration;\npub struct Duration(StdDuration);"),
        ]);
        let t = TypeTable::new(&files, &[]);
        let idx = |n: &str| t.types.iter().position(|d| d.name == n).unwrap();
        let eval = segs("eval");
        assert_eq!(t.resolve(&eval, &segs("V"), false), Some(Resolved::Crate(idx("Version"))));
        assert_eq!(t.resolve(&eval, &segs("Op"), false), Some(Resolved::Crate(idx("Op"))));
        assert_eq!(t.resolve(&eval, &segs("Deep"), false), Some(Resolved::Crate(idx("Deep"))));
        assert_eq!(
            t.resolve(&eval, &segs("Duration"), false),
            Some(Resolved::Std("Duration".into()))
        );
        assert_eq!(
            t.resolve(&eval, &segs("crate::Version"), false),
            Some(Resolved::Crate(idx("Version")))
        );
        assert_eq!(t.resolve(&eval, &segs("super::Op"), false), Some(Resolved::Crate(idx("Op"))));
        let w = segs("wrapper");
        assert_eq!(t.resolve(&w, &segs("Duration"), false), Some(Resolved::Crate(idx("Duration"))));
        assert_eq!(
            t.resolve(&w, &segs("StdDuration"), false),
            Some(Resolved::Std("Duration".into()))
        );
        assert_eq!(t.resolve(&w, &segs("fmt::Formatter"), false), None);
        assert!(t.types.iter().all(|d| d.name != "Hidden"), "test code has no types");
        // How a person names them from elsewhere.
        assert_eq!(t.path_from(idx("Version"), &eval).as_deref(), Some("crate::Version"));
        assert_eq!(t.path_from(idx("Op"), &eval).as_deref(), Some("Op"));
        assert_eq!(t.path_from(idx("Deep"), &eval).as_deref(), Some("Deep"));
        assert_eq!(
            t.path_from(idx("Duration"), &eval).as_deref(),
            Some("crate::wrapper::Duration")
        );
    }

    #[test]
    fn tight_token_text_reads_like_source() {
        let ty: syn::Type = syn::parse_str("Vec < Option < & 'a str > >").unwrap();
        assert_eq!(tight(&ty), "Vec<Option<&'a str>>");
        let ty: syn::Type = syn::parse_str("HashMap<u8, dyn Fn(u8) -> u8>").unwrap();
        assert_eq!(tight(&ty), "HashMap<u8, dyn Fn(u8)->u8>");
    }
}
