//! Rule-based mutants for Rust: the cargo-mutants operator genres, confined to one function body.
//!
//! [`mutants_of`] re-parses the file, finds the function item whose signature and body lie in
//! the given byte range, and walks its body (never its signature) with [`syn::visit`]. Nothing
//! is generated inside macro invocations (syn does not parse their tokens, so `assert!`,
//! `debug_assert!`, `format!` and logging macros stay as written), patterns, types, attributes,
//! array lengths, const blocks, nested items (`fn`, `mod`, `impl`, …), or calls named in
//! [`SkipRules::skip_calls`]. Closures in the body are mutated like the rest of it.
//!
//! Suppressed functions yield no mutants: `#[mutants::skip]` (also through `cfg_attr`, and on an
//! enclosing `impl`, `trait` or `mod`), a `// abex: skip` comment directly above the function or
//! among its attributes, and `fmt` methods that take a `Formatter`.

use std::path::Path;

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Attribute, BinOp, Block, Expr, FnArg, ImplItem, Item, Pat, ReturnType, Signature};
use syn::{TraitItem, Type, UnOp};

use super::{line_column, mutant_id, pattern_matches, Mutant, Operator, Origin};
use crate::rust::source::Lines;

/// Which mutants not to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkipRules {
    /// Patterns (the regex subset of [`super::pattern_matches`]); a mutant is dropped when one
    /// matches its function's qualified name, `"<file>: <description>"`, or the cargo-mutants
    /// style name `"<file>:<line>:<column>: <description> in <function>"`.
    pub exclude_re: Vec<String>,
    /// Functions and methods whose calls are left alone, arguments included (by last path
    /// segment or method name).
    pub skip_calls: Vec<String>,
}

impl Default for SkipRules {
    fn default() -> SkipRules {
        SkipRules { exclude_re: Vec::new(), skip_calls: vec!["with_capacity".to_string()] }
    }
}

/// Reads `exclude_re` and `skip_calls` (and `skip_calls_defaults = false`, which drops the
/// default `with_capacity`) from `<package_dir>/.cargo/mutants.toml`, as cargo-mutants does.
/// Other keys belong to cargo-mutants and are ignored; a missing or unparsable file gives the
/// defaults.
pub fn load_skip_rules(package_dir: &Path) -> SkipRules {
    let mut rules = SkipRules::default();
    let Ok(text) = std::fs::read_to_string(package_dir.join(".cargo").join("mutants.toml")) else {
        return rules;
    };
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return rules;
    };
    let strings = |key: &str| -> Vec<String> {
        doc.get(key)
            .and_then(|i| i.as_array())
            .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
            .unwrap_or_default()
    };
    rules.exclude_re = strings("exclude_re");
    if doc.get("skip_calls_defaults").and_then(|i| i.as_bool()) == Some(false) {
        rules.skip_calls.clear();
    }
    for call in strings("skip_calls") {
        if !rules.skip_calls.contains(&call) {
            rules.skip_calls.push(call);
        }
    }
    rules
}

/// The rule-based mutants of `function` (its qualified name), the function item whose
/// signature and body lie in `fn_span` (a byte range of `file_text`; the item's own range, or
/// the whole lines around it). Sorted by span start, then operator; no two share a span and a
/// replacement. Empty when the file does not parse, no single function fits `fn_span`, or the
/// function is suppressed.
pub fn mutants_of(
    file_text: &str,
    file: &Path,
    function: &str,
    fn_span: (usize, usize),
    rules: &SkipRules,
) -> Vec<Mutant> {
    let Ok(ast) = syn::parse_file(file_text) else { return Vec::new() };
    let lines = Lines::new(file_text);
    let at = |s: proc_macro2::LineColumn| lines.offset(file_text, s);
    let mut fns = Vec::new();
    collect(&ast.items, &mut vec![&ast.attrs[..]], &mut fns);
    let inside = |f: &FnItem<'_>| {
        let (ident, end) = (at(f.sig.ident.span().start()), at(f.block.span().end()));
        fn_span.0 <= ident && end <= fn_span.1
    };
    let fitting: Vec<&FnItem<'_>> = fns.iter().filter(|f| inside(f)).collect();
    let exact = |f: &&&FnItem<'_>| (at(f.span.start()), at(f.span.end())) == fn_span;
    let found = match fitting.as_slice() {
        [one] => *one,
        many => match many.iter().find(exact) {
            Some(f) => *f,
            None => return Vec::new(),
        },
    };
    let item_start = at(found.span.start());
    let sig_start = at(found.sig.span().start());
    if suppressed(found, file_text, item_start, sig_start) {
        return Vec::new();
    }
    let mut exclude = rules.exclude_re.clone();
    exclude.extend(found.ancestors.iter().chain([&found.attrs]).flat_map(|a| exclude_attrs(a)));

    let mut gen =
        Gen { text: file_text, lines: &lines, skip_calls: &rules.skip_calls, raw: Vec::new() };
    gen.replace_body(found.sig, found.block);
    gen.visit_block(found.block);

    let body_start = at(found.block.brace_token.span.open().start());
    let file_name = file.to_string_lossy().replace('\\', "/");
    let mut out: Vec<Mutant> = Vec::new();
    for r in gen.raw {
        let (line, column) = line_column(file_text, r.span.0);
        let excluded = exclude.iter().any(|p| {
            pattern_matches(p, function)
                || pattern_matches(p, &format!("{file_name}: {}", r.description))
                || pattern_matches(
                    p,
                    &format!("{file_name}:{line}:{column}: {} in {function}", r.description),
                )
        });
        if excluded {
            continue;
        }
        out.push(Mutant {
            id: mutant_id(
                &file_name,
                function,
                r.operator,
                r.span.0 - body_start,
                r.span.1 - r.span.0,
                &r.replacement,
            ),
            origin: Origin::Rules,
            operator: r.operator,
            function: function.to_string(),
            file: file.to_path_buf(),
            line,
            column,
            span: r.span,
            original: file_text[r.span.0..r.span.1].to_string(),
            replacement: r.replacement,
            switchable: r.switchable,
            description: r.description,
        });
    }
    // Stable: mutants of one operator at one place keep the order they were made in.
    out.sort_by_key(|m| (m.span.0, m.operator));
    let mut seen = std::collections::HashSet::new();
    out.retain(|m| seen.insert((m.span, m.replacement.clone())));
    out
}

/// A function item with a body, and the attributes of the items around it.
struct FnItem<'a> {
    attrs: &'a [Attribute],
    sig: &'a Signature,
    block: &'a Block,
    span: proc_macro2::Span,
    ancestors: Vec<&'a [Attribute]>,
}

/// Every function item of a file with a body: free, in an `impl`, a trait default, in inline
/// modules. Not functions nested in bodies: those are part of their enclosing function's text
/// but never mutated.
fn collect<'a>(items: &'a [Item], ancestors: &mut Vec<&'a [Attribute]>, out: &mut Vec<FnItem<'a>>) {
    for item in items {
        match item {
            Item::Fn(f) => out.push(FnItem {
                attrs: &f.attrs,
                sig: &f.sig,
                block: &f.block,
                span: item.span(),
                ancestors: ancestors.clone(),
            }),
            Item::Impl(imp) => {
                ancestors.push(&imp.attrs);
                for it in &imp.items {
                    if let ImplItem::Fn(f) = it {
                        out.push(FnItem {
                            attrs: &f.attrs,
                            sig: &f.sig,
                            block: &f.block,
                            span: it.span(),
                            ancestors: ancestors.clone(),
                        });
                    }
                }
                ancestors.pop();
            }
            Item::Trait(t) => {
                ancestors.push(&t.attrs);
                for it in &t.items {
                    if let TraitItem::Fn(f) = it {
                        if let Some(block) = &f.default {
                            out.push(FnItem {
                                attrs: &f.attrs,
                                sig: &f.sig,
                                block,
                                span: it.span(),
                                ancestors: ancestors.clone(),
                            });
                        }
                    }
                }
                ancestors.pop();
            }
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    ancestors.push(&m.attrs);
                    collect(inner, ancestors, out);
                    ancestors.pop();
                }
            }
            _ => {}
        }
    }
}

/// `#[mutants::skip]` (directly or in a `cfg_attr`) on the function or around it, a
/// `// abex: skip` comment directly above it or among its attributes, or a `fmt` method.
fn suppressed(f: &FnItem<'_>, text: &str, item_start: usize, sig_start: usize) -> bool {
    let skip_attr = f.ancestors.iter().chain([&f.attrs]).flat_map(|a| a.iter()).any(|a| {
        let tokens = a.to_token_stream().to_string();
        tokens.contains("mutants :: skip")
    });
    let marker = |line: &str| {
        let t = line.trim_start();
        t.starts_with("//") && t.trim_start_matches('/').trim_start().starts_with("abex: skip")
    };
    let in_attrs = text[item_start..sig_start].lines().any(marker);
    let mut above = text[..item_start].rsplit('\n');
    let indent_only = above.next().is_some_and(|l| l.trim().is_empty());
    let comment_above =
        indent_only && above.take_while(|l| l.trim_start().starts_with("//")).any(marker);
    let first_param = f.sig.inputs.iter().find_map(|a| match a {
        FnArg::Typed(pt) => Some(pt.ty.to_token_stream().to_string()),
        FnArg::Receiver(_) => None,
    });
    let fmt = f.sig.ident == "fmt" && first_param.is_some_and(|t| t.contains("Formatter"));
    skip_attr || in_attrs || comment_above || fmt
}

/// The patterns of `#[mutants::exclude_re("…")]` attributes.
fn exclude_attrs(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| {
            let segs: Vec<String> = a.path().segments.iter().map(|s| s.ident.to_string()).collect();
            segs == ["mutants", "exclude_re"]
        })
        .filter_map(|a| a.parse_args::<syn::LitStr>().ok().map(|s| s.value()))
        .collect()
}

/// A mutant before it gets its id and location.
struct Raw {
    operator: Operator,
    span: (usize, usize),
    replacement: String,
    switchable: bool,
    description: String,
}

/// Walks a function body and collects its mutants.
struct Gen<'a> {
    text: &'a str,
    lines: &'a Lines,
    skip_calls: &'a [String],
    raw: Vec<Raw>,
}

impl Gen<'_> {
    fn range(&self, node: &impl Spanned) -> (usize, usize) {
        let s = node.span();
        (self.lines.offset(self.text, s.start()), self.lines.offset(self.text, s.end()))
    }

    fn push(&mut self, operator: Operator, span: (usize, usize), replacement: String, what: &str) {
        let switchable = operator != Operator::DeleteMatchArm;
        let description = what.to_string();
        self.raw.push(Raw { operator, span, replacement, switchable, description });
    }

    /// Replace the whole body by a value of the return type (cargo-mutants' FnValue).
    fn replace_body(&mut self, sig: &Signature, block: &Block) {
        let span = self.range(block);
        let written = block.to_token_stream().to_string();
        let values = match &sig.output {
            ReturnType::Default => Some(vec!["()".to_string()]),
            ReturnType::Type(_, ty) => values(ty),
        };
        for v in values.unwrap_or_default() {
            let replacement = if v == "()" { "{}".to_string() } else { format!("{{ {v} }}") };
            let same = syn::parse_str::<Block>(&replacement)
                .is_ok_and(|b| b.to_token_stream().to_string() == written);
            if same || (v == "()" && block.stmts.is_empty()) {
                continue;
            }
            self.push(
                Operator::ReplaceBody,
                span,
                replacement,
                &format!("replace the body with `{v}`"),
            );
        }
    }

    fn negate(&mut self, cond: &Expr, keyword: &str) {
        if has_let(cond) || matches!(cond, Expr::Unary(u) if matches!(u.op, UnOp::Not(_))) {
            return;
        }
        let span = self.range(cond);
        let text = &self.text[span.0..span.1];
        let atom = matches!(
            cond,
            Expr::Path(_)
                | Expr::Call(_)
                | Expr::MethodCall(_)
                | Expr::Field(_)
                | Expr::Paren(_)
                | Expr::Index(_)
                | Expr::Lit(_)
        );
        let replacement = if atom { format!("!{text}") } else { format!("!({text})") };
        let what = format!("negate the `{keyword}` condition");
        self.push(Operator::NegateCondition, span, replacement, &what);
    }

    fn skipped_call(&self, name: &syn::Ident) -> bool {
        self.skip_calls.iter().any(|c| name == c)
    }
}

impl<'ast> Visit<'ast> for Gen<'_> {
    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        let span = self.range(e);
        let op_text = e.op.to_token_stream().to_string();
        let op_at = self.range(&e.op).0;
        let holds = self.text.get(op_at..op_at + op_text.len()) == Some(op_text.as_str());
        if let (Some((to, operator)), true) = (swap(&e.op), holds) {
            let left_end = self.range(&*e.left).1;
            let left = &self.text[span.0..left_end];
            // `x as u8 < y` would read `<` as the start of generic arguments.
            let left = if matches!(*e.left, Expr::Cast(_)) && to.starts_with('<') {
                format!("({left})")
            } else {
                left.to_string()
            };
            let replacement = format!(
                "{left}{}{to}{}",
                &self.text[left_end..op_at],
                &self.text[op_at + op_text.len()..span.1]
            );
            self.push(operator, span, replacement, &format!("replace `{op_text}` with `{to}`"));
        }
        visit::visit_expr_binary(self, e);
    }

    fn visit_expr_unary(&mut self, e: &'ast syn::ExprUnary) {
        let (operator, sign) = match e.op {
            UnOp::Not(_) => (Operator::DeleteNot, "!"),
            UnOp::Neg(_) => (Operator::DeleteNeg, "-"),
            _ => return visit::visit_expr_unary(self, e),
        };
        let span = self.range(e);
        let operand = self.range(&*e.expr);
        let replacement = self.text[operand.0..operand.1].to_string();
        self.push(operator, span, replacement, &format!("delete `{sign}`"));
        visit::visit_expr_unary(self, e);
    }

    fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
        self.negate(&e.cond, "if");
        visit::visit_expr_if(self, e);
    }

    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        self.negate(&e.cond, "while");
        visit::visit_expr_while(self, e);
    }

    fn visit_expr_lit(&mut self, e: &'ast syn::ExprLit) {
        let syn::Lit::Int(lit) = &e.lit else { return };
        let span = self.range(lit);
        for (operator, replacement) in int_steps(lit) {
            let what = format!("replace `{}` with `{replacement}`", &self.text[span.0..span.1]);
            self.push(operator, span, replacement, &what);
        }
    }

    fn visit_expr_match(&mut self, e: &'ast syn::ExprMatch) {
        let catch_all = |a: &syn::Arm| a.guard.is_none() && is_catch_all(&a.pat);
        if e.arms.iter().any(catch_all) {
            for arm in e.arms.iter().filter(|a| !catch_all(a)) {
                let span = whole_lines(self.text, self.range(arm));
                let pat = self.range(&arm.pat);
                let pat = short(&self.text[pat.0..pat.1]);
                let what = format!("delete the match arm `{pat}`");
                self.push(Operator::DeleteMatchArm, span, String::new(), &what);
            }
        }
        visit::visit_expr_match(self, e);
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        if let Some((_, guard)) = &arm.guard {
            let span = self.range(&**guard);
            let text = self.text;
            let written = &text[span.0..span.1];
            for value in ["true", "false"] {
                if written != value {
                    let what = format!("replace the match guard with `{value}`");
                    self.push(Operator::MatchArmGuard, span, value.to_string(), &what);
                }
            }
        }
        visit::visit_arm(self, arm);
    }

    fn visit_expr_call(&mut self, e: &'ast syn::ExprCall) {
        if let Expr::Path(p) = &*e.func {
            if p.path.segments.last().is_some_and(|s| self.skipped_call(&s.ident)) {
                return;
            }
        }
        visit::visit_expr_call(self, e);
    }

    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        if !self.skipped_call(&e.method) {
            visit::visit_expr_method_call(self, e);
        }
    }

    fn visit_expr_repeat(&mut self, e: &'ast syn::ExprRepeat) {
        // The length is a constant context.
        self.visit_expr(&e.expr);
    }

    fn visit_expr_const(&mut self, _: &'ast syn::ExprConst) {}
    fn visit_item(&mut self, _: &'ast Item) {}
    fn visit_pat(&mut self, _: &'ast Pat) {}
    fn visit_type(&mut self, _: &'ast Type) {}
    fn visit_generic_argument(&mut self, _: &'ast syn::GenericArgument) {}
    fn visit_attribute(&mut self, _: &'ast Attribute) {}
    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
}

/// The replacement operator for a binary operator, and its genre.
fn swap(op: &BinOp) -> Option<(&'static str, Operator)> {
    use Operator::{BinaryOperator as B, ComparisonBoundary as C};
    Some(match op {
        BinOp::Add(_) => ("-", B),
        BinOp::Sub(_) => ("+", B),
        BinOp::Mul(_) => ("/", B),
        BinOp::Div(_) => ("*", B),
        BinOp::Rem(_) => ("/", B),
        BinOp::And(_) => ("||", B),
        BinOp::Or(_) => ("&&", B),
        BinOp::BitXor(_) => ("&", B),
        BinOp::BitAnd(_) => ("|", B),
        BinOp::BitOr(_) => ("&", B),
        BinOp::Shl(_) => (">>", B),
        BinOp::Shr(_) => ("<<", B),
        BinOp::Eq(_) => ("!=", B),
        BinOp::Ne(_) => ("==", B),
        BinOp::Lt(_) => ("<=", C),
        BinOp::Le(_) => ("<", C),
        BinOp::Gt(_) => (">=", C),
        BinOp::Ge(_) => (">", C),
        BinOp::AddAssign(_) => ("-=", B),
        BinOp::SubAssign(_) => ("+=", B),
        BinOp::MulAssign(_) => ("/=", B),
        BinOp::DivAssign(_) => ("*=", B),
        BinOp::RemAssign(_) => ("/=", B),
        BinOp::BitXorAssign(_) => ("&=", B),
        BinOp::BitAndAssign(_) => ("|=", B),
        BinOp::BitOrAssign(_) => ("&=", B),
        BinOp::ShlAssign(_) => (">>=", B),
        BinOp::ShrAssign(_) => ("<<=", B),
        _ => return None,
    })
}

/// `n + 1` and `n - 1` for an integer literal, in its radix and with its suffix; no `-1` from
/// `0`, and nothing past the suffix type's maximum.
fn int_steps(lit: &syn::LitInt) -> Vec<(Operator, String)> {
    let Ok(n) = lit.base10_parse::<u128>() else { return Vec::new() };
    let written = lit.to_string().to_ascii_lowercase();
    let suffix = lit.suffix();
    let max = match suffix {
        "u8" => u128::from(u8::MAX),
        "i8" => i8::MAX as u128,
        "u16" => u128::from(u16::MAX),
        "i16" => i16::MAX as u128,
        "u32" => u128::from(u32::MAX),
        "i32" => i32::MAX as u128,
        "u64" | "usize" => u128::from(u64::MAX),
        "i64" | "isize" => i64::MAX as u128,
        "i128" => i128::MAX as u128,
        _ => u128::MAX,
    };
    let render = |v: u128| {
        let digits = if written.starts_with("0x") {
            format!("0x{v:x}")
        } else if written.starts_with("0o") {
            format!("0o{v:o}")
        } else if written.starts_with("0b") {
            format!("0b{v:b}")
        } else {
            v.to_string()
        };
        format!("{digits}{suffix}")
    };
    let mut out = Vec::new();
    if let Some(up) = n.checked_add(1).filter(|&v| v <= max) {
        out.push((Operator::ConstantPlusOne, render(up)));
    }
    if n > 0 {
        out.push((Operator::ConstantMinusOne, render(n - 1)));
    }
    out
}

/// Values of a return type, cargo-mutants style; `None` when there is no sensible one
/// (`impl Trait`, references other than `&str`, `char`, pointers, `!`).
fn values(ty: &Type) -> Option<Vec<String>> {
    let all = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect());
    match ty {
        Type::Paren(p) => values(&p.elem),
        Type::Group(g) => values(&g.elem),
        Type::Tuple(t) if t.elems.is_empty() => all(&["()"]),
        Type::Tuple(t) => {
            let firsts: Option<Vec<String>> =
                t.elems.iter().map(|e| values(e)?.into_iter().next()).collect();
            let firsts = firsts?;
            let comma = if firsts.len() == 1 { "," } else { "" };
            Some(vec![format!("({}{comma})", firsts.join(", "))])
        }
        Type::Reference(r) => match &*r.elem {
            Type::Path(p) if p.path.is_ident("str") => all(&["\"\"", "\"xyzzy\""]),
            _ => None,
        },
        Type::Array(_) => all(&["Default::default()"]),
        Type::Path(p) if p.qself.is_none() => {
            let seg = p.path.segments.last()?;
            let arg = match &seg.arguments {
                syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                }),
                _ => None,
            };
            let wrap = |f: &dyn Fn(&str) -> String| -> Option<Vec<String>> {
                Some(values(arg?)?.iter().map(|v| f(v)).collect())
            };
            match seg.ident.to_string().as_str() {
                "bool" => all(&["true", "false"]),
                "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => all(&["0", "1"]),
                "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => all(&["0", "1", "-1"]),
                "f32" | "f64" => all(&["0.0", "1.0", "-1.0"]),
                "String" => all(&["String::new()", "\"xyzzy\".into()"]),
                "char" | "str" => None,
                "Option" => {
                    let mut v = vec!["None".to_string()];
                    v.extend(wrap(&|x| format!("Some({x})")).unwrap_or_default());
                    Some(v)
                }
                // A bare `Result` is `fmt::Result` or an alias of it, most often.
                "Result" if arg.is_none() => all(&["Ok(())"]),
                "Result" => wrap(&|x| format!("Ok({x})")),
                "Vec" => {
                    let mut v = vec!["vec![]".to_string()];
                    v.extend(wrap(&|x| format!("vec![{x}]")).unwrap_or_default());
                    Some(v)
                }
                name @ ("Box" | "Rc" | "Arc") => wrap(&|x| format!("{name}::new({x})")),
                _ => all(&["Default::default()"]),
            }
        }
        _ => None,
    }
}

/// Whether a condition binds (`if let`, let chains).
fn has_let(e: &Expr) -> bool {
    match e {
        Expr::Let(_) => true,
        Expr::Binary(b) => has_let(&b.left) || has_let(&b.right),
        Expr::Paren(p) => has_let(&p.expr),
        _ => false,
    }
}

/// `_`, or a binding that matches anything (`other`, `ref x`); not `None` or a constant.
fn is_catch_all(p: &Pat) -> bool {
    match p {
        Pat::Wild(_) => true,
        Pat::Ident(id) => {
            id.subpat.is_none()
                && id.ident.to_string().starts_with(|c: char| c == '_' || c.is_lowercase())
        }
        _ => false,
    }
}

/// Widens a range to whole lines when nothing else shares them, so a deleted arm leaves no
/// blank line behind.
fn whole_lines(text: &str, (start, end): (usize, usize)) -> (usize, usize) {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    if text[line_start..start].trim().is_empty() && text[end..line_end].trim().is_empty() {
        (line_start, line_end)
    } else {
        (start, end)
    }
}

/// Source text on one line, cut to 40 characters, for descriptions.
fn short(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 40 {
        format!("{}…", one.chars().take(39).collect::<String>())
    } else {
        one
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte range of the function item named `name` (free, in an impl or a trait).
    fn fn_range(text: &str, name: &str) -> (usize, usize) {
        let ast = syn::parse_file(text).unwrap();
        let mut fns = Vec::new();
        collect(&ast.items, &mut Vec::new(), &mut fns);
        let f = fns.iter().find(|f| f.sig.ident == name).unwrap();
        let lines = Lines::new(text);
        (lines.offset(text, f.span.start()), lines.offset(text, f.span.end()))
    }

    fn mutants(text: &str, name: &str) -> Vec<Mutant> {
        mutants_with(text, name, &SkipRules::default())
    }

    fn mutants_with(text: &str, name: &str, rules: &SkipRules) -> Vec<Mutant> {
        mutants_of(text, Path::new("src/date.rs"), name, fn_range(text, name), rules)
    }

    fn triples(ms: &[Mutant]) -> Vec<(Operator, &str, &str)> {
        ms.iter().map(|m| (m.operator, m.original.as_str(), m.replacement.as_str())).collect()
    }

    /// Every mutant applies, parses, and stays inside the function body.
    fn check_well_formed(text: &str, name: &str, ms: &[Mutant]) {
        let ast = syn::parse_file(text).unwrap();
        let mut fns = Vec::new();
        collect(&ast.items, &mut Vec::new(), &mut fns);
        let f = fns.iter().find(|f| f.sig.ident == name).unwrap();
        let lines = Lines::new(text);
        let body = f.block.span();
        let (lo, hi) = (lines.offset(text, body.start()), lines.offset(text, body.end()));
        for m in ms {
            assert!(lo <= m.span.0 && m.span.1 <= hi, "{m:?} leaves the body {lo}..{hi}");
            assert_eq!(&text[m.span.0..m.span.1], m.original);
            let mutated = m.apply(text);
            assert_ne!(mutated, text, "{m:?} changes nothing");
            syn::parse_file(&mutated).unwrap_or_else(|e| panic!("{m:?} does not parse: {e}"));
            if m.switchable && m.operator != Operator::ReplaceBody {
                syn::parse_str::<Expr>(&m.original).unwrap();
                syn::parse_str::<Expr>(&m.replacement).unwrap();
            }
        }
    }

    const DATE: &str = r#"//! Dates.

/// The day after.
pub fn next_date(year: i32, month: u32, day: u32) -> Result<(i32, u32, u32), String> {
    let len = days_in_month(year, month)?;
    if day == 0 || day > len {
        return Err(format!("invalid day {day} for {year}-{month:02}"));
    }
    if day < len {
        Ok((year, month, day + 1))
    } else if month < 12 {
        Ok((year, month + 1, 1))
    } else {
        Ok((year + 1, 1, 1))
    }
}

fn days_in_month(_y: i32, _m: u32) -> Result<u32, String> {
    Ok(30)
}
"#;

    #[test]
    fn a_small_function_gets_exactly_these_mutants() {
        let text = "fn clamp(x: i32) -> i32 {\n    if x < 0 { 0 } else if !(x > 100) { x } else { -x }\n}\n";
        let ms = mutants(text, "clamp");
        let body = "{\n    if x < 0 { 0 } else if !(x > 100) { x } else { -x }\n}";
        use Operator::*;
        assert_eq!(
            triples(&ms),
            [
                (ReplaceBody, body, "{ 0 }"),
                (ReplaceBody, body, "{ 1 }"),
                (ReplaceBody, body, "{ -1 }"),
                (ComparisonBoundary, "x < 0", "x <= 0"),
                (NegateCondition, "x < 0", "!(x < 0)"),
                (ConstantPlusOne, "0", "1"),
                (ConstantPlusOne, "0", "1"),
                (DeleteNot, "!(x > 100)", "(x > 100)"),
                (ComparisonBoundary, "x > 100", "x >= 100"),
                (ConstantPlusOne, "100", "101"),
                (ConstantMinusOne, "100", "99"),
                (DeleteNeg, "-x", "x"),
            ]
        );
        let descriptions: Vec<&str> = ms.iter().map(|m| m.description.as_str()).collect();
        assert_eq!(descriptions[0], "replace the body with `0`");
        assert_eq!(descriptions[3], "replace `<` with `<=`");
        assert_eq!(descriptions[4], "negate the `if` condition");
        assert_eq!(descriptions[7], "delete `!`");
        assert!(ms.iter().all(|m| m.switchable && m.origin == Origin::Rules));
        assert!(ms.iter().all(|m| m.function == "clamp" && m.file == Path::new("src/date.rs")));
        assert_eq!((ms[3].line, ms[3].column), (2, 8));
        check_well_formed(text, "clamp", &ms);
    }

    #[test]
    fn next_date_gets_boundary_arithmetic_and_body_mutants_inside_its_body() {
        let ms = mutants(DATE, "next_date");
        check_well_formed(DATE, "next_date", &ms);
        let t = triples(&ms);
        use Operator::*;
        for want in [
            (ReplaceBody, "Ok((0, 0, 0))"),
            (BinaryOperator, "day != 0"),
            (BinaryOperator, "day == 0 && day > len"),
            (ComparisonBoundary, "day >= len"),
            (ComparisonBoundary, "day <= len"),
            (ComparisonBoundary, "month <= 12"),
            (BinaryOperator, "day - 1"),
            (BinaryOperator, "month - 1"),
            (BinaryOperator, "year - 1"),
            (ConstantPlusOne, "13"),
            (ConstantMinusOne, "11"),
            (NegateCondition, "!(day < len)"),
        ] {
            let hit = t.iter().any(|(op, _, r)| *op == want.0 && r.contains(want.1));
            assert!(hit, "missing {want:?} in {t:#?}");
        }
        // Nothing inside `format!`, nothing in the signature, and `{month:02}` stays.
        assert!(ms
            .iter()
            .all(|m| !m.original.contains("invalid day") || m.operator == ReplaceBody));
        // Results of a tuple: only the first value of each element.
        let bodies: Vec<&str> = ms
            .iter()
            .filter(|m| m.operator == ReplaceBody)
            .map(|m| m.description.as_str())
            .collect();
        assert_eq!(bodies, ["replace the body with `Ok((0, 0, 0))`"]);
    }

    #[test]
    fn a_method_in_an_impl_is_mutated_like_a_free_function() {
        let text = "struct C { n: u32 }\nimpl C {\n    /// Bumps.\n    pub fn bump(&mut self, by: u32) -> u32 {\n        self.n += by;\n        self.n\n    }\n}\n";
        let ms = mutants_of(
            text,
            Path::new("src/c.rs"),
            "C::bump",
            fn_range(text, "bump"),
            &SkipRules::default(),
        );
        use Operator::*;
        let body = "{\n        self.n += by;\n        self.n\n    }";
        assert_eq!(
            triples(&ms),
            [
                (ReplaceBody, body, "{ 0 }"),
                (ReplaceBody, body, "{ 1 }"),
                (BinaryOperator, "self.n += by", "self.n -= by"),
            ]
        );
        assert_eq!(ms[2].function, "C::bump");
        check_well_formed(text, "bump", &ms);
    }

    #[test]
    fn match_arms_are_deleted_only_when_a_wildcard_catches_them() {
        let text = r#"fn name(n: u8) -> &'static str {
    match n {
        1 => "one",
        2 if n > 1 => "two",
        _ => "many",
    }
}

fn exact(b: bool) -> u8 {
    match b {
        true => 1,
        false => 0,
    }
}

fn bound(o: Option<u8>) -> u8 {
    match o {
        Some(x) => x,
        other => other.map_or(0, |v| v),
    }
}
"#;
        let ms = mutants(text, "name");
        check_well_formed(text, "name", &ms);
        let arms: Vec<&Mutant> =
            ms.iter().filter(|m| m.operator == Operator::DeleteMatchArm).collect();
        assert_eq!(arms.len(), 2);
        assert_eq!(arms[0].original, "        1 => \"one\",\n");
        assert_eq!(arms[0].replacement, "");
        assert_eq!(arms[0].description, "delete the match arm `1`");
        assert!(!arms[0].switchable);
        let guards: Vec<&str> = ms
            .iter()
            .filter(|m| m.operator == Operator::MatchArmGuard)
            .map(|m| m.replacement.as_str())
            .collect();
        assert_eq!(guards, ["true", "false"]);
        // The literal in a pattern is never a constant to shift; the one in the guard is.
        let consts: Vec<&str> = ms
            .iter()
            .filter(|m| m.operator == Operator::ConstantPlusOne)
            .map(|m| &text[m.span.0 - 4..m.span.1])
            .collect();
        assert_eq!(consts, ["n > 1"]);
        assert!(mutants(text, "exact").iter().all(|m| m.operator != Operator::DeleteMatchArm));
        let bound = mutants(text, "bound");
        check_well_formed(text, "bound", &bound);
        let bound: Vec<&str> = bound
            .iter()
            .filter(|m| m.operator == Operator::DeleteMatchArm)
            .map(|m| m.original.trim())
            .collect();
        assert_eq!(bound, ["Some(x) => x,"]);
    }

    #[test]
    fn nothing_inside_debug_assert_or_with_capacity_is_mutated() {
        let text = "fn fill(n: usize) -> Vec<u8> {\n    debug_assert!(n > 0 && n < 10);\n    let mut v = Vec::with_capacity(n + 1);\n    let w: Vec<u8> = Vec::new().with_capacity(n * 2);\n    v.push((n - 1) as u8);\n    v\n}\n";
        let ms = mutants(text, "fill");
        check_well_formed(text, "fill", &ms);
        let line_of = |m: &Mutant| text[..m.span.0].matches('\n').count() + 1;
        assert!(
            ms.iter().all(|m| m.operator == Operator::ReplaceBody || line_of(m) == 5),
            "{ms:#?}"
        );
        assert_eq!(
            triples(&ms).into_iter().skip(3).collect::<Vec<_>>(),
            [
                (Operator::BinaryOperator, "n - 1", "n + 1"),
                (Operator::ConstantPlusOne, "1", "2"),
                (Operator::ConstantMinusOne, "1", "0"),
            ]
        );
        // Without the default, `with_capacity` arguments are fair game.
        let rules = SkipRules { exclude_re: Vec::new(), skip_calls: Vec::new() };
        assert!(mutants_with(text, "fill", &rules).iter().any(|m| m.original == "n + 1"));
    }

    #[test]
    fn ids_do_not_change_when_lines_are_inserted_above_or_the_doc_changes() {
        let before = mutants(DATE, "next_date");
        let shifted = DATE.replace(
            "/// The day after.",
            "use std::fmt;\n\n/// The day after,\n/// rolling over.",
        );
        let after = mutants(&shifted, "next_date");
        assert_eq!(before.len(), after.len());
        for (a, b) in before.iter().zip(&after) {
            assert_eq!(a.id, b.id);
            assert_eq!(b.line, a.line + 3);
            assert_ne!(a.span, b.span);
        }
        let mut ids: Vec<&str> = before.iter().map(|m| m.id.as_str()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), before.len(), "ids are unique");
    }

    #[test]
    fn skip_attributes_comments_and_fmt_methods_suppress_a_function() {
        let text = r#"#[mutants::skip]
fn a(x: u8) -> u8 { x + 1 }

#[cfg_attr(test, mutants::skip)]
fn b(x: u8) -> u8 { x + 1 }

// Too noisy to mutate.
// abex: skip
fn c(x: u8) -> u8 { x + 1 }

/// Doc.
// abex: skip (only logging)
#[inline]
fn d(x: u8) -> u8 { x + 1 }

#[mutants::skip]
impl S {
    fn e(&self, x: u8) -> u8 { x + 1 }
}

impl std::fmt::Display for S {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", 1 + 1)?;
        if true { Ok(()) } else { Ok(()) }
    }
}

// abex: skip

fn g(x: u8) -> u8 { x + 1 }
"#;
        for name in ["a", "b", "c", "d", "e", "fmt"] {
            assert_eq!(mutants(text, name), [], "{name}");
        }
        // A blank line between the comment and the function breaks the link.
        assert!(!mutants(text, "g").is_empty());
    }

    #[test]
    fn exclude_re_suppresses_by_description_or_function() {
        let rules = |p: &str| SkipRules { exclude_re: vec![p.to_string()], ..SkipRules::default() };
        let all = mutants(DATE, "next_date");
        let no_body = mutants_with(DATE, "next_date", &rules("replace the body"));
        assert_eq!(no_body.len(), all.len() - 1);
        assert!(no_body.iter().all(|m| m.operator != Operator::ReplaceBody));
        let no_lt = mutants_with(DATE, "next_date", &rules("^src/date\\.rs: replace `<` with"));
        assert_eq!(no_lt.len(), all.len() - 2);
        assert!(mutants_with(DATE, "next_date", &rules("next_date$")).is_empty());
        assert!(
            mutants_with(DATE, "next_date", &rules(":10:\\d+: .* in next_date")).len() < all.len()
        );
        // `#[mutants::exclude_re]` on the function works the same way.
        let attr = DATE.replace(
            "pub fn next_date",
            "#[mutants::exclude_re(\"replace the body\")]\npub fn next_date",
        );
        assert_eq!(mutants(&attr, "next_date").len(), all.len() - 1);
    }

    #[test]
    fn apply_and_diff_show_one_hunk() {
        let ms = mutants(DATE, "next_date");
        let m = ms.iter().find(|m| m.replacement == "month <= 12").unwrap();
        let mutated = m.apply(DATE);
        assert!(mutated.contains("} else if month <= 12 {"));
        assert_eq!(
            m.diff(DATE, "src/date.rs"),
            "--- a/src/date.rs\n+++ b/src/date.rs\n@@ -8,7 +8,7 @@\n     }\n     if day < len {\n         Ok((year, month, day + 1))\n-    } else if month < 12 {\n+    } else if month <= 12 {\n         Ok((year, month + 1, 1))\n     } else {\n         Ok((year + 1, 1, 1))\n"
        );
        assert!(!m.applies_to("fn other() {}"));
        assert_eq!(m.apply("fn other() {}"), "fn other() {}");
    }

    #[test]
    fn nested_items_are_left_alone_but_closures_are_mutated() {
        let text = "fn outer(v: &[u32]) -> u32 {\n    fn helper(x: u32) -> u32 { x * 2 }\n    const K: u32 = 3 + 4;\n    let a = [0u8; 4];\n    v.iter().map(|x| x + 1).sum::<u32>() + helper(a.len() as u32)\n}\n";
        let ms = mutants(text, "outer");
        check_well_formed(text, "outer", &ms);
        let originals: Vec<&str> = ms.iter().skip(2).map(|m| m.original.as_str()).collect();
        for never in ["x * 2", "2", "3 + 4", "3", "4"] {
            assert!(!originals.contains(&never), "{never} in {originals:?}");
        }
        assert!(originals.contains(&"x + 1"));
        assert!(ms.iter().any(|m| m.original == "0u8" && m.replacement == "1u8"));
    }

    #[test]
    fn a_cast_before_a_new_less_than_is_parenthesized() {
        let text = "fn f(i: u8, hi: u128) -> bool {
    i as u128 <= hi && (i as u32 >> 1) > 0
}
";
        let ms = mutants(text, "f");
        check_well_formed(text, "f", &ms);
        let r: Vec<&str> = ms.iter().map(|m| m.replacement.as_str()).collect();
        assert!(r.contains(&"(i as u128) < hi"), "{r:?}");
        assert!(r.contains(&"(i as u32) << 1"), "{r:?}");
    }

    #[test]
    fn the_function_is_found_from_its_whole_lines_and_ambiguity_gives_nothing() {
        let start = DATE.find("/// The day after.").unwrap();
        let end = DATE.find("fn days_in_month").unwrap();
        let ms = mutants_of(
            DATE,
            Path::new("src/date.rs"),
            "next_date",
            (start, end),
            &SkipRules::default(),
        );
        assert_eq!(ms, mutants(DATE, "next_date"));
        let all = mutants_of(
            DATE,
            Path::new("src/date.rs"),
            "next_date",
            (0, DATE.len()),
            &SkipRules::default(),
        );
        assert!(all.is_empty());
    }

    #[test]
    fn return_values_follow_the_type() {
        let cases = [
            ("bool", vec!["true", "false"]),
            ("f64", vec!["0.0", "1.0", "-1.0"]),
            ("String", vec!["String::new()", "\"xyzzy\".into()"]),
            ("&'static str", vec!["\"\"", "\"xyzzy\""]),
            ("Option<u8>", vec!["None", "Some(0)", "Some(1)"]),
            ("Result<(), E>", vec!["Ok(())"]),
            ("Vec<bool>", vec!["vec![]", "vec![true]", "vec![false]"]),
            ("(u8, String)", vec!["(0, String::new())"]),
            ("Box<u8>", vec!["Box::new(0)", "Box::new(1)"]),
            ("HashMap<u8, u8>", vec!["Default::default()"]),
            ("fmt::Result", vec!["Ok(())"]),
        ];
        for (ty, want) in cases {
            let ty: Type = syn::parse_str(ty).unwrap();
            assert_eq!(values(&ty).unwrap(), want);
        }
        for none in ["impl Iterator<Item = u8>", "&[u8]", "&mut S", "char", "!"] {
            assert_eq!(values(&syn::parse_str(none).unwrap()), None, "{none}");
        }
        // A unit function gets an empty body, unless it is empty already.
        let text = "fn log(x: u8) {\n    record(x);\n}\nfn nop() {}\nfn zero() -> u8 { 0 }\n";
        assert_eq!(triples(&mutants(text, "log"))[0].2, "{}");
        assert_eq!(mutants(text, "nop"), []);
        assert_eq!(
            triples(&mutants(text, "zero")).into_iter().map(|t| t.2).collect::<Vec<_>>(),
            ["{ 1 }", "1"]
        );
    }

    #[test]
    fn integer_literals_keep_radix_and_suffix_and_stay_in_range() {
        let steps = |s: &str| -> Vec<String> {
            int_steps(&syn::parse_str::<syn::LitInt>(s).unwrap())
                .into_iter()
                .map(|(_, r)| r)
                .collect()
        };
        assert_eq!(steps("5u32"), ["6u32", "4u32"]);
        assert_eq!(steps("0"), ["1"]);
        assert_eq!(steps("255u8"), ["254u8"]);
        assert_eq!(steps("0xFF"), ["0x100", "0xfe"]);
        assert_eq!(steps("1_000"), ["1001", "999"]);
    }

    #[test]
    fn if_let_and_while_let_are_not_negated_but_while_is() {
        let text = "fn f(mut o: Option<u8>, mut n: u8) {\n    if let Some(x) = o { n = x; }\n    while let Some(_) = o.take() {}\n    while n > 0 { n -= 1; }\n    if o.is_some() && let Some(_) = o {}\n    if o.is_none() {}\n}\n";
        let negated: Vec<(String, String)> = mutants(text, "f")
            .into_iter()
            .filter(|m| m.operator == Operator::NegateCondition)
            .map(|m| (m.original, m.replacement))
            .collect();
        assert_eq!(
            negated,
            [
                ("n > 0".to_string(), "!(n > 0)".to_string()),
                ("o.is_none()".to_string(), "!o.is_none()".to_string())
            ]
        );
    }

    #[test]
    fn load_skip_rules_reads_cargo_mutants_toml() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(load_skip_rules(d.path()), SkipRules::default());
        std::fs::create_dir(d.path().join(".cargo")).unwrap();
        std::fs::write(
            d.path().join(".cargo/mutants.toml"),
            "exclude_re = [\"impl Debug\", \"replace the body\"]\nskip_calls = [\"reserve\"]\ntimeout_multiplier = 2.0\n",
        )
        .unwrap();
        let r = load_skip_rules(d.path());
        assert_eq!(r.exclude_re, ["impl Debug", "replace the body"]);
        assert_eq!(r.skip_calls, ["with_capacity", "reserve"]);
        std::fs::write(d.path().join(".cargo/mutants.toml"), "skip_calls_defaults = false\n")
            .unwrap();
        assert!(load_skip_rules(d.path()).skip_calls.is_empty());
    }
}
