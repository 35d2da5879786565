//! The allowlist for model-written Rust (syn): the names, paths, macros, methods and fields the
//! original function uses are collected, and every one the written code uses must be among them,
//! among the names it binds itself (in scope where it uses them), or on the pure lists
//! ([`super::pure`]). Items inside the function (`fn`, `use`, `extern` blocks, `static`, `mod`,
//! `impl`, `macro_rules!`) and `unsafe` are refused outright, so a name the file imports
//! (`use std::fs::remove_dir_all;` at its top) cannot be reached unless the original calls it.

use std::collections::HashSet;

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::visit::Visit;

use super::pure;

/// What the original function uses.
#[derive(Default)]
struct Uses {
    /// Identifiers: path segments, bindings, identifiers inside macros.
    names: HashSet<String>,
    /// Whole paths, as `a::b::c` (no generic arguments).
    paths: HashSet<String>,
    methods: HashSet<String>,
    macros: HashSet<String>,
    fields: HashSet<String>,
}

fn path_text(p: &syn::Path) -> String {
    let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
    format!("{}{}", if p.leading_colon.is_some() { "::" } else { "" }, segs.join("::"))
}

fn token_idents(tokens: TokenStream, out: &mut Vec<String>) {
    for t in tokens {
        match t {
            TokenTree::Ident(i) => out.push(i.to_string()),
            TokenTree::Group(g) => token_idents(g.stream(), out),
            _ => {}
        }
    }
}

impl<'ast> Visit<'ast> for Uses {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        self.paths.insert(path_text(p));
        for s in &p.segments {
            self.names.insert(s.ident.to_string());
        }
        syn::visit::visit_path(self, p);
    }
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.names.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        self.methods.insert(m.method.to_string());
        syn::visit::visit_expr_method_call(self, m);
    }
    fn visit_member(&mut self, m: &'ast syn::Member) {
        if let syn::Member::Named(i) = m {
            self.fields.insert(i.to_string());
        }
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.paths.insert(path_text(&m.path));
        if let Some(last) = m.path.segments.last() {
            self.macros.insert(last.ident.to_string());
        }
        let mut idents = Vec::new();
        token_idents(m.tokens.clone(), &mut idents);
        for i in idents {
            self.names.insert(i.clone());
            self.methods.insert(i.clone());
            self.fields.insert(i);
        }
    }
    fn visit_signature(&mut self, s: &'ast syn::Signature) {
        self.names.insert(s.ident.to_string());
        syn::visit::visit_signature(self, s);
    }
}

/// Walks the written code with the names in scope, and keeps the first refusal.
struct Checker<'u> {
    uses: &'u Uses,
    scopes: Vec<HashSet<String>>,
    refusal: Option<String>,
}

impl Checker<'_> {
    fn refuse(&mut self, why: String) {
        self.refusal.get_or_insert(why);
    }

    fn bound(&self, name: &str) -> bool {
        self.scopes.iter().any(|s| s.contains(name))
    }

    fn known(&self, name: &str) -> bool {
        self.uses.names.contains(name) || self.bound(name) || pure::RUST_NAMES.contains(&name)
    }

    /// Binds the identifiers of `pat` in the innermost scope, checking the paths it names.
    fn bind(&mut self, pat: &syn::Pat) {
        struct Binders(Vec<String>);
        impl<'ast> Visit<'ast> for Binders {
            fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
                self.0.push(p.ident.to_string());
                syn::visit::visit_pat_ident(self, p);
            }
        }
        let mut b = Binders(Vec::new());
        b.visit_pat(pat);
        // Paths in the pattern (variants, constants, types) are checked before binding.
        self.visit_pat(pat);
        for name in b.0 {
            if !name.is_ascii() && !self.uses.names.contains(&name) {
                self.refuse(format!("it binds the non-ASCII name `{name}`"));
            }
            self.scopes.last_mut().expect("a scope").insert(name);
        }
    }

    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        self.scopes.push(HashSet::new());
        f(self);
        self.scopes.pop();
    }

    fn path_allowed(&self, p: &syn::Path) -> bool {
        let text = path_text(p);
        if self.uses.paths.contains(&text) || pure::RUST_PATHS.contains(&text.as_str()) {
            return true;
        }
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        match (p.leading_colon.is_some(), segs.as_slice()) {
            (false, [one]) => self.known(one),
            (false, [ty, item]) => {
                (pure::RUST_TYPES.contains(&ty.as_str())
                    || (ty == "Self" && self.uses.names.contains("Self")))
                    && pure::RUST_ASSOC.contains(&item.as_str())
            }
            _ => false,
        }
    }

    /// The arguments of a macro: as comma-separated expressions when they parse so (a
    /// `name = value` argument binds a format name), else every identifier in them must be
    /// known.
    fn visit_macro_args(&mut self, m: &syn::Macro) {
        let parsed = m.parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated);
        match parsed {
            Ok(args) => {
                for a in &args {
                    match a {
                        syn::Expr::Assign(x) if matches!(&*x.left, syn::Expr::Path(_)) => {
                            self.visit_expr(&x.right)
                        }
                        e => self.visit_expr(e),
                    }
                }
            }
            Err(_) => {
                let mut idents = Vec::new();
                token_idents(m.tokens.clone(), &mut idents);
                for i in idents {
                    let ok = self.known(&i)
                        || self.uses.methods.contains(&i)
                        || pure::RUST_METHODS.contains(&i.as_str())
                        || matches!(i.as_str(), "as" | "if" | "else" | "true" | "false" | "mut");
                    if !ok {
                        self.refuse(format!(
                            "it uses `{i}` inside `{}!`, which the original does not",
                            path_text(&m.path)
                        ));
                    }
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Checker<'_> {
    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.scoped(|c| {
            for stmt in &b.stmts {
                match stmt {
                    syn::Stmt::Local(l) => {
                        if let Some(init) = &l.init {
                            c.visit_expr(&init.expr);
                            if let Some((_, diverge)) = &init.diverge {
                                c.visit_expr(diverge);
                            }
                        }
                        for a in &l.attrs {
                            c.visit_attribute(a);
                        }
                        c.bind(&l.pat);
                    }
                    syn::Stmt::Item(_) => c.refuse(
                        "it defines an item inside the function (`fn`, `use`, `extern`, `static`, `mod`, `impl` or a macro)".into(),
                    ),
                    syn::Stmt::Expr(e, _) => c.visit_expr(e),
                    syn::Stmt::Macro(m) => {
                        for a in &m.attrs {
                            c.visit_attribute(a);
                        }
                        c.visit_macro(&m.mac);
                    }
                }
            }
        });
    }
    fn visit_expr_closure(&mut self, e: &'ast syn::ExprClosure) {
        self.scoped(|c| {
            for p in &e.inputs {
                c.bind(p);
            }
            if let syn::ReturnType::Type(_, t) = &e.output {
                c.visit_type(t);
            }
            c.visit_expr(&e.body);
        });
    }
    fn visit_arm(&mut self, a: &'ast syn::Arm) {
        self.scoped(|c| {
            c.bind(&a.pat);
            if let Some((_, g)) = &a.guard {
                c.visit_expr(g);
            }
            c.visit_expr(&a.body);
        });
    }
    fn visit_expr_let(&mut self, e: &'ast syn::ExprLet) {
        self.visit_expr(&e.expr);
        self.bind(&e.pat);
    }
    fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
        self.scoped(|c| {
            c.visit_expr(&e.cond);
            c.visit_block(&e.then_branch);
        });
        if let Some((_, els)) = &e.else_branch {
            self.visit_expr(els);
        }
    }
    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        self.scoped(|c| {
            c.visit_expr(&e.cond);
            c.visit_block(&e.body);
        });
    }
    fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
        self.visit_expr(&e.expr);
        self.scoped(|c| {
            c.bind(&e.pat);
            c.visit_block(&e.body);
        });
    }
    fn visit_expr_unsafe(&mut self, _: &'ast syn::ExprUnsafe) {
        self.refuse("it uses `unsafe`".into());
    }
    fn visit_path(&mut self, p: &'ast syn::Path) {
        if !self.path_allowed(p) {
            let text = path_text(p);
            let why = if text.is_ascii() {
                format!("it uses `{text}`, which the original function does not use and is not on the pure std list")
            } else {
                format!("it uses the non-ASCII name `{text}`, which the original does not")
            };
            self.refuse(why);
        }
        for s in &p.segments {
            self.visit_path_arguments(&s.arguments);
        }
    }
    fn visit_qself(&mut self, q: &'ast syn::QSelf) {
        self.refuse(format!("it uses a qualified path `<{} as …>`", q.ty.to_token_stream()));
    }
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        // The receiver and arguments first: the refusal names what they reach, if anything.
        syn::visit::visit_expr_method_call(self, m);
        let name = m.method.to_string();
        if !self.uses.methods.contains(&name) && !pure::RUST_METHODS.contains(&name.as_str()) {
            self.refuse(format!(
                "it calls the method `.{name}()`, which the original function does not and is not on the pure std list"
            ));
        }
    }
    fn visit_member(&mut self, m: &'ast syn::Member) {
        if let syn::Member::Named(i) = m {
            let name = i.to_string();
            if !self.uses.fields.contains(&name) && !self.uses.names.contains(&name) {
                self.refuse(format!("it uses the field `{name}`, which the original does not"));
            }
        }
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let name = m.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        let whole = path_text(&m.path);
        let allowed = (m.path.segments.len() == 1
            && (self.uses.macros.contains(&name) || pure::RUST_MACROS.contains(&name.as_str())))
            || self.uses.paths.contains(&whole);
        if !allowed {
            self.refuse(format!(
                "it uses the macro `{whole}!`, which the original function does not and is not on the pure std list"
            ));
            return;
        }
        self.visit_macro_args(m);
    }
    fn visit_attribute(&mut self, a: &'ast syn::Attribute) {
        let name = path_text(a.path());
        if !pure::RUST_ATTRIBUTES.contains(&name.as_str()) && !self.uses.paths.contains(&name) {
            self.refuse(format!("it adds the attribute `#[{name}]`"));
        }
        // An attribute's arguments are read by the compiler (`#[doc = include_str!(…)]` reads a
        // file at build time, a macro there runs any proc macro): only names and literals.
        let plain = match &a.meta {
            syn::Meta::Path(_) => true,
            syn::Meta::NameValue(nv) => matches!(nv.value, syn::Expr::Lit(_)),
            syn::Meta::List(l) => plain_meta(l.tokens.clone()),
        };
        if !plain {
            self.refuse(format!(
                "it gives the attribute `#[{name}]` arguments that are not names and literals"
            ));
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {
        self.refuse("it defines an item inside the function".into());
    }
}

/// Whether an attribute's argument list holds only names, literals, `,`, `=`, `::`, `-` and
/// parenthesised lists of the same (`allow(clippy::x)`, `should_panic(expected = "…")`,
/// `cfg(not(test))`): no macro call, block or other expression.
fn plain_meta(tokens: TokenStream) -> bool {
    tokens.into_iter().all(|t| match t {
        TokenTree::Ident(_) | TokenTree::Literal(_) => true,
        TokenTree::Punct(p) => matches!(p.as_char(), ',' | '=' | ':' | '-'),
        TokenTree::Group(g) => {
            g.delimiter() == proc_macro2::Delimiter::Parenthesis && plain_meta(g.stream())
        }
    })
}

/// A function item, free or associated: its attributes, signature and body.
fn parse_fn(text: &str) -> Result<(Vec<syn::Attribute>, syn::Signature, syn::Block), String> {
    if let Ok(f) = syn::parse_str::<syn::ItemFn>(text) {
        return Ok((f.attrs, f.sig, *f.block));
    }
    syn::parse_str::<syn::ImplItemFn>(text)
        .map(|f| (f.attrs, f.sig, f.block))
        .map_err(|e| format!("it does not parse as one function: {e}"))
}

/// Checks model-written Rust against the allowlist of `original` (the original function item's
/// source): `written` (a function item: a mutant of the original, or a test) may use only the
/// names, paths, macros, methods and fields the original uses, the names it binds itself, and
/// the pure std items of [`super::pure`]; no item inside it, no `unsafe`, no new attribute
/// outside [`pure::RUST_ATTRIBUTES`]. Returns why it is refused.
pub fn check_rust(original: &str, written: &str) -> Result<(), String> {
    check_rust_test(original, &[], written)
}

/// Checks a model-written Rust test against what `original` (the function under test) and
/// `examples` (the project's tests that name it, abex's own test of the same witness) use,
/// by the same rules as [`check_rust`]: a test may call the function and use what the
/// project's tests already use, nothing else. An example that does not parse is left out.
pub fn check_rust_test(original: &str, examples: &[&str], written: &str) -> Result<(), String> {
    let mut uses = Uses::default();
    collect_uses(original, &mut uses).map_err(|e| format!("the original: {e}"))?;
    for e in examples {
        let _ = collect_uses(e, &mut uses);
    }
    check_against(&uses, written)
}

/// Adds what the function item `text` uses (attributes, signature, body) to `uses`.
fn collect_uses(text: &str, uses: &mut Uses) -> Result<(), String> {
    let (oattrs, osig, oblock) = parse_fn(text)?;
    for a in &oattrs {
        uses.paths.insert(path_text(a.path()));
    }
    uses.visit_signature(&osig);
    uses.visit_block(&oblock);
    Ok(())
}

/// Checks the function item `written` against `uses`.
fn check_against(uses: &Uses, written: &str) -> Result<(), String> {
    let (attrs, sig, block) = parse_fn(written)?;
    let mut c = Checker { uses, scopes: vec![HashSet::new()], refusal: None };
    for a in &attrs {
        c.visit_attribute(a);
    }
    if sig.unsafety.is_some() || sig.abi.is_some() {
        c.refuse("its signature is `unsafe` or `extern`".into());
    }
    // The parameters are in scope in the body; their types must be allowed too.
    for input in &sig.inputs {
        match input {
            syn::FnArg::Typed(t) => {
                c.visit_type(&t.ty);
                c.bind(&t.pat);
            }
            syn::FnArg::Receiver(_) => {
                c.scopes[0].insert("self".into());
            }
        }
    }
    if let syn::ReturnType::Type(_, t) = &sig.output {
        c.visit_type(t);
    }
    c.visit_block(&block);
    match c.refusal {
        Some(why) => Err(why),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::{check_rust, check_rust_test};

    const ORIGINAL: &str = "pub fn classify(n: i64) -> &'static str {\n    if n < 0 {\n        \"negative\"\n    } else if n == 0 {\n        \"zero\"\n    } else if n < 100 {\n        \"small\"\n    } else {\n        \"large\"\n    }\n}";

    fn body(b: &str) -> String {
        format!("pub fn classify(n: i64) -> &'static str {{ {b} }}")
    }

    #[test]
    fn what_the_original_uses_literals_operators_and_pure_items_pass() {
        for b in [
            "if n <= 0 { \"negative\" } else { \"large\" }",
            "let m = n.abs().min(i64::MAX); if m > 100 { \"large\" } else { \"small\" }",
            "match n { x if x < 0 => \"negative\", 0 => \"zero\", _ => \"small\" }",
            "let v: Vec<i64> = vec![1, 2]; if v.iter().any(|&x| x == n) { \"zero\" } else { \"large\" }",
            "if let Some(k) = n.checked_add(1) { if k > 0 { \"small\" } else { \"zero\" } } else { \"large\" }",
            "assert!(n > -10, \"n = {}\", n); \"zero\"",
        ] {
            assert_eq!(check_rust(ORIGINAL, &body(b)), Ok(()), "{b}");
        }
    }

    #[test]
    fn attributes_take_names_and_literals_never_a_macro() {
        let test = |attrs: &str| {
            let t = format!("{attrs}\nfn t() {{ assert_eq!(classify(1), \"small\"); }}");
            check_rust_test(ORIGINAL, &["#[test]\nfn e() { classify(0); }"], &t)
        };
        for ok in [
            "#[test]\n#[should_panic(expected = \"boom\")]",
            "#[test]\n#[allow(clippy::bool_assert_comparison, unused)]",
            "#[test]\n#[cfg(not(miri))]\n#[doc = \"checks 1\"]",
        ] {
            assert_eq!(test(ok), Ok(()), "{ok}");
        }
        for bad in [
            "#[test]\n#[doc = include_str!(\"/etc/passwd\")]",
            "#[test]\n#[should_panic(expected = concat!(env!(\"HOME\")))]",
            "#[test]\n#[doc = { 1 }]",
        ] {
            let e = test(bad).unwrap_err();
            assert!(e.contains("arguments that are not names and literals"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_name_bound_in_one_scope_does_not_open_it_in_another() {
        let b = "let _ = (|remove_dir_all: i64| remove_dir_all)(0); Some(\"/tmp\").map(remove_dir_all); \"zero\"";
        let e = check_rust(ORIGINAL, &body(b)).unwrap_err();
        assert!(e.contains("remove_dir_all"), "{e}");
    }

    #[test]
    fn a_test_may_use_what_the_projects_tests_use_and_nothing_else() {
        let example = "#[test]\nfn classifies() { assert_eq!(classify(5), \"small\"); }";
        let good = "#[test]\nfn t() { let got = classify(100); assert_eq!(got, \"large\", \"at {}\", 100); }";
        assert_eq!(check_rust_test(ORIGINAL, &[example], good), Ok(()));
        for (bad, said) in [
            (
                "#[test]\nfn t() { std::process::Command::new(\"touch\").status().unwrap(); }",
                "std::process::Command",
            ),
            (
                "#[test]\nfn t() { let _ = std::fs::remove_dir_all(\"/\"); }",
                "std::fs::remove_dir_all",
            ),
            ("#[test]\nfn t() { use std::fs; }", "item"),
        ] {
            let e = check_rust_test(ORIGINAL, &[example], bad).unwrap_err();
            assert!(e.contains(said), "{bad}: {e}");
        }
        // What a project's test uses opens it to the model's tests, and only that.
        let reads = "#[test]\nfn reads() { let s = std::fs::read_to_string(\"x\").unwrap(); assert!(!s.is_empty()); }";
        let uses_it = "#[test]\nfn t() { let s = std::fs::read_to_string(\"y\").unwrap(); assert!(s.len() > 0); }";
        assert!(check_rust_test(ORIGINAL, &[example], uses_it).is_err());
        assert_eq!(check_rust_test(ORIGINAL, &[example, reads], uses_it), Ok(()));
    }
}
