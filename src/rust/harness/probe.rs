//! Probes for Rust mutants (weak mutation): where to instrument a function's switched build so
//! that a mutant's worker in probe mode reports, per call, whether the mutated site ran, whether
//! the original and the mutant differed there, how far from that they were, and how far each
//! guard on the way was from leading there (see `runtime/probe.rs` for the calls and the spec).
//!
//! Per mutant, the site's infection is measured where it shows first:
//! - a mutated comparison (`<` → `<=`, `==` → `!=`): its switch arm computes the original's
//!   operator on the same operands beside the mutant's;
//! - a constant, an arithmetic operator or a deleted `-` under a comparison, with only pure
//!   arithmetic (`+ - * / % & | ^ << >>`, unary `-`, casts, parentheses) in between: the
//!   comparison of the original code reports its operands, the operands along the way are
//!   tapped, and the runtime recomputes the original's side from them (each operand is still
//!   evaluated once, by the code itself);
//! - such a site with no comparison above: its own value against the original's;
//! - the default of `x.unwrap_or(k)` (`x` a place: a path or its fields): the runs where `x` is
//!   empty (`None`, `Err`), where the constant is used;
//! - a negated condition, a deleted `!`, a constant outside any comparison: every run infects.
//!
//! Every comparison of a probed function is wrapped (`cmp`), so that the original's worker in
//! trace mode reports the operands of each (the explorer's threshold operator).
//!
//! Other sites (logical operators, assignments, replaced bodies and guards) have no infection
//! probe, only the count of runs. Guards are the conditions of `if`, `while` and match guards
//! that the site sits in, the left operands of the `&&` and `||` whose right operand it sits
//! in, and the conditions of earlier `if`s whose branch leaves the block (`return`, `break`,
//! `continue`, a panic), with the direction that leads to the site.
//!
//! Everything generated compiles to the same behaviour for the code under test: operands are
//! borrowed (comparisons) or moved (arithmetic) exactly as the operators do, and the numbers
//! are read through a trait implemented for the primitive types only.

use std::collections::BTreeMap;

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{BinOp, Block, Expr, Stmt, UnOp};

use crate::mutate::rust_rules::has_let;
use crate::mutate::Lines;
use crate::mutate::{Mutant, Operator};

/// The probe spec (the value of `ABEX_PROBE`) of the original's worker in trace mode.
pub const TRACE_SPEC: &str = r#"{"trace":true}"#;

/// The runtime module, as generated code names it.
const RT: &str = "crate::__abex_harness";

/// What a probe node wraps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A comparison of the original code; `op` is its operator, at `op_span`.
    Cmp {
        /// Its id.
        id: u32,
        /// The operator (`<`, `<=`, …).
        op: &'static str,
        /// The operator's byte range.
        op_span: (usize, usize),
    },
    /// An arithmetic operand whose value the runtime keeps in `slot`.
    Tap {
        /// The slot.
        slot: u32,
    },
    /// A boolean condition (a guard, or a boolean a guard reads).
    Cond {
        /// Its id.
        id: u32,
    },
}

/// One wrapper around a span of the original code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeNode {
    /// The byte range it wraps.
    pub span: (usize, usize),
    /// What it is.
    pub kind: NodeKind,
}

impl ProbeNode {
    /// Nesting order among nodes of the same span: guards outside comparisons outside taps.
    pub fn rank(&self) -> u8 {
        match self.kind {
            NodeKind::Cond { .. } => 1,
            NodeKind::Cmp { .. } => 2,
            NodeKind::Tap { .. } => 3,
        }
    }

    /// The code of this node around the already rendered `inner` text (for a comparison, its
    /// two rendered operands).
    pub fn render(&self, inner: &[String]) -> String {
        match &self.kind {
            NodeKind::Cond { id } => format!("{RT}::cond({id}, ({}))", inner.concat()),
            NodeKind::Tap { slot } => tap_code(*slot, &inner.concat()),
            NodeKind::Cmp { id, op, .. } => {
                let (l, r) = (&inner[0], &inner[1]);
                format!(
                    "(match (&({l}), &({r})) {{ (__abex_a, __abex_b) => {{ let __abex_r = *__abex_a {op} *__abex_b; if {RT}::probing() {{ use {RT}::AbexNum as _; {RT}::cmp({id}, {code}, __abex_r, (&{RT}::N(__abex_a)).abex_num(), (&{RT}::N(__abex_b)).abex_num()); }} __abex_r }} }})",
                    code = op_code(op)
                )
            }
        }
    }
}

fn tap_code(slot: u32, inner: &str) -> String {
    format!(
        "(match ({inner}) {{ __abex_v => {{ if {RT}::probing() {{ use {RT}::AbexNum as _; {RT}::tap({slot}, (&{RT}::N(&__abex_v)).abex_num()); }} __abex_v }} }})"
    )
}

/// The instrumented switch arm of one mutant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arm {
    /// The code that replaces the mutant's replacement text in its arm.
    pub text: String,
    /// Whether every run of the arm infects its site.
    pub infects: bool,
}

/// The probes of one function.
#[derive(Clone, Debug, Default)]
pub struct FnProbes {
    /// Wrappers in the original code.
    pub nodes: Vec<ProbeNode>,
    /// Instrumented arms, by mutant number.
    pub arms: BTreeMap<u32, Arm>,
    /// The spec of each mutant (the value of `ABEX_PROBE` for its worker), by mutant number.
    pub specs: BTreeMap<u32, String>,
}

/// Whether every run of a mutant's arm infects its site, for a mutant without an instrumented
/// arm: a negated condition or a deleted `!` always flips a value.
pub fn always_infects(op: Operator) -> bool {
    matches!(op, Operator::NegateCondition | Operator::DeleteNot)
}

/// The runtime's code of a comparison operator.
fn op_code(op: &str) -> &'static str {
    match op {
        "<" => "b'<'",
        "<=" => "b'l'",
        ">" => "b'>'",
        ">=" => "b'g'",
        "==" => "b'='",
        _ => "b'!'",
    }
}

fn comparison(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Lt(_) => "<",
        BinOp::Le(_) => "<=",
        BinOp::Gt(_) => ">",
        BinOp::Ge(_) => ">=",
        BinOp::Eq(_) => "==",
        BinOp::Ne(_) => "!=",
        _ => return None,
    })
}

fn arithmetic(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add(_) => "+",
        BinOp::Sub(_) => "-",
        BinOp::Mul(_) => "*",
        BinOp::Div(_) => "/",
        BinOp::Rem(_) => "%",
        BinOp::BitAnd(_) => "&",
        BinOp::BitOr(_) => "|",
        BinOp::BitXor(_) => "^",
        BinOp::Shl(_) => "<<",
        BinOp::Shr(_) => ">>",
        _ => return None,
    })
}

const NUMERIC: [&str; 14] = [
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32",
    "f64",
];

/// Every expression of a body with its parent, in source order (nested items, patterns,
/// types, macros and constant contexts left out, as the mutation rules leave them out).
struct Tree<'a> {
    exprs: Vec<(&'a Expr, Option<usize>)>,
    stack: Vec<usize>,
}

impl<'ast> Visit<'ast> for Tree<'ast> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        self.exprs.push((e, self.stack.last().copied()));
        self.stack.push(self.exprs.len() - 1);
        visit::visit_expr(self, e);
        self.stack.pop();
    }
    fn visit_expr_repeat(&mut self, e: &'ast syn::ExprRepeat) {
        self.visit_expr(&e.expr);
    }
    fn visit_expr_const(&mut self, _: &'ast syn::ExprConst) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
    fn visit_pat(&mut self, _: &'ast syn::Pat) {}
    fn visit_type(&mut self, _: &'ast syn::Type) {}
    fn visit_generic_argument(&mut self, _: &'ast syn::GenericArgument) {}
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
}

/// The immediate sub-expressions and blocks of a node.
#[derive(Default)]
struct Children<'a> {
    exprs: Vec<&'a Expr>,
    blocks: Vec<&'a Block>,
}

impl<'ast> Visit<'ast> for Children<'ast> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        self.exprs.push(e);
    }
    fn visit_block(&mut self, b: &'ast Block) {
        self.blocks.push(b);
    }
    fn visit_expr_repeat(&mut self, e: &'ast syn::ExprRepeat) {
        self.exprs.push(&e.expr);
    }
    fn visit_expr_const(&mut self, _: &'ast syn::ExprConst) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
}

/// A guard's condition, as the spec writes it.
enum Cond {
    Cmp(u32),
    Bool(u32),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
}

impl Cond {
    fn json(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            Cond::Cmp(id) => json!({ "c": id }),
            Cond::Bool(id) => json!({ "b": id }),
            Cond::And(x, y) => json!({ "and": [x.json(), y.json()] }),
            Cond::Or(x, y) => json!({ "or": [x.json(), y.json()] }),
            Cond::Not(x) => json!({ "not": x.json() }),
        }
    }
}

/// Builds the probes of one function.
struct Planner<'a> {
    /// The body's offset in its file.
    base: usize,
    lines: Lines,
    body_text: &'a str,
    next: u32,
    nodes: Vec<ProbeNode>,
    /// Guard conditions already wrapped: span → (top id, condition).
    guards: BTreeMap<(usize, usize), u32>,
}

impl<'a> Planner<'a> {
    fn range(&self, s: Span) -> (usize, usize) {
        let (a, b) = (s.start(), s.end());
        (
            self.base + self.lines.offset(self.body_text, a),
            self.base + self.lines.offset(self.body_text, b),
        )
    }

    fn id(&mut self) -> u32 {
        self.next += 1;
        self.next
    }

    /// The node of `kind` at `span`, added once; its id or slot.
    fn node(&mut self, span: (usize, usize), make: impl FnOnce(u32) -> NodeKind) -> u32 {
        let rank = |k: &NodeKind| match k {
            NodeKind::Cond { .. } => 1,
            NodeKind::Cmp { .. } => 2,
            NodeKind::Tap { .. } => 3,
        };
        let id = self.id();
        let kind = make(id);
        if let Some(n) = self.nodes.iter().find(|n| n.span == span && rank(&n.kind) == rank(&kind))
        {
            self.next -= 1;
            return match n.kind {
                NodeKind::Cond { id } | NodeKind::Cmp { id, .. } | NodeKind::Tap { slot: id } => id,
            };
        }
        self.nodes.push(ProbeNode { span, kind });
        id
    }

    fn cmp_node(&mut self, e: &syn::ExprBinary) -> Option<u32> {
        let op = comparison(&e.op)?;
        let span = self.range(e.span());
        let op_span = self.range(e.op.span());
        Some(self.node(span, |id| NodeKind::Cmp { id, op, op_span }))
    }

    /// A guard condition as atoms of comparisons and booleans, their nodes added.
    fn cond(&mut self, e: &Expr, top: u32) -> Cond {
        match e {
            Expr::Paren(p) => self.cond(&p.expr, top),
            Expr::Group(g) => self.cond(&g.expr, top),
            Expr::Unary(u) if matches!(u.op, UnOp::Not(_)) => {
                Cond::Not(Box::new(self.cond(&u.expr, top)))
            }
            Expr::Binary(b) if matches!(b.op, BinOp::And(_) | BinOp::Or(_)) => {
                let (x, y) =
                    (Box::new(self.cond(&b.left, top)), Box::new(self.cond(&b.right, top)));
                if matches!(b.op, BinOp::And(_)) {
                    Cond::And(x, y)
                } else {
                    Cond::Or(x, y)
                }
            }
            Expr::Binary(b) if comparison(&b.op).is_some() => {
                Cond::Cmp(self.cmp_node(b).unwrap_or_default())
            }
            other => {
                let span = self.range(other.span());
                if self.guards.get(&span) == Some(&top) {
                    return Cond::Bool(top);
                }
                Cond::Bool(self.node(span, |id| NodeKind::Cond { id }))
            }
        }
    }

    /// A guard on `e` wanting `want`, as spec JSON (nodes added).
    fn guard(&mut self, e: &Expr, want: bool) -> Option<serde_json::Value> {
        if has_let(e) {
            return None;
        }
        let span = self.range(e.span());
        let top = match self.guards.get(&span) {
            Some(&top) => top,
            None => {
                let top = self.node(span, |id| NodeKind::Cond { id });
                self.guards.insert(span, top);
                top
            }
        };
        let cond = self.cond(e, top);
        Some(serde_json::json!({ "top": top, "want": want, "cond": cond.json() }))
    }

    /// The guards on the way from `block` to the site at `site`, in source order.
    fn guards_in_block(
        &mut self,
        block: &Block,
        site: (usize, usize),
        out: &mut Vec<serde_json::Value>,
    ) {
        for stmt in &block.stmts {
            let span = self.range(stmt.span());
            if span.0 <= site.0 && site.1 <= span.1 {
                match stmt {
                    Stmt::Local(l) => {
                        if let Some(init) = &l.init {
                            self.guards_in_expr(&init.expr, site, out);
                            if let Some((_, e)) = &init.diverge {
                                self.guards_in_expr(e, site, out);
                            }
                        }
                    }
                    Stmt::Expr(e, _) => self.guards_in_expr(e, site, out),
                    _ => {}
                }
                return;
            }
            if span.1 <= site.0 {
                if let Stmt::Expr(Expr::If(e), _) = stmt {
                    self.leaving_if(e, out);
                }
            }
        }
    }

    /// Guards from an earlier `if` (chain) whose branches leave the block.
    fn leaving_if(&mut self, e: &syn::ExprIf, out: &mut Vec<serde_json::Value>) {
        let mut at = e;
        let mut first = true;
        loop {
            let leaves = diverges(&at.then_branch);
            match &at.else_branch {
                None => {
                    if leaves {
                        out.extend(self.guard(&at.cond, false));
                    }
                    return;
                }
                Some((_, els)) => {
                    if leaves {
                        out.extend(self.guard(&at.cond, false));
                    }
                    match &**els {
                        Expr::If(next) => {
                            at = next;
                            first = false;
                        }
                        Expr::Block(b) if first && !leaves && diverges(&b.block) => {
                            out.extend(self.guard(&at.cond, true));
                            return;
                        }
                        _ => return,
                    }
                }
            }
        }
    }

    fn guards_in_expr(&mut self, e: &Expr, site: (usize, usize), out: &mut Vec<serde_json::Value>) {
        let contains = |p: &Self, s: Span| {
            let r = p.range(s);
            r.0 <= site.0 && site.1 <= r.1
        };
        match e {
            Expr::If(i) => {
                if contains(self, i.cond.span()) {
                    return self.guards_in_expr(&i.cond, site, out);
                }
                if contains(self, i.then_branch.span()) {
                    out.extend(self.guard(&i.cond, true));
                    return self.guards_in_block(&i.then_branch, site, out);
                }
                if let Some((_, els)) =
                    i.else_branch.as_ref().filter(|(_, e)| contains(self, e.span()))
                {
                    out.extend(self.guard(&i.cond, false));
                    self.guards_in_expr(els, site, out);
                }
            }
            Expr::While(w) => {
                if contains(self, w.cond.span()) {
                    return self.guards_in_expr(&w.cond, site, out);
                }
                if contains(self, w.body.span()) {
                    out.extend(self.guard(&w.cond, true));
                    self.guards_in_block(&w.body, site, out);
                }
            }
            Expr::Match(m) => {
                if contains(self, m.expr.span()) {
                    return self.guards_in_expr(&m.expr, site, out);
                }
                for arm in &m.arms {
                    if let Some((_, g)) = &arm.guard {
                        if contains(self, g.span()) {
                            return self.guards_in_expr(g, site, out);
                        }
                    }
                    if contains(self, arm.body.span()) {
                        if let Some((_, g)) = &arm.guard {
                            out.extend(self.guard(g, true));
                        }
                        return self.guards_in_expr(&arm.body, site, out);
                    }
                }
            }
            // The right operand of `&&` runs only when the left one holds, of `||` when it
            // does not: the left one is a guard of a site on the right.
            Expr::Binary(b)
                if matches!(b.op, BinOp::And(_) | BinOp::Or(_))
                    && contains(self, b.right.span()) =>
            {
                out.extend(self.guard(&b.left, matches!(b.op, BinOp::And(_))));
                self.guards_in_expr(&b.right, site, out);
            }
            other => {
                let mut c = Children::default();
                visit::visit_expr(&mut c, other);
                for b in c.blocks {
                    if contains(self, b.span()) {
                        return self.guards_in_block(b, site, out);
                    }
                }
                for x in c.exprs {
                    if contains(self, x.span()) {
                        return self.guards_in_expr(x, site, out);
                    }
                }
            }
        }
    }

    /// The original's side of the skeleton from the site (expression `at`) up to the nearest
    /// comparison, or to the `let` whose value it is; `site` is the spec of the site's
    /// original value.
    fn climb(
        &mut self,
        tree: &Tree<'_>,
        locals: &[Local],
        at: usize,
        site: serde_json::Value,
    ) -> Climb {
        use serde_json::json;
        let mut cur = at;
        let mut e = site;
        loop {
            let here = self.range(tree.exprs[cur].0.span());
            if let Some(l) = locals.iter().find(|l| l.init == here) {
                return Climb::Let { name: l.name.clone(), after: l.end, init: here, value: e };
            }
            let Some(parent) = tree.exprs[cur].1 else { return Climb::Stop };
            let child = tree.exprs[cur].0;
            let p = tree.exprs[parent].0;
            e = match p {
                Expr::Paren(_) | Expr::Group(_) => e,
                Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => json!({ "neg": e }),
                Expr::Cast(c) => {
                    let ty = c.ty.to_token_stream().to_string();
                    if !NUMERIC.contains(&ty.as_str()) {
                        return Climb::Stop;
                    }
                    json!({ "as": ty, "e": e })
                }
                Expr::Binary(b) => {
                    let left = std::ptr::eq(&*b.left, child);
                    let other = if left { &*b.right } else { &*b.left };
                    if let Some(op) = comparison(&b.op) {
                        let Some(id) = self.cmp_node(b) else { return Climb::Stop };
                        let (l, r) = if left { (e, json!("b")) } else { (json!("a"), e) };
                        return Climb::Cmp(json!({ "cmp": id, "op": op, "l": l, "r": r }));
                    }
                    let Some(op) = arithmetic(&b.op) else { return Climb::Stop };
                    let o = self.operand(other);
                    if left {
                        json!({ "op": op, "l": e, "r": o })
                    } else {
                        json!({ "op": op, "l": o, "r": e })
                    }
                }
                _ => return Climb::Stop,
            };
            cur = parent;
        }
    }

    /// The site spec of a site whose original value is `alt`, measured at the comparison
    /// above it (directly, or through a `let` and the comparisons that read it); `None` when
    /// no comparison reads it.
    fn above(
        &mut self,
        tree: &Tree<'_>,
        locals: &[Local],
        at: usize,
        alt: serde_json::Value,
    ) -> Option<serde_json::Value> {
        match self.climb(tree, locals, at, alt) {
            Climb::Cmp(spec) => Some(spec),
            Climb::Let { name, after, init, value } => {
                self.through_let(tree, &name, after, value, init)
            }
            Climb::Stop => None,
        }
    }

    /// The site spec of a value that a `let` binds (see [`Climb::Let`]): the bound value is
    /// tapped, and the comparisons that read the variable later compare the original's value
    /// too; `None` when no comparison reads it.
    fn through_let(
        &mut self,
        tree: &Tree<'_>,
        name: &str,
        after: usize,
        value: serde_json::Value,
        init: (usize, usize),
    ) -> Option<serde_json::Value> {
        let mut then = Vec::new();
        for (e, _) in &tree.exprs {
            let Expr::Binary(b) = e else { continue };
            if comparison(&b.op).is_none() || self.range(b.span()).0 < after {
                continue;
            }
            let reads = |x: &Expr| matches!(strip(x), Expr::Path(p) if p.path.is_ident(name));
            let side = match (reads(&b.left), reads(&b.right)) {
                (true, _) => "a",
                (_, true) => "b",
                _ => continue,
            };
            if let Some(id) = self.cmp_node(b) {
                then.push(serde_json::json!({ "cmp": id, "side": side }));
            }
        }
        if then.is_empty() {
            return None;
        }
        let slot = self.node(init, |slot| NodeKind::Tap { slot });
        Some(serde_json::json!({ "value": slot, "alt": value, "then": then }))
    }

    /// An operand of the skeleton that is not on the site's path: a literal's value, or a tap.
    fn operand(&mut self, e: &Expr) -> serde_json::Value {
        if let Some(n) = literal(e) {
            return serde_json::json!({ "n": n });
        }
        let span = self.range(e.span());
        let slot = self.node(span, |slot| NodeKind::Tap { slot });
        serde_json::json!({ "t": slot })
    }
}

/// Where the arithmetic above a site led.
enum Climb {
    /// To a comparison: the site spec.
    Cmp(serde_json::Value),
    /// To the value of `let name = …;` (ending at byte `after`), whose original is `value`.
    Let { name: String, after: usize, init: (usize, usize), value: serde_json::Value },
    /// Somewhere else (a call, a return value, …).
    Stop,
}

/// A `let NAME = INIT;` of a body: the init's byte range, the name, the statement's end.
struct Local {
    init: (usize, usize),
    name: String,
    end: usize,
}

/// The expression inside parentheses.
fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

/// The `let`s of a body that bind one name to an expression.
struct Locals<'p> {
    planner: &'p Planner<'p>,
    out: Vec<Local>,
}

impl<'ast> Visit<'ast> for Locals<'_> {
    fn visit_local(&mut self, l: &'ast syn::Local) {
        let pat = match &l.pat {
            syn::Pat::Type(t) => &*t.pat,
            p => p,
        };
        if let (syn::Pat::Ident(id), Some(init)) = (pat, &l.init) {
            if id.subpat.is_none() && init.diverge.is_none() {
                self.out.push(Local {
                    init: self.planner.range(init.expr.span()),
                    name: id.ident.to_string(),
                    end: self.planner.range(l.span()).1,
                });
            }
        }
        visit::visit_local(self, l);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The value of a number literal (through parentheses), as text.
/// The receiver of `parent` when it is `x.unwrap_or(lit)` with `x` a place (a path or its
/// fields, read again without side effects; an integer or float default makes `x` an `Option`
/// or a `Result` of a number), as text.
fn default_of(parent: &Expr, lit: &Expr) -> Option<String> {
    fn place(e: &Expr) -> bool {
        match e {
            Expr::Path(_) => true,
            Expr::Field(f) => place(&f.base),
            Expr::Paren(p) => place(&p.expr),
            _ => false,
        }
    }
    let Expr::MethodCall(call) = parent else { return None };
    let is_default = call.method == "unwrap_or"
        && call.args.len() == 1
        && call.args.first().is_some_and(|a| std::ptr::eq(a, lit));
    (is_default && place(&call.receiver)).then(|| call.receiver.to_token_stream().to_string())
}

fn literal(e: &Expr) -> Option<String> {
    match e {
        Expr::Paren(p) => literal(&p.expr),
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse::<i128>().ok().map(|v| v.to_string()),
            syn::Lit::Float(f) => f.base10_parse::<f64>().ok().map(|v| format!("{v:?}")),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a block always leaves its enclosing block: it ends in `return`, `break`,
/// `continue` or a panicking macro.
fn diverges(b: &Block) -> bool {
    let leaves = |e: &Expr| match e {
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
        Expr::Macro(m) => panics(&m.mac),
        Expr::Block(b) => diverges(&b.block),
        _ => false,
    };
    match b.stmts.last() {
        Some(Stmt::Expr(e, _)) => leaves(e),
        Some(Stmt::Macro(m)) => panics(&m.mac),
        _ => false,
    }
}

fn panics(m: &syn::Macro) -> bool {
    m.path.segments.last().is_some_and(|s| {
        ["panic", "unreachable", "todo", "unimplemented"].contains(&s.ident.to_string().as_str())
    })
}

/// The operands of a binary expression's text (a mutant's replacement): left, operator,
/// right.
fn split_binary(text: &str) -> Option<(String, String, String)> {
    let Ok(Expr::Binary(b)) = syn::parse_str::<Expr>(text) else { return None };
    let lines = Lines::new(text);
    let at = |s: proc_macro2::LineColumn| lines.offset(text, s);
    let (op_start, op_end) = (at(b.op.span().start()), at(b.op.span().end()));
    Some((
        text[..op_start].to_string(),
        text[op_start..op_end].to_string(),
        text[op_end..].to_string(),
    ))
}

/// The probes of the function whose body is at `body` in `text`, for its switched `mutants`;
/// `base` is a number unique to the function (ids are unique across the build, so that a
/// probed function calling another never mixes their ids).
pub fn plan(text: &str, body: (usize, usize), mutants: &[(u32, &Mutant)], base: u32) -> FnProbes {
    use serde_json::json;
    let mut out = FnProbes::default();
    let Some(body_text) = text.get(body.0..body.1) else { return out };
    let Ok(block) = syn::parse_str::<Block>(body_text) else { return out };
    let mut tree = Tree { exprs: Vec::new(), stack: Vec::new() };
    tree.visit_block(&block);
    let mut p = Planner {
        base: body.0,
        lines: Lines::new(body_text),
        body_text,
        next: base,
        nodes: Vec::new(),
        guards: BTreeMap::new(),
    };
    let locals = {
        let mut l = Locals { planner: &p, out: Vec::new() };
        l.visit_block(&block);
        l.out
    };
    let spans: Vec<(usize, usize)> = tree.exprs.iter().map(|(e, _)| p.range(e.span())).collect();
    for &(n, m) in mutants {
        let mut guards = Vec::new();
        p.guards_in_block(&block, m.span, &mut guards);
        let at = spans.iter().position(|s| *s == m.span);
        let expr = at.map(|i| (i, tree.exprs[i].0));
        let none = |why: &str| json!({ "none": why });
        let site = match (m.operator, expr) {
            (Operator::NegateCondition | Operator::DeleteNot, _) => json!({ "arm": true }),
            (
                Operator::ComparisonBoundary | Operator::BinaryOperator,
                Some((_, Expr::Binary(b))),
            ) if comparison(&b.op).is_some() => {
                match comparison_arm(&m.replacement, comparison(&b.op).unwrap_or("<")) {
                    Some(text) => {
                        out.arms.insert(n, Arm { text, infects: false });
                        json!({ "arm": true })
                    }
                    None => none("the mutated comparison could not be read"),
                }
            }
            (Operator::ConstantPlusOne | Operator::ConstantMinusOne, Some((i, e))) => {
                let receiver = tree.exprs[i].1.and_then(|up| default_of(tree.exprs[up].0, e));
                match literal(e).and_then(|k| p.above(&tree, &locals, i, json!({ "n": k }))) {
                    Some(spec) => spec,
                    // The default of `x.unwrap_or(k)`: it differs when `x` is empty.
                    None if receiver.is_some() => {
                        let x = receiver.unwrap_or_default();
                        let text = format!(
                            "{{ use crate::__abex_harness::AbexDefaulted as _; crate::__abex_harness::infects_if(({x}).__abex_defaulted()); ({}) }}",
                            m.replacement
                        );
                        out.arms.insert(n, Arm { text, infects: false });
                        json!({ "arm": true })
                    }
                    // A constant that no comparison reads: every run of it differs.
                    None => {
                        let text = format!("({})", m.replacement);
                        out.arms.insert(n, Arm { text, infects: true });
                        json!({ "arm": true })
                    }
                }
            }
            (Operator::BinaryOperator, Some((i, Expr::Binary(b)))) => match arithmetic(&b.op) {
                Some(op) => arithmetic_site(&mut p, &tree, &locals, i, b, op, n, m, &mut out),
                None if matches!(b.op, BinOp::And(_) | BinOp::Or(_)) => {
                    none("a logical operator: only one side of it runs")
                }
                None => none("an assignment"),
            },
            (Operator::DeleteNeg, Some((i, Expr::Unary(_)))) => {
                let slot = p.id();
                out.arms.insert(n, Arm { text: tap_code(slot, &m.replacement), infects: false });
                let alt = json!({ "neg": { "t": slot } });
                p.above(&tree, &locals, i, alt.clone())
                    .unwrap_or_else(|| json!({ "value": slot, "alt": alt }))
            }
            (Operator::ReplaceBody, _) => none("the whole body is replaced"),
            (Operator::MatchArmGuard, _) => none("a match guard replaced by a constant"),
            _ => none("no probe for this kind of mutant"),
        };
        out.specs.insert(n, json!({ "site": site, "guards": guards }).to_string());
    }
    // Every comparison reports its operands to a worker in trace mode (the original's, for
    // the explorer's threshold operator), not only those the mutants' probes read.
    for (e, _) in &tree.exprs {
        if let Expr::Binary(b) = e {
            p.cmp_node(b);
        }
    }
    out.nodes = p.nodes;
    out
}

/// The site of an arithmetic operator mutant: its arm taps both operands; the original's
/// value is recomputed from them, at the comparison above or against the arm's own value.
#[allow(clippy::too_many_arguments)]
fn arithmetic_site(
    p: &mut Planner<'_>,
    tree: &Tree<'_>,
    locals: &[Local],
    at: usize,
    b: &syn::ExprBinary,
    op: &'static str,
    n: u32,
    m: &Mutant,
    out: &mut FnProbes,
) -> serde_json::Value {
    use serde_json::json;
    let Some((l, mop, r)) = split_binary(&m.replacement) else {
        return json!({ "none": "the mutated operator could not be read" });
    };
    let side = |p: &mut Planner<'_>, e: &Expr, text: &str| match literal(e) {
        Some(v) => (json!({ "n": v }), text.to_string()),
        None => {
            let slot = p.id();
            (json!({ "t": slot }), tap_code(slot, text.trim()))
        }
    };
    let (lj, lt) = side(p, &b.left, &l);
    let (rj, rt) = side(p, &b.right, &r);
    let alt = json!({ "op": op, "l": lj, "r": rj });
    let arm = format!("{lt} {} {rt}", mop.trim());
    match p.above(tree, locals, at, alt.clone()) {
        Some(spec) => {
            out.arms.insert(n, Arm { text: arm, infects: false });
            spec
        }
        None => {
            let slot = p.id();
            out.arms.insert(n, Arm { text: tap_code(slot, &arm), infects: false });
            json!({ "value": slot, "alt": alt })
        }
    }
}

/// The arm of a mutated comparison: the mutant's result, with the original operator's result
/// on the same operands beside it.
fn comparison_arm(replacement: &str, original_op: &str) -> Option<String> {
    let (l, op, r) = split_binary(replacement)?;
    let op = op.trim();
    Some(format!(
        "(match (&({l}), &({r})) {{ (__abex_a, __abex_b) => {{ let __abex_r = *__abex_a {op} *__abex_b; if {RT}::probing() {{ use {RT}::AbexNum as _; let __abex_o = *__abex_a {original_op} *__abex_b; {RT}::cmp_alt({}, {}, __abex_r, __abex_o, (&{RT}::N(__abex_a)).abex_num(), (&{RT}::N(__abex_b)).abex_num()); }} __abex_r }} }})",
        op_code(op),
        op_code(original_op),
        l = l.trim(),
        r = r.trim()
    ))
}

#[cfg(test)]
mod tests;
