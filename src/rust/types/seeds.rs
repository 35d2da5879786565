//! Seeds for recipes, read from the crate itself with syn: the values its tests and doc examples
//! build (`Version::parse("1.2.3")`, `"1 MiB".parse::<ByteSize>()`, `Version::from_str("…")`,
//! `Comparator { op: Op::Caret, major: 1, … }`, `Duration::from_secs(5)`), and calls of the
//! small helpers tests write around them (`fn version(text: &str) -> Version {
//! Version::parse(text).unwrap() }`, `let parse = |s: &str| s.parse::<ByteSize>()`), so that
//! `version("1.2.3")` seeds `Version::parse`. Each constructor keeps at most [`MAX_SEEDS`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use syn::visit::Visit;
use syn::{Expr, Lit, Pat, UnOp};

use super::book::{placeholder_of, Book};
use super::recipes::Recipes;
use crate::rust::files::SourceFile;
use crate::value::{Ty, Value};

/// How many seeds one constructor keeps.
pub const MAX_SEEDS: usize = 24;

/// A helper that builds a value: which constructor, and which of its parameters feeds each of
/// the constructor's arguments.
#[derive(Clone)]
struct Helper {
    builder: usize,
    arm: usize,
    from_param: Vec<usize>,
}

/// The plain name of a builder's type: `wrapper::Duration` → `Duration`, `Foo<i32>` → `Foo`.
fn plain(name: &str) -> &str {
    let name = name.split('<').next().unwrap_or(name);
    name.rsplit("::").next().unwrap_or(name)
}

/// The code a crate's tests and examples are in: its test modules, its `tests/` and
/// `examples/` files, and the doc examples of its items (doc comments arrive one line per
/// attribute; their code blocks are cut out of the lines).
fn test_sources(
    parsed: &[(SourceFile, syn::File)],
    test_code: &[String],
    root: &Path,
) -> Vec<syn::File> {
    let mut out: Vec<syn::File> =
        test_code.iter().filter_map(|t| syn::parse_file(t).ok()).collect();
    let package = root
        .ancestors()
        .find(|d| d.join("Cargo.toml").is_file())
        .map(Path::to_path_buf)
        .unwrap_or_default();
    for dir in ["tests", "examples"] {
        let mut files: Vec<PathBuf> = crate::scratch::list_files(&package.join(dir), &[])
            .unwrap_or_default()
            .into_iter()
            .filter(|f| f.extension().is_some_and(|e| e == "rs"))
            .collect();
        files.sort();
        for f in files.into_iter().take(200) {
            if let Ok(text) = std::fs::read_to_string(package.join(dir).join(&f)) {
                out.extend(syn::parse_file(&text).ok());
            }
        }
    }
    let mut docs = Docs(Vec::new());
    for (_, ast) in parsed {
        docs.visit_file(ast);
    }
    for code in doc_blocks(&docs.0) {
        out.extend(syn::parse_file(&format!("fn __abex_doc() {{\n{code}\n}}")).ok());
    }
    out
}

/// The Rust code blocks of doc comments.
struct Docs(Vec<String>);

impl<'ast> Visit<'ast> for Docs {
    fn visit_attribute(&mut self, a: &'ast syn::Attribute) {
        let syn::Meta::NameValue(nv) = &a.meta else { return };
        if !nv.path.is_ident("doc") {
            return;
        }
        if let Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) = &nv.value {
            self.0.push(s.value());
        }
    }
}

/// Joins doc lines into code blocks (lines between ``` fences, `# ` prefixes removed).
fn doc_blocks(lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut block: Option<String> = None;
    for l in lines {
        let t = l.strip_prefix(' ').unwrap_or(l);
        if t.trim_start().starts_with("```") {
            match block.take() {
                Some(b) => out.push(b),
                None => {
                    let lang = t.trim_start().trim_start_matches('`').trim();
                    if lang.is_empty() || lang.contains("rust") || lang.contains("ignore") {
                        block = Some(String::new());
                    }
                }
            }
            continue;
        }
        if let Some(b) = &mut block {
            let code =
                t.strip_prefix("# ").or_else(|| (t.trim() == "#").then_some("")).unwrap_or(t);
            b.push_str(code);
            b.push('\n');
        }
    }
    out
}

/// Reads seeds into `recipes`' book from the crate's tests and examples.
pub fn collect(
    recipes: &Recipes<'_, '_>,
    parsed: &[(SourceFile, syn::File)],
    test_code: &[String],
    root: &Path,
) {
    let sources = test_sources(parsed, test_code, root);
    recipes.with_book(|book| {
        let mut finder = Finder { book, helpers: BTreeMap::new(), seeds: Vec::new() };
        for f in &sources {
            finder.visit_file(f);
        }
        for f in &sources {
            finder.visit_file(f);
        }
        let found = std::mem::take(&mut finder.seeds);
        for (b, k, args) in found {
            let arm = &mut book.builders[b].arms[k];
            if arm.seeds.len() < MAX_SEEDS && !arm.seeds.contains(&args) {
                arm.seeds.push(args);
            }
        }
    });
}

struct Finder<'b> {
    book: &'b Book,
    helpers: BTreeMap<String, Helper>,
    seeds: Vec<(usize, usize, Vec<Value>)>,
}

/// `e` without the calls that only unwrap it (`.unwrap()`, `.expect(..)`, `?`, `&`, parens).
fn unwrapped(e: &Expr) -> &Expr {
    match e {
        Expr::MethodCall(m) if m.method == "unwrap" || m.method == "expect" => {
            unwrapped(&m.receiver)
        }
        Expr::Try(t) => unwrapped(&t.expr),
        Expr::Reference(r) => unwrapped(&r.expr),
        Expr::Paren(p) => unwrapped(&p.expr),
        Expr::Group(g) => unwrapped(&g.expr),
        _ => e,
    }
}

/// The last segments of a path as text (`semver::Version::parse` → `Version::parse`).
fn tail(path: &syn::Path, n: usize) -> Vec<String> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    segs[segs.len().saturating_sub(n)..].to_vec()
}

impl Finder<'_> {
    /// The builders of the type named `name` (its plain name).
    fn builders_named(&self, name: &str) -> Vec<usize> {
        self.book
            .builders
            .iter()
            .enumerate()
            .filter(|(_, b)| plain(&b.name) == name)
            .map(|(i, _)| i)
            .collect()
    }

    /// The constructor an expression calls, if it is one of a builder's: (builder, arm, argument
    /// expressions).
    fn ctor_of<'e>(&self, e: &'e Expr) -> Option<(usize, usize, Vec<&'e Expr>)> {
        let e = unwrapped(e);
        let find = |ty: &str, suffix: &str| -> Option<(usize, usize)> {
            for b in self.builders_named(ty) {
                let builder = &self.book.builders[b];
                let want = if suffix.is_empty() {
                    builder.name.clone()
                } else {
                    format!("{}::{suffix}", builder.name)
                };
                if let Some(k) = builder
                    .arms
                    .iter()
                    .position(|a| a.ctor == want || a.ctor == format!("{want}()"))
                {
                    return Some((b, k));
                }
            }
            None
        };
        match e {
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else { return None };
                let args: Vec<&Expr> = c.args.iter().collect();
                let t = tail(&p.path, 2);
                let found = match t.as_slice() {
                    [ty, f] => find(ty, f).or_else(|| find(f, "")),
                    [f] => {
                        if let Some(h) = self.helpers.get(f) {
                            let picked: Option<Vec<&Expr>> =
                                h.from_param.iter().map(|i| args.get(*i).copied()).collect();
                            return Some((h.builder, h.arm, picked?));
                        }
                        find(f, "")
                    }
                    _ => None,
                };
                found.map(|(b, k)| (b, k, args))
            }
            Expr::Path(p) => {
                let t = tail(&p.path, 2);
                let (b, k) = match t.as_slice() {
                    [ty, v] => find(ty, v)?,
                    [ty] => find(ty, "")?,
                    _ => return None,
                };
                self.book.builders[b].arms[k].params.is_empty().then_some((b, k, Vec::new()))
            }
            Expr::MethodCall(m) if m.method == "parse" => {
                let ty =
                    m.turbofish.as_ref().and_then(|t| t.args.first()).and_then(|g| match g {
                        syn::GenericArgument::Type(syn::Type::Path(p)) => {
                            p.path.segments.last().map(|s| s.ident.to_string())
                        }
                        _ => None,
                    })?;
                let (b, k) = find(&ty, "from_str")?;
                Some((b, k, vec![&*m.receiver]))
            }
            Expr::Struct(s) if s.rest.is_none() => {
                let t = tail(&s.path, 2);
                let (b, k) = match t.as_slice() {
                    [ty, v] => find(ty, v).or_else(|| find(v, ""))?,
                    [ty] => find(ty, "")?,
                    _ => return None,
                };
                let arm = &self.book.builders[b].arms[k];
                let by_name: Option<Vec<&Expr>> = arm
                    .params
                    .iter()
                    .map(|(n, _)| {
                        s.fields
                            .iter()
                            .find(|f| match &f.member {
                                syn::Member::Named(i) => i == n,
                                syn::Member::Unnamed(i) => i.index.to_string() == *n,
                            })
                            .map(|f| &f.expr)
                    })
                    .collect();
                Some((b, k, by_name?))
            }
            _ => None,
        }
    }

    /// The value of expression `e` for value type `ty`.
    fn value(&self, ty: &Ty, e: &Expr) -> Option<Value> {
        let e = unwrapped(e);
        if let Some(b) = placeholder_of(ty) {
            let (b2, k, args) = self.ctor_of(e)?;
            if b2 != b {
                return None;
            }
            let arm = &self.book.builders[b].arms[k];
            return Some(Value::Built {
                ctor: arm.ctor.clone(),
                args: self.args(&arm.params, &args)?,
            });
        }
        let v = match (ty, e) {
            (Ty::Int { .. }, Expr::Lit(l)) => match &l.lit {
                Lit::Int(i) => Value::Int(i.base10_parse::<i128>().ok()?),
                _ => return None,
            },
            (Ty::Int { .. }, Expr::Unary(u)) if matches!(u.op, UnOp::Neg(_)) => {
                match self.value(ty, &u.expr)? {
                    Value::Int(i) => Value::Int(-i),
                    _ => return None,
                }
            }
            (Ty::Float { .. }, Expr::Lit(l)) => match &l.lit {
                Lit::Float(f) => Value::Float(f.base10_parse().ok()?),
                Lit::Int(i) => Value::Float(i.base10_parse().ok()?),
                _ => return None,
            },
            (Ty::Float { .. }, Expr::Unary(u)) if matches!(u.op, UnOp::Neg(_)) => {
                match self.value(ty, &u.expr)? {
                    Value::Float(x) => Value::Float(-x),
                    _ => return None,
                }
            }
            (Ty::Bool, Expr::Lit(l)) => match &l.lit {
                Lit::Bool(b) => Value::Bool(b.value),
                _ => return None,
            },
            (Ty::Char, Expr::Lit(l)) => match &l.lit {
                Lit::Char(c) => Value::Str(c.value().to_string()),
                _ => return None,
            },
            (Ty::Str, Expr::Lit(l)) => match &l.lit {
                Lit::Str(s) => Value::Str(s.value()),
                _ => return None,
            },
            (Ty::Str, Expr::MethodCall(m))
                if ["to_string", "to_owned", "into"].contains(&m.method.to_string().as_str()) =>
            {
                self.value(ty, &m.receiver)?
            }
            (Ty::Str, Expr::Call(c)) if c.args.len() == 1 => self.value(ty, &c.args[0])?,
            (Ty::Option { .. }, Expr::Path(p)) if p.path.is_ident("None") => Value::Null,
            (Ty::Option { item }, Expr::Call(c))
                if c.args.len() == 1
                    && matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Some")) =>
            {
                self.value(item, &c.args[0])?
            }
            (Ty::List { item } | Ty::Array { item, .. }, Expr::Array(a)) => {
                Value::List(a.elems.iter().map(|x| self.value(item, x)).collect::<Option<_>>()?)
            }
            (Ty::List { item }, Expr::Macro(m)) if m.mac.path.is_ident("vec") => {
                let items = m
                    .mac
                    .parse_body_with(
                        syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated,
                    )
                    .ok()?;
                Value::List(items.iter().map(|x| self.value(item, x)).collect::<Option<_>>()?)
            }
            (Ty::Tuple { items }, Expr::Tuple(t)) if items.len() == t.elems.len() => Value::List(
                items
                    .iter()
                    .zip(&t.elems)
                    .map(|(ty, x)| self.value(ty, x))
                    .collect::<Option<_>>()?,
            ),
            (Ty::Built { ctors, .. }, Expr::Call(c)) => {
                let Expr::Path(p) = &*c.func else { return None };
                let name = tail(&p.path, 2).join("::");
                let ctor = ctors.iter().find(|k| k.name == name)?;
                let args: Option<Vec<Value>> =
                    ctor.params.iter().zip(&c.args).map(|((_, t), x)| self.value(t, x)).collect();
                Value::Built { ctor: ctor.name.clone(), args: args? }
            }
            (Ty::Built { ctors, .. }, Expr::Path(p)) => {
                let name = tail(&p.path, 2).join("::");
                let ctor = ctors.iter().find(|k| k.name == name && k.params.is_empty())?;
                Value::Built { ctor: ctor.name.clone(), args: Vec::new() }
            }
            _ => return None,
        };
        (matches!(ty, Ty::Built { .. }) || crate::inputs::conforms(ty, &v)).then_some(v)
    }

    fn args(&self, params: &[(String, super::ArgPlan)], exprs: &[&Expr]) -> Option<Vec<Value>> {
        if params.len() != exprs.len() {
            return None;
        }
        params.iter().zip(exprs).map(|((_, p), e)| self.value(&p.ty, e)).collect()
    }

    /// A helper: a function or closure whose body only builds a value from its parameters.
    fn helper(&mut self, name: String, params: Vec<String>, body: &Expr) {
        let Some((b, k, args)) = self.ctor_of(body) else { return };
        let from_param: Option<Vec<usize>> = args
            .iter()
            .map(|a| match unwrapped(a) {
                Expr::Path(p) => {
                    p.path.get_ident().and_then(|i| params.iter().position(|x| i == x))
                }
                _ => None,
            })
            .collect();
        if let Some(from_param) = from_param {
            self.helpers.insert(name, Helper { builder: b, arm: k, from_param });
        }
    }
}

fn pat_name(p: &Pat) -> Option<String> {
    match p {
        Pat::Ident(i) => Some(i.ident.to_string()),
        Pat::Type(t) => pat_name(&t.pat),
        _ => None,
    }
}

/// The expression a block ends with, when it is all the block does.
fn only_expr(b: &syn::Block) -> Option<&Expr> {
    match b.stmts.as_slice() {
        [syn::Stmt::Expr(e, None)] => Some(e),
        _ => None,
    }
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if let Some(body) = only_expr(&f.block) {
            let params: Vec<String> = f
                .sig
                .inputs
                .iter()
                .filter_map(|i| match i {
                    syn::FnArg::Typed(t) => pat_name(&t.pat),
                    _ => None,
                })
                .collect();
            self.helper(f.sig.ident.to_string(), params, body);
        }
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let (Some(name), Some(init)) = (pat_name(&l.pat), &l.init) {
            if let Expr::Closure(c) = &*init.expr {
                let params: Vec<String> = c.inputs.iter().filter_map(pat_name).collect();
                let body = match &*c.body {
                    Expr::Block(b) => only_expr(&b.block),
                    e => Some(e),
                };
                if let Some(body) = body {
                    self.helper(name, params, body);
                }
            }
        }
        syn::visit::visit_local(self, l);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // `assert_eq!(Stack::from_slice(&[1]).unwrap().room(), 3)`: the arguments of a macro
        // called like a function are expressions too (a `matches!` pattern is not: left).
        let args = m
            .parse_body_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated);
        for e in args.iter().flatten() {
            // The same visit, over the parsed body's own lifetime.
            Visit::visit_expr(self, e);
        }
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        if let Some((b, k, args)) = self.ctor_of(e) {
            let arm = &self.book.builders[b].arms[k];
            if !arm.params.is_empty() {
                if let Some(values) = self.args(&arm.params, &args) {
                    self.seeds.push((b, k, values));
                }
            }
        }
        syn::visit::visit_expr(self, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_blocks_keep_rust_code_without_hidden_line_marks() {
        let lines: Vec<String> = [
            " Parses.",
            "",
            " ```",
            " # use semver::Version;",
            " let v = Version::parse(\"1.2.3\").unwrap();",
            " ```",
            " ```text",
            " not code",
            " ```",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            doc_blocks(&lines),
            ["use semver::Version;\nlet v = Version::parse(\"1.2.3\").unwrap();\n"]
        );
    }

    #[test]
    fn a_constructor_inside_an_assertion_is_a_seed() {
        // `assert_eq!(Stack::from_slice(&[1]).unwrap().room(), 3)`: syn keeps a macro's body as
        // tokens; its arguments are read as expressions, or the fallible `from_slice` is left
        // out (the type has `Default`) and every receiver is an empty stack.
        use crate::rust::types::fnplan::{self, ImplHead};
        use crate::rust::types::table::TypeTable;
        let text = "#[derive(Debug, Default)]\n\
                    pub struct Stack { items: Vec<u8> }\n\
                    impl Stack {\n\
                        pub fn from_slice(items: &[u8]) -> Option<Self> { None }\n\
                        pub fn room(&self) -> usize { 0 }\n\
                    }";
        let file = SourceFile { path: "lib.rs".into(), module: vec![], text: text.into() };
        let files = vec![(file, syn::parse_file(text).unwrap())];
        let table = TypeTable::new(&files, &[]);
        let recipes = Recipes::new(&table);
        let head = ImplHead {
            generics: syn::Generics::default(),
            self_ty: syn::parse_str("Stack").unwrap(),
            trait_: None,
        };
        let sig = syn::parse_str::<syn::ItemFn>("fn room(&self) -> usize {}").unwrap().sig;
        let planned = fnplan::plan(&recipes, &[], &sig, Some(&head));
        let tests = "fn t() { assert_eq!(Stack::from_slice(&[1, 2]).unwrap().room(), 3); }";
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("Cargo.toml"), "").unwrap();
        collect(&recipes, &files, &[tests.to_string()], root.path());
        let plan = planned.plan.unwrap();
        let Ty::Built { ctors, .. } = recipes.expand(&plan.args[0].ty).unwrap() else { panic!() };
        let from_slice = ctors.iter().find(|c| c.name == "Stack::from_slice");
        let seeds = from_slice.map(|c| c.seeds.clone()).unwrap_or_default();
        assert_eq!(seeds, [vec![Value::List(vec![Value::Int(1), Value::Int(2)])]], "{ctors:?}");
    }
}
