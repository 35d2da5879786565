//! Characters and strings: the character pool and word list, random strings shaped like common
//! formats, one-step edits, and midpoints (a char's by code point, a string's by half an edit
//! script).

use rand::seq::IndexedRandom;
use rand::Rng;

use super::rng::rng_index;
use super::seq::seq_midpoint;
use crate::value::Value;

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

pub(super) fn random_char(constant: bool, rng: &mut impl Rng) -> char {
    if constant {
        return *CHAR_POOL.choose(rng).unwrap_or(&'a');
    }
    match rng.random_range(0..10) {
        0..=7 => char::from(rng.random_range(0x20u8..0x7f)),
        8 => *CHAR_POOL.choose(rng).unwrap_or(&'a'),
        _ => char_from_index(rng.random_range(0..=MAX_CHAR_INDEX)),
    }
}

pub(super) fn random_string(constant: bool, rng: &mut impl Rng) -> String {
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
pub(super) fn same_class_char(c: char, rng: &mut impl Rng) -> char {
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
pub(super) fn insert_char(s: &[char], pos: usize, rng: &mut impl Rng) -> char {
    let near = s.get(pos).or_else(|| pos.checked_sub(1).and_then(|p| s.get(p)));
    match (rng.random_range(0..10), near) {
        (0..=3, Some(c)) if c.is_ascii_alphanumeric() => same_class_char(*c, rng),
        (0..=5, _) => SEPARATORS[rng_index(rng, SEPARATORS.len())],
        (6..=8, _) => char::from(rng.random_range(0x20u8..0x7f)),
        _ => *CHAR_POOL.choose(rng).unwrap_or(&'a'),
    }
}

pub(super) fn char_neighbour(v: &Value, rng: &mut impl Rng) -> Option<Value> {
    let Some(c) = single_char(v) else {
        return Some(Value::Str(random_char(false, rng).to_string()));
    };
    Some(Value::Str(char_step(c, rng).to_string()))
}

pub(super) fn single_char(v: &Value) -> Option<char> {
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
pub(super) fn char_step(c: char, rng: &mut impl Rng) -> char {
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

pub(super) fn str_neighbour(v: &Value, rng: &mut impl Rng) -> Option<Value> {
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

/// The char between two one-character strings, by code point.
pub(super) fn char_midpoint(a: &Value, b: &Value) -> Option<Value> {
    let (x, y) = (char_index(single_char(a)?), char_index(single_char(b)?));
    let (lo, hi) = (x.min(y), x.max(y));
    (hi - lo > 1).then(|| Value::Str(char_from_index(lo + (hi - lo) / 2).to_string()))
}

/// Half of a shortest edit script from one string to the other, or the midpoint of the one
/// char that differs. That char midpoint needs none of the checks `midpoint` adds around it: the
/// two chars differ, and their midpoint lies strictly between them.
pub(super) fn str_midpoint(a: &Value, b: &Value) -> Option<Value> {
    let (Value::Str(x), Value::Str(y)) = (a, b) else {
        return None;
    };
    let xs: Vec<Value> = x.chars().map(|c| Value::Str(c.to_string())).collect();
    let ys: Vec<Value> = y.chars().map(|c| Value::Str(c.to_string())).collect();
    let m = seq_midpoint(&xs, &ys, char_midpoint)?;
    Some(Value::Str(m.iter().filter_map(single_char).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::edit_script::{edit_script, intern, Op};
    use crate::inputs::midpoint;
    use crate::inputs::testing::s;
    use crate::value::Ty;

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
}
