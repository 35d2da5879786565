//! The mutation operators: a walk of one function body (never its signature) that makes the
//! cargo-mutants genres of mutants, each with every replacement cargo-mutants 27 makes (so abex's
//! mutants are a superset of its list) and abex's own besides (comparison boundaries both ways,
//! negated conditions, integer constants ± 1), skipping macro invocations, patterns, types,
//! attributes, constant contexts, nested items and the calls named in `skip_calls`.

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Attribute, BinOp, Block, Expr, Item, Pat, ReturnType, Signature, Type, UnOp};

use super::items::tidy;
use super::values::values;
use crate::mutate::Lines;
use crate::mutate::{whole_lines, Operator};

/// What cargo-mutants calls the same mutant, when it makes it: where its span starts (a byte
/// offset) and how its name reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Peer {
    /// A mutant cargo-mutants does not make.
    None,
    /// `replace > with == in FUNCTION` (the text before ` in FUNCTION`), starting at the byte.
    Change(usize, String),
    /// `replace FUNCTION -> T with VALUE` (the value), starting at the byte.
    Value(usize, String),
}

/// A mutant before it gets its id and location.
pub(super) struct Raw {
    pub(super) operator: Operator,
    pub(super) span: (usize, usize),
    pub(super) replacement: String,
    pub(super) description: String,
    pub(super) peer: Peer,
    /// Whether it can be switched beside the function's other mutants (see
    /// [`crate::mutate::Mutant::switchable`]).
    pub(super) switchable: bool,
}

/// Walks a function body and collects its mutants.
pub(super) struct Gen<'a> {
    pub(super) text: &'a str,
    pub(super) lines: &'a Lines,
    pub(super) skip_calls: &'a [String],
    pub(super) raw: Vec<Raw>,
    /// Where the expression about to be visited is an operand of a binary operator written
    /// without parentheses: that operator's precedence, and whether it is the right operand.
    pub(super) operand: Option<(u8, bool)>,
}

impl Gen<'_> {
    fn range(&self, node: &impl Spanned) -> (usize, usize) {
        let s = node.span();
        (self.lines.offset(self.text, s.start()), self.lines.offset(self.text, s.end()))
    }

    fn push(
        &mut self,
        operator: Operator,
        span: (usize, usize),
        replacement: String,
        what: &str,
        peer: Peer,
    ) {
        let description = what.to_string();
        self.raw.push(Raw { operator, span, replacement, description, peer, switchable: true });
    }

    /// Replace the whole body by a value of the return type (cargo-mutants' FnValue).
    pub(super) fn replace_body(&mut self, sig: &Signature, block: &Block) {
        let span = self.range(block);
        let at = block.stmts.first().map_or(span.0, |s| self.range(s).0);
        let written = block.to_token_stream().to_string();
        let values = match &sig.output {
            ReturnType::Default => vec!["()".to_string()],
            ReturnType::Type(_, ty) => values(ty),
        };
        // A switch returns the value beside the body it replaces, and an `impl Trait` stands
        // for one type: a value of another (`::std::iter::empty()` for a `Filter`) is built
        // alone, and the function's other mutants stay switched (textwrap 0.16.1's
        // `Word::break_apart`: its 28 mutants, its self-check among them, were built alone).
        let opaque = match &sig.output {
            ReturnType::Default => false,
            ReturnType::Type(_, ty) => ty.to_token_stream().into_iter().any(|t| holds_impl(&t)),
        };
        for v in values {
            let replacement = if v == "()" { "{}".to_string() } else { format!("{{ {v} }}") };
            let same = syn::parse_str::<Block>(&replacement)
                .is_ok_and(|b| b.to_token_stream().to_string() == written);
            if same || (v == "()" && block.stmts.is_empty()) {
                continue;
            }
            let peer = Peer::Value(at, v.clone());
            let what = format!("replace the body with `{v}`");
            self.push(Operator::ReplaceBody, span, replacement, &what, peer);
            if let Some(r) = self.raw.last_mut().filter(|_| opaque) {
                r.switchable = false;
            }
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
        self.push(Operator::NegateCondition, span, replacement, &what, Peer::None);
    }

    fn skipped_call(&self, name: &syn::Ident) -> bool {
        self.skip_calls.iter().any(|c| name == c)
    }

    /// Deletes each named field of a struct literal that has a base (`..Default::default()`),
    /// as cargo-mutants' StructField genre does; the whole literal is the span, so the mutant
    /// is an expression of the same type and can be switched.
    fn delete_fields(&mut self, e: &syn::ExprStruct) {
        if e.rest.is_none() {
            return;
        }
        let span = self.range(e);
        let name = tidy(&e.path);
        for pair in e.fields.pairs() {
            let syn::Member::Named(field) = &pair.value().member else { continue };
            let (start, mut end) = self.range(*pair.value());
            if let Some(comma) = pair.punct() {
                end = self.range(*comma).1;
            }
            // The whitespace after the deleted field goes with it.
            let rest = &self.text[end..span.1];
            let skip = rest.len() - rest.trim_start().len();
            let replacement =
                format!("{}{}", &self.text[span.0..start], &self.text[end + skip..span.1]);
            let what = format!("delete the field `{field}` from the `{name}` literal");
            let peer =
                Peer::Change(start, format!("delete field {field} from struct {name} expression"));
            self.push(Operator::DeleteStructField, span, replacement, &what, peer);
        }
    }

    /// The swaps of binary operator `e` (`operand`: where it stands, see [`Gen::operand`]),
    /// then its operands. A swap to an operator that binds less tightly than its place needs is
    /// written in parentheses: the switched build holds it as one expression, and the diff a
    /// person reads (and a mutant built alone) must mean the same. ipnet 2.10.1's
    /// `self.prefix_len > 0 && self.prefix_len == other.prefix_len && …`, its first `&&` made
    /// `||`: the switch tested `(a || b) && c`, which its doc-tests let through, and the diff
    /// read `a || b && c`, which they kill.
    fn binary(&mut self, e: &syn::ExprBinary, operand: Option<(u8, bool)>) {
        let span = self.range(e);
        let op_text = e.op.to_token_stream().to_string();
        let op_at = self.range(&e.op).0;
        let holds = self.text.get(op_at..op_at + op_text.len()) == Some(op_text.as_str());
        for (to, operator, peer) in swaps(&e.op).into_iter().filter(|_| holds) {
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
            let loose = operand.is_some_and(|(outer, right)| {
                let to = precedence_of(to);
                to < outer || (right && to == outer)
            });
            let replacement = if loose { format!("({replacement})") } else { replacement };
            let what = format!("replace `{op_text}` with `{to}`");
            let peer = if peer {
                Peer::Change(op_at, format!("replace {op_text} with {to}"))
            } else {
                Peer::None
            };
            self.push(operator, span, replacement, &what, peer);
        }
        let outer = precedence(&e.op);
        self.operand = Some((outer, false));
        self.visit_expr(&e.left);
        self.operand = Some((outer, true));
        self.visit_expr(&e.right);
    }
}

impl<'ast> Visit<'ast> for Gen<'_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        // Only a binary operand's own node reads where it stands; what it holds does not.
        let operand = self.operand.take();
        match e {
            Expr::Binary(b) => self.binary(b, operand),
            _ => visit::visit_expr(self, e),
        }
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
        let peer = Peer::Change(span.0, format!("delete {sign}"));
        self.push(operator, span, replacement, &format!("delete `{sign}`"), peer);
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
            self.push(operator, span, replacement, &what, Peer::None);
        }
    }

    fn visit_expr_match(&mut self, e: &'ast syn::ExprMatch) {
        let catch_all = |a: &syn::Arm| a.guard.is_none() && is_catch_all(&a.pat);
        if e.arms.iter().any(catch_all) {
            // cargo-mutants deletes the unguarded arms when a `_` arm catches what they matched.
            let wild = e.arms.iter().any(|a| matches!(a.pat, Pat::Wild(_)));
            for arm in e.arms.iter().filter(|a| !catch_all(a)) {
                let at = self.range(arm);
                let span = whole_lines(self.text, at);
                let pat = self.range(&arm.pat);
                let pat = short(&self.text[pat.0..pat.1]);
                let what = format!("delete the match arm `{pat}`");
                let peer = if wild && arm.guard.is_none() {
                    Peer::Change(at.0, format!("delete match arm {}", tidy(&arm.pat)))
                } else {
                    Peer::None
                };
                self.push(Operator::DeleteMatchArm, span, String::new(), &what, peer);
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
                    let peer = Peer::Change(
                        span.0,
                        format!("replace match guard {} with {value}", squash(written)),
                    );
                    self.push(Operator::MatchArmGuard, span, value.to_string(), &what, peer);
                }
            }
        }
        visit::visit_arm(self, arm);
    }

    fn visit_expr_struct(&mut self, e: &'ast syn::ExprStruct) {
        self.delete_fields(e);
        visit::visit_expr_struct(self, e);
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

/// The replacements of a binary operator, each with its genre and whether cargo-mutants 27
/// makes it too: all of cargo-mutants' (`<` → `==`, `>`, `<=`; `+` → `-`, `*`; …) and abex's
/// own boundary moves (`<=` → `<`, `>=` → `>`).
fn swaps(op: &BinOp) -> Vec<(&'static str, Operator, bool)> {
    use Operator::{BinaryOperator as B, ComparisonBoundary as C};
    let peer = |ops: &[&'static str]| ops.iter().map(|&o| (o, B, true)).collect::<Vec<_>>();
    match op {
        BinOp::Add(_) => peer(&["-", "*"]),
        BinOp::Sub(_) => peer(&["+", "/"]),
        BinOp::Mul(_) => peer(&["+", "/"]),
        BinOp::Div(_) => peer(&["%", "*"]),
        BinOp::Rem(_) => peer(&["/", "+"]),
        BinOp::And(_) => peer(&["||"]),
        BinOp::Or(_) => peer(&["&&"]),
        BinOp::BitXor(_) => peer(&["|", "&"]),
        BinOp::BitAnd(_) => peer(&["|", "^"]),
        BinOp::BitOr(_) => peer(&["&", "^"]),
        BinOp::Shl(_) => peer(&[">>"]),
        BinOp::Shr(_) => peer(&["<<"]),
        BinOp::Eq(_) => peer(&["!="]),
        BinOp::Ne(_) => peer(&["=="]),
        BinOp::Lt(_) => vec![("<=", C, true), ("==", B, true), (">", B, true)],
        BinOp::Gt(_) => vec![(">=", C, true), ("==", B, true), ("<", B, true)],
        BinOp::Le(_) => vec![("<", C, false), (">", B, true)],
        BinOp::Ge(_) => vec![(">", C, false), ("<", B, true)],
        BinOp::AddAssign(_) => peer(&["-=", "*="]),
        BinOp::SubAssign(_) => peer(&["+=", "/="]),
        BinOp::MulAssign(_) => peer(&["+=", "/="]),
        BinOp::DivAssign(_) => peer(&["%=", "*="]),
        BinOp::RemAssign(_) => peer(&["/=", "+="]),
        BinOp::BitXorAssign(_) => peer(&["|=", "&="]),
        BinOp::BitAndAssign(_) => peer(&["|="]),
        BinOp::BitOrAssign(_) => peer(&["&="]),
        BinOp::ShlAssign(_) => peer(&[">>="]),
        BinOp::ShrAssign(_) => peer(&["<<="]),
        _ => Vec::new(),
    }
}

/// How tightly binary operator `op` binds (higher binds tighter), as the Rust reference ranks
/// them; the compound assignments lowest.
fn precedence(op: &BinOp) -> u8 {
    precedence_of(&op.to_token_stream().to_string())
}

/// [`precedence`] of an operator as written.
fn precedence_of(op: &str) -> u8 {
    match op {
        "*" | "/" | "%" => 10,
        "+" | "-" => 9,
        "<<" | ">>" => 8,
        "&" => 7,
        "^" => 6,
        "|" => 5,
        "==" | "!=" | "<" | ">" | "<=" | ">=" => 4,
        "&&" => 3,
        "||" => 2,
        _ => 1,
    }
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

/// Whether a condition binds (`if let`, let chains).
pub(crate) fn has_let(e: &Expr) -> bool {
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

/// Source text on one line, its whitespace runs made one space.
fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Source text on one line, cut to 40 characters, for descriptions.
fn short(text: &str) -> String {
    let one = squash(text);
    if one.chars().count() > 40 {
        format!("{}…", one.chars().take(39).collect::<String>())
    } else {
        one
    }
}

/// Whether `t` is, or holds, the keyword `impl` (a return type such as `impl Iterator<…>` or
/// `Option<impl Fn()>`).
fn holds_impl(t: &proc_macro2::TokenTree) -> bool {
    match t {
        proc_macro2::TokenTree::Ident(i) => i == "impl",
        proc_macro2::TokenTree::Group(g) => g.stream().into_iter().any(|t| holds_impl(&t)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::rust_rules::testing::{check_well_formed, mutants, mutants_with, triples};
    use crate::mutate::rust_rules::SkipRules;
    use crate::mutate::Mutant;

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
        assert!(arms[0].switchable);
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
                (Operator::BinaryOperator, "n - 1", "n / 1"),
                (Operator::ConstantPlusOne, "1", "2"),
                (Operator::ConstantMinusOne, "1", "0"),
            ]
        );
        // Without the default, `with_capacity` arguments are fair game.
        let rules = SkipRules { skip_calls: Vec::new(), ..SkipRules::default() };
        assert!(mutants_with(text, "fill", &rules).iter().any(|m| m.original == "n + 1"));
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
    fn a_swap_that_binds_less_tightly_than_its_place_is_parenthesized() {
        // The switched build holds a mutated operator as one expression: the diff must mean
        // the same (ipnet 2.10.1's `is_sibling`, its first `&&` made `||`).
        let text = "fn f(a: u8, b: u8, c: u8, d: bool) -> bool {
    a > 0 && b == c && d || a - b * c > a * b * c && a + b - c < 3
}
";
        let ms = mutants(text, "f");
        check_well_formed(text, "f", &ms);
        // The replacements of `from` that swap its operator for `to`.
        let swap = |from: &str, to: &str| -> Vec<String> {
            ms.iter()
                .filter(|m| m.original == from && m.description.ends_with(&format!("with `{to}`")))
                .map(|m| m.replacement.clone())
                .collect()
        };
        // The left operand of `&&` made `||`, and of `*` made `+` or `/`: parenthesized where
        // it binds less tightly than the operator it stands under.
        assert_eq!(swap("a > 0 && b == c", "||"), ["(a > 0 || b == c)"]);
        assert_eq!(swap("a * b", "+"), ["(a + b)"]);
        assert_eq!(swap("a * b", "/"), ["a / b"], "as tight, on the left: no parentheses");
        // The right operand of `-` made `+`: `a - (b + c)`, not `a - b + c`.
        assert_eq!(swap("b * c", "+"), ["(b + c)"]);
        // The same precedence on the left reads the same without them.
        assert_eq!(swap("a + b", "-"), ["a - b"]);
        // A whole condition, or an operand of a looser operator, needs none.
        assert_eq!(swap("a > 0 && b == c && d", "||"), ["a > 0 && b == c || d"]);
        assert_eq!(swap("b == c", "!="), ["b != c"]);
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
    fn a_body_of_another_type_is_built_alone_where_the_function_returns_impl_trait() {
        // A switch returns the value beside the body: an `impl Iterator` is one type, so
        // `::std::iter::empty()` beside a `Filter` cannot be switched (textwrap 0.16.1).
        let text = "fn short(s: &str, w: usize) -> impl Iterator<Item = &str> + '_ {\n    s.split(' ').filter(move |x| x.len() <= w)\n}\nfn boxed(w: usize) -> Option<impl Fn(usize) -> bool> {\n    Some(move |x| x <= w)\n}\nfn plain(s: &str, w: usize) -> Vec<&str> {\n    s.split(' ').filter(|x| x.len() <= w).collect()\n}\n";
        for (function, opaque) in [("short", true), ("boxed", true), ("plain", false)] {
            let ms = mutants(text, function);
            check_well_formed(text, function, &ms);
            let bodies: Vec<&Mutant> =
                ms.iter().filter(|m| m.operator == Operator::ReplaceBody).collect();
            assert!(!bodies.is_empty(), "{function}: {ms:#?}");
            assert!(bodies.iter().all(|m| m.switchable != opaque), "{function}: {bodies:#?}");
            // The function's other mutants stay switched.
            let others = ms.iter().filter(|m| m.operator != Operator::ReplaceBody);
            assert!(others.clone().count() > 0 && others.clone().all(|m| m.switchable));
        }
    }

    #[test]
    fn fields_of_a_literal_with_a_base_are_deleted_one_at_a_time() {
        let text = "struct P { a: u8, b: u8, c: u8 }\nfn p(x: u8) -> P {\n    let q = P { a: 1, b: x, ..P::default() };\n    P { c: 2, ..q }\n}\nfn full(x: u8) -> P {\n    P { a: x, b: x, c: x }\n}\n";
        let ms = mutants(text, "p");
        check_well_formed(text, "p", &ms);
        let deleted: Vec<(&str, &str, Option<&str>)> = ms
            .iter()
            .filter(|m| m.operator == Operator::DeleteStructField)
            .map(|m| (m.original.as_str(), m.replacement.as_str(), m.peer_name.as_deref()))
            .collect();
        assert_eq!(
            deleted,
            [
                (
                    "P { a: 1, b: x, ..P::default() }",
                    "P { b: x, ..P::default() }",
                    Some("src/date.rs:3:17: delete field a from struct P expression in p")
                ),
                (
                    "P { a: 1, b: x, ..P::default() }",
                    "P { a: 1, ..P::default() }",
                    Some("src/date.rs:3:23: delete field b from struct P expression in p")
                ),
                (
                    "P { c: 2, ..q }",
                    "P { ..q }",
                    Some("src/date.rs:4:9: delete field c from struct P expression in p")
                ),
            ]
        );
        assert!(ms
            .iter()
            .filter(|m| m.operator == Operator::DeleteStructField)
            .all(|m| m.switchable));
        // Without a base every field is needed: nothing to delete.
        assert!(mutants(text, "full").iter().all(|m| m.operator != Operator::DeleteStructField));
    }

    #[test]
    fn match_arms_and_guards_carry_cargo_mutants_names_only_where_it_makes_them() {
        let text = "fn f(n: u8) -> u8 {\n    match n {\n        1 => 10,\n        2 if n > 1 => 20,\n        _ => 0,\n    }\n}\nfn g(n: u8) -> u8 {\n    match n {\n        1 => 10,\n        other => other,\n    }\n}\n";
        let names = |f: &str| -> Vec<(Operator, Option<String>)> {
            mutants(text, f)
                .into_iter()
                .filter(|m| {
                    matches!(m.operator, Operator::DeleteMatchArm | Operator::MatchArmGuard)
                })
                .map(|m| (m.operator, m.peer_name))
                .collect()
        };
        assert_eq!(
            names("f"),
            [
                (Operator::DeleteMatchArm, Some("src/date.rs:3:9: delete match arm 1 in f".into())),
                (Operator::DeleteMatchArm, None),
                (
                    Operator::MatchArmGuard,
                    Some("src/date.rs:4:14: replace match guard n > 1 with true in f".into())
                ),
                (
                    Operator::MatchArmGuard,
                    Some("src/date.rs:4:14: replace match guard n > 1 with false in f".into())
                ),
            ]
        );
        // A binding catches everything too, but cargo-mutants deletes arms only beside `_`.
        assert_eq!(names("g"), [(Operator::DeleteMatchArm, None)]);
    }
}
