//! Mutation switching for Rust (Stryker's mutant schemata): every switchable mutant of a file is
//! compiled into one build, each behind a runtime check of `ABEX_MUTANT`, so a mutant costs one
//! test run instead of one build.
//!
//! An expression mutant becomes `(if crate::__abex_mutants::on(N) { reach(…); (REPLACEMENT) }
//! else { ORIGINAL })`; mutants of the same span share one `if … else if …` chain, and mutants
//! nested inside another's span are switched inside its `else` branch (only one mutant is ever
//! active, so the replacement branches stay verbatim). A body replacement becomes
//! `if on(N) { reach(false); return VALUE; }` at the top of the body. A deleted match arm
//! becomes a guard that fails while its mutant is active: `PAT if (!on(N) || { reach(…); false
//! })`, or `PAT if (GUARD) && (…)` when the arm has one (the arm is deleted only where a
//! catch-all arm follows, so the match stays exhaustive). Mutants whose spans partly overlap
//! another's cannot be switched together; they are returned for a build of their own.
//!
//! Probes (see `probe.rs`) are rendered into the same text: each arm reports that it ran
//! (`reach`, a no-op unless the worker probes), an instrumented arm replaces a mutant's
//! replacement where its function has one, and the probe wrappers of the original code
//! (comparisons, taps, conditions) nest with the switches like any other span. A wrapper that
//! partly overlaps a switch is left out, never the switch.

use std::collections::BTreeMap;

use super::probe::{self, Arm, FnProbes, NodeKind, ProbeNode};
use crate::mutate::Lines;
use crate::mutate::{Mutant, Operator};

/// The module added at the crate root that reads the active mutant.
pub const SWITCH_MODULE: &str = r#"
#[doc(hidden)]
#[allow(warnings, missing_docs, unused, clippy::all)]
pub mod __abex_mutants {
    /// `ACTIVE` before `ABEX_MUTANT` was read.
    const UNREAD: u32 = u32::MAX;
    /// The mutant `ABEX_MUTANT` names (0: none).
    static ACTIVE: ::std::sync::atomic::AtomicU32 = ::std::sync::atomic::AtomicU32::new(UNREAD);
    /// Whether `ABEX_REACH` names a file: 0 not read yet, 1 no, 2 yes.
    static TRACED: ::std::sync::atomic::AtomicU8 = ::std::sync::atomic::AtomicU8::new(0);

    /// Whether mutant `id` is the one named by `ABEX_MUTANT`. With no mutant active, the call
    /// also records that the running test reached mutant `id`'s site (see `reached`). Every
    /// site of every switched function calls it, often in an unoptimised test build: its way
    /// is two relaxed loads (with a `OnceLock` each, base64's exhaustive decoding test took
    /// 7 min 13 s at opt-level 0, now 5 min 27 s).
    #[inline(always)]
    pub fn on(id: u32) -> bool {
        let mut active = ACTIVE.load(::std::sync::atomic::Ordering::Relaxed);
        if active == UNREAD {
            active = read_active();
        }
        if active == 0 && TRACED.load(::std::sync::atomic::Ordering::Relaxed) != 1 {
            reached(id);
        }
        active == id
    }

    #[cold]
    #[inline(never)]
    fn read_active() -> u32 {
        let active =
            ::std::env::var("ABEX_MUTANT").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(0);
        // Never `UNREAD`, and the same value whichever thread reads it first.
        let active = if active == UNREAD { 0 } else { active };
        ACTIVE.store(active, ::std::sync::atomic::Ordering::Relaxed);
        active
    }

    /// When `ABEX_REACH` names a file, appends `id<TAB>thread name` to it, once per thread and
    /// mutant: libtest runs each test on a thread named after the test.
    #[cold]
    #[inline(never)]
    fn reached(id: u32) {
        // A bit per mutant and thread, asked first: the baseline's loops call this at every site
        // they pass, often in an unoptimised build, where each call of the standard library's
        // is a call (a hash set's lookup cost humantime's suite five times its own time, 1.9 s
        // against 0.37 s). The first `WORDS * 64` mutants' bits are a plain array (no destructor,
        // so the thread-local's fastest way); the others', a vector.
        const WORDS: usize = 256;
        const ZERO: ::std::cell::Cell<u64> = ::std::cell::Cell::new(0);
        ::std::thread_local! {
            static SEEN: [::std::cell::Cell<u64>; WORDS] = const { [ZERO; WORDS] };
            static SEEN_MORE: ::std::cell::RefCell<::std::vec::Vec<u64>> =
                const { ::std::cell::RefCell::new(::std::vec::Vec::new()) };
        }
        let (word, bit) = ((id / 64) as usize, 1u64 << (id % 64));
        let first = if word < WORDS {
            match SEEN.try_with(|s| {
                let seen = s[word].get();
                s[word].set(seen | bit);
                seen & bit == 0
            }) {
                Ok(first) => first,
                Err(_) => true,
            }
        } else {
            SEEN_MORE
                .try_with(|s| match s.try_borrow_mut() {
                    Ok(mut s) => {
                        let word = word - WORDS;
                        if s.len() <= word {
                            s.resize(word + 1, 0);
                        }
                        let first = s[word] & bit == 0;
                        s[word] |= bit;
                        first
                    }
                    Err(_) => true,
                })
                .unwrap_or(true)
        };
        if first {
            record(id);
        }
    }

    /// Appends `id<TAB>thread name` to the file `ABEX_REACH` names; where it names none (the
    /// original's runs outside the baseline), `on` stops calling.
    #[cold]
    #[inline(never)]
    fn record(id: u32) {
        use ::std::io::Write as _;
        static FILE: ::std::sync::OnceLock<Option<::std::sync::Mutex<::std::fs::File>>> =
            ::std::sync::OnceLock::new();
        let file = FILE.get_or_init(|| {
            let open = |path| ::std::fs::OpenOptions::new().create(true).append(true).open(path);
            let file = ::std::env::var_os("ABEX_REACH").and_then(|p| open(p).ok());
            let traced = if file.is_some() { 2 } else { 1 };
            TRACED.store(traced, ::std::sync::atomic::Ordering::Relaxed);
            file.map(::std::sync::Mutex::new)
        });
        let Some(file) = file else { return };
        // No method of the prelude: a `#![no_std]` crate with `extern crate std` has none.
        let thread = ::std::thread::current();
        let line = ::std::format!("{}\t{}\n", id, thread.name().unwrap_or(""));
        if let Ok(mut f) = file.lock() {
            let _ = f.write_all(line.as_bytes());
        }
    }
}
"#;

/// A text edit: replace `start..end` by `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// Start byte.
    pub start: usize,
    /// End byte.
    pub end: usize,
    /// New text.
    pub text: String,
    /// The mutants (numbers) whose switch this edit holds.
    pub mutants: Vec<u32>,
    /// The functions (ids given with their probes) whose probe code this edit holds.
    pub probes: Vec<usize>,
}

/// The switched edits of one file.
#[derive(Debug, Default)]
pub struct Switched {
    /// Non-overlapping edits.
    pub edits: Vec<Edit>,
    /// Mutants that could not be switched here.
    pub rejected: Vec<u32>,
}

/// The condition of mutant `n`'s switch.
pub(super) fn on(n: u32) -> String {
    format!("crate::__abex_mutants::on({n})")
}

fn reach(infects: bool) -> String {
    format!("crate::__abex_harness::reach({infects});")
}

/// A group of mutants with the same span.
struct Group<'a> {
    span: (usize, usize),
    alts: Vec<(u32, &'a Mutant)>,
}

/// A deleted match arm: mutant `n`, the arm's span, where its switch goes.
struct ArmSwitch {
    n: u32,
    span: (usize, usize),
    at: ArmAt,
}

/// Where a deleted arm's switch goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ArmAt {
    /// After the pattern of an arm without a guard (a guard is added).
    Pattern(usize),
    /// Around the arm's guard (start, end).
    Guard(usize, usize),
}

/// Where the switch of the match arm at `span` of `text` goes, or `None` when the text there
/// does not read as an arm.
fn arm_at(text: &str, span: (usize, usize)) -> Option<ArmAt> {
    use syn::spanned::Spanned;
    let whole = text.get(span.0..span.1)?;
    let lead = whole.len() - whole.trim_start().len();
    let arm_text = whole.trim();
    let arm: syn::Arm = syn::parse_str(arm_text).ok()?;
    let lines = Lines::new(arm_text);
    let at = |lc| span.0 + lead + lines.offset(arm_text, lc);
    Some(match &arm.guard {
        None => ArmAt::Pattern(at(arm.pat.span().end())),
        Some((_, guard)) => ArmAt::Guard(at(guard.span().start()), at(guard.span().end())),
    })
}

/// A span to render: a group of mutants, a deleted match arm, or a probe node of function `.1`.
enum Item<'a> {
    Group(Group<'a>),
    Arm(ArmSwitch),
    Probe(&'a ProbeNode, usize),
}

impl Item<'_> {
    fn span(&self) -> (usize, usize) {
        match self {
            Item::Group(g) => g.span,
            Item::Arm(a) => a.span,
            Item::Probe(p, _) => p.span,
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Item::Group(_) | Item::Arm(_) => 0,
            Item::Probe(p, _) => p.rank(),
        }
    }
}

/// What rendering needs besides the items.
struct Render<'a> {
    text: &'a str,
    items: Vec<Item<'a>>,
    kids: Vec<Vec<usize>>,
    /// Instrumented arms, by mutant number, with their function.
    arms: BTreeMap<u32, (&'a Arm, usize)>,
}

impl Render<'_> {
    /// `start..end` of the text with the items `kids` (inside it, in order) rendered; notes the
    /// mutants and probe functions it holds.
    fn range(&self, start: usize, end: usize, kids: &[usize], held: &mut Held) -> String {
        let mut out = String::new();
        let mut at = start;
        for &k in kids {
            let (s, e) = self.items[k].span();
            out.push_str(&self.text[at..s]);
            out.push_str(&self.item(k, held));
            at = e;
        }
        out.push_str(&self.text[at..end]);
        out
    }

    fn item(&self, i: usize, held: &mut Held) -> String {
        let kids = &self.kids[i];
        match &self.items[i] {
            Item::Group(g) => {
                let original = self.range(g.span.0, g.span.1, kids, held);
                let mut s = String::from("(");
                for (k, (n, m)) in g.alts.iter().enumerate() {
                    held.mutants.push(*n);
                    if k > 0 {
                        s.push_str(" else ");
                    }
                    let (arm, infects) = match self.arms.get(n) {
                        Some((arm, f)) => {
                            held.probes.push(*f);
                            (arm.text.as_str(), arm.infects)
                        }
                        None => (m.replacement.as_str(), probe::always_infects(m.operator)),
                    };
                    s.push_str(&format!("if {} {{ {} ({arm}) }}", on(*n), reach(infects)));
                }
                // Parenthesised so that an expression that starts like a statement
                // (`unsafe { … } as u8`) stays one expression inside the block.
                s.push_str(&format!(" else {{ ({original}) }})"));
                s
            }
            Item::Arm(a) => {
                held.mutants.push(a.n);
                let reach = reach(probe::always_infects(Operator::DeleteMatchArm));
                let check = format!("(!{} || {{ {reach} false }})", on(a.n));
                let split = |lo: usize, hi: usize| -> Vec<usize> {
                    let inside = |k: &usize| {
                        let (s, e) = self.items[*k].span();
                        lo <= s && e <= hi
                    };
                    kids.iter().copied().filter(inside).collect()
                };
                match a.at {
                    ArmAt::Pattern(p) => {
                        let before = self.range(a.span.0, p, &split(a.span.0, p), held);
                        let after = self.range(p, a.span.1, &split(p, a.span.1), held);
                        format!("{before} if {check}{after}")
                    }
                    ArmAt::Guard(g0, g1) => {
                        let before = self.range(a.span.0, g0, &split(a.span.0, g0), held);
                        let guard = self.range(g0, g1, &split(g0, g1), held);
                        let after = self.range(g1, a.span.1, &split(g1, a.span.1), held);
                        format!("{before}({guard}) && {check}{after}")
                    }
                }
            }
            Item::Probe(p, f) => {
                held.probes.push(*f);
                if let NodeKind::Cmp { op_span, .. } = p.kind {
                    let left: Vec<usize> = kids
                        .iter()
                        .copied()
                        .filter(|&k| self.items[k].span().1 <= op_span.0)
                        .collect();
                    let right: Vec<usize> = kids
                        .iter()
                        .copied()
                        .filter(|&k| self.items[k].span().0 >= op_span.1)
                        .collect();
                    if left.len() + right.len() == kids.len() {
                        let l = self.range(p.span.0, op_span.0, &left, held);
                        let r = self.range(op_span.1, p.span.1, &right, held);
                        return p.render(&[l.trim().to_string(), r.trim().to_string()]);
                    }
                    return self.range(p.span.0, p.span.1, kids, held);
                }
                let inner = self.range(p.span.0, p.span.1, kids, held);
                p.render(&[inner])
            }
        }
    }
}

/// The mutants and probe functions an edit holds.
#[derive(Default)]
struct Held {
    mutants: Vec<u32>,
    probes: Vec<usize>,
}

/// Whether two spans intersect without one holding the other.
fn crosses(a: (usize, usize), b: (usize, usize)) -> bool {
    let inside = |x: (usize, usize), y: (usize, usize)| y.0 <= x.0 && x.1 <= y.1;
    a.0 < b.1 && b.0 < a.1 && !inside(a, b) && !inside(b, a)
}

/// Computes the switched edits for `mutants` (number, mutant) of one file's `text`.
pub fn switch(text: &str, mutants: &[(u32, &Mutant)]) -> Switched {
    switch_probed(text, mutants, &[])
}

/// [`switch`] with the probes of some of the file's functions (function id, probes) rendered in.
pub fn switch_probed(
    text: &str,
    mutants: &[(u32, &Mutant)],
    probes: &[(usize, &FnProbes)],
) -> Switched {
    let mut out = Switched::default();
    let mut groups: Vec<Group<'_>> = Vec::new();
    let mut arms: Vec<ArmSwitch> = Vec::new();
    for &(n, m) in mutants {
        if !m.switchable
            || m.span.1 > text.len()
            || text.get(m.span.0..m.span.1) != Some(m.original.as_str())
        {
            out.rejected.push(n);
            continue;
        }
        if m.operator == Operator::DeleteMatchArm {
            match arm_at(text, m.span) {
                Some(at) => arms.push(ArmSwitch { n, span: m.span, at }),
                None => out.rejected.push(n),
            }
            continue;
        }
        if m.operator == Operator::ReplaceBody {
            let inner = m.replacement.trim();
            let value =
                inner.strip_prefix('{').and_then(|s| s.strip_suffix('}')).unwrap_or(inner).trim();
            let value = if value.is_empty() { "()" } else { value };
            out.edits.push(Edit {
                start: m.span.0 + 1,
                end: m.span.0 + 1,
                text: format!(" if {} {{ {} return {value}; }} ", on(n), reach(false)),
                mutants: vec![n],
                probes: Vec::new(),
            });
            continue;
        }
        match groups.iter_mut().find(|g| g.span == m.span) {
            Some(g) => g.alts.push((n, m)),
            None => groups.push(Group { span: m.span, alts: vec![(n, m)] }),
        }
    }
    // Outer spans first; a group nests in the closest earlier group that contains it.
    groups.sort_by(|a, b| a.span.0.cmp(&b.span.0).then(b.span.1.cmp(&a.span.1)));
    let mut keep = vec![true; groups.len()];
    let mut stack: Vec<usize> = Vec::new();
    for i in 0..groups.len() {
        let (s, e) = groups[i].span;
        while stack.last().is_some_and(|&top| groups[top].span.1 <= s) {
            stack.pop();
        }
        match stack.last() {
            Some(&top) if e > groups[top].span.1 => {
                // Partly overlaps an enclosing span: cannot be switched alongside it.
                keep[i] = false;
                out.rejected.extend(groups[i].alts.iter().map(|(n, _)| *n));
            }
            _ => stack.push(i),
        }
    }
    let mut items: Vec<Item<'_>> =
        groups.into_iter().zip(keep).filter(|(_, k)| *k).map(|(g, _)| Item::Group(g)).collect();
    let mut accepted: Vec<(usize, usize)> = items.iter().map(Item::span).collect();
    // Deleted arms nest with the expressions (an arm holds some, a match arm is never inside
    // an expression's span but whole).
    for a in arms {
        if accepted.iter().any(|s| crosses(*s, a.span)) {
            out.rejected.push(a.n);
        } else {
            accepted.push(a.span);
            items.push(Item::Arm(a));
        }
    }
    // Probe wrappers that nest with the switches and with each other.
    for (f, fp) in probes {
        for node in &fp.nodes {
            if node.span.1 <= text.len() && !accepted.iter().any(|s| crosses(*s, node.span)) {
                accepted.push(node.span);
                items.push(Item::Probe(node, *f));
            }
        }
    }
    items.sort_by(|a, b| {
        let (sa, sb) = (a.span(), b.span());
        sa.0.cmp(&sb.0).then(sb.1.cmp(&sa.1)).then(a.rank().cmp(&b.rank()))
    });
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); items.len()];
    let mut roots = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    for i in 0..items.len() {
        let (s, _) = items[i].span();
        while stack
            .last()
            .is_some_and(|&top| items[top].span().1 <= s && items[top].span() != items[i].span())
        {
            stack.pop();
        }
        match stack.last() {
            Some(&top) => kids[top].push(i),
            None => roots.push(i),
        }
        stack.push(i);
    }
    let probe_arms =
        probes.iter().flat_map(|(f, fp)| fp.arms.iter().map(move |(n, a)| (*n, (a, *f)))).collect();
    let r = Render { text, items, kids, arms: probe_arms };
    for i in roots {
        let mut held = Held::default();
        let text = r.item(i, &mut held);
        if held.mutants.is_empty() && held.probes.is_empty() {
            continue;
        }
        held.mutants.sort_unstable();
        held.probes.sort_unstable();
        held.probes.dedup();
        let (start, end) = r.items[i].span();
        out.edits.push(Edit { start, end, text, mutants: held.mutants, probes: held.probes });
    }
    // A body insertion never falls inside an expression span, but keep the edits disjoint anyway.
    out.edits.sort_by_key(|e| (e.start, e.end));
    let mut last_end = 0;
    let mut disjoint = Vec::new();
    for e in out.edits.drain(..) {
        if e.start < last_end {
            out.rejected.extend(e.mutants);
        } else {
            last_end = e.end.max(e.start);
            disjoint.push(e);
        }
    }
    out.edits = disjoint;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::Origin;
    use std::path::PathBuf;

    fn m(text: &str, original: &str, nth: usize, replacement: &str, op: Operator) -> Mutant {
        let start = text.match_indices(original).nth(nth).unwrap().0;
        Mutant {
            id: format!("{start}{replacement}"),
            origin: Origin::Rules,
            operator: op,
            function: "f".into(),
            file: PathBuf::from("src/lib.rs"),
            line: 1,
            column: start + 1,
            span: (start, start + original.len()),
            original: original.into(),
            replacement: replacement.into(),
            switchable: true,
            description: String::new(),
            peer_name: None,
        }
    }

    fn apply(text: &str, s: &Switched) -> String {
        let mut t = text.to_string();
        for e in s.edits.iter().rev() {
            t.replace_range(e.start..e.end, &e.text);
        }
        t
    }

    #[test]
    fn nested_and_same_span_mutants_share_one_switch() {
        let text = "fn f(a: i32, b: i32) -> bool { a + b < 10 }";
        let outer1 = m(text, "a + b < 10", 0, "a + b <= 10", Operator::ComparisonBoundary);
        let outer2 = m(text, "a + b < 10", 0, "a + b > 10", Operator::ComparisonBoundary);
        let inner = m(text, "a + b", 0, "a - b", Operator::BinaryOperator);
        let lit = m(text, "10", 0, "11", Operator::ConstantPlusOne);
        let body = m(text, "{ a + b < 10 }", 0, "{ true }", Operator::ReplaceBody);
        let all = [(1, &outer1), (2, &outer2), (3, &inner), (4, &lit), (5, &body)];
        let s = switch(text, &all);
        assert!(s.rejected.is_empty(), "{:?}", s.rejected);
        let out = apply(text, &s);
        let reach = "crate::__abex_harness::reach(false);";
        assert_eq!(
            out,
            format!(
                "fn f(a: i32, b: i32) -> bool {{ if crate::__abex_mutants::on(5) {{ {reach} return true; }}  \
                 (if crate::__abex_mutants::on(1) {{ {reach} (a + b <= 10) }} else if crate::__abex_mutants::on(2) {{ {reach} (a + b > 10) }} \
                 else {{ ((if crate::__abex_mutants::on(3) {{ {reach} (a - b) }} else {{ (a + b) }}) < \
                 (if crate::__abex_mutants::on(4) {{ {reach} (11) }} else {{ (10) }})) }}) }}"
            )
        );
        assert!(syn::parse_file(&out).is_ok());
    }

    #[test]
    fn a_deleted_match_arm_is_a_guard_that_fails_while_its_mutant_is_active() {
        let text = "fn f(n: u8) -> u8 {\n    match n {\n        1 => 10,\n        k if k > 5 => k + 1,\n        _ => 0,\n    }\n}";
        let plain = m(text, "        1 => 10,\n", 0, "", Operator::DeleteMatchArm);
        let guarded = m(text, "        k if k > 5 => k + 1,\n", 0, "", Operator::DeleteMatchArm);
        // Mutants inside the guarded arm: its guard and its body.
        let guard = m(text, "k > 5", 0, "true", Operator::MatchArmGuard);
        let body = m(text, "k + 1", 0, "k - 1", Operator::BinaryOperator);
        let s = switch(text, &[(1, &plain), (2, &guarded), (3, &guard), (4, &body)]);
        assert!(s.rejected.is_empty(), "{:?}", s.rejected);
        let out = apply(text, &s);
        let on = |n: u32| format!("crate::__abex_mutants::on({n})");
        let reach = "crate::__abex_harness::reach(false);";
        let check = |n: u32| format!("(!{} || {{ {reach} false }})", on(n));
        assert!(out.contains(&format!("        1 if {} => 10,\n", check(1))), "{out}");
        let guard = format!("(if {} {{ {reach} (true) }} else {{ (k > 5) }})", on(3));
        let body = format!("(if {} {{ {reach} (k - 1) }} else {{ (k + 1) }})", on(4));
        assert!(out.contains(&format!("k if ({guard}) && {} => {body},", check(2))), "{out}");
        assert!(syn::parse_file(&out).is_ok(), "{out}");
        // An arm that does not read as one stays for a build of its own.
        let odd = m(text, "    match n {", 0, "", Operator::DeleteMatchArm);
        assert_eq!(switch(text, &[(5, &odd)]).rejected, vec![5]);
    }

    #[test]
    fn partly_overlapping_and_unswitchable_mutants_are_rejected() {
        let text = "fn f(a: i32) -> i32 { a * 2 + 1 }";
        let x = m(text, "a * 2", 0, "a / 2", Operator::BinaryOperator);
        let y = m(text, "2 + 1", 0, "2 - 1", Operator::BinaryOperator);
        let mut z = m(text, "1", 0, "2", Operator::ConstantPlusOne);
        z.switchable = false;
        let s = switch(text, &[(1, &x), (2, &y), (3, &z)]);
        assert_eq!(s.rejected, vec![3, 2]);
        assert_eq!(s.edits.len(), 1);
    }

    /// The module, compiled into a program whose threads pass sites of the first mutants (a bit
    /// of a plain array) and of mutant 20 000 (a vector's) several times each: with
    /// `ABEX_REACH` set, each site is recorded once per thread; with a mutant active, its site
    /// is on at every pass.
    #[test]
    fn the_trace_records_each_site_once_per_thread() {
        let dir = tempfile::tempdir().unwrap();
        let main = format!(
            "{SWITCH_MODULE}\nfn pass() -> usize {{ (0..3).map(|_| [5, 64, 20_000].into_iter().filter(|&id| __abex_mutants::on(id)).count()).sum() }}\nfn main() {{\n    let t1 = std::thread::Builder::new().name(\"t1\".into()).spawn(pass).unwrap();\n    let n = pass() + t1.join().unwrap() + pass();\n    print!(\"{{n}}\");\n}}\n"
        );
        std::fs::write(dir.path().join("main.rs"), main).unwrap();
        let exe = dir.path().join("trace");
        let rustc = std::env::var_os("RUSTC").unwrap_or("rustc".into());
        let out = std::process::Command::new(rustc)
            .args(["--edition", "2021", "-o"])
            .arg(&exe)
            .arg(dir.path().join("main.rs"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let reach = dir.path().join("reach.tsv");
        let run = std::process::Command::new(&exe).env("ABEX_REACH", &reach).output().unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let mut lines: Vec<String> =
            std::fs::read_to_string(&reach).unwrap().lines().map(String::from).collect();
        lines.sort();
        let want = ["20000\tmain", "20000\tt1", "5\tmain", "5\tt1", "64\tmain", "64\tt1"];
        assert_eq!(lines, want);
        assert_eq!(String::from_utf8_lossy(&run.stdout), "0");
        // Untraced, mutant 64 active: its site is on at each of its nine passes.
        let run = std::process::Command::new(&exe).env("ABEX_MUTANT", "64").output().unwrap();
        assert_eq!(String::from_utf8_lossy(&run.stdout), "9");
    }
}
