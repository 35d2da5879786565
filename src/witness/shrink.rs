//! Witness shrinking: the witness a search finds is often long and random (a 40-character string
//! with U+10FFFF and NUL, integers in the millions), and it becomes the suggested test's name,
//! docstring and call. Before the test is written, [`shrink`] looks for a simpler input that still
//! tells the mutant from the original, as Hypothesis shrinks a failing example: the simplest
//! moves first (an empty string or list, `0`, `None` for an optional value), then deleting blocks
//! and elements (from every string and list argument at once too, for lengths a function
//! needs coupled), a string made one repeated character, a character renamed in every string
//! argument at once, plain ASCII for other characters,
//! characters toward the small alphabet `a`, `0` and space, integers rounded and halved toward
//! zero (a year beyond the present to the present), one step at a time last. A move is kept only
//! when it makes the input strictly simpler ([`Measure`]: fewer characters and elements, then
//! fewer unusual characters, then fewer characters outside `a`, `0` and space, then fewer
//! distinct characters, then smaller numbers and code points) and when both outcomes keep their
//! kind (a value stays a value, an error the same error type, a panic a panic; only a panic from
//! arithmetic overflow, an artefact of a huge input, may give way to any other outcome): the test
//! still says what the found witness said. Greedy: after each kept move the candidates are made
//! again from the simpler input. Bounded by [`SHRINK_CALLS`] candidate inputs and the search's
//! deadline. [`untypable`] names what is left that a person would not type, for the suggested
//! test to say why it is there.

use std::time::Instant;

use super::archive::{calm, past, tells_apart};
use super::further::gcd;
use crate::exec::probe::Outcomes;
use crate::exec::{Evaluate, ExecError, ProbeEvaluate};
use crate::inputs::conforms;
use crate::report::Witness;
use crate::value::{Args, Outcome, Ty, Value};

/// The environment variable that switches shrinking off (`ABEX_SHRINK=off`): the witness is
/// the one the search found. For tests and measurements; not a user setting.
pub const SHRINK_ENV: &str = "ABEX_SHRINK";

/// Candidate inputs run (each on the original and the mutant) per witness at most.
pub const SHRINK_CALLS: usize = 400;

/// Candidates run as one batch.
const BATCH: usize = 16;

/// Elements of a list (entries of a map) whose own values are shrunk.
const ELEMENTS: usize = 8;

/// Single-character and single-element deletions tried at most per value.
const DELETIONS: usize = 64;

/// A witness after shrinking.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The simplest witness found, with `shrunk_from` set when it changed.
    pub witness: Witness,
    /// Whether every move from it was tried and none kept it a witness: what it still holds
    /// (a character outside ASCII, a long string) no simpler input replaces. False when the
    /// budget or the deadline stopped shrinking first, or it was off.
    pub settled: bool,
}

/// Shrinks `w` (a witness of the mutant `mutant` against `original`, arguments typed by `params`)
/// toward simpler values. Returns the simplest witness found (`w` itself when nothing simpler
/// tells them apart), with `shrunk_from` set to the input found first when it changed.
pub fn shrink(
    params: &[Ty],
    w: &Witness,
    original: &mut dyn Evaluate,
    mutant: &mut dyn ProbeEvaluate,
    until: Option<Instant>,
) -> Result<Shrunk, ExecError> {
    if std::env::var(SHRINK_ENV).is_ok_and(|v| v.trim() == "off") {
        return Ok(Shrunk { witness: w.clone(), settled: false });
    }
    shrink_within(params, w, original, &mut Outcomes(mutant), SHRINK_CALLS, until)
}

/// [`shrink`] with `budget` candidate inputs.
pub(super) fn shrink_within(
    params: &[Ty],
    w: &Witness,
    original: &mut dyn Evaluate,
    mutant: &mut dyn Evaluate,
    budget: usize,
    until: Option<Instant>,
) -> Result<Shrunk, ExecError> {
    let mut best = w.clone();
    let mut spent = 0;
    let mut settled = greedy(params, &mut best, original, mutant, (&mut spent, budget), until)?;
    // A character outside ASCII stays only where no ASCII text of its bytes tells them apart:
    // Rust's `str::len` counts bytes, so where `"ß"` (one character, two bytes) is a witness,
    // `"ab"` often is one too, and it is the one a person writes (strsim 0.11.1's
    // `sorensen_dice("", "ß")`). The measure ranks fewer characters first, so this move is
    // made once, outside it, and shrinking goes on from there.
    if let Some(plainer) = in_ascii_bytes(&best.input) {
        if spent < budget && !past(until) {
            spent += 1;
            let batch = std::slice::from_ref(&plainer);
            if first_kept(batch, &mut best, original, mutant)? {
                settled = greedy(params, &mut best, original, mutant, (&mut spent, budget), until)?;
            }
        }
    }
    if best.input != w.input {
        best.shrunk_from = Some(w.shrunk_from.clone().unwrap_or_else(|| w.input.clone()));
    }
    Ok(Shrunk { witness: best, settled })
}

/// The greedy rounds of [`shrink_within`] from `best`: each keeps the first candidate, in
/// batches, that is simpler and still a witness, until none is (true: settled) or the budget
/// (`spent` of it so far) or the deadline ends them.
fn greedy(
    params: &[Ty],
    best: &mut Witness,
    original: &mut dyn Evaluate,
    mutant: &mut dyn Evaluate,
    (spent, budget): (&mut usize, usize),
    until: Option<Instant>,
) -> Result<bool, ExecError> {
    'rounds: while *spent < budget && !past(until) {
        let current = Measure::of_args(&best.input);
        let cands: Vec<Args> = candidates(params, &best.input)
            .into_iter()
            .filter(|c| Measure::of_args(c) < current)
            .collect();
        for chunk in cands.chunks(BATCH) {
            let room = budget - *spent;
            if room == 0 || past(until) {
                break 'rounds;
            }
            let whole = chunk.len() <= room;
            let chunk = &chunk[..chunk.len().min(room)];
            *spent += chunk.len();
            if first_kept(chunk, best, original, mutant)? {
                continue 'rounds;
            }
            if !whole {
                break 'rounds;
            }
        }
        return Ok(true);
    }
    Ok(false)
}

/// Runs `batch` on both sides and makes the first input that still witnesses what `best`
/// witnessed ([`keeps`]) the new `best`; whether one did.
fn first_kept(
    batch: &[Args],
    best: &mut Witness,
    original: &mut dyn Evaluate,
    mutant: &mut dyn Evaluate,
) -> Result<bool, ExecError> {
    let ms = mutant.evaluate(batch)?;
    let os = original.evaluate(batch)?;
    let Some(k) =
        (0..batch.len().min(ms.len()).min(os.len())).find(|&k| keeps(best, &os[k], &ms[k]))
    else {
        return Ok(false);
    };
    best.input = batch[k].clone();
    best.original = os[k].clone();
    best.mutant = ms[k].clone();
    Ok(true)
}

/// `args` with each character of its strings outside printable ASCII written as as many `a`s
/// as it has UTF-8 bytes (`"ß"` → `"aa"`), or `None` when there is none.
fn in_ascii_bytes(args: &Args) -> Option<Args> {
    fn plainer(v: &Value) -> Value {
        match v {
            Value::Str(s) => Value::Str(
                s.chars()
                    .map(|c| if plain(c) { c.to_string() } else { "a".repeat(c.len_utf8()) })
                    .collect(),
            ),
            Value::List(xs) => Value::List(xs.iter().map(plainer).collect()),
            Value::Map(es) => Value::Map(es.iter().map(|(k, x)| (k.clone(), plainer(x))).collect()),
            Value::Built { ctor, args } => {
                Value::Built { ctor: ctor.clone(), args: args.iter().map(plainer).collect() }
            }
            _ => v.clone(),
        }
    }
    let out: Args = args.iter().map(plainer).collect();
    (out != *args).then_some(out)
}

/// Up to `n` other witnesses among the archive's inputs than one on `tried`: the `known` inputs
/// on which the mutant's outcome (`outs`) tells it from the original's and neither side panics,
/// simplest first ([`Measure`]). Where the witness found first does not hold
/// when run again ([`crate::report::Unwitnessed::Unsteady`]), the mutant may still have steady
/// ones: an input near a size where calls turn slow (a tuple of 36203 items shown in 10 ms,
/// answered `slow` once the machine is loaded) is unsteady, a smaller one is not.
pub fn alternatives(
    known: &[(Args, Outcome)],
    outs: &[Outcome],
    tried: &Args,
    n: usize,
) -> Vec<Witness> {
    let mut found: Vec<(Measure, Witness)> = known
        .iter()
        .zip(outs)
        .filter(|((a, o), m)| a != tried && tells_apart(o, m) && calm(o) && calm(m))
        .map(|((a, o), m)| {
            let w = Witness {
                input: a.clone(),
                original: o.clone(),
                mutant: m.clone(),
                found_by: "archive".into(),
                shrunk_from: None,
            };
            (Measure::of_args(a), w)
        })
        .collect();
    found.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
    found.into_iter().take(n).map(|(_, w)| w).collect()
}

/// Whether the outcomes `o` (original) and `m` (mutant) of a candidate still witness what `w`
/// witnessed: they differ, and each keeps its kind (and an error its type).
fn keeps(w: &Witness, o: &Outcome, m: &Outcome) -> bool {
    tells_apart(o, m) && same_kind(&w.original, o) && same_kind(&w.mutant, m)
}

fn same_kind(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        // `attempt to add with overflow`: the huge input made it, a plain one says more.
        (Outcome::Panic { message }, b) if of_a_huge_input(message) => {
            !matches!(b, Outcome::Timeout)
        }
        (Outcome::Ok { value: x }, Outcome::Ok { value: y }) => {
            // A Rust `Err(..)` returned stays an `Err(..)`.
            x.starts_with("Err(") == y.starts_with("Err(")
        }
        (Outcome::Error { ty: x, .. }, Outcome::Error { ty: y, .. }) => x == y,
        (Outcome::Panic { .. }, Outcome::Panic { .. }) => true,
        (Outcome::Crash { .. }, Outcome::Crash { .. }) => true,
        _ => false,
    }
}

/// Whether a panic's `message` is one only a huge input causes, where a plain input gives a
/// value (or another error) that says more: arithmetic overflow, and a width or precision
/// beyond what `core::fmt` takes (`{:.*}` with a `usize` of the input: humansize 2.1.3's
/// `decimal_places`, where `5000000000000` places panicked on the original's side and the
/// mutant wrote `"1000B"`).
fn of_a_huge_input(message: &str) -> bool {
    message.contains("with overflow") || message.contains("Formatting argument out of range")
}

/// How complex an input is, compared in this order: its size (values, characters, elements),
/// its unusual parts (characters outside printable ASCII, negative numbers, fractions,
/// non-finite floats, `true`), its strings' characters outside the small alphabet `a`, `0` and
/// space, their distinct characters, the sum of its numbers' magnitudes (and of its unusual
/// characters' code points). Every kept move lowers it, so shrinking never goes round in
/// circles.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub(super) struct Measure {
    size: u64,
    unusual: u64,
    odd: u64,
    distinct: u64,
    magnitude: f64,
}

impl Measure {
    /// The measure of an argument list.
    pub(super) fn of_args(args: &Args) -> Measure {
        let mut m = Measure::default();
        for v in args {
            m.add(v);
        }
        m
    }

    fn add(&mut self, v: &Value) {
        match v {
            Value::Null => {}
            Value::Bool(b) => {
                self.size += 1;
                self.unusual += u64::from(*b);
            }
            Value::Int(i) => {
                self.size += 1;
                self.unusual += u64::from(*i < 0);
                self.magnitude += i.unsigned_abs() as f64;
            }
            Value::BigUint(u) => {
                self.size += 1;
                self.magnitude += *u as f64;
            }
            Value::Float(x) => {
                self.size += 1;
                if x.is_finite() {
                    self.unusual += u64::from(*x < 0.0) + u64::from(x.fract() != 0.0);
                    self.magnitude += x.abs();
                } else {
                    self.unusual += 1;
                    self.magnitude += f64::MAX / 4.0;
                }
            }
            Value::Str(s) => {
                self.size += 1 + s.chars().count() as u64;
                for c in s.chars().filter(|c| !plain(*c)) {
                    self.unusual += 1;
                    self.magnitude += f64::from(u32::from(c));
                }
                self.odd += s.chars().filter(|c| !SMALL.contains(c)).count() as u64;
                let mut seen: Vec<char> = s.chars().collect();
                seen.sort_unstable();
                seen.dedup();
                self.distinct += seen.len() as u64;
            }
            Value::List(xs) => {
                self.size += 1;
                xs.iter().for_each(|x| self.add(x));
            }
            Value::Map(es) => {
                self.size += 1;
                for (k, x) in es {
                    self.size += 1 + k.chars().count() as u64;
                    self.add(x);
                }
            }
            Value::Built { args, .. } => {
                self.size += 1;
                args.iter().for_each(|x| self.add(x));
            }
        }
    }
}

/// A character a person types in a test: printable ASCII.
fn plain(c: char) -> bool {
    (' '..='~').contains(&c)
}

/// The small alphabet characters shrink toward.
const SMALL: [char; 3] = ['a', '0', ' '];

/// The year a year beyond it shrinks to: a fixed one (the same witness on every run), recent.
pub const PRESENT_YEAR: i128 = 2024;

/// Where a character of the small alphabet goes: digits to `0`, letters to `a`, the rest to a
/// space.
fn small_of(c: char) -> char {
    if c.is_ascii_digit() {
        '0'
    } else if c.is_alphabetic() {
        'a'
    } else {
        ' '
    }
}

/// The characters of `args`' strings a person would not type in a test, each once, in order:
/// control and format characters, surrogates, private use and noncharacters (U+FFFF,
/// U+10FFFF). A settled shrunk witness keeps one only when no simpler input tells the mutant
/// apart ([`Shrunk::settled`]).
pub fn untypable(args: &Args) -> Vec<char> {
    chars_where(args, |c| !typable(c))
}

/// The characters of `args`' strings outside printable ASCII, each once, in order: what a
/// suggested test's comment explains.
pub fn unusual(args: &Args) -> Vec<char> {
    chars_where(args, |c| !plain(c))
}

/// The characters of `args`' strings (map keys too) for which `pick` holds, each once, in order.
fn chars_where(args: &Args, pick: impl Fn(char) -> bool) -> Vec<char> {
    let mut out = Vec::new();
    let mut strings = Vec::new();
    args.iter().for_each(|v| strings_of(v, &mut strings));
    for c in strings.iter().flat_map(|s| s.chars()).filter(|&c| pick(c)) {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// The strings of `v` (map keys too).
fn strings_of(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Str(s) => out.push(s.clone()),
        Value::List(xs) => xs.iter().for_each(|x| strings_of(x, out)),
        Value::Map(es) => es.iter().for_each(|(k, x)| {
            out.push(k.clone());
            strings_of(x, out);
        }),
        Value::Built { args, .. } => args.iter().for_each(|x| strings_of(x, out)),
        _ => {}
    }
}

/// Whether a person types `c` in a test: not a control or format character, a surrogate, a
/// private-use character or a noncharacter.
pub fn typable(c: char) -> bool {
    let n = u32::from(c);
    let format = matches!(n, 0xAD | 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x2064 | 0xFEFF);
    let private = matches!(n, 0xE000..=0xF8FF | 0xF0000..);
    let nonchar = matches!(n, 0xFDD0..=0xFDEF) || n & 0xFFFE == 0xFFFE;
    !(c.is_control() || format || private || nonchar || (0xD800..=0xDFFF).contains(&n))
}

/// The candidate inputs one move away from `args`, the boldest moves first (every argument's
/// simplest value before any argument's finer moves).
fn candidates(params: &[Ty], args: &Args) -> Vec<Args> {
    let mut all: Vec<(u8, usize, Args)> = Vec::new();
    // Coupled deletions first within their pass: where lengths are coupled, every deletion from
    // one argument fails, and running those first on every round spent the budget before the
    // coupled ones ran (hex's witness stayed at 10 and 5 bytes).
    for (pass, c) in coupled(args) {
        if params.iter().zip(&c).all(|(ty, v)| conforms(ty, v)) {
            all.push((pass, all.len(), c));
        }
    }
    for (pass, c) in renamed(args) {
        if params.iter().zip(&c).all(|(ty, v)| conforms(ty, v)) {
            all.push((pass, all.len(), c));
        }
    }
    for (i, v) in args.iter().enumerate() {
        let ty = params.get(i).unwrap_or(&Ty::Any);
        for (pass, c) in simpler(ty, v, 0) {
            if conforms(ty, &c) {
                let mut a = args.clone();
                a[i] = c;
                all.push((pass, all.len(), a));
            }
        }
    }
    all.sort_by_key(|(pass, order, _)| (*pass, *order));
    all.into_iter().map(|(_, _, a)| a).collect()
}

/// Each distinct character outside the small alphabet made its small-alphabet one (then `a`,
/// then `0`) in every string argument at once, in pass 2: a function often compares its
/// strings with each other (`sorensen_dice(a, b)` counts the bigrams they share), and renaming
/// a character in one of them alone breaks what they share. Empty with fewer than two string
/// arguments.
fn renamed(args: &Args) -> Vec<(u8, Args)> {
    let texts: Vec<usize> = (0..args.len()).filter(|&i| matches!(args[i], Value::Str(_))).collect();
    let mut out = Vec::new();
    if texts.len() < 2 {
        return out;
    }
    let mut distinct: Vec<char> = Vec::new();
    for &i in &texts {
        if let Value::Str(s) = &args[i] {
            for c in s.chars().filter(|c| !SMALL.contains(c)) {
                if !distinct.contains(&c) {
                    distinct.push(c);
                }
            }
        }
    }
    for &c in &distinct {
        for with in [small_of(c), 'a', '0'] {
            let mut a = args.clone();
            for &i in &texts {
                if let Value::Str(s) = &args[i] {
                    a[i] = Value::Str(s.chars().map(|x| if x == c { with } else { x }).collect());
                }
            }
            if !out.iter().any(|(_, b)| *b == a) {
                out.push((2, a));
            }
        }
    }
    out
}

/// The same share of every sequence argument (strings and lists) deleted at once, each in its
/// pass: a function often needs their lengths coupled (`decode_to_slice(data, out)` wants
/// `out.len() == data.len() / 2`), and deleting from one at a time breaks that on every move.
/// With `g` the greatest common divisor of their lengths, each is cut into `g` units of
/// `len / g` elements; blocks of a half, a quarter, … of the units go from all of them at once
/// (pass 0), then each single unit (pass 1), so the lengths keep their ratio. They are bold
/// passes since size counts first in [`Measure`] and a round of smaller moves that fail costs
/// the budget again after each kept one. Empty when fewer than two arguments are non-empty
/// sequences, or their lengths have no common unit.
fn coupled(args: &Args) -> Vec<(u8, Args)> {
    let len = |v: &Value| match v {
        Value::Str(s) => s.chars().count(),
        Value::List(xs) => xs.len(),
        _ => 0,
    };
    let seqs: Vec<usize> = (0..args.len()).filter(|&i| len(&args[i]) > 0).collect();
    let g = seqs.iter().fold(0, |g, &i| gcd(g, len(&args[i])));
    let mut out = Vec::new();
    if seqs.len() < 2 || g < 2 {
        return out;
    }
    // Units `from..to` deleted from every sequence argument.
    let cut = |from: usize, to: usize| -> Args {
        let mut a = args.clone();
        for &i in &seqs {
            let unit = len(&args[i]) / g;
            let (lo, hi) = (from * unit, to * unit);
            a[i] = match &args[i] {
                Value::Str(s) => Value::Str(s.chars().take(lo).chain(s.chars().skip(hi)).collect()),
                Value::List(xs) => Value::List([&xs[..lo], &xs[hi..]].concat()),
                v => v.clone(),
            };
        }
        a
    };
    let mut size = g / 2;
    while size >= 2 {
        for from in (0..g).step_by(size) {
            out.push((0, cut(from, (from + size).min(g))));
        }
        size /= 2;
    }
    for from in 0..g.min(DELETIONS) {
        out.push((1, cut(from, from + 1)));
    }
    out
}

/// Simpler values of `v` (of type `ty`), each with its pass: 0 the simplest value of its kind,
/// 1 halving (blocks deleted, numbers halved), 2 plain characters and signs, 3 single
/// deletions, 4 a map value's moves (an element's keep their own pass).
fn simpler(ty: &Ty, v: &Value, depth: usize) -> Vec<(u8, Value)> {
    let mut out = Vec::new();
    if depth > 3 {
        return out;
    }
    // `None` first where the type takes it: an optional value, or one of any type (a Python
    // parameter without an annotation, whose default is most often `None`).
    if !matches!(v, Value::Null) && conforms(ty, &Value::Null) {
        out.push((0, Value::Null));
    }
    let ty = match ty {
        Ty::Option { item } => item.as_ref(),
        Ty::Union { options } => crate::inputs::conforms_any(options, v).unwrap_or(&Ty::Any),
        other => other,
    };
    match (ty, v) {
        (Ty::OneOf { values }, v) => {
            out.extend(values.first().filter(|x| *x != v).map(|x| (0, x.clone())));
        }
        (_, Value::Bool(true)) => out.push((0, Value::Bool(false))),
        (_, Value::Int(i)) => out.extend(ints(*i)),
        (_, Value::BigUint(_)) => out.push((0, Value::Int(0))),
        (_, Value::Float(x)) => out.extend(floats(*x)),
        (Ty::Char, Value::Str(s)) if s.chars().any(|c| !plain(c)) => {
            out.extend(["a", "0", "é"].map(|c| (2, Value::Str(c.into()))));
        }
        (Ty::Char, _) => {}
        (_, Value::Str(s)) => out.extend(strings(s)),
        (Ty::Array { item, .. }, Value::List(xs)) => out.extend(elements(xs, |_| item, depth)),
        (Ty::Tuple { items }, Value::List(xs)) => {
            out.extend(elements(xs, |k| items.get(k).unwrap_or(&Ty::Any), depth));
        }
        (_, Value::List(xs)) => {
            let item = match ty {
                Ty::List { item } => item.as_ref().clone(),
                Ty::Bytes => Ty::int(8, false),
                _ => Ty::Any,
            };
            out.extend(deletions(xs).into_iter().map(|(p, xs)| (p, Value::List(xs))));
            out.extend(elements(xs, |_| &item, depth));
        }
        (_, Value::Map(es)) => {
            let value = match ty {
                Ty::Map { value, .. } => value.as_ref().clone(),
                _ => Ty::Any,
            };
            out.extend(maps(es, &value, depth));
        }
        (Ty::Built { ctors, .. }, Value::Built { ctor, args }) => {
            if let Some(c) = ctors.iter().find(|c| c.name == *ctor) {
                let params: Vec<Ty> = c.params.iter().map(|(_, t)| t.clone()).collect();
                for (p, xs) in elements(args, |k| params.get(k).unwrap_or(&Ty::Any), depth) {
                    if let Value::List(args) = xs {
                        out.push((p, Value::Built { ctor: ctor.clone(), args }));
                    }
                }
            }
        }
        _ => {}
    }
    out
}

/// Integers toward zero: `0`, the present year for a larger one, `i` rounded toward zero to one,
/// two and three significant digits, then `i` minus half its distance to zero, a quarter, … one.
fn ints(i: i128) -> Vec<(u8, Value)> {
    let mut out = Vec::new();
    if i == 0 {
        return out;
    }
    out.push((0, Value::Int(0)));
    if i.unsigned_abs() > PRESENT_YEAR as u128 {
        out.push((1, Value::Int(PRESENT_YEAR * i.signum())));
    }
    let digits = i.unsigned_abs().checked_ilog10().unwrap_or(0);
    for keep in 1..=3u32 {
        if digits >= keep {
            let unit = 10i128.pow(digits + 1 - keep);
            let rounded = i / unit * unit;
            if rounded != i {
                out.push((1, Value::Int(rounded)));
            }
        }
    }
    if i < 0 {
        out.push((2, Value::Int(i.saturating_neg())));
    }
    let mut d = i.unsigned_abs() / 2;
    while d > 0 {
        let step = d as i128;
        out.push((1, Value::Int(if i > 0 { i - step } else { i + step })));
        d /= 2;
    }
    out
}

/// Floats: `0.0`, `1.0`, the integer part, fewer decimals, the positive value.
fn floats(x: f64) -> Vec<(u8, Value)> {
    let mut out = vec![(0, Value::Float(0.0)), (0, Value::Float(1.0))];
    if x.is_finite() {
        out.push((1, Value::Float(x.trunc())));
        out.push((1, Value::Float((x / 2.0).trunc())));
        for d in [1, 2, 3] {
            let p = 10f64.powi(d);
            out.push((2, Value::Float((x * p).trunc() / p)));
        }
        if x < 0.0 {
            out.push((2, Value::Float(-x)));
        }
    }
    out.retain(|(_, y)| matches!(y, Value::Float(y) if y.to_bits() != x.to_bits()));
    out
}

/// Strings: empty, blocks deleted, one repeated character (`a`, `0`, a space, or one of its
/// own) at the same length, unusual characters made plain, each distinct character made its
/// small-alphabet one everywhere, single characters deleted or made `a`, `0` or a space.
fn strings(s: &str) -> Vec<(u8, Value)> {
    let chars: Vec<char> = s.chars().collect();
    let text = |cs: Vec<char>| Value::Str(cs.into_iter().collect());
    let mut out: Vec<(u8, Value)> =
        deletions(&chars).into_iter().map(|(p, cs)| (p, text(cs))).collect();
    let mut distinct: Vec<char> = Vec::new();
    for &c in &chars {
        if !distinct.contains(&c) {
            distinct.push(c);
        }
    }
    // One character repeated: what a length bound needs and a person writes as `"a".repeat(n)`.
    for with in SMALL.iter().chain(distinct.iter().filter(|c| plain(**c)).take(4)) {
        if distinct.len() > 1 || distinct.first() != Some(with) {
            out.push((1, text(vec![*with; chars.len()])));
        }
    }
    let unusual: Vec<usize> = (0..chars.len()).filter(|&k| !plain(chars[k])).collect();
    if unusual.len() > 1 {
        let all: Vec<char> = chars.iter().map(|&c| if plain(c) { c } else { 'a' }).collect();
        out.push((2, text(all)));
    }
    // Plain first; else a common letter outside ASCII (for code that tells ASCII apart).
    for with in ['a', '0', ' ', 'é'] {
        for &k in &unusual {
            let mut cs = chars.clone();
            cs[k] = with;
            out.push((2, text(cs)));
        }
    }
    // Toward the small alphabet: each distinct character everywhere, then one place at a time.
    for &c in distinct.iter().filter(|c| !SMALL.contains(c)) {
        for with in [small_of(c), 'a', '0'] {
            out.push((2, text(chars.iter().map(|&x| if x == c { with } else { x }).collect())));
        }
    }
    for k in (0..chars.len()).filter(|&k| !SMALL.contains(&chars[k])).take(DELETIONS) {
        for with in [small_of(chars[k]), 'a', '0', ' '] {
            let mut cs = chars.clone();
            cs[k] = with;
            out.push((3, text(cs)));
        }
    }
    out
}

/// A sequence's deletions: all of it (pass 0), blocks of a half, a quarter, … two (pass 1), each
/// single element (pass 3).
fn deletions<T: Clone>(xs: &[T]) -> Vec<(u8, Vec<T>)> {
    let n = xs.len();
    let mut out = Vec::new();
    if n == 0 {
        return out;
    }
    out.push((0, Vec::new()));
    let mut size = n / 2;
    while size >= 2 {
        for start in (0..n).step_by(size) {
            let mut ys = xs[..start].to_vec();
            ys.extend_from_slice(&xs[(start + size).min(n)..]);
            out.push((1, ys));
        }
        size /= 2;
    }
    for k in 0..n.min(DELETIONS) {
        let mut ys = xs.to_vec();
        ys.remove(k);
        out.push((3, ys));
    }
    out
}

/// The list `xs` with one of its first elements shrunk (typed by `item_of(index)`), in the
/// element's own pass.
fn elements<'t>(xs: &[Value], item_of: impl Fn(usize) -> &'t Ty, depth: usize) -> Vec<(u8, Value)> {
    let mut out = Vec::new();
    for (k, x) in xs.iter().enumerate().take(ELEMENTS) {
        for (pass, y) in simpler(item_of(k), x, depth + 1) {
            let mut ys = xs.to_vec();
            ys[k] = y;
            out.push((pass, Value::List(ys)));
        }
    }
    out
}

/// A map: empty, one entry removed, one value shrunk.
fn maps(es: &[(String, Value)], value: &Ty, depth: usize) -> Vec<(u8, Value)> {
    let mut out: Vec<(u8, Value)> =
        deletions(es).into_iter().map(|(p, es)| (p, Value::Map(es))).collect();
    for (k, (key, x)) in es.iter().enumerate().take(ELEMENTS) {
        for (_, y) in simpler(value, x, depth + 1) {
            let mut fs = es.to_vec();
            fs[k] = (key.clone(), y);
            out.push((4, Value::Map(fs)));
        }
    }
    out
}

#[cfg(test)]
#[path = "shrink_tests.rs"]
mod tests;
