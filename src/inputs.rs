//! Typed value generation for the search: random values (half boundary constants, half sampled),
//! one-step neighbours, and midpoints that bisect toward a boundary. The explorer and the
//! differential witness search share these operators; they know nothing of outcomes or archives.
//!
//! Values follow `value.rs`: every integer is `Value::Int` except `u128` values above `i128::MAX`
//! (`Value::BigUint`); a `char` is a one-character `Value::Str`; tuples, arrays and bytes are
//! `Value::List`; `None` is `Value::Null` and `Some(x)` is `x` itself.
//!
//! Two values are "the same" here when they are `==` or render to the same JSON, so that `0.0`
//! and `-0.0` (equal, so not a pair) and two `NaN`s (same text, so one memoised input) never count
//! as different.

use std::collections::HashMap;

use rand::seq::IndexedRandom;
use rand::Rng;

use crate::value::{stringify_arg, Args, Ty, Value};

/// Domain constants that often sit on a boundary (calendar, percent, byte, port, time).
const DOMAIN_INTS: &[u128] = &[
    2, 3, 7, 10, 12, 13, 24, 28, 29, 30, 31, 59, 60, 100, 127, 128, 255, 256, 365, 366, 400, 1000,
    1024, 1900, 1970, 2000, 2024, 2100, 3600, 9999, 10000, 65535, 65536, 86400, 1_000_000,
];

/// Boundary constants for `f64` (the `f32` ones are derived from `f32` limits).
const F64_CONSTS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    0.1,
    2.0,
    10.0,
    100.0,
    1e-10,
    1e10,
    1e300,
    -1e300,
    f64::MIN_POSITIVE,
    f64::EPSILON,
    5e-324,
    f64::MAX,
    f64::MIN,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
];

/// Boundary constants for `f32`, as `f32` values.
const F32_CONSTS: &[f32] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    0.1,
    2.0,
    10.0,
    100.0,
    1e-10,
    1e10,
    1e30,
    -1e30,
    f32::MIN_POSITIVE,
    f32::EPSILON,
    1e-45,
    f32::MAX,
    f32::MIN,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
];

/// Characters worth trying as a `char` argument or as an inserted character.
const CHAR_POOL: &[char] = &[
    'a',
    'b',
    'z',
    'A',
    'Z',
    '0',
    '1',
    '9',
    ' ',
    '@',
    '.',
    '-',
    ':',
    '/',
    '_',
    '!',
    '#',
    '%',
    '+',
    ',',
    '\'',
    '"',
    '\\',
    '\n',
    '\t',
    'é',
    'ß',
    '€',
    '😀',
    '\u{0}',
    '\u{7f}',
    '\u{10FFFF}',
];

/// Separators mixed into generated strings.
const SEPARATORS: &[char] = &['@', '.', '-', ':', '/', ' ', '_', ',', '+', '#'];

/// Strings worth trying as they are.
const WORDS: &[&str] = &[
    "",
    "a",
    "abc",
    "hello",
    "Hello World",
    "test",
    "user@example.com",
    "a@b.co",
    "a@b.c",
    "@",
    "0",
    "1",
    "-1",
    "42",
    "80",
    "8080",
    "65535",
    "65536",
    "0x1F",
    "1.5",
    "1e3",
    "1.2.3",
    "0.10.0",
    "NaN",
    "true",
    "null",
    "2024-02-29",
    "12:30",
    "http://example.com/a",
    "/usr/bin",
    "a.b.c",
    "a-b_c",
    " ",
    "  x  ",
    "é",
    "ß",
    "\u{0}",
    "\t\n",
];

/// Whether two values count as the same input (see the module comment).
pub fn same(a: &Value, b: &Value) -> bool {
    a == b || a.to_json() == b.to_json()
}

// ---------------------------------------------------------------------------------------------
// Random values

/// A random value of `ty`: about half boundary constants, half random samples.
pub fn random_value(ty: &Ty, rng: &mut impl Rng) -> Value {
    generate(ty, rng, false)
}

/// A random value of `ty` drawn only from its boundary constants.
pub fn boundary_value(ty: &Ty, rng: &mut impl Rng) -> Value {
    generate(ty, rng, true)
}

/// A random argument list for `params`.
pub fn random_args(params: &[Ty], rng: &mut impl Rng) -> Args {
    params.iter().map(|t| random_value(t, rng)).collect()
}

/// A random argument list drawn only from boundary constants.
pub fn boundary_args(params: &[Ty], rng: &mut impl Rng) -> Args {
    params.iter().map(|t| boundary_value(t, rng)).collect()
}

fn generate(ty: &Ty, rng: &mut impl Rng, boundary: bool) -> Value {
    let constant = boundary || rng.random_bool(0.5);
    match ty {
        Ty::Int { bits, signed } => {
            let r = IntRange::new(*bits, *signed);
            if constant {
                boundary_int(r, rng)
            } else {
                sampled_int(r, rng)
            }
        }
        Ty::Float { bits } => Value::Float(random_float(*bits, constant, rng)),
        Ty::Bool => Value::Bool(rng.random()),
        Ty::Char => Value::Str(random_char(constant, rng).to_string()),
        Ty::Str => Value::Str(random_string(constant, rng)),
        Ty::Bytes => {
            let n = random_len(constant, rng);
            Value::List((0..n).map(|_| random_byte(constant, rng)).collect())
        }
        Ty::List { item } => {
            let n = random_len(constant, rng);
            Value::List((0..n).map(|_| generate(item, rng, boundary)).collect())
        }
        Ty::Array { item, len } => {
            Value::List((0..*len).map(|_| generate(item, rng, boundary)).collect())
        }
        Ty::Option { item } => {
            if rng.random_ratio(1, 4) {
                Value::Null
            } else {
                generate(item, rng, boundary)
            }
        }
        Ty::Tuple { items } => {
            Value::List(items.iter().map(|t| generate(t, rng, boundary)).collect())
        }
        Ty::Map { key, value } => {
            let n = random_len(constant, rng).min(4);
            let mut entries: Vec<(String, Value)> = Vec::with_capacity(n);
            for _ in 0..n {
                let k = stringify_arg(&generate(key, rng, boundary));
                if entries.iter().all(|(e, _)| *e != k) {
                    entries.push((k, generate(value, rng, boundary)));
                }
            }
            Value::Map(entries)
        }
        Ty::Any => random_any(rng, 2),
    }
}

/// Length of a generated sequence: mostly 0..6, sometimes longer.
fn random_len(constant: bool, rng: &mut impl Rng) -> usize {
    if constant {
        return *[0, 1, 2].choose(rng).unwrap_or(&0);
    }
    match rng.random_range(0..20) {
        0..=15 => rng.random_range(0..6),
        16..=18 => rng.random_range(6..12),
        _ => rng.random_range(12..32),
    }
}

fn random_byte(constant: bool, rng: &mut impl Rng) -> Value {
    if constant || rng.random_bool(0.3) {
        Value::Int(*[0, 1, 9, 10, 32, 48, 65, 97, 127, 128, 255].choose(rng).unwrap_or(&0))
    } else {
        Value::Int(rng.random_range(0..=255))
    }
}

/// A simple JSON value for an unannotated parameter.
fn random_any(rng: &mut impl Rng, depth: u8) -> Value {
    match rng.random_range(0..if depth > 0 { 7 } else { 5 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.random()),
        2 => generate(&Ty::int(64, true), rng, false),
        3 => Value::Float(random_float(64, rng.random_bool(0.5), rng)),
        4 => Value::Str(random_string(rng.random_bool(0.5), rng)),
        5 => Value::List((0..rng.random_range(0..4)).map(|_| random_any(rng, depth - 1)).collect()),
        _ => {
            let n = rng.random_range(0..3);
            let mut entries: Vec<(String, Value)> = Vec::new();
            for _ in 0..n {
                let k = random_string(true, rng);
                if entries.iter().all(|(e, _)| *e != k) {
                    entries.push((k, random_any(rng, depth - 1)));
                }
            }
            Value::Map(entries)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Integers

/// An integer type's range. Values are addressed by their offset from the minimum, so that every
/// width, `u128` and `i128` included, is handled in one `u128` space without overflow.
#[derive(Clone, Copy, Debug)]
struct IntRange {
    min: i128,
    max: u128,
    signed: bool,
    bits: u8,
}

impl IntRange {
    fn new(bits: u8, signed: bool) -> IntRange {
        let bits = bits.clamp(2, 128);
        let (min, max) = Ty::int_range(bits, signed);
        IntRange { min, max, signed, bits }
    }

    /// The largest offset (`max − min`).
    fn span(self) -> u128 {
        self.max.wrapping_sub(self.min as u128)
    }

    /// The offset of an integer value, clamped into range; `None` for a non-integer.
    fn offset(self, v: &Value) -> Option<u128> {
        match *v {
            Value::Int(i) if i < self.min => Some(0),
            Value::Int(i) if i >= 0 && i as u128 > self.max => Some(self.span()),
            Value::Int(i) => Some((i as u128).wrapping_sub(self.min as u128)),
            Value::BigUint(u) if u > self.max => Some(self.span()),
            Value::BigUint(u) => Some(u.wrapping_sub(self.min as u128)),
            _ => None,
        }
    }

    /// The value at an offset.
    fn value(self, off: u128) -> Value {
        let raw = (self.min as u128).wrapping_add(off);
        if self.signed || raw <= i128::MAX as u128 {
            Value::Int(raw as i128)
        } else {
            Value::BigUint(raw)
        }
    }

    /// ±`mag` if it is in range.
    fn signed_value(self, neg: bool, mag: u128) -> Option<Value> {
        if neg && mag > 0 {
            if !self.signed || mag > (self.max + 1) {
                return None;
            }
            Some(Value::Int((mag as i128).wrapping_neg()))
        } else if mag <= self.max {
            Some(self.value(mag.wrapping_sub(self.min as u128)))
        } else {
            None
        }
    }

    /// The offset of `2·v` (`double`) or `v / 2`, computed on the value and clamped into range.
    fn scale(self, off: u128, double: bool) -> u128 {
        if self.signed {
            let i = (self.min as u128).wrapping_add(off) as i128;
            let n = if double { i.saturating_mul(2) } else { i / 2 };
            let n = n.clamp(self.min, self.max as i128);
            (n as u128).wrapping_sub(self.min as u128)
        } else if double {
            off.saturating_mul(2).min(self.max)
        } else {
            off / 2
        }
    }
}

/// 0, ±1, MIN, MIN+1, MAX, MAX−1, powers of two and their neighbours, domain constants, and
/// small values up to 16.
fn boundary_int(r: IntRange, rng: &mut impl Rng) -> Value {
    let edge = |rng: &mut _| match rng_index(rng, 7) {
        0 => r.value(0),
        1 => r.value(1),
        2 => r.value(r.span()),
        3 => r.value(r.span() - 1),
        4 => r.signed_value(false, 1).unwrap_or(Value::Int(1)),
        5 if r.signed => Value::Int(-1),
        _ => r.signed_value(false, 0).unwrap_or(Value::Int(0)),
    };
    let picked = match rng.random_range(0..12) {
        0..=3 => None,
        // Small values: loop counts, indices, enum-like codes.
        10 | 11 => {
            let v = rng.random_range(0u128..=16);
            r.signed_value(r.signed && rng.random_ratio(1, 4), v)
        }
        4..=6 => {
            let k = rng.random_range(0..r.bits as u32);
            let delta = rng.random_range(-1i8..=1);
            let mag = match delta {
                -1 => (1u128 << k) - 1,
                0 => 1u128 << k,
                _ => (1u128 << k) + 1,
            };
            r.signed_value(r.signed && rng.random_ratio(1, 4), mag)
        }
        _ => {
            let c = *DOMAIN_INTS.choose(rng).unwrap_or(&0);
            r.signed_value(r.signed && rng.random_ratio(1, 4), c)
        }
    };
    picked.unwrap_or_else(|| edge(rng))
}

fn rng_index(rng: &mut impl Rng, n: usize) -> usize {
    rng.random_range(0..n)
}

/// "Bituniform" sampling (AutoBVA): a uniform value shifted right by a uniform number of bits,
/// so that every magnitude is equally likely; plus some small uniform values.
fn sampled_int(r: IntRange, rng: &mut impl Rng) -> Value {
    if rng.random_ratio(1, 4) {
        let lo = r.min.max(-1000);
        let hi = (r.max.min(1000)) as i128;
        let i = rng.random_range(lo..=hi);
        return r.signed_value(i < 0, i.unsigned_abs()).unwrap_or(Value::Int(0));
    }
    let width = if r.signed { r.bits as u32 - 1 } else { r.bits as u32 };
    let raw = rng.random::<u128>().checked_shr(128 - width).unwrap_or(0);
    let mag = raw.checked_shr(rng.random_range(0..=width)).unwrap_or(0);
    r.signed_value(r.signed && rng.random(), mag).unwrap_or(Value::Int(0))
}

fn int_neighbour(r: IntRange, v: &Value, rng: &mut impl Rng) -> Option<Value> {
    let Some(off) = r.offset(v) else {
        return Some(sampled_int(r, rng));
    };
    let span = r.span();
    for _ in 0..8 {
        let up = rng.random_bool(0.5);
        let cand = match rng.random_range(0..10) {
            0..=5 => {
                if up {
                    off.checked_add(1).filter(|&x| x <= span)
                } else {
                    off.checked_sub(1)
                }
            }
            6..=7 => {
                let step = 1u128 << rng.random_range(1..r.bits as u32);
                if up {
                    Some(off.saturating_add(step).min(span))
                } else {
                    Some(off.saturating_sub(step))
                }
            }
            8 => Some(r.scale(off, true)),
            _ => Some(r.scale(off, false)),
        };
        if let Some(c) = cand.filter(|&c| c != off) {
            return Some(r.value(c));
        }
    }
    if off < span {
        Some(r.value(off + 1))
    } else if off > 0 {
        Some(r.value(off - 1))
    } else {
        None
    }
}

fn int_midpoint(r: IntRange, a: &Value, b: &Value) -> Option<Value> {
    let (x, y) = (r.offset(a)?, r.offset(b)?);
    let (lo, hi) = if x < y { (x, y) } else { (y, x) };
    if hi - lo <= 1 {
        return None;
    }
    Some(r.value(lo + (hi - lo) / 2))
}

// ---------------------------------------------------------------------------------------------
// Floats

const SIGN64: u64 = 1 << 63;
const SIGN32: u32 = 1 << 31;

/// A monotone map from non-NaN floats to integers: consecutive representable values have
/// consecutive keys (`-0.0` is −1, `0.0` is 0), so bisection on keys converges to adjacent floats.
fn float_key(bits: u8, x: f64) -> i64 {
    if bits == 32 {
        let b = (x as f32).to_bits();
        let mag = (b & !SIGN32) as i64;
        if b & SIGN32 != 0 {
            -mag - 1
        } else {
            mag
        }
    } else {
        let b = x.to_bits();
        let mag = (b & !SIGN64) as i64;
        if b & SIGN64 != 0 {
            -mag - 1
        } else {
            mag
        }
    }
}

fn float_from_key(bits: u8, k: i64) -> f64 {
    if bits == 32 {
        let b = if k >= 0 { k as u32 } else { (-(k + 1)) as u32 | SIGN32 };
        f32::from_bits(b) as f64
    } else {
        let b = if k >= 0 { k as u64 } else { (-(k + 1)) as u64 | SIGN64 };
        f64::from_bits(b)
    }
}

/// Rounds to the float type's precision.
fn round_float(bits: u8, x: f64) -> f64 {
    if bits == 32 {
        x as f32 as f64
    } else {
        x
    }
}

/// The next representable float above (`up`) or below `x`, stopping at the infinities.
fn float_step(bits: u8, x: f64, up: bool) -> f64 {
    let top = float_key(bits, f64::INFINITY);
    let k = float_key(bits, x);
    let n = if up { (k + 1).min(top) } else { (k - 1).max(-top - 1) };
    float_from_key(bits, n)
}

fn random_float(bits: u8, constant: bool, rng: &mut impl Rng) -> f64 {
    if constant {
        return if bits == 32 {
            *F32_CONSTS.choose(rng).unwrap_or(&0.0) as f64
        } else {
            *F64_CONSTS.choose(rng).unwrap_or(&0.0)
        };
    }
    let x = match rng.random_range(0..4) {
        0 => rng.random_range(-1.0..1.0) * 10f64.powi(rng.random_range(-3..=6)),
        1 => rng.random_range(-100i32..=100) as f64,
        2 => rng.random_range(-1000.0..1000.0),
        _ => loop {
            let x = if bits == 32 {
                f32::from_bits(rng.random()) as f64
            } else {
                f64::from_bits(rng.random())
            };
            if x.is_finite() {
                break x;
            }
        },
    };
    round_float(bits, x)
}

fn float_neighbour(bits: u8, v: &Value, rng: &mut impl Rng) -> Option<Value> {
    let x = match v {
        Value::Float(x) if !x.is_nan() => round_float(bits, *x),
        _ => return Some(Value::Float(0.0)),
    };
    for _ in 0..8 {
        let y = match rng.random_range(0..10) {
            0..=3 => float_step(bits, x, rng.random()),
            4 => x + 1.0,
            5 => x - 1.0,
            6 => x * 2.0,
            7 => x / 2.0,
            8 => -x,
            _ => float_step(bits, x, rng.random()),
        };
        let y = round_float(bits, y);
        if !y.is_nan() && y != x {
            return Some(Value::Float(y));
        }
    }
    // `±0.0` steps onto the other zero first, which is equal; step once more.
    let up = x != f64::INFINITY;
    let mut y = float_step(bits, x, up);
    if y == x {
        y = float_step(bits, y, up);
    }
    (y != x).then_some(Value::Float(y))
}

fn float_midpoint(bits: u8, a: &Value, b: &Value) -> Option<Value> {
    let (Value::Float(x), Value::Float(y)) = (a, b) else {
        return None;
    };
    if x.is_nan() || y.is_nan() {
        return None;
    }
    let (kx, ky) = (float_key(bits, *x) as i128, float_key(bits, *y) as i128);
    let (lo, hi) = if kx < ky { (kx, ky) } else { (ky, kx) };
    if hi - lo <= 1 {
        return None;
    }
    Some(Value::Float(float_from_key(bits, (lo + (hi - lo) / 2) as i64)))
}

// ---------------------------------------------------------------------------------------------
// Characters and strings

/// Index of a char in the scalar-value order with the surrogate gap removed.
fn char_index(c: char) -> u32 {
    let u = c as u32;
    if u >= 0xE000 {
        u - 0x800
    } else {
        u
    }
}

fn char_from_index(i: u32) -> char {
    let u = if i >= 0xD800 { i + 0x800 } else { i };
    char::from_u32(u).unwrap_or('\u{0}')
}

const MAX_CHAR_INDEX: u32 = 0x10FFFF - 0x800;

fn random_char(constant: bool, rng: &mut impl Rng) -> char {
    if constant {
        return *CHAR_POOL.choose(rng).unwrap_or(&'a');
    }
    match rng.random_range(0..10) {
        0..=7 => char::from(rng.random_range(0x20u8..0x7f)),
        8 => *CHAR_POOL.choose(rng).unwrap_or(&'a'),
        _ => char_from_index(rng.random_range(0..=MAX_CHAR_INDEX)),
    }
}

fn random_string(constant: bool, rng: &mut impl Rng) -> String {
    if constant {
        return WORDS.choose(rng).unwrap_or(&"").to_string();
    }
    let len = match rng.random_range(0..10) {
        0..=7 => rng.random_range(0..12),
        _ => rng.random_range(12..40),
    };
    let pick = |rng: &mut _, class: u8| -> char {
        match class {
            0 => char::from(b'0' + rng_index(rng, 10) as u8),
            1 => char::from(b'a' + rng_index(rng, 26) as u8),
            2 => char::from(b'A' + rng_index(rng, 26) as u8),
            3 => SEPARATORS[rng_index(rng, SEPARATORS.len())],
            _ => random_char(false, rng),
        }
    };
    match rng.random_range(0..6) {
        // Digits only, lowercase only, alphanumeric.
        0 => (0..len).map(|_| pick(rng, 0)).collect(),
        1 => (0..len).map(|_| pick(rng, 1)).collect(),
        2 => (0..len)
            .map(|_| {
                let class = rng.random_range(0..3);
                pick(rng, class)
            })
            .collect(),
        // Words joined by separators: `abc@def.gh`.
        // Tokens joined by one separator, as formats are: `abc@def.gh`, `1.2.3`, `12:30`.
        3 => {
            let sep = pick(rng, 3);
            let digits = rng.random_bool(0.4);
            let mut s = String::new();
            for i in 0..rng.random_range(1..5) {
                if i > 0 {
                    s.push(if rng.random_ratio(1, 5) { pick(rng, 3) } else { sep });
                }
                let class = if digits == rng.random_ratio(4, 5) { 0 } else { 1 };
                for _ in 0..rng.random_range(1..6) {
                    s.push(pick(rng, class));
                }
            }
            s
        }
        // Anything, mostly printable ASCII.
        4 => (0..len).map(|_| random_char(false, rng)).collect(),
        _ => (0..len)
            .map(|_| {
                let class = *[0, 1, 1, 2, 3].choose(rng).unwrap_or(&1);
                pick(rng, class)
            })
            .collect(),
    }
}

/// A random character of the same class as `c` (digit, lowercase, uppercase), or `c` itself.
fn same_class_char(c: char, rng: &mut impl Rng) -> char {
    if c.is_ascii_digit() {
        char::from(b'0' + rng_index(rng, 10) as u8)
    } else if c.is_ascii_lowercase() {
        char::from(b'a' + rng_index(rng, 26) as u8)
    } else if c.is_ascii_uppercase() {
        char::from(b'A' + rng_index(rng, 26) as u8)
    } else {
        c
    }
}

/// A character to insert near position `pos`: often of the same class as a neighbour.
fn insert_char(s: &[char], pos: usize, rng: &mut impl Rng) -> char {
    let near = s.get(pos).or_else(|| pos.checked_sub(1).and_then(|p| s.get(p)));
    match (rng.random_range(0..10), near) {
        (0..=3, Some(c)) if c.is_ascii_alphanumeric() => same_class_char(*c, rng),
        (0..=5, _) => SEPARATORS[rng_index(rng, SEPARATORS.len())],
        (6..=8, _) => char::from(rng.random_range(0x20u8..0x7f)),
        _ => *CHAR_POOL.choose(rng).unwrap_or(&'a'),
    }
}

fn char_neighbour(v: &Value, rng: &mut impl Rng) -> Option<Value> {
    let Some(c) = single_char(v) else {
        return Some(Value::Str(random_char(false, rng).to_string()));
    };
    Some(Value::Str(char_step(c, rng).to_string()))
}

fn single_char(v: &Value) -> Option<char> {
    match v {
        Value::Str(s) => {
            let mut it = s.chars();
            let c = it.next()?;
            it.next().is_none().then_some(c)
        }
        _ => None,
    }
}

/// ±1 code point or a case change; always a different char.
fn char_step(c: char, rng: &mut impl Rng) -> char {
    if rng.random_ratio(1, 4) {
        let swapped =
            if c.is_lowercase() { c.to_uppercase().next() } else { c.to_lowercase().next() };
        if let Some(d) = swapped.filter(|&d| d != c) {
            return d;
        }
    }
    let i = char_index(c);
    let up = if i == 0 {
        true
    } else if i == MAX_CHAR_INDEX {
        false
    } else {
        rng.random()
    };
    char_from_index(if up { i + 1 } else { i - 1 })
}

fn str_neighbour(v: &Value, rng: &mut impl Rng) -> Option<Value> {
    let Value::Str(s) = v else {
        return Some(Value::Str(random_string(false, rng)));
    };
    let cs: Vec<char> = s.chars().collect();
    for _ in 0..8 {
        let mut t = cs.clone();
        let n = t.len();
        match rng.random_range(0..12) {
            0..=2 => {
                let pos = rng.random_range(0..=n);
                let c = insert_char(&t, pos, rng);
                t.insert(pos, c);
            }
            3..=4 if n > 0 => {
                t.remove(rng.random_range(0..n));
            }
            5..=6 if n > 0 => {
                let pos = rng.random_range(0..n);
                t[pos] = insert_char(&cs, pos, rng);
            }
            7 if n > 0 => {
                let pos = rng.random_range(0..n);
                t[pos] = char_step(t[pos], rng);
            }
            8 if n > 0 => {
                let pos = rng.random_range(0..n);
                let c = t[pos];
                let swapped: Vec<char> = if c.is_lowercase() {
                    c.to_uppercase().collect()
                } else {
                    c.to_lowercase().collect()
                };
                t.splice(pos..=pos, swapped);
            }
            9 if n > 0 => {
                let pos = rng.random_range(0..n);
                t.insert(pos, t[pos]);
            }
            10 if n > 0 => {
                t.pop();
            }
            _ => {
                let c = insert_char(&t, n, rng);
                t.push(c);
            }
        }
        if t != cs {
            return Some(Value::Str(t.into_iter().collect()));
        }
    }
    Some(Value::Str(format!("{s}a")))
}

// ---------------------------------------------------------------------------------------------
// Neighbours

/// One small typed step from `v` to a different valid value of `ty`. `None` only when `ty` has no
/// other value (an empty array or tuple). A value of the wrong shape gets a fresh random value.
pub fn neighbour(ty: &Ty, v: &Value, rng: &mut impl Rng) -> Option<Value> {
    let n = match ty {
        Ty::Int { bits, signed } => int_neighbour(IntRange::new(*bits, *signed), v, rng),
        Ty::Float { bits } => float_neighbour(*bits, v, rng),
        Ty::Bool => Some(Value::Bool(!matches!(v, Value::Bool(true)))),
        Ty::Char => char_neighbour(v, rng),
        Ty::Str => str_neighbour(v, rng),
        Ty::Bytes => list_neighbour(&Ty::int(8, false), v, rng),
        Ty::List { item } => list_neighbour(item, v, rng),
        Ty::Array { item, len } => {
            let items: Vec<&Ty> = vec![item.as_ref(); *len];
            fields_neighbour(&items, v, rng)
        }
        Ty::Option { item } => match v {
            Value::Null => Some(random_value(item, rng)),
            _ if rng.random_ratio(1, 4) => Some(Value::Null),
            _ => Some(neighbour(item, v, rng).unwrap_or(Value::Null)),
        },
        Ty::Tuple { items } => {
            let items: Vec<&Ty> = items.iter().collect();
            fields_neighbour(&items, v, rng)
        }
        Ty::Map { key, value } => map_neighbour(key, value, v, rng),
        Ty::Any => any_neighbour(v, rng),
    };
    // The operators above only produce different values, but a malformed input (say a NaN where
    // an integer belongs) could map back onto itself; retry through a fresh value then.
    match n {
        Some(x) if same(&x, v) => (0..16).map(|_| random_value(ty, rng)).find(|x| !same(x, v)),
        other => other,
    }
}

/// A neighbour of one randomly chosen argument (another one when that argument has none).
pub fn args_neighbour(params: &[Ty], args: &Args, rng: &mut impl Rng) -> Option<Args> {
    if params.is_empty() || params.len() != args.len() {
        return None;
    }
    let start = rng.random_range(0..params.len());
    for k in 0..params.len() {
        let i = (start + k) % params.len();
        if let Some(v) = neighbour(&params[i], &args[i], rng) {
            let mut out = args.clone();
            out[i] = v;
            return Some(out);
        }
    }
    None
}

/// The same small step applied to both inputs of a pair, so that the pair keeps its difference
/// and moves elsewhere: an argument equal in both gets one new value in both, or two strings
/// (lists) get the same edit inside their common prefix or suffix. This slides a boundary along
/// the other dimensions (new archive cells at the same PD) and, by lengthening the shared part,
/// lowers the input distance of a string pair. `None` when no argument allows a shared step.
pub fn shared_neighbour<R: Rng>(
    params: &[Ty],
    a: &Args,
    b: &Args,
    rng: &mut R,
) -> Option<(Args, Args)> {
    if params.is_empty() || params.len() != a.len() || params.len() != b.len() {
        return None;
    }
    let start = rng.random_range(0..params.len());
    for k in 0..params.len() {
        let i = (start + k) % params.len();
        let moved = if same(&a[i], &b[i]) {
            // The shared value does not change the input distance: any value will do.
            let v = if rng.random_bool(0.5) {
                Some(random_value(&params[i], rng)).filter(|v| !same(v, &a[i]))
            } else {
                neighbour(&params[i], &a[i], rng)
            };
            v.map(|v| (v.clone(), v))
        } else {
            match (&params[i], &a[i], &b[i]) {
                (Ty::Str, Value::Str(x), Value::Str(y)) => {
                    let xs: Vec<char> = x.chars().collect();
                    let ys: Vec<char> = y.chars().collect();
                    let fresh = |near: Option<&char>, rng: &mut R| match near {
                        Some(c) if rng.random_bool(0.8) => same_class_char(*c, rng),
                        _ => insert_char(&xs, 0, rng),
                    };
                    shared_edit(&xs, &ys, fresh, |c, rng| char_step(*c, rng), rng).map(|(p, q)| {
                        (Value::Str(p.into_iter().collect()), Value::Str(q.into_iter().collect()))
                    })
                }
                (Ty::List { item }, Value::List(xs), Value::List(ys)) => {
                    list_shared_edit(item, xs, ys, rng)
                }
                (Ty::Bytes, Value::List(xs), Value::List(ys)) => {
                    list_shared_edit(&Ty::int(8, false), xs, ys, rng)
                }
                (Ty::Int { bits, signed }, x, y) => {
                    translate(IntRange::new(*bits, *signed), x, y, rng)
                }
                _ => None,
            }
        };
        if let Some((p, q)) = moved {
            let (mut a2, mut b2) = (a.clone(), b.clone());
            a2[i] = p;
            b2[i] = q;
            return Some((a2, b2));
        }
    }
    None
}

/// Two integers moved by the same offset (a random place, or a step away), keeping their
/// distance: boundaries that repeat (every fourth year) show up again elsewhere.
fn translate(r: IntRange, a: &Value, b: &Value, rng: &mut impl Rng) -> Option<(Value, Value)> {
    let (x, y) = (r.offset(a)?, r.offset(b)?);
    let (lo, d) = (x.min(y), x.max(y) - x.min(y));
    let room = r.span() - d;
    let to = (0..4).find_map(|_| {
        let to = if rng.random_bool(0.5) {
            r.offset(&sampled_int(r, rng))?.min(room)
        } else {
            let step = 1u128 << rng.random_range(0..r.bits as u32);
            if rng.random() {
                lo.saturating_add(step).min(room)
            } else {
                lo.saturating_sub(step)
            }
        };
        (to != lo).then_some(to)
    })?;
    let (nx, ny) = if x <= y { (to, to + d) } else { (to + d, to) };
    Some((r.value(nx), r.value(ny)))
}

fn list_shared_edit(
    item: &Ty,
    xs: &[Value],
    ys: &[Value],
    rng: &mut impl Rng,
) -> Option<(Value, Value)> {
    shared_edit(
        xs,
        ys,
        |near, rng| match near {
            Some(v) if rng.random_bool(0.5) => v.clone(),
            _ => random_value(item, rng),
        },
        |v, rng| neighbour(item, v, rng).unwrap_or_else(|| v.clone()),
        rng,
    )
    .map(|(p, q)| (Value::List(p), Value::List(q)))
}

/// One insertion, deletion or replacement made at the same place of both sequences, inside their
/// common prefix or common suffix. `fresh(near)` makes an element to insert (often a copy of
/// `near`), `step` a replacement for an element.
fn shared_edit<T: Clone + PartialEq, R: Rng>(
    x: &[T],
    y: &[T],
    fresh: impl Fn(Option<&T>, &mut R) -> T,
    step: impl Fn(&T, &mut R) -> T,
    rng: &mut R,
) -> Option<(Vec<T>, Vec<T>)> {
    let p = x.iter().zip(y).take_while(|(u, v)| u == v).count();
    let room = x.len().min(y.len()) - p;
    let s = x.iter().rev().zip(y.iter().rev()).take(room).take_while(|(u, v)| u == v).count();
    for _ in 0..4 {
        let suffix = rng.random_bool(0.5);
        let common = if suffix { s } else { p };
        let (mut u, mut v) = (x.to_vec(), y.to_vec());
        // Positions counted from the start, or from the end for the suffix.
        let at = |len: usize, k: usize| if suffix { len - k } else { k };
        match rng.random_range(0..4) {
            0 => {
                let k = rng.random_range(0..=common);
                let near = if suffix { x.get(x.len().wrapping_sub(k + 1)) } else { x.get(k) };
                let e = fresh(near.or(x.last()), rng);
                u.insert(at(x.len(), k), e.clone());
                v.insert(at(y.len(), k), e);
            }
            // Grow the common part by a few elements like its own: longer inputs of one kind.
            1 if common > 0 => {
                let k = rng.random_range(0..common);
                let (iu, iv) = if suffix { (x.len() - 1 - k, y.len() - 1 - k) } else { (k, k) };
                let piece: Vec<T> =
                    (0..rng.random_range(2..=6)).map(|_| fresh(Some(&x[iu]), rng)).collect();
                u.splice(iu..iu, piece.iter().cloned());
                v.splice(iv..iv, piece);
            }
            2 if common > 0 => {
                let k = rng.random_range(0..common);
                let (iu, iv) = if suffix { (x.len() - 1 - k, y.len() - 1 - k) } else { (k, k) };
                u.remove(iu);
                v.remove(iv);
            }
            3 if common > 0 => {
                let k = rng.random_range(0..common);
                let (iu, iv) = if suffix { (x.len() - 1 - k, y.len() - 1 - k) } else { (k, k) };
                let e = step(&u[iu], rng);
                if e == u[iu] {
                    continue;
                }
                u[iu] = e.clone();
                v[iv] = e;
            }
            _ => continue,
        }
        if u != v {
            return Some((u, v));
        }
    }
    None
}

fn list_neighbour(item: &Ty, v: &Value, rng: &mut impl Rng) -> Option<Value> {
    let Value::List(xs) = v else {
        return Some(Value::List(vec![random_value(item, rng)]));
    };
    for _ in 0..8 {
        let mut t = xs.clone();
        let n = t.len();
        match rng.random_range(0..12) {
            0..=3 if n > 0 => {
                let i = rng.random_range(0..n);
                if let Some(x) = neighbour(item, &t[i], rng) {
                    t[i] = x;
                }
            }
            4..=5 if n > 0 => {
                t.remove(rng.random_range(0..n));
            }
            6 if n > 1 => {
                let (i, j) = (rng.random_range(0..n), rng.random_range(0..n));
                t.swap(i, j);
            }
            7 if n > 1 => t.reverse(),
            8 if n > 0 => {
                let i = rng.random_range(0..n);
                t.insert(i, t[i].clone());
            }
            9 if n > 0 => {
                t.pop();
            }
            10 => {
                let i = rng.random_range(0..=n);
                t.insert(i, random_value(item, rng));
            }
            _ => t.push(random_value(item, rng)),
        }
        if !same_list(&t, xs) {
            return Some(Value::List(t));
        }
    }
    let mut t = xs.clone();
    t.push(random_value(item, rng));
    Some(Value::List(t))
}

fn same_list(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
}

/// A neighbour of one field of a fixed-shape list (array or tuple).
fn fields_neighbour(items: &[&Ty], v: &Value, rng: &mut impl Rng) -> Option<Value> {
    if items.is_empty() {
        return None;
    }
    let xs = match v {
        Value::List(xs) if xs.len() == items.len() => xs,
        _ => return Some(Value::List(items.iter().map(|t| random_value(t, rng)).collect())),
    };
    let start = rng.random_range(0..items.len());
    for k in 0..items.len() {
        let i = (start + k) % items.len();
        if let Some(x) = neighbour(items[i], &xs[i], rng) {
            let mut t = xs.clone();
            t[i] = x;
            return Some(Value::List(t));
        }
    }
    None
}

fn map_neighbour(key: &Ty, value: &Ty, v: &Value, rng: &mut impl Rng) -> Option<Value> {
    let Value::Map(es) = v else {
        return Some(Value::Map(Vec::new()));
    };
    let mut t = es.clone();
    let n = t.len();
    match rng.random_range(0..4) {
        0..=1 if n > 0 => {
            let i = rng.random_range(0..n);
            if let Some(x) = neighbour(value, &t[i].1, rng) {
                t[i].1 = x;
                return Some(Value::Map(t));
            }
        }
        2 if n > 0 => {
            t.remove(rng.random_range(0..n));
            return Some(Value::Map(t));
        }
        _ => {}
    }
    for _ in 0..16 {
        let k = stringify_arg(&random_value(key, rng));
        if t.iter().all(|(e, _)| *e != k) {
            t.push((k, random_value(value, rng)));
            return Some(Value::Map(t));
        }
    }
    if n > 0 {
        t.pop();
        return Some(Value::Map(t));
    }
    None
}

fn any_neighbour(v: &Value, rng: &mut impl Rng) -> Option<Value> {
    match v {
        Value::Null => Some(Value::Int(0)),
        Value::Bool(b) => Some(Value::Bool(!b)),
        Value::Int(_) | Value::BigUint(_) => int_neighbour(IntRange::new(128, true), v, rng),
        Value::Float(_) => float_neighbour(64, v, rng),
        Value::Str(_) => str_neighbour(v, rng),
        Value::List(_) => list_neighbour(&Ty::Any, v, rng),
        Value::Map(_) => map_neighbour(&Ty::Str, &Ty::Any, v, rng),
    }
}

// ---------------------------------------------------------------------------------------------
// Midpoints

/// A value strictly between `a` and `b` that differs from both, or `None` when they are adjacent
/// (or not comparable, such as a `NaN`, or `None` against `Some`).
///
/// Integers and floats bisect in their ordered value space (floats by representation, so repeated
/// bisection ends at two adjacent floats). Strings and lists apply the first half of a shortest
/// edit script from `a` to `b`; when they have equal length and differ in exactly one element
/// (one char), the midpoint of that element. Arrays and tuples work like argument lists
/// ([`args_midpoint`]).
pub fn midpoint(ty: &Ty, a: &Value, b: &Value) -> Option<Value> {
    if same(a, b) {
        return None;
    }
    let m = match ty {
        Ty::Int { bits, signed } => int_midpoint(IntRange::new(*bits, *signed), a, b),
        Ty::Float { bits } => float_midpoint(*bits, a, b),
        Ty::Bool => None,
        Ty::Char => {
            let (x, y) = (char_index(single_char(a)?), char_index(single_char(b)?));
            let (lo, hi) = (x.min(y), x.max(y));
            (hi - lo > 1).then(|| Value::Str(char_from_index(lo + (hi - lo) / 2).to_string()))
        }
        Ty::Str => {
            let (Value::Str(x), Value::Str(y)) = (a, b) else {
                return None;
            };
            let xs: Vec<Value> = x.chars().map(|c| Value::Str(c.to_string())).collect();
            let ys: Vec<Value> = y.chars().map(|c| Value::Str(c.to_string())).collect();
            let m = seq_midpoint(&Ty::Char, &xs, &ys)?;
            Some(Value::Str(m.iter().filter_map(single_char).collect()))
        }
        Ty::Bytes => list_midpoint(&Ty::int(8, false), a, b),
        Ty::List { item } => list_midpoint(item, a, b),
        Ty::Array { item, len } => {
            let items: Vec<&Ty> = vec![item.as_ref(); *len];
            fields_midpoint(&items, a, b)
        }
        Ty::Option { item } => match (a, b) {
            (Value::Null, _) | (_, Value::Null) => None,
            _ => midpoint(item, a, b),
        },
        Ty::Tuple { items } => {
            let items: Vec<&Ty> = items.iter().collect();
            fields_midpoint(&items, a, b)
        }
        Ty::Map { value, .. } => map_midpoint(value, a, b),
        Ty::Any => any_midpoint(a, b),
    };
    m.filter(|m| !same(m, a) && !same(m, b))
}

/// An argument list between `a` and `b`. With several differing arguments, the first ⌊d/2⌋ of the
/// d differing arguments of `a` are replaced by `b`'s (so the result keeps most of `a`, differs
/// from both, and the number of differing arguments halves); with exactly one, the midpoint of
/// that argument. `None` when the lists are adjacent.
pub fn args_midpoint(params: &[Ty], a: &Args, b: &Args) -> Option<Args> {
    if params.len() != a.len() || params.len() != b.len() {
        return None;
    }
    let items: Vec<&Ty> = params.iter().collect();
    positional_midpoint(&items, a, b)
}

fn positional_midpoint(items: &[&Ty], a: &[Value], b: &[Value]) -> Option<Vec<Value>> {
    let diff: Vec<usize> = (0..items.len()).filter(|&i| !same(&a[i], &b[i])).collect();
    match diff.len() {
        0 => None,
        1 => {
            let i = diff[0];
            let m = midpoint(items[i], &a[i], &b[i])?;
            let mut out = a.to_vec();
            out[i] = m;
            Some(out)
        }
        d => {
            let mut out = a.to_vec();
            for &i in &diff[..d / 2] {
                out[i] = b[i].clone();
            }
            Some(out)
        }
    }
}

fn fields_midpoint(items: &[&Ty], a: &Value, b: &Value) -> Option<Value> {
    match (a, b) {
        (Value::List(x), Value::List(y)) if x.len() == items.len() && y.len() == items.len() => {
            positional_midpoint(items, x, y).map(Value::List)
        }
        _ => None,
    }
}

fn list_midpoint(item: &Ty, a: &Value, b: &Value) -> Option<Value> {
    match (a, b) {
        (Value::List(x), Value::List(y)) => seq_midpoint(item, x, y).map(Value::List),
        _ => None,
    }
}

fn map_midpoint(value: &Ty, a: &Value, b: &Value) -> Option<Value> {
    let (Value::Map(x), Value::Map(y)) = (a, b) else {
        return None;
    };
    // Same keys in the same order and one differing value: the midpoint of that value.
    if x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.0 == q.0) {
        let diff: Vec<usize> = (0..x.len()).filter(|&i| !same(&x[i].1, &y[i].1)).collect();
        if diff.len() == 1 {
            let i = diff[0];
            let m = midpoint(value, &x[i].1, &y[i].1)?;
            let mut out = x.clone();
            out[i].1 = m;
            return Some(Value::Map(out));
        }
    }
    let keys = |es: &[(String, Value)]| -> Vec<String> {
        es.iter().map(|(k, v)| format!("{}={}", k, v.to_json())).collect()
    };
    let (ix, iy) = intern(&keys(x), &keys(y));
    let out = apply_half(&edit_script(&ix, &iy), x, y)?;
    // Half a script can hold a key twice (its old and its new value); keep the first.
    let mut dedup: Vec<(String, Value)> = Vec::with_capacity(out.len());
    for (k, v) in out {
        if dedup.iter().all(|(e, _)| *e != k) {
            dedup.push((k, v));
        }
    }
    Some(Value::Map(dedup))
}

fn any_midpoint(a: &Value, b: &Value) -> Option<Value> {
    match (a, b) {
        (Value::Int(_) | Value::BigUint(_), Value::Int(_) | Value::BigUint(_)) => {
            let wide = |v: &Value| matches!(v, Value::BigUint(_)) || v.as_int() >= Some(0);
            let r = if wide(a) && wide(b) {
                IntRange::new(128, false)
            } else {
                IntRange::new(128, true)
            };
            int_midpoint(r, a, b)
        }
        (Value::Float(_), Value::Float(_)) => float_midpoint(64, a, b),
        (Value::Str(_), Value::Str(_)) => midpoint(&Ty::Str, a, b),
        (Value::List(_), Value::List(_)) => list_midpoint(&Ty::Any, a, b),
        (Value::Map(_), Value::Map(_)) => map_midpoint(&Ty::Any, a, b),
        _ => None,
    }
}

/// Midpoint of two sequences: the element midpoint when they differ in exactly one position,
/// otherwise the first half of a shortest edit script.
fn seq_midpoint(item: &Ty, a: &[Value], b: &[Value]) -> Option<Vec<Value>> {
    if a.len() == b.len() {
        let diff: Vec<usize> = (0..a.len()).filter(|&i| !same(&a[i], &b[i])).collect();
        if diff.len() == 1 {
            let i = diff[0];
            let m = midpoint(item, &a[i], &b[i])?;
            let mut out = a.to_vec();
            out[i] = m;
            return Some(out);
        }
    }
    let ka: Vec<String> = a.iter().map(Value::to_json).collect();
    let kb: Vec<String> = b.iter().map(Value::to_json).collect();
    let (ia, ib) = intern(&ka, &kb);
    let ops = edit_script(&ia, &ib);
    apply_half(&ops, a, b)
}

/// Replaces each distinct key by a small integer, so the edit script works on cheap ids.
fn intern<'a>(a: &'a [String], b: &'a [String]) -> (Vec<u32>, Vec<u32>) {
    let mut ids: HashMap<&'a str, u32> = HashMap::new();
    let mut id = |s: &'a String| {
        let n = ids.len() as u32;
        *ids.entry(s.as_str()).or_insert(n)
    };
    let ia = a.iter().map(&mut id).collect();
    let ib = b.iter().map(&mut id).collect();
    (ia, ib)
}

/// One step of an alignment of `a` with `b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    /// `a[i]` kept (equal to `b[j]`).
    Keep(usize),
    /// `a[i]` replaced by `b[j]`.
    Sub(usize, usize),
    /// `a[i]` deleted.
    Del(usize),
    /// `b[j]` inserted.
    Ins(usize),
}

/// Inputs up to this many DP cells get an exact Levenshtein script; longer ones use `similar`.
const DP_CELLS: usize = 1 << 16;

/// A shortest (Levenshtein) edit script from `a` to `b`, in sequence order. Very long inputs use
/// Myers' diff from `similar`, which minimises insertions and deletions instead.
fn edit_script(a: &[u32], b: &[u32]) -> Vec<Op> {
    let (n, m) = (a.len(), b.len());
    if (n + 1) * (m + 1) > DP_CELLS {
        return myers_script(a, b);
    }
    let w = m + 1;
    let mut d = vec![0u32; (n + 1) * w];
    for i in 0..=n {
        for j in 0..=m {
            d[i * w + j] = if i == 0 {
                j as u32
            } else if j == 0 {
                i as u32
            } else {
                let sub = d[(i - 1) * w + j - 1] + (a[i - 1] != b[j - 1]) as u32;
                sub.min(d[(i - 1) * w + j] + 1).min(d[i * w + j - 1] + 1)
            };
        }
    }
    let mut ops = Vec::with_capacity(n.max(m));
    let (mut i, mut j) = (n, m);
    while i > 0 || j > 0 {
        let here = d[i * w + j];
        if i > 0 && j > 0 && d[(i - 1) * w + j - 1] + (a[i - 1] != b[j - 1]) as u32 == here {
            ops.push(if a[i - 1] == b[j - 1] { Op::Keep(i - 1) } else { Op::Sub(i - 1, j - 1) });
            i -= 1;
            j -= 1;
        } else if i > 0 && d[(i - 1) * w + j] + 1 == here {
            ops.push(Op::Del(i - 1));
            i -= 1;
        } else {
            ops.push(Op::Ins(j - 1));
            j -= 1;
        }
    }
    ops.reverse();
    ops
}

fn myers_script(a: &[u32], b: &[u32]) -> Vec<Op> {
    use similar::{capture_diff_slices, Algorithm, DiffOp};
    let mut ops = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, a, b) {
        match op {
            DiffOp::Equal { old_index, len, .. } => {
                ops.extend((old_index..old_index + len).map(Op::Keep));
            }
            DiffOp::Delete { old_index, old_len, .. } => {
                ops.extend((old_index..old_index + old_len).map(Op::Del));
            }
            DiffOp::Insert { new_index, new_len, .. } => {
                ops.extend((new_index..new_index + new_len).map(Op::Ins));
            }
            DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                let common = old_len.min(new_len);
                ops.extend((0..common).map(|k| Op::Sub(old_index + k, new_index + k)));
                ops.extend((old_index + common..old_index + old_len).map(Op::Del));
                ops.extend((new_index + common..new_index + new_len).map(Op::Ins));
            }
        }
    }
    ops
}

/// Applies the first ⌊n/2⌋ of the n edits of `ops` to `a`; `None` when n < 2 (adjacent).
fn apply_half<T: Clone>(ops: &[Op], a: &[T], b: &[T]) -> Option<Vec<T>> {
    let edits = ops.iter().filter(|o| !matches!(o, Op::Keep(_))).count();
    if edits < 2 {
        return None;
    }
    let mut budget = edits / 2;
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    for op in ops {
        let apply = !matches!(op, Op::Keep(_)) && budget > 0;
        if apply {
            budget -= 1;
        }
        match (*op, apply) {
            (Op::Keep(i), _) => out.push(a[i].clone()),
            (Op::Sub(_, j), true) | (Op::Ins(j), true) => out.push(b[j].clone()),
            (Op::Sub(i, _), false) | (Op::Del(i), false) => out.push(a[i].clone()),
            (Op::Del(_), true) | (Op::Ins(_), false) => {}
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;

    fn rng(seed: u64) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(seed)
    }

    fn s(t: &str) -> Value {
        Value::Str(t.into())
    }

    fn list(t: &Ty) -> Ty {
        Ty::List { item: Box::new(t.clone()) }
    }

    /// Every type the generators know, nested a little.
    fn all_types() -> Vec<Ty> {
        let mut v = Vec::new();
        for bits in [8, 16, 32, 64, 128] {
            v.push(Ty::int(bits, true));
            v.push(Ty::int(bits, false));
        }
        v.extend([
            Ty::Float { bits: 32 },
            Ty::Float { bits: 64 },
            Ty::Bool,
            Ty::Char,
            Ty::Str,
            Ty::Bytes,
            list(&Ty::int(32, true)),
            list(&Ty::Str),
            Ty::Array { item: Box::new(Ty::Bool), len: 3 },
            Ty::Option { item: Box::new(Ty::int(8, false)) },
            Ty::Tuple { items: vec![Ty::Str, Ty::Float { bits: 64 }, Ty::Char] },
            Ty::Map { key: Box::new(Ty::Str), value: Box::new(Ty::int(16, true)) },
            Ty::Any,
        ]);
        v
    }

    /// Whether `v` is a valid value of `ty` in the value model.
    fn conforms(ty: &Ty, v: &Value) -> bool {
        match (ty, v) {
            (Ty::Int { bits, signed }, Value::Int(i)) => {
                let (lo, hi) = Ty::int_range(*bits, *signed);
                *i >= lo && (*i < 0 || *i as u128 <= hi)
            }
            (Ty::Int { bits: 128, signed: false }, Value::BigUint(u)) => *u > i128::MAX as u128,
            (Ty::Float { bits: 32 }, Value::Float(x)) => x.is_nan() || (*x as f32) as f64 == *x,
            (Ty::Float { .. }, Value::Float(_)) => true,
            (Ty::Bool, Value::Bool(_)) => true,
            (Ty::Char, v) => single_char(v).is_some(),
            (Ty::Str, Value::Str(_)) => true,
            (Ty::Bytes, Value::List(xs)) => xs.iter().all(|x| conforms(&Ty::int(8, false), x)),
            (Ty::List { item }, Value::List(xs)) => xs.iter().all(|x| conforms(item, x)),
            (Ty::Array { item, len }, Value::List(xs)) => {
                xs.len() == *len && xs.iter().all(|x| conforms(item, x))
            }
            (Ty::Option { .. }, Value::Null) => true,
            (Ty::Option { item }, v) => conforms(item, v),
            (Ty::Tuple { items }, Value::List(xs)) => {
                xs.len() == items.len() && items.iter().zip(xs).all(|(t, x)| conforms(t, x))
            }
            (Ty::Map { value, .. }, Value::Map(es)) => es.iter().all(|(_, x)| conforms(value, x)),
            (Ty::Any, _) => true,
            _ => false,
        }
    }

    #[test]
    fn random_values_conform_to_their_type() {
        let mut r = rng(1);
        for ty in all_types() {
            for _ in 0..500 {
                let v = random_value(&ty, &mut r);
                assert!(conforms(&ty, &v), "{ty}: {v:?}");
                let b = boundary_value(&ty, &mut r);
                assert!(conforms(&ty, &b), "{ty}: {b:?}");
            }
        }
    }

    #[test]
    fn integer_generation_reaches_the_edges_and_spreads_magnitudes() {
        let mut r = rng(2);
        let ty = Ty::int(64, true);
        let vals: Vec<i128> =
            (0..4000).filter_map(|_| random_value(&ty, &mut r).as_int()).collect();
        for edge in [0, 1, -1, i64::MIN as i128, i64::MAX as i128, i64::MAX as i128 - 1, 1000, 1024]
        {
            assert!(vals.contains(&edge), "missing {edge}");
        }
        // Bituniform: many decimal magnitudes appear.
        let digits: std::collections::BTreeSet<usize> =
            vals.iter().map(|v| v.unsigned_abs().to_string().len()).collect();
        assert!(digits.len() >= 15, "{digits:?}");
        let u = Ty::int(128, false);
        let big = (0..2000).any(|_| random_value(&u, &mut r) == Value::BigUint(u128::MAX));
        assert!(big);
        let u8t = Ty::int(8, false);
        assert!((0..500).all(|_| conforms(&u8t, &random_value(&u8t, &mut r))));
    }

    #[test]
    fn neighbours_are_different_values_of_the_same_type() {
        for seed in 0..40 {
            let mut r = rng(seed);
            for ty in all_types() {
                let mut v = random_value(&ty, &mut r);
                for _ in 0..30 {
                    let n = neighbour(&ty, &v, &mut r).expect("every type here has two values");
                    assert!(!same(&n, &v), "{ty}: {v:?} -> {n:?}");
                    assert!(conforms(&ty, &n), "{ty}: {v:?} -> {n:?}");
                    v = n;
                }
            }
        }
    }

    #[test]
    fn neighbours_at_the_edges_stay_in_range() {
        let mut r = rng(3);
        let u8t = Ty::int(8, false);
        for _ in 0..200 {
            let n = neighbour(&u8t, &Value::Int(255), &mut r).unwrap();
            assert!(matches!(n, Value::Int(0..=254)), "{n:?}");
        }
        let u128t = Ty::int(128, false);
        let n = neighbour(&u128t, &Value::BigUint(u128::MAX), &mut r).unwrap();
        assert!(conforms(&u128t, &n) && n != Value::BigUint(u128::MAX));
        let empty = Ty::Array { item: Box::new(Ty::Bool), len: 0 };
        assert_eq!(neighbour(&empty, &Value::List(vec![]), &mut r), None);
        let f = Ty::Float { bits: 64 };
        let n = neighbour(&f, &Value::Float(f64::NAN), &mut r).unwrap();
        assert!(matches!(n, Value::Float(x) if !x.is_nan()));
    }

    #[test]
    fn args_neighbour_changes_exactly_one_argument() {
        let params = vec![Ty::int(32, true), Ty::Str, Ty::Bool];
        let mut r = rng(4);
        for _ in 0..200 {
            let a = random_args(&params, &mut r);
            let b = args_neighbour(&params, &a, &mut r).unwrap();
            let changed = a.iter().zip(&b).filter(|(x, y)| !same(x, y)).count();
            assert_eq!(changed, 1);
        }
        assert_eq!(args_neighbour(&[], &vec![], &mut r), None);
    }

    fn edit_distance(x: &str, y: &str) -> usize {
        let xs: Vec<String> = x.chars().map(String::from).collect();
        let ys: Vec<String> = y.chars().map(String::from).collect();
        let (xi, yi) = intern(&xs, &ys);
        edit_script(&xi, &yi).iter().filter(|o| !matches!(o, Op::Keep(_))).count()
    }

    #[test]
    fn shared_moves_shift_both_inputs_and_keep_their_difference() {
        let params = vec![Ty::int(32, true), Ty::Str];
        let mut r = rng(6);
        let mut moved_strings = 0;
        for _ in 0..1000 {
            let a = random_args(&params, &mut r);
            let mut b = a.clone();
            b[1] = neighbour(&params[1], &a[1], &mut r).unwrap();
            // A step can fail at random (e.g. the shared value drew itself): skip those draws.
            let Some((a2, b2)) = shared_neighbour(&params, &a, &b, &mut r) else { continue };
            assert!(conforms(&params[0], &a2[0]) && conforms(&params[1], &b2[1]));
            // The shared integer stays shared; the strings keep their edit distance.
            assert_eq!(a2[0], b2[0]);
            let (Value::Str(x), Value::Str(y)) = (&a[1], &b[1]) else { unreachable!() };
            let (Value::Str(x2), Value::Str(y2)) = (&a2[1], &b2[1]) else { unreachable!() };
            assert_eq!(edit_distance(x, y), edit_distance(x2, y2), "{x:?} {y:?} -> {x2:?} {y2:?}");
            assert!(a2 != a && b2 != b);
            moved_strings += (x2 != x) as usize;
        }
        assert!(moved_strings > 300, "{moved_strings}");
        // Two integers move together and stay one apart.
        let p = [Ty::int(16, false)];
        for _ in 0..200 {
            let (a2, b2) =
                shared_neighbour(&p, &vec![Value::Int(7)], &vec![Value::Int(8)], &mut r).unwrap();
            assert_eq!(b2[0].as_int().unwrap() - a2[0].as_int().unwrap(), 1);
            assert!(conforms(&p[0], &a2[0]) && conforms(&p[0], &b2[0]));
        }
        // A lone float argument that differs has no shared move.
        let f = [Ty::Float { bits: 64 }];
        let none = shared_neighbour(&f, &vec![Value::Float(1.0)], &vec![Value::Float(2.0)], &mut r);
        assert_eq!(none, None);
    }

    #[test]
    fn integer_midpoints_are_exact_at_every_width() {
        let i64t = Ty::int(64, true);
        assert_eq!(midpoint(&i64t, &Value::Int(0), &Value::Int(10)), Some(Value::Int(5)));
        assert_eq!(midpoint(&i64t, &Value::Int(10), &Value::Int(0)), Some(Value::Int(5)));
        assert_eq!(midpoint(&i64t, &Value::Int(999), &Value::Int(1000)), None);
        assert_eq!(midpoint(&i64t, &Value::Int(-3), &Value::Int(-1)), Some(Value::Int(-2)));
        let i128t = Ty::int(128, true);
        let m = midpoint(&i128t, &Value::Int(i128::MIN), &Value::Int(i128::MAX));
        assert_eq!(m, Some(Value::Int(-1)));
        let m = midpoint(&i128t, &Value::Int(i128::MAX - 2), &Value::Int(i128::MAX));
        assert_eq!(m, Some(Value::Int(i128::MAX - 1)));
        let u128t = Ty::int(128, false);
        let m = midpoint(&u128t, &Value::Int(0), &Value::BigUint(u128::MAX));
        assert_eq!(m, Some(Value::Int(i128::MAX)));
        let m = midpoint(&u128t, &Value::BigUint(u128::MAX - 2), &Value::BigUint(u128::MAX));
        assert_eq!(m, Some(Value::BigUint(u128::MAX - 1)));
        let m = midpoint(&u128t, &Value::Int(i128::MAX), &Value::BigUint(u128::MAX));
        assert_eq!(m, Some(Value::BigUint(i128::MAX as u128 + (1u128 << 126))));
        // Bisection from the extremes reaches the boundary 999/1000 in at most 64 steps.
        let (mut lo, mut hi) = (Value::Int(i64::MIN as i128), Value::Int(i64::MAX as i128));
        let mut steps = 0;
        while let Some(m) = midpoint(&i64t, &lo, &hi) {
            if m.as_int().unwrap() >= 1000 {
                hi = m;
            } else {
                lo = m;
            }
            steps += 1;
        }
        assert_eq!((lo, hi, steps <= 64), (Value::Int(999), Value::Int(1000), true));
    }

    #[test]
    fn float_midpoints_converge_to_adjacent_representable_values() {
        for bits in [32u8, 64] {
            let ty = Ty::Float { bits };
            let mut lo = Value::Float(-1e30);
            let mut hi = Value::Float(f64::INFINITY);
            let mut steps = 0;
            while let Some(m) = midpoint(&ty, &lo, &hi) {
                let Value::Float(x) = m else { unreachable!() };
                assert!(bits == 64 || (x as f32) as f64 == x);
                if x >= 0.1 {
                    hi = m;
                } else {
                    lo = m;
                }
                steps += 1;
            }
            assert!(steps <= 66, "{steps}");
            let (Value::Float(a), Value::Float(b)) = (lo, hi) else { unreachable!() };
            assert!(a < 0.1 && b >= 0.1);
            assert_eq!(float_step(bits, a, true), b, "adjacent in f{bits}");
        }
        let f = Ty::Float { bits: 64 };
        assert_eq!(midpoint(&f, &Value::Float(-0.0), &Value::Float(0.0)), None);
        assert_eq!(midpoint(&f, &Value::Float(f64::NAN), &Value::Float(1.0)), None);
        let m = midpoint(&f, &Value::Float(f64::MAX), &Value::Float(f64::INFINITY));
        assert_eq!(m, None);
        let m = midpoint(&f, &Value::Float(1.0), &Value::Float(1.0 + 2.0 * f64::EPSILON));
        assert_eq!(m, Some(Value::Float(1.0 + f64::EPSILON)));
    }

    #[test]
    fn string_midpoints_apply_half_an_edit_script() {
        let st = Ty::Str;
        // Four insertions: the midpoint has two of them.
        assert_eq!(midpoint(&st, &s("ab"), &s("abcdef")), Some(s("abcd")));
        assert_eq!(midpoint(&st, &s("abcdef"), &s("ab")), Some(s("abef")));
        // One edit: adjacent.
        assert_eq!(midpoint(&st, &s("a.b"), &s("a@.b")), None);
        assert_eq!(midpoint(&st, &s(""), &s("x")), None);
        // Equal length, one differing char: the char midpoint.
        assert_eq!(midpoint(&st, &s("65530"), &s("65539")), Some(s("65534")));
        assert_eq!(midpoint(&st, &s("65535"), &s("65536")), None);
        // Mixed: the midpoint is one edit from both ends.
        let m = midpoint(&st, &s("kitten"), &s("sitting")).unwrap();
        assert!(m != s("kitten") && m != s("sitting"), "{m:?}");
        // Bisection always terminates at a single edit.
        let (mut a, b) = (s("user@example.com"), s("xyz"));
        while let Some(m) = midpoint(&st, &a, &b) {
            a = m;
        }
        let (Value::Str(x), Value::Str(y)) = (&a, &b) else { unreachable!() };
        let (xi, yi) = intern(
            &x.chars().map(String::from).collect::<Vec<_>>(),
            &y.chars().map(String::from).collect::<Vec<_>>(),
        );
        let edits = edit_script(&xi, &yi).iter().filter(|o| !matches!(o, Op::Keep(_))).count();
        assert_eq!(edits, 1, "{x:?} vs {y:?}");
    }

    #[test]
    fn long_sequences_fall_back_to_myers() {
        let a: Vec<u32> = (0..400).collect();
        let b: Vec<u32> = (0..400).filter(|i| i % 7 != 0).chain([1000, 1001]).collect();
        let ops = edit_script(&a, &b);
        let out = apply_half(&ops, &a, &b).unwrap();
        assert!(out != a && out != b);
        let full: Vec<u32> = ops
            .iter()
            .filter_map(|o| match *o {
                Op::Keep(i) => Some(a[i]),
                Op::Sub(_, j) | Op::Ins(j) => Some(b[j]),
                Op::Del(_) => None,
            })
            .collect();
        assert_eq!(full, b);
    }

    #[test]
    fn list_midpoints_bisect_one_element_or_halve_the_edits() {
        let lt = list(&Ty::int(32, true));
        let l = |xs: &[i128]| Value::List(xs.iter().map(|&x| Value::Int(x)).collect());
        assert_eq!(midpoint(&lt, &l(&[1, 2, 0]), &l(&[1, 2, 100])), Some(l(&[1, 2, 50])));
        assert_eq!(midpoint(&lt, &l(&[1, 2, 3]), &l(&[1, 2, 4])), None);
        assert_eq!(midpoint(&lt, &l(&[]), &l(&[1, 2, 3, 4])), Some(l(&[1, 2])));
        assert_eq!(midpoint(&lt, &l(&[5]), &l(&[5, 6])), None);
        let at = Ty::Array { item: Box::new(Ty::int(8, true)), len: 3 };
        assert_eq!(midpoint(&at, &l(&[0, 0, 0]), &l(&[4, 4, 4])), Some(l(&[4, 0, 0])));
        assert_eq!(midpoint(&at, &l(&[4, 0, 0]), &l(&[4, 4, 0])), Some(l(&[4, 2, 0])));
        let ot = Ty::Option { item: Box::new(Ty::int(8, true)) };
        assert_eq!(midpoint(&ot, &Value::Int(0), &Value::Int(8)), Some(Value::Int(4)));
        assert_eq!(midpoint(&ot, &Value::Null, &Value::Int(8)), None);
    }

    #[test]
    fn args_midpoint_replaces_half_of_the_differing_arguments() {
        let p = vec![Ty::int(32, true); 3];
        let a = vec![Value::Int(0), Value::Int(0), Value::Int(0)];
        let b = vec![Value::Int(9), Value::Int(9), Value::Int(9)];
        let m = args_midpoint(&p, &a, &b).unwrap();
        assert_eq!(m, vec![Value::Int(9), Value::Int(0), Value::Int(0)]);
        let m2 = args_midpoint(&p, &m, &b).unwrap();
        assert_eq!(m2, vec![Value::Int(9), Value::Int(9), Value::Int(0)]);
        let m3 = args_midpoint(&p, &m2, &b).unwrap();
        assert_eq!(m3, vec![Value::Int(9), Value::Int(9), Value::Int(4)]);
        assert_eq!(args_midpoint(&p, &a, &a), None);
        let c = vec![Value::Int(0), Value::Int(0), Value::Int(1)];
        assert_eq!(args_midpoint(&p, &a, &c), None);
    }

    #[test]
    fn midpoints_differ_from_both_ends_for_random_pairs() {
        let mut r = rng(5);
        for ty in all_types() {
            for _ in 0..300 {
                let (a, b) = (random_value(&ty, &mut r), random_value(&ty, &mut r));
                if let Some(m) = midpoint(&ty, &a, &b) {
                    assert!(!same(&m, &a) && !same(&m, &b), "{ty}: {a:?} {b:?} -> {m:?}");
                    assert!(conforms(&ty, &m), "{ty}: {a:?} {b:?} -> {m:?}");
                }
            }
        }
    }
}
