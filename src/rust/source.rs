//! Reads a Rust crate's sources: walks the module tree from a target's root file (`lib.rs`,
//! `main.rs`), and lists the functions of each module with their spans, signatures and the plan
//! to call them from a generated harness. Plans are made once every file is read: they need the
//! crate's type table (`types/table.rs`), from which the recipe book of the crate's types is
//! synthesised (`recipes.rs`, `book.rs`), with seeds from its tests (`seeds.rs`).
//!
//! Test code is never a target: `#[test]` functions and `#[cfg(test)]` modules are skipped, and
//! only files reachable from a library or binary root are read (not `tests/`, `benches/`).

use std::path::{Path, PathBuf};

use proc_macro2::LineColumn;

use crate::mutate::Lines;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Attribute, ImplItem, Item, Signature, Visibility};

pub use crate::rust::files::{is_cfg_test, is_test_fn, ModuleSite, SourceFile};
pub use crate::rust::types::callplan::{CallPlan, Callee, Receiver, Via};

use crate::rust::types::book::Book;
use crate::rust::types::fnplan::{self, ImplHead};
use crate::rust::types::recipes::Recipes;
use crate::rust::types::table::TypeTable;
use crate::targets::{Param, Span};

/// Errors reading a crate's sources.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// A file could not be read.
    #[error("failed to read `{path}`: {source}")]
    Read {
        /// Which file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A file does not parse as Rust.
    #[error("failed to parse `{path}` as Rust: {message} (line {line})")]
    Parse {
        /// Which file.
        path: PathBuf,
        /// The parser's message.
        message: String,
        /// Where.
        line: usize,
    },
}

/// Where a `mod name;` or `mod name { … }` is declared, so its visibility can be widened.
#[derive(Clone, Debug)]
pub struct ModDecl {
    /// The declared module's path from the crate root.
    pub module: Vec<String>,
    /// The file holding the declaration.
    pub file: PathBuf,
    /// Byte range of the visibility to replace (empty range before `mod` when there is none).
    pub vis: (usize, usize),
    /// Whether it is already visible crate-wide (`pub`, `pub(crate)`).
    pub crate_visible: bool,
}

/// A function found in a crate.
#[derive(Clone, Debug)]
pub struct FoundFn {
    /// Absolute path of its file.
    pub file: PathBuf,
    /// Module path from the crate root, inline modules included.
    pub module: Vec<String>,
    /// Its own name.
    pub name: String,
    /// The owner type, for associated functions and methods.
    pub owner: Option<String>,
    /// The lines it spans, attributes and doc comments included.
    pub span: Span,
    /// The byte range of the whole item in its file.
    pub byte_span: (usize, usize),
    /// The byte range of its body block (`{ … }`).
    pub body_span: (usize, usize),
    /// The signature as written.
    pub signature: String,
    /// Doc comment text.
    pub doc: String,
    /// Source text of the whole item.
    pub source: String,
    /// Parameters as written.
    pub params: Vec<Param>,
    /// The call plan, or why there is none.
    pub plan: Result<CallPlan, String>,
    /// Other instantiations of a generic function, tried in turn when `plan` does not compile.
    pub alternatives: Vec<CallPlan>,
    /// Byte offset in `file` where a harness module for `module` goes.
    pub inject_at: usize,
}

/// The sources of one crate target (library or binary).
#[derive(Debug, Default)]
pub struct CrateSources {
    /// Every file reachable from the root, root first.
    pub files: Vec<SourceFile>,
    /// Every module declaration.
    pub mods: Vec<ModDecl>,
    /// Every function outside test code.
    pub fns: Vec<FoundFn>,
    /// The text of the test code in these files (`#[cfg(test)]` modules, `#[test]` functions),
    /// for cache keys.
    pub test_code: Vec<String>,
    /// Where each module's generated code goes.
    pub sites: Vec<ModuleSite>,
    /// How to build the crate's types that functions take.
    pub book: Book,
}

/// A function waiting for its plan: its signature and impl head.
struct Pending {
    index: usize,
    sig: Signature,
    home: Home,
}

/// Where a function to plan is written.
enum Home {
    /// At a module's top level.
    Free,
    /// In an impl block, with its head.
    Impl(Box<ImplHead>),
    /// In trait `0`, as its default method: planned through an impl of the trait that does not
    /// override it, found once every impl is known.
    Default(String),
}

fn doc_of(attrs: &[Attribute]) -> String {
    let mut lines = Vec::new();
    for a in attrs {
        if let syn::Meta::NameValue(nv) = &a.meta {
            if nv.path.is_ident("doc") {
                if let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = &nv.value {
                    lines
                        .push(s.value().strip_prefix(' ').map(str::to_string).unwrap_or(s.value()));
                }
            }
        }
    }
    lines.join("\n").trim().to_string()
}

fn path_attr(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find(|a| a.path().is_ident("path")).and_then(|a| match &a.meta {
        syn::Meta::NameValue(nv) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// Walks the module tree of a crate target from its root file, then plans its functions.
pub fn read_crate(root: &Path) -> Result<CrateSources, SourceError> {
    let mut out = CrateSources::default();
    let mut parsed: Vec<(SourceFile, syn::File)> = Vec::new();
    let mut pending: Vec<Pending> = Vec::new();
    // (file, module path, directory for its child modules)
    let mut queue = vec![(root.to_path_buf(), Vec::<String>::new(), None::<PathBuf>)];
    while let Some((path, module, dir_override)) = queue.pop() {
        let text = std::fs::read_to_string(&path)
            .map_err(|source| SourceError::Read { path: path.clone(), source })?;
        let ast = syn::parse_file(&text).map_err(|e| SourceError::Parse {
            path: path.clone(),
            message: e.to_string(),
            line: e.span().start().line,
        })?;
        let child_dir = dir_override.unwrap_or_else(|| child_dir_of(&path, module.is_empty()));
        let mut walker = Walker {
            file: &path,
            text: &text,
            lines: Lines::new(&text),
            out: &mut out,
            queue: &mut queue,
            pending: &mut pending,
        };
        walker.items(&ast.items, &module, &child_dir, text.len());
        parsed.push((SourceFile { path, module, text }, ast));
    }
    plan_all(&mut out, &parsed, pending, root);
    out.files = parsed.into_iter().map(|(f, _)| f).collect();
    out.fns.sort_by(|a, b| (&a.file, a.span.start_line).cmp(&(&b.file, b.span.start_line)));
    Ok(out)
}

/// Plans every function once the type table of the whole crate is known, then reads seeds for
/// the crate's types from its tests and examples.
fn plan_all(
    out: &mut CrateSources,
    parsed: &[(SourceFile, syn::File)],
    pending: Vec<Pending>,
    root: &Path,
) {
    let public: Vec<Vec<String>> =
        out.mods.iter().filter(|m| m.crate_visible).map(|m| m.module.clone()).collect();
    let table = TypeTable::new(parsed, &public);
    let recipes = Recipes::new(&table);
    for p in pending {
        let f = &mut out.fns[p.index];
        let head = match p.home {
            Home::Free => None,
            Home::Impl(head) => Some(*head),
            Home::Default(name) => match implementor(&table, &name, &f.name, &f.module) {
                Some(head) => Some(head),
                None => {
                    f.plan = Err(format!(
                        "a default method of trait `{name}`, and the crate has no impl of `{name}` to call it through (one without generics that does not override it)"
                    ));
                    continue;
                }
            },
        };
        let planned = fnplan::plan(&recipes, &f.module, &p.sig, head.as_ref());
        f.params = planned.params;
        f.plan = planned.plan;
        f.alternatives = planned.alternatives;
    }
    crate::rust::types::seeds::collect(&recipes, parsed, &out.test_code, root);
    // Value types again, now that constructors carry their seeds.
    for f in &mut out.fns {
        if let Ok(plan) = &f.plan {
            for (p, a) in f.params.iter_mut().zip(&plan.args) {
                if let Ok(t) = recipes.expand(&a.ty) {
                    p.ty = Some(t);
                }
            }
        }
    }
    let modules: Vec<Vec<String>> = table.modules.keys().cloned().collect();
    out.book = recipes.finish(&modules);
}

/// The impl a default method `method` of trait `name` is called through: an impl of the trait,
/// without generics, that does not override it, one in the trait's `module` first.
fn implementor(
    table: &TypeTable<'_>,
    name: &str,
    method: &str,
    module: &[String],
) -> Option<ImplHead> {
    let fits = |imp: &&crate::rust::types::table::ImplDef<'_>| {
        let Some((_, path, _)) = &imp.item.trait_ else { return false };
        let overrides =
            imp.item.items.iter().any(|i| matches!(i, ImplItem::Fn(f) if f.sig.ident == method));
        path.segments.last().is_some_and(|s| s.ident == name)
            && imp.item.generics.params.is_empty()
            && !overrides
    };
    let imp = table.impls.iter().filter(fits).min_by_key(|imp| imp.module != module)?;
    Some(ImplHead {
        generics: imp.item.generics.clone(),
        self_ty: (*imp.item.self_ty).clone(),
        trait_: imp.item.trait_.as_ref().map(|(_, p, _)| p.clone()),
    })
}

/// Where `mod x;` declared in `file` looks for `x.rs`: next to a `mod.rs`/crate root, or in a
/// folder named after the file otherwise.
fn child_dir_of(file: &Path, is_root: bool) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new(".")).to_path_buf();
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    if is_root || stem == "mod" {
        parent
    } else {
        parent.join(stem)
    }
}

struct Walker<'a> {
    file: &'a Path,
    text: &'a str,
    lines: Lines,
    out: &'a mut CrateSources,
    queue: &'a mut Vec<(PathBuf, Vec<String>, Option<PathBuf>)>,
    pending: &'a mut Vec<Pending>,
}

impl Walker<'_> {
    fn offset(&self, at: LineColumn) -> usize {
        self.lines.offset(self.text, at)
    }

    fn items(&mut self, items: &[Item], module: &[String], dir: &Path, inject_at: usize) {
        self.out.sites.push(ModuleSite {
            module: module.to_vec(),
            file: self.file.to_path_buf(),
            inject_at,
        });
        for item in items {
            match item {
                Item::Fn(f) if !is_test_fn(&f.attrs) && !is_cfg_test(&f.attrs) => {
                    let found = self.function(
                        &f.attrs,
                        &f.sig,
                        f.block.span(),
                        item.span(),
                        module,
                        None,
                        inject_at,
                    );
                    self.pending.push(Pending {
                        index: self.out.fns.len(),
                        sig: f.sig.clone(),
                        home: Home::Free,
                    });
                    self.out.fns.push(found);
                }
                Item::Impl(imp) if !is_cfg_test(&imp.attrs) => {
                    self.impl_block(imp, module, inject_at)
                }
                Item::Trait(t) if !is_cfg_test(&t.attrs) => {
                    self.trait_defaults(t, module, inject_at)
                }
                Item::Mod(m) if !is_cfg_test(&m.attrs) => self.module(m, module, dir),
                // Test code: kept as text, so that a change to the tests changes cache keys.
                Item::Mod(m) => {
                    let span = (self.offset(item.span().start()), self.offset(item.span().end()));
                    self.out.test_code.push(self.text[span.0..span.1].to_string());
                    if m.content.is_none() {
                        let name = m.ident.to_string();
                        for p in [dir.join(format!("{name}.rs")), dir.join(&name).join("mod.rs")] {
                            if let Ok(t) = std::fs::read_to_string(&p) {
                                self.out.test_code.push(t);
                                break;
                            }
                        }
                    }
                }
                Item::Fn(_) => {
                    let span = (self.offset(item.span().start()), self.offset(item.span().end()));
                    self.out.test_code.push(self.text[span.0..span.1].to_string());
                }
                _ => {}
            }
        }
    }

    fn module(&mut self, m: &syn::ItemMod, module: &[String], dir: &Path) {
        let name = m.ident.to_string();
        let mut child = module.to_vec();
        child.push(name.clone());
        let vis = match &m.vis {
            Visibility::Inherited => {
                let at = self.offset(m.mod_token.span.start());
                (at, at)
            }
            v => (self.offset(v.span().start()), self.offset(v.span().end())),
        };
        let crate_visible = match &m.vis {
            Visibility::Public(_) => true,
            Visibility::Restricted(r) => r.path.is_ident("crate"),
            Visibility::Inherited => false,
        };
        self.out.mods.push(ModDecl {
            module: child.clone(),
            file: self.file.to_path_buf(),
            vis,
            crate_visible,
        });
        match &m.content {
            Some((_, items)) => {
                // Inline module: its harness goes just before its closing brace.
                let close = self.offset(m.span().end()).saturating_sub(1);
                let sub = match path_attr(&m.attrs) {
                    Some(p) => dir.join(p),
                    None => dir.join(&name),
                };
                self.items(items, &child, &sub, close);
            }
            None => {
                let candidates = match path_attr(&m.attrs) {
                    Some(p) => {
                        vec![(self.file.parent().unwrap_or(Path::new(".")).join(p), true)]
                    }
                    None => vec![
                        (dir.join(format!("{name}.rs")), false),
                        (dir.join(&name).join("mod.rs"), false),
                    ],
                };
                if let Some((path, by_attr)) = candidates.into_iter().find(|(p, _)| p.is_file()) {
                    // A `#[path]` file holds its children beside it, like a `mod.rs`.
                    let over =
                        by_attr.then(|| path.parent().unwrap_or(Path::new(".")).to_path_buf());
                    self.queue.push((path, child, over));
                }
            }
        }
    }

    fn impl_block(&mut self, imp: &syn::ItemImpl, module: &[String], inject_at: usize) {
        let self_ty = imp.self_ty.to_token_stream().to_string().replace(" ", "");
        let head = ImplHead {
            generics: imp.generics.clone(),
            self_ty: (*imp.self_ty).clone(),
            trait_: imp.trait_.as_ref().map(|(_, p, _)| p.clone()),
        };
        for it in &imp.items {
            let ImplItem::Fn(f) = it else { continue };
            if is_test_fn(&f.attrs) || is_cfg_test(&f.attrs) {
                continue;
            }
            let found = self.function(
                &f.attrs,
                &f.sig,
                f.block.span(),
                it.span(),
                module,
                Some(&self_ty),
                inject_at,
            );
            self.pending.push(Pending {
                index: self.out.fns.len(),
                sig: f.sig.clone(),
                home: Home::Impl(Box::new(head.clone())),
            });
            self.out.fns.push(found);
        }
    }

    /// The default methods of trait `t` (those with a body): functions of their own, owned by
    /// the trait, called through a type that implements it ([`plan_all`]).
    fn trait_defaults(&mut self, t: &syn::ItemTrait, module: &[String], inject_at: usize) {
        let name = t.ident.to_string();
        for it in &t.items {
            let syn::TraitItem::Fn(f) = it else { continue };
            let Some(body) = &f.default else { continue };
            if is_test_fn(&f.attrs) || is_cfg_test(&f.attrs) {
                continue;
            }
            let found = self.function(
                &f.attrs,
                &f.sig,
                body.span(),
                it.span(),
                module,
                Some(&name),
                inject_at,
            );
            self.pending.push(Pending {
                index: self.out.fns.len(),
                sig: f.sig.clone(),
                home: Home::Default(name.clone()),
            });
            self.out.fns.push(found);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn function(
        &mut self,
        attrs: &[Attribute],
        sig: &Signature,
        body: proc_macro2::Span,
        span: proc_macro2::Span,
        module: &[String],
        owner: Option<&str>,
        inject_at: usize,
    ) -> FoundFn {
        let start = self.offset(span.start());
        let end = self.offset(span.end());
        let sig_start = self.offset(sig.span().start());
        let sig_end = self.offset(sig.span().end());
        FoundFn {
            file: self.file.to_path_buf(),
            module: module.to_vec(),
            name: sig.ident.to_string(),
            owner: owner.map(str::to_string),
            span: Span { start_line: span.start().line, end_line: span.end().line },
            byte_span: (start, end),
            body_span: (self.offset(body.start()), self.offset(body.end())),
            signature: self.text[sig_start..sig_end].to_string(),
            doc: doc_of(attrs),
            source: self.text[start..end].to_string(),
            params: Vec::new(),
            plan: Err("not planned".into()),
            alternatives: Vec::new(),
            inject_at,
        }
    }
}

impl FoundFn {
    /// `module::Owner::name`, without the crate.
    pub fn qualified_name(&self) -> String {
        let mut parts = self.module.clone();
        parts.extend(self.owner.clone());
        parts.push(self.name.clone());
        parts.join("::")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn the_module_tree_is_walked_and_test_code_is_skipped() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "src/lib.rs",
            "/// Adds.\npub fn add(a: i32, b: i32) -> i32 { a + b }\nmod util;\npub mod deep { pub(super) mod inner { fn f(x: &str) -> usize { x.len() } } }\n#[cfg(test)]\nmod tests { #[test] fn t() {} }\n#[test]\nfn loose() {}\n",
        );
        write(d.path(), "src/util.rs", "mod more;\npub struct S;\nimpl S { pub fn get(&self) -> u8 { 1 } fn mk(n: u8) -> S { S } }\n");
        write(d.path(), "src/util/more.rs", "pub(crate) fn g<T>(t: T) -> T { t }\n");
        let c = read_crate(&d.path().join("src/lib.rs")).unwrap();
        let names: Vec<String> = c.fns.iter().map(|f| f.qualified_name()).collect();
        assert_eq!(
            names,
            ["add", "deep::inner::f", "util::more::g", "util::S::get", "util::S::mk"]
        );
        let add = &c.fns[0];
        assert_eq!(add.span, Span { start_line: 1, end_line: 2 });
        assert_eq!(add.doc, "Adds.");
        assert_eq!(add.signature, "fn add(a: i32, b: i32) -> i32");
        // A generic function is instantiated; a method takes its receiver as its first argument.
        assert_eq!(c.fns[2].plan.as_ref().unwrap().turbofish, "::<i32>");
        assert_eq!(c.fns[3].params[0].name, "self");
        assert!(matches!(
            c.fns[3].plan.as_ref().unwrap().callee,
            Callee::Method { receiver: Receiver::Ref, .. }
        ));
        // Visibility edits: `mod util;` has none, `pub(super) mod inner` is restricted.
        let util = c.mods.iter().find(|m| m.module == ["util"]).unwrap();
        assert_eq!(util.vis.0, util.vis.1);
        let inner = c.mods.iter().find(|m| m.module == ["deep", "inner"]).unwrap();
        let lib = std::fs::read_to_string(d.path().join("src/lib.rs")).unwrap();
        assert_eq!(&lib[inner.vis.0..inner.vis.1], "pub(super)");
        assert!(c.mods.iter().find(|m| m.module == ["deep"]).unwrap().crate_visible);
        // The inline module's harness goes right before its closing brace.
        let f = &c.fns[1];
        assert_eq!(&lib[f.inject_at..f.inject_at + 1], "}");
    }

    #[test]
    fn a_function_returning_a_crate_type_without_debug_or_display_is_not_callable() {
        // glob 0.3.1's `Pattern::matches_from` returns `MatchResult`, an enum with neither: the
        // harness cannot show what it returns, so it is driven through a caller instead of
        // failing the build.
        let d = tempfile::tempdir().unwrap();
        let text = "use std::fmt;\n\
             pub enum Bare { A, B }\n\
             #[derive(Debug, Clone)] pub enum Derived { A }\n\
             pub struct Shown(u8);\n\
             impl fmt::Display for Shown { fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, \"s\") } }\n\
             #[derive(Clone, thiserror::Error)] #[error(\"x\")] pub struct Macro;\n\
             pub struct Named;\n\
             #[cfg_attr(feature = \"std\", derive(Debug))] pub struct Featured;\n\
             pub fn featured(x: u8) -> Featured { Featured }\n\
             debug_for!(Named);\n\
             pub fn bare(x: u8) -> Bare { if x > 1 { Bare::A } else { Bare::B } }\n\
             pub fn in_option(x: u8) -> Option<Bare> { None }\n\
             pub fn by_ref(b: &Bare) -> &Bare { b }\n\
             pub fn in_tuple(x: u8) -> (u8, Bare) { (x, Bare::A) }\n\
             pub fn derived(x: u8) -> Derived { Derived::A }\n\
             pub fn displayed(x: u8) -> Shown { Shown(x) }\n\
             pub fn displayed_in_vec(x: u8) -> Vec<Shown> { vec![] }\n\
             pub fn by_macro(x: u8) -> Macro { Macro }\n\
             pub fn named_by_a_macro(x: u8) -> Named { Named }\n\
             pub fn in_result(x: u8) -> Result<Bare, u8> { Err(x) }\n";
        write(d.path(), "src/lib.rs", text);
        let c = read_crate(&d.path().join("src/lib.rs")).unwrap();
        let why = |name: &str| {
            let f = c.fns.iter().find(|f| f.name == name).unwrap();
            f.plan.as_ref().err().cloned()
        };
        let neither = |ty: &str| {
            Some(format!(
                "the harness cannot show what it returns: `{ty}` implements neither `Debug` nor `Display`"
            ))
        };
        assert_eq!(why("bare"), neither("Bare"));
        assert_eq!(why("in_option"), neither("Bare"));
        assert_eq!(why("by_ref"), neither("Bare"));
        assert_eq!(why("in_tuple"), neither("Bare"));
        // `Debug` of a `Vec` needs its items' `Debug`; `Display` alone shows only the type.
        assert_eq!(why("displayed_in_vec"), neither("Shown"));
        let shown =
            ["derived", "displayed", "by_macro", "named_by_a_macro", "featured", "in_result"];
        for shown in shown {
            assert_eq!(why(shown), None, "{shown}");
        }
        // Code a build script writes and the crate includes may implement anything.
        write(
            d.path(),
            "src/lib.rs",
            &format!("{text}include!(concat!(env!(\"OUT_DIR\"), \"/gen.rs\"));\n"),
        );
        let c = read_crate(&d.path().join("src/lib.rs")).unwrap();
        let bare = c.fns.iter().find(|f| f.name == "bare").unwrap();
        assert!(bare.plan.is_ok(), "{:?}", bare.plan.as_ref().err());
    }
}
