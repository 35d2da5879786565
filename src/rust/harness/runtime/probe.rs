// Probes of the abex harness runtime (weak mutation). Pasted right after `runtime/core.rs` into the
// same module of the user's crate, under the same rules: std only, no `unsafe`, no inner
// attributes, absolute `::std` paths, editions 2015 to 2024.
//
// The switched build calls these functions around the mutants' sites (see `src/rust/harness/probe.rs`,
// which generates the calls and the spec below): `reach` in the active mutant's switch arm,
// `cmp` around a comparison of the original code, `cmp_alt` around a mutated comparison (with
// the original operator's result beside the mutant's), `tap` on the operands of the
// arithmetic between a site and its comparison, and `cond` around guard conditions. Each does
// nothing unless the worker runs with `ABEX_PROBE` set, so the mutants' test runs pay one
// check of a static per call. `ABEX_PROBE` holds the mutant's spec (JSON): what infects its
// site and which guards lead to it:
//
//   {"site": S, "guards": [{"top": ID, "want": true|false, "cond": C}, ...]}
//   S: {"arm": true}                   the arm reports infection itself (`reach`, `cmp_alt`)
//    | {"cmp": ID, "op": "<", "l": E, "r": E}
//                                      infected where comparison ID's result differs from
//                                      `l op r`, the original's comparison (E below)
//    | {"value": SLOT, "alt": E}       infected where the value tapped at SLOT differs from E
//    | {"value": SLOT, "alt": E, "then": [{"cmp": ID, "side": "a"|"b"}, ...]}
//                                      the value is bound by a `let`: infected where comparison
//                                      ID, which reads it as its operand `side`, differs with E
//                                      (the original's value, as last tapped) in its place
//    | {"none": "why"}                 no infection probe
//   E: "a" | "b" (the comparison's operands) | {"t": SLOT} | {"n": "185"}
//    | {"neg": E} | {"op": "+", "l": E, "r": E} (+ - * / % & | ^ << >>) | {"as": "u8", "e": E}
//   C: {"c": ID} (a comparison) | {"b": ID} (a boolean) | {"and": [C, C]} | {"or": [C, C]}
//    | {"not": C}
//
// `{"trace": true}` is trace mode, for the original's worker (the explorer's threshold
// operator): every `cmp` notes its operands, and the answer carries
// `"probe":{"cmps":[[ID,"<","A","B"],...]}`, each comparison at its smallest |A - B|.
//
// After each call the answer carries `"probe":{"reached":R,"infected":I,"distance":D,
// "operands":[A,B],"guards":[[S,G],...]}` (the protocol of `src/exec/probe.rs`); a guard missed
// at its closest evaluation also names the operands of its comparisons there,
// `[S,G,[["A","B"],...]]` (the directed search steers the inputs that hold them).

/// A number seen by a probe.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// A signed integer, or an unsigned one up to `i128::MAX`.
    I(i128),
    /// An unsigned integer above `i128::MAX`.
    U(u128),
    /// A float (or `f32` widened).
    F(f64),
}

/// A value whose number a probe wants (autoref specialisation: `(&N(&v)).abex_num()` is the
/// number of a primitive `v`, and `None` for any other type).
pub struct N<'a, T: ?Sized + 'a>(pub &'a T);

/// The number of a probed value, if it is one.
pub trait AbexNum {
    /// The number, or `None`.
    fn abex_num(&self) -> Option<Num>;
}

macro_rules! abex_num_impls {
    ($($t:ident => $e:expr),* $(,)*) => {$(
        impl<'a> AbexNum for N<'a, $t> {
            fn abex_num(&self) -> Option<Num> {
                let f: fn($t) -> Num = $e;
                Some(f(*self.0))
            }
        }
    )*};
}
abex_num_impls! {
    i8 => |v| Num::I(v as i128), i16 => |v| Num::I(v as i128), i32 => |v| Num::I(v as i128),
    i64 => |v| Num::I(v as i128), i128 => Num::I, isize => |v| Num::I(v as i128),
    u8 => |v| Num::I(v as i128), u16 => |v| Num::I(v as i128), u32 => |v| Num::I(v as i128),
    u64 => |v| Num::I(v as i128), usize => |v| Num::I(v as i128),
    u128 => |v| if v > i128::MAX as u128 { Num::U(v) } else { Num::I(v as i128) },
    f32 => |v| Num::F(v as f64), f64 => Num::F,
    char => |v| Num::I(v as u32 as i128), bool => |v| Num::I(v as i128),
}

impl<'a, 'b, T: ?Sized> AbexNum for &'b N<'a, T> {
    fn abex_num(&self) -> Option<Num> {
        None
    }
}

impl Num {
    fn f(self) -> f64 {
        match self {
            Num::I(v) => v as f64,
            Num::U(v) => v as f64,
            Num::F(v) => v,
        }
    }

    fn is_int(self) -> bool {
        match self {
            Num::F(_) => false,
            _ => true,
        }
    }

    fn text(self) -> String {
        match self {
            Num::I(v) => v.to_string(),
            Num::U(v) => v.to_string(),
            Num::F(v) => ::std::format!("{:?}", v),
        }
    }
}

// `a - b`, as a float (exact for integers up to 2^53 apart).
fn diff(a: Num, b: Num) -> f64 {
    match (a, b) {
        (Num::I(x), Num::I(y)) => match x.checked_sub(y) {
            Some(d) => d as f64,
            None => x as f64 - y as f64,
        },
        _ => a.f() - b.f(),
    }
}

// Whether `a op b` holds.
fn holds(op: u8, a: Num, b: Num) -> Option<bool> {
    let ord = match (a, b) {
        (Num::I(x), Num::I(y)) => x.partial_cmp(&y),
        (Num::U(x), Num::U(y)) => x.partial_cmp(&y),
        (Num::U(_), Num::I(_)) => Some(::std::cmp::Ordering::Greater),
        (Num::I(_), Num::U(_)) => Some(::std::cmp::Ordering::Less),
        _ => a.f().partial_cmp(&b.f()),
    };
    let o = match ord {
        Some(o) => o,
        None => return Some(op == b'!'),
    };
    Some(match op {
        b'<' => o == ::std::cmp::Ordering::Less,
        b'l' => o != ::std::cmp::Ordering::Greater,
        b'>' => o == ::std::cmp::Ordering::Greater,
        b'g' => o != ::std::cmp::Ordering::Less,
        b'=' => o == ::std::cmp::Ordering::Equal,
        b'!' => o != ::std::cmp::Ordering::Equal,
        _ => return None,
    })
}

// The branch distance of making `a op b` evaluate to `want` (0 when it does).
fn branch_distance(op: u8, a: Num, b: Num, want: bool) -> f64 {
    let d = diff(a, b);
    if d.is_nan() {
        return 1.0;
    }
    let k = if a.is_int() && b.is_int() {
        1.0
    } else {
        f64::EPSILON * a.f().abs().max(b.f().abs()).max(1.0)
    };
    // Turn every case into "make d < 0", "d <= 0", "d == 0" or "d != 0".
    let (op, d) = match (op, want) {
        (b'<', true) | (b'g', false) => (b'<', d),
        (b'l', true) | (b'>', false) => (b'l', d),
        (b'>', true) | (b'l', false) => (b'<', -d),
        (b'g', true) | (b'<', false) => (b'l', -d),
        (b'=', true) | (b'!', false) => (b'=', d),
        _ => (b'!', d),
    };
    match op {
        b'<' if d < 0.0 => 0.0,
        b'<' => d + k,
        b'l' if d <= 0.0 => 0.0,
        b'l' => d,
        b'=' => d.abs(),
        _ if d != 0.0 => 0.0,
        _ => k,
    }
}

fn op_code(text: &str) -> Option<u8> {
    Some(match text {
        "<" => b'<',
        "<=" => b'l',
        ">" => b'>',
        ">=" => b'g',
        "==" => b'=',
        "!=" => b'!',
        _ => return None,
    })
}

/// An expression of the probe spec: the original's side of a site, over the probed values.
#[derive(Clone, Debug)]
enum ProbeExpr {
    A,
    B,
    Tap(u32),
    Lit(Num),
    Neg(Box<ProbeExpr>),
    Bin(String, Box<ProbeExpr>, Box<ProbeExpr>),
    Cast(String, Box<ProbeExpr>),
}

#[derive(Clone, Debug)]
enum ProbeCond {
    Cmp(u32),
    Bool(u32),
    And(Box<ProbeCond>, Box<ProbeCond>),
    Or(Box<ProbeCond>, Box<ProbeCond>),
    Not(Box<ProbeCond>),
}

#[derive(Clone, Debug)]
enum ProbeSite {
    Arm,
    Cmp(u32, u8, ProbeExpr, ProbeExpr),
    Value(u32, ProbeExpr, Vec<(u32, bool)>),
    None(String),
}

#[derive(Clone, Debug)]
struct ProbeGuard {
    top: u32,
    want: bool,
    cond: ProbeCond,
}

#[derive(Clone, Debug)]
struct ProbeSpec {
    // Trace mode (the original's worker): every comparison reports its closest operands.
    trace: bool,
    site: ProbeSite,
    guards: Vec<ProbeGuard>,
    // Every comparison or boolean the guards read.
    atoms: Vec<u32>,
}

fn member<'j>(j: &'j Json, key: &str) -> Option<&'j Json> {
    match *j {
        Json::Obj(ref members) => members.iter().find(|m| m.0 == key).map(|m| &m.1),
        _ => None,
    }
}

fn json_u32(j: Option<&Json>) -> Option<u32> {
    match j {
        Some(&Json::Num(ref n)) => n.parse().ok(),
        _ => None,
    }
}

fn json_str_of(j: Option<&Json>) -> Option<&str> {
    match j {
        Some(&Json::Str(ref s)) => Some(s.as_str()),
        _ => None,
    }
}

fn parse_lit(text: &str) -> Option<Num> {
    if let Ok(v) = text.parse::<i128>() {
        return Some(Num::I(v));
    }
    if let Ok(v) = text.parse::<u128>() {
        return Some(Num::U(v));
    }
    text.parse::<f64>().ok().map(Num::F)
}

fn parse_expr(j: &Json) -> Option<ProbeExpr> {
    if let Json::Str(ref s) = *j {
        return match s.as_str() {
            "a" => Some(ProbeExpr::A),
            "b" => Some(ProbeExpr::B),
            _ => None,
        };
    }
    if let Some(slot) = json_u32(member(j, "t")) {
        return Some(ProbeExpr::Tap(slot));
    }
    if let Some(n) = json_str_of(member(j, "n")) {
        return parse_lit(n).map(ProbeExpr::Lit);
    }
    if let Some(e) = member(j, "neg") {
        return parse_expr(e).map(|e| ProbeExpr::Neg(Box::new(e)));
    }
    if let Some(ty) = json_str_of(member(j, "as")) {
        let e = parse_expr(member(j, "e")?)?;
        return Some(ProbeExpr::Cast(ty.to_string(), Box::new(e)));
    }
    let op = json_str_of(member(j, "op"))?;
    let l = parse_expr(member(j, "l")?)?;
    let r = parse_expr(member(j, "r")?)?;
    Some(ProbeExpr::Bin(op.to_string(), Box::new(l), Box::new(r)))
}

fn parse_cond(j: &Json, atoms: &mut Vec<u32>) -> Option<ProbeCond> {
    if let Some(id) = json_u32(member(j, "c")) {
        atoms.push(id);
        return Some(ProbeCond::Cmp(id));
    }
    if let Some(id) = json_u32(member(j, "b")) {
        atoms.push(id);
        return Some(ProbeCond::Bool(id));
    }
    if let Some(c) = member(j, "not") {
        return parse_cond(c, atoms).map(|c| ProbeCond::Not(Box::new(c)));
    }
    let (and, pair) = match (member(j, "and"), member(j, "or")) {
        (Some(p), _) => (true, p),
        (_, Some(p)) => (false, p),
        _ => return None,
    };
    match *pair {
        Json::Arr(ref two) if two.len() == 2 => {
            let x = Box::new(parse_cond(&two[0], atoms)?);
            let y = Box::new(parse_cond(&two[1], atoms)?);
            Some(if and { ProbeCond::And(x, y) } else { ProbeCond::Or(x, y) })
        }
        _ => None,
    }
}

fn parse_spec(text: &str) -> ProbeSpec {
    let none = |why: &str| ProbeSpec {
        trace: false,
        site: ProbeSite::None(why.to_string()),
        guards: Vec::new(),
        atoms: Vec::new(),
    };
    let j = match Json::parse(text) {
        Ok(j) => j,
        Err(_) => return none("no probe was compiled for this site"),
    };
    if let Some(&Json::Bool(true)) = member(&j, "trace") {
        let mut spec = none("the original is traced");
        spec.trace = true;
        return spec;
    }
    let site = match member(&j, "site") {
        Some(s) if member(s, "arm").is_some() => ProbeSite::Arm,
        Some(s) if member(s, "cmp").is_some() => {
            let parsed = (
                json_u32(member(s, "cmp")),
                json_str_of(member(s, "op")).and_then(op_code),
                member(s, "l").and_then(parse_expr),
                member(s, "r").and_then(parse_expr),
            );
            match parsed {
                (Some(id), Some(op), Some(l), Some(r)) => ProbeSite::Cmp(id, op, l, r),
                _ => ProbeSite::None("an unreadable probe spec".to_string()),
            }
        }
        Some(s) if member(s, "value").is_some() => {
            let mut then = Vec::new();
            if let Some(&Json::Arr(ref cs)) = member(s, "then") {
                for c in cs {
                    if let Some(id) = json_u32(member(c, "cmp")) {
                        then.push((id, json_str_of(member(c, "side")) == Some("a")));
                    }
                }
            }
            match (json_u32(member(s, "value")), member(s, "alt").and_then(parse_expr)) {
                (Some(slot), Some(alt)) => ProbeSite::Value(slot, alt, then),
                _ => ProbeSite::None("an unreadable probe spec".to_string()),
            }
        }
        Some(s) => ProbeSite::None(
            json_str_of(member(s, "none")).unwrap_or("no probe for this site").to_string(),
        ),
        None => ProbeSite::None("no probe was compiled for this site".to_string()),
    };
    let mut atoms = Vec::new();
    let mut guards = Vec::new();
    if let Some(&Json::Arr(ref gs)) = member(&j, "guards") {
        for g in gs {
            let top = json_u32(member(g, "top"));
            let want = match member(g, "want") {
                Some(&Json::Bool(b)) => b,
                _ => true,
            };
            let cond = member(g, "cond").and_then(|c| parse_cond(c, &mut atoms));
            if let (Some(top), Some(cond)) = (top, cond) {
                guards.push(ProbeGuard { top: top, want: want, cond: cond });
            }
        }
    }
    ProbeSpec { trace: false, site: site, guards: guards, atoms: atoms }
}

// The spec of this worker's mutant, or `None` when it does not probe.
fn probe_spec() -> Option<&'static ProbeSpec> {
    static SPEC: ::std::sync::OnceLock<Option<ProbeSpec>> = ::std::sync::OnceLock::new();
    SPEC.get_or_init(|| ::std::env::var("ABEX_PROBE").ok().map(|s| parse_spec(&s))).as_ref()
}

/// Whether this worker probes (`ABEX_PROBE` is set).
pub fn probing() -> bool {
    probe_spec().is_some()
}

// What one call's probes saw.
#[derive(Default)]
struct ProbeState {
    reached: u32,
    infected: u32,
    // Evaluations at the site whose infection could be computed.
    known: u32,
    distance: Option<f64>,
    operands: Option<(Num, Num)>,
    // Per atom: (fresh since its guard last read it, distance to true, distance to false).
    atoms: Vec<(u32, bool, f64, f64)>,
    taps: Vec<(u32, Num)>,
    // The original's value of a site bound by a `let`, as last tapped.
    shadow: Option<Num>,
    // Per comparison atom: its operands at its last evaluation.
    atom_ops: Vec<(u32, Num, Num)>,
    // Per guard: (took its direction, smallest distance to it, the operands of its
    // comparisons at its closest missed evaluation).
    guards: Vec<(bool, Option<f64>, Vec<(Num, Num)>)>,
    // Trace mode: per comparison (id, operator, operands) at its smallest |a - b|.
    cmps: Vec<(u32, u8, Num, Num)>,
}

::std::thread_local! {
    static ABEX_PROBE_STATE: ::std::cell::RefCell<ProbeState> =
        ::std::cell::RefCell::new(ProbeState::default());
}

fn with_state<F: FnOnce(&mut ProbeState, &'static ProbeSpec)>(f: F) {
    if let Some(spec) = probe_spec() {
        let _ = ABEX_PROBE_STATE.try_with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                f(&mut s, spec)
            }
        });
    }
}

// Notes one evaluation at the site: infected or not, and how far from it.
fn infection(s: &mut ProbeState, infected: bool, distance: Option<f64>, ops: Option<(Num, Num)>) {
    s.known += 1;
    let d = if infected { Some(0.0) } else { distance };
    if infected {
        s.infected += 1;
    }
    if let Some(d) = d {
        if s.distance.map_or(true, |best| d < best) {
            s.distance = Some(d);
            if ops.is_some() {
                s.operands = ops;
            }
        }
    }
}

/// The active mutant's switch arm ran; `infects` when every run of it infects (a negated
/// condition, a deleted `!`, a changed constant outside any comparison).
pub fn reach(infects: bool) {
    with_state(|s, _| {
        s.reached += 1;
        if infects {
            infection(s, true, None, None);
        }
    });
}

/// The active mutant's changed constant is the default of an `unwrap_or` on a value that is
/// empty (`absent`: `None`, `Err`): only then is the constant used and the run infected.
pub fn infects_if(absent: bool) {
    with_state(|s, _| {
        if absent {
            infection(s, true, None, None);
        }
    });
}

/// A value whose `unwrap_or` default is used when it is empty (see [`infects_if`]).
pub trait AbexDefaulted {
    /// Whether the value is empty (`None`, `Err`).
    fn __abex_defaulted(&self) -> bool;
}

impl<T> AbexDefaulted for Option<T> {
    fn __abex_defaulted(&self) -> bool {
        self.is_none()
    }
}

impl<T, E> AbexDefaulted for Result<T, E> {
    fn __abex_defaulted(&self) -> bool {
        self.is_err()
    }
}

/// A mutated comparison `a op b` gave `r` where the original's `a alt_op b` gives `alt`.
pub fn cmp_alt(op: u8, alt_op: u8, r: bool, alt: bool, a: Option<Num>, b: Option<Num>) {
    with_state(|s, _| {
        let d = match (a, b) {
            (Some(x), Some(y)) => Some(
                branch_distance(op, x, y, !r).min(branch_distance(alt_op, x, y, !alt)),
            ),
            _ => None,
        };
        infection(s, r != alt, d, a.and_then(|x| b.map(|y| (x, y))));
    });
}

fn note_atom(s: &mut ProbeState, id: u32, dt: f64, df: f64) {
    match s.atoms.iter_mut().find(|a| a.0 == id) {
        Some(a) => *a = (id, true, dt, df),
        None => s.atoms.push((id, true, dt, df)),
    }
}

fn eval(e: &ProbeExpr, s: &ProbeState, a: Option<Num>, b: Option<Num>) -> Option<Num> {
    Some(match *e {
        ProbeExpr::A => a?,
        ProbeExpr::B => b?,
        ProbeExpr::Tap(slot) => s.taps.iter().find(|t| t.0 == slot)?.1,
        ProbeExpr::Lit(n) => n,
        ProbeExpr::Neg(ref x) => match eval(x, s, a, b)? {
            Num::I(v) => Num::I(v.checked_neg()?),
            Num::U(_) => return None,
            Num::F(v) => Num::F(-v),
        },
        ProbeExpr::Bin(ref op, ref x, ref y) => {
            arith(op, eval(x, s, a, b)?, eval(y, s, a, b)?)?
        }
        ProbeExpr::Cast(ref ty, ref x) => cast(ty, eval(x, s, a, b)?)?,
    })
}

fn arith(op: &str, x: Num, y: Num) -> Option<Num> {
    if let (Num::I(p), Num::I(q)) = (x, y) {
        return Some(Num::I(match op {
            "+" => p.checked_add(q)?,
            "-" => p.checked_sub(q)?,
            "*" => p.checked_mul(q)?,
            "/" => p.checked_div(q)?,
            "%" => p.checked_rem(q)?,
            "&" => p & q,
            "|" => p | q,
            "^" => p ^ q,
            "<<" => p.checked_shl(<u32 as ::std::convert::TryFrom<i128>>::try_from(q).ok()?)?,
            ">>" => p.checked_shr(<u32 as ::std::convert::TryFrom<i128>>::try_from(q).ok()?)?,
            _ => return None,
        }));
    }
    if !(x.is_int() && y.is_int()) {
        let (p, q) = (x.f(), y.f());
        return Some(Num::F(match op {
            "+" => p + q,
            "-" => p - q,
            "*" => p * q,
            "/" => p / q,
            "%" => p % q,
            _ => return None,
        }));
    }
    None
}

fn cast(ty: &str, x: Num) -> Option<Num> {
    let bits: u32 = match ty {
        "f32" => return Some(Num::F(x.f() as f32 as f64)),
        "f64" => return Some(Num::F(x.f())),
        "i8" | "u8" => 8,
        "i16" | "u16" => 16,
        "i32" | "u32" => 32,
        "i64" | "u64" | "isize" | "usize" => 64,
        "i128" | "u128" => 128,
        _ => return None,
    };
    let signed = ty.starts_with('i');
    let v: i128 = match x {
        Num::I(v) => v,
        Num::U(v) => v as i128,
        Num::F(f) => {
            if f.is_nan() {
                0
            } else if signed || bits == 128 {
                f as i128
            } else {
                f.max(0.0) as i128
            }
        }
    };
    if bits == 128 {
        return Some(if !signed && v < 0 { Num::U(v as u128) } else { Num::I(v) });
    }
    let m = (1i128 << bits) - 1;
    let w = v & m;
    Some(Num::I(if signed && w >> (bits - 1) == 1 { w - (1i128 << bits) } else { w }))
}

// Trace mode: notes comparison `id` when its operands are the closest so far.
fn trace(s: &mut ProbeState, id: u32, op: u8, a: Num, b: Num) {
    let d = diff(a, b).abs();
    if d.is_nan() {
        return;
    }
    match s.cmps.iter_mut().find(|c| c.0 == id) {
        Some(c) => {
            if d < diff(c.2, c.3).abs() {
                *c = (id, op, a, b);
            }
        }
        None => s.cmps.push((id, op, a, b)),
    }
}

/// A comparison `a op b` of the original code (id `id`) gave `r`.
pub fn cmp(id: u32, op: u8, r: bool, a: Option<Num>, b: Option<Num>) {
    with_state(|s, spec| {
        if spec.trace {
            if let (Some(x), Some(y)) = (a, b) {
                trace(s, id, op, x, y);
            }
            return;
        }
        if spec.atoms.contains(&id) {
            let (dt, df) = match (a, b) {
                (Some(x), Some(y)) => {
                    (branch_distance(op, x, y, true), branch_distance(op, x, y, false))
                }
                _ => (if r { 0.0 } else { 1.0 }, if r { 1.0 } else { 0.0 }),
            };
            note_atom(s, id, dt, df);
            if let (Some(x), Some(y)) = (a, b) {
                match s.atom_ops.iter_mut().find(|o| o.0 == id) {
                    Some(o) => *o = (id, x, y),
                    None => s.atom_ops.push((id, x, y)),
                }
            }
        }
        let (alt_op, alt) = match spec.site {
            ProbeSite::Cmp(at, alt_op, ref l, ref rr) if at == id => {
                (alt_op, (eval(l, s, a, b), eval(rr, s, a, b)))
            }
            ProbeSite::Value(_, _, ref then) => match then.iter().find(|t| t.0 == id) {
                Some(&(_, side_a)) if side_a => (op, (s.shadow, b)),
                Some(_) => (op, (a, s.shadow)),
                None => return,
            },
            _ => return,
        };
        if let (Some(x), Some(y), Some(p), Some(q)) = (a, b, alt.0, alt.1) {
            if let Some(alt_r) = holds(alt_op, p, q) {
                let d = branch_distance(op, x, y, !r).min(branch_distance(alt_op, p, q, !alt_r));
                infection(s, alt_r != r, Some(d), Some((x, y)));
            }
        }
    });
}

/// A value between a site and its comparison (or the site's own value) was `v`.
pub fn tap(slot: u32, v: Option<Num>) {
    with_state(|s, spec| {
        let v = match v {
            Some(v) => v,
            None => return,
        };
        match s.taps.iter_mut().find(|t| t.0 == slot) {
            Some(t) => t.1 = v,
            None => s.taps.push((slot, v)),
        }
        if let ProbeSite::Value(at, ref alt, ref then) = spec.site {
            if at == slot {
                let o = eval(alt, s, None, None);
                if !then.is_empty() {
                    s.shadow = o;
                } else if let Some(o) = o {
                    let same = holds(b'=', v, o) == Some(true);
                    infection(s, !same, Some(if same { 1.0 } else { 0.0 }), Some((v, o)));
                }
            }
        }
    });
}

// The comparisons a guard's condition reads.
fn cond_cmps(c: &ProbeCond, out: &mut Vec<u32>) {
    match *c {
        ProbeCond::Cmp(id) => out.push(id),
        ProbeCond::Bool(_) => {}
        ProbeCond::Not(ref x) => cond_cmps(x, out),
        ProbeCond::And(ref x, ref y) | ProbeCond::Or(ref x, ref y) => {
            cond_cmps(x, out);
            cond_cmps(y, out);
        }
    }
}

fn cond_distance(c: &ProbeCond, want: bool, s: &ProbeState) -> f64 {
    match *c {
        ProbeCond::Cmp(id) | ProbeCond::Bool(id) => {
            match s.atoms.iter().find(|a| a.0 == id && a.1) {
                Some(a) => {
                    if want {
                        a.2
                    } else {
                        a.3
                    }
                }
                None => 0.0,
            }
        }
        ProbeCond::Not(ref x) => cond_distance(x, !want, s),
        ProbeCond::And(ref x, ref y) | ProbeCond::Or(ref x, ref y) => {
            let both = match *c {
                ProbeCond::And(..) => want,
                _ => !want,
            };
            let (p, q) = (cond_distance(x, want, s), cond_distance(y, want, s));
            if both {
                p + q
            } else {
                p.min(q)
            }
        }
    }
}

/// A condition (id `id`) was `b`: a boolean a guard reads, or a guard's whole condition.
pub fn cond(id: u32, b: bool) -> bool {
    with_state(|s, spec| {
        if spec.atoms.contains(&id) {
            note_atom(s, id, if b { 0.0 } else { 1.0 }, if b { 1.0 } else { 0.0 });
        }
        if !spec.guards.iter().any(|g| g.top == id) {
            return;
        }
        if s.guards.len() < spec.guards.len() {
            s.guards.resize(spec.guards.len(), (false, None, Vec::new()));
        }
        for (k, g) in spec.guards.iter().enumerate() {
            if g.top != id {
                continue;
            }
            let d = if b == g.want { 0.0 } else { cond_distance(&g.cond, g.want, s) };
            let closer = s.guards[k].1.map_or(true, |e: f64| d < e);
            let mut ops = Vec::new();
            if closer && b != g.want {
                let mut ids = Vec::new();
                cond_cmps(&g.cond, &mut ids);
                for id in ids {
                    let fresh = s.atoms.iter().any(|a| a.0 == id && a.1);
                    if let Some(o) = s.atom_ops.iter().find(|o| o.0 == id).filter(|_| fresh) {
                        ops.push((o.1, o.2));
                    }
                }
            }
            let entry = &mut s.guards[k];
            entry.0 = entry.0 || b == g.want;
            entry.1 = Some(entry.1.map_or(d, |e: f64| e.min(d)));
            if closer {
                entry.2 = ops;
            }
        }
        // The guard has read its atoms: the next evaluation sees only what it runs itself.
        for a in s.atoms.iter_mut() {
            a.1 = false;
        }
    });
    b
}

// Starts a call's probes.
fn probe_reset() {
    with_state(|s, _| *s = ProbeState::default());
}

// The `probe` member of a traced call: `,"probe":{"cmps":[[id,"<","a","b"],…]}`.
fn trace_report() -> String {
    let mut out = String::from(",\"probe\":{\"cmps\":[");
    let _ = ABEX_PROBE_STATE.try_with(|s| {
        if let Ok(s) = s.try_borrow() {
            for (k, c) in s.cmps.iter().enumerate() {
                let op = match c.1 {
                    b'<' => "<",
                    b'l' => "<=",
                    b'>' => ">",
                    b'g' => ">=",
                    b'=' => "==",
                    _ => "!=",
                };
                if k > 0 {
                    out.push(',');
                }
                out.push_str(&::std::format!(
                    "[{},\"{}\",\"{}\",\"{}\"]",
                    c.0,
                    op,
                    c.2.text(),
                    c.3.text()
                ));
            }
        }
    });
    out.push_str("]}");
    out
}

// A JSON number for a distance; `null` for an infinite or unknown one.
fn json_distance(out: &mut String, d: Option<f64>) {
    match d {
        Some(d) if d.is_finite() => out.push_str(&::std::format!("{}", d.abs())),
        _ => out.push_str("null"),
    }
}

// The `probe` member of the call's answer (`,"probe":{…}`), when this worker probes.
fn probe_report() -> Option<String> {
    let spec = probe_spec()?;
    if spec.trace {
        return Some(trace_report());
    }
    let mut out = String::from(",\"probe\":{");
    let _ = ABEX_PROBE_STATE.try_with(|s| {
        let s = match s.try_borrow() {
            Ok(s) => s,
            Err(_) => return,
        };
        out.push_str(&::std::format!("\"reached\":{}", s.reached));
        let none = match spec.site {
            ProbeSite::None(ref why) => Some(why.clone()),
            _ if s.reached > 0 && s.known == 0 => {
                Some("the values at the site are not numbers".to_string())
            }
            _ => None,
        };
        match none {
            Some(ref why) => {
                out.push_str(",\"infected\":null,\"none\":");
                let mut buf = Vec::new();
                json_str(&mut buf, why);
                out.push_str(&String::from_utf8_lossy(&buf));
            }
            None => {
                out.push_str(&::std::format!(",\"infected\":{},\"distance\":", s.infected));
                json_distance(&mut out, s.distance);
            }
        }
        if let Some((a, b)) = s.operands {
            out.push_str(&::std::format!(",\"operands\":[\"{}\",\"{}\"]", a.text(), b.text()));
        }
        out.push_str(",\"guards\":[");
        for k in 0..spec.guards.len() {
            let (sat, d, ops) = s.guards.get(k).cloned().unwrap_or((false, None, Vec::new()));
            if k > 0 {
                out.push(',');
            }
            out.push_str(if sat { "[1," } else { "[0," });
            json_distance(&mut out, d);
            if !sat && !ops.is_empty() {
                out.push_str(",[");
                for (n, (a, b)) in ops.iter().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    out.push_str(&::std::format!("[\"{}\",\"{}\"]", a.text(), b.text()));
                }
                out.push(']');
            }
            out.push(']');
        }
        out.push(']');
    });
    out.push('}');
    Some(out)
}
