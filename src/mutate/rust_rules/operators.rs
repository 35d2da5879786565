//! The mutation operators: a walk of one function body (never its signature) that makes the
//! cargo-mutants genres of mutants, skipping macro invocations, patterns, types, attributes,
//! constant contexts, nested items and the calls named in `skip_calls`.

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Attribute, BinOp, Block, Expr, Item, Pat, ReturnType, Signature, Type, UnOp};

use super::values::values;
use crate::mutate::Operator;
use crate::rust::source::Lines;

/// A mutant before it gets its id and location.
pub(super) struct Raw {
    pub(super) operator: Operator,
    pub(super) span: (usize, usize),
    pub(super) replacement: String,
    pub(super) description: String,
}

/// Walks a function body and collects its mutants.
pub(super) struct Gen<'a> {
    pub(super) text: &'a str,
    pub(super) lines: &'a Lines,
    pub(super) skip_calls: &'a [String],
    pub(super) raw: Vec<Raw>,
}

impl Gen<'_> {
    fn range(&self, node: &impl Spanned) -> (usize, usize) {
        let s = node.span();
        (self.lines.offset(self.text, s.start()), self.lines.offset(self.text, s.end()))
    }

    fn push(&mut self, operator: Operator, span: (usize, usize), replacement: String, what: &str) {
        let description = what.to_string();
        self.raw.push(Raw { operator, span, replacement, description });
    }

    /// Replace the whole body by a value of the return type (cargo-mutants' FnValue).
    pub(super) fn replace_body(&mut self, sig: &Signature, block: &Block) {
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
}
