//! Moves that take a masked input further through the function's loop. A site inside a loop
//! is often infected on every run but shows only from the second pass on: `data[2 * i]` →
//! `data[3 * i]` reads the same byte while `i` is 0. The walk of ±1 steps around a masked
//! input never gets there when the loop's length is tied to several arguments
//! (`decode_to_slice(data, out)` wants `out.len() == data.len() / 2`, so lengthening one
//! argument returns early) or when each pass must accept its element first (a hex digit). So
//! around a masked input the directed search also tries its sequence arguments (strings and
//! lists) grown together, their lengths keeping their ratio, and each of them filled with one of
//! its own elements (an element the function accepted at the first pass, repeated, lets it
//! accept the next passes too).

use crate::inputs::conforms;
use crate::value::{Args, Ty, Value};

/// Longest sequence a growth makes.
const LONGEST: usize = 64;

/// Elements (characters) of a sequence that fill it, the first distinct ones.
const FILLERS: usize = 4;

/// Inputs one move further than `x`: its non-empty sequence arguments grown together (their
/// contents repeated, and each `len / g` elements of its first unit appended, with `g` the
/// greatest common divisor of their lengths, so that the ratio of the lengths stays), then each
/// sequence argument filled with one of its first distinct elements at its own length.
pub(super) fn further(params: &[Ty], x: &Args) -> Vec<Args> {
    let seqs: Vec<usize> = (0..x.len()).filter(|&i| len(&x[i]) > 0).collect();
    let mut out = Vec::new();
    if seqs.is_empty() {
        return out;
    }
    let g = seqs.iter().fold(0, |g, &i| gcd(g, len(&x[i])));
    // One unit more, then twice the input: one more pass of the loop, then many.
    for times in [None, Some(2)] {
        let mut a = x.clone();
        for &i in &seqs {
            let n = len(&x[i]);
            let extra = match times {
                None => n / g,
                Some(k) => n * (k - 1),
            };
            if n + extra > LONGEST {
                a.clear();
                break;
            }
            a[i] = repeat(&x[i], n + extra);
        }
        if !a.is_empty() && !out.contains(&a) {
            out.push(a);
        }
    }
    for &i in &seqs {
        for e in distinct(&x[i]).into_iter().take(FILLERS) {
            let mut a = x.clone();
            a[i] = filled(&x[i], &e);
            if a != *x && !out.contains(&a) {
                out.push(a);
            }
        }
    }
    typed(params, out)
}

/// Inputs where the loop's first pass meets an accepted input and the next pass the input's
/// own other elements: each sequence argument of length `n` made `2n` long, filled with `e`
/// (one of its first distinct elements, or what a parser accepts most often: the characters
/// `0` and `a`, as bytes 48 and 97 in a list of numbers) and with one of its own elements at
/// `n` or `n + 1` (the first two places of the second pass, where an index scaled by a mutant
/// first reads elsewhere), the other sequence arguments repeated to twice their length. At most
/// (`FILLERS` + 2) × 3 × 2 per sequence argument.
pub(super) fn spliced(params: &[Ty], x: &Args) -> Vec<Args> {
    let seqs: Vec<usize> = (0..x.len()).filter(|&i| len(&x[i]) > 0).collect();
    let mut out = Vec::new();
    for &i in &seqs {
        let n = len(&x[i]);
        if 2 * n > LONGEST {
            continue;
        }
        let mut doubled = x.clone();
        for &j in &seqs {
            doubled[j] = repeat(&x[j], 2 * len(&x[j]));
        }
        let elements = distinct(&x[i]);
        let accepted = match &x[i] {
            Value::Str(_) => vec![Value::Str("0".into()), Value::Str("a".into())],
            _ => vec![Value::Int(48), Value::Int(97)],
        };
        let fillers =
            elements.iter().take(FILLERS).chain(accepted.iter().filter(|a| !elements.contains(a)));
        for e in fillers {
            for o in elements.iter().filter(|o| *o != e).take(3) {
                for at in [n, n + 1] {
                    let mut a = doubled.clone();
                    a[i] = put(&filled(&doubled[i], e), at, o);
                    out.push(a);
                }
            }
        }
    }
    typed(params, out)
}

/// The inputs of `xs` whose arguments are of their types (a fixed-size array keeps its length,
/// a `char` one character).
fn typed(params: &[Ty], mut xs: Vec<Args>) -> Vec<Args> {
    xs.retain(|a| a.len() == params.len() && params.iter().zip(a).all(|(t, v)| conforms(t, v)));
    xs
}

/// The sequence `v` with its element at `at` made `e`.
fn put(v: &Value, at: usize, e: &Value) -> Value {
    match (v, e) {
        (Value::Str(s), Value::Str(c)) => Value::Str(
            s.chars()
                .enumerate()
                .map(|(k, x)| if k == at { c.clone() } else { x.to_string() })
                .collect(),
        ),
        (Value::List(xs), e) if at < xs.len() => {
            let mut ys = xs.clone();
            ys[at] = e.clone();
            Value::List(ys)
        }
        (other, _) => other.clone(),
    }
}

/// The length of a sequence value (characters of a string, elements of a list); 0 otherwise.
fn len(v: &Value) -> usize {
    match v {
        Value::Str(s) => s.chars().count(),
        Value::List(xs) => xs.len(),
        _ => 0,
    }
}

/// The sequence `v` repeated (cycled) to `n` elements.
fn repeat(v: &Value, n: usize) -> Value {
    match v {
        Value::Str(s) => Value::Str(s.chars().cycle().take(n).collect()),
        Value::List(xs) => Value::List(xs.iter().cycle().take(n).cloned().collect()),
        other => other.clone(),
    }
}

/// The distinct elements of a sequence, in order (characters as one-character strings).
fn distinct(v: &Value) -> Vec<Value> {
    let items: Vec<Value> = match v {
        Value::Str(s) => s.chars().map(|c| Value::Str(c.to_string())).collect(),
        Value::List(xs) => xs.clone(),
        _ => Vec::new(),
    };
    let mut out: Vec<Value> = Vec::new();
    for e in items {
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

/// The sequence `v` with every element made `e`.
fn filled(v: &Value, e: &Value) -> Value {
    match (v, e) {
        (Value::Str(s), Value::Str(c)) => Value::Str(c.repeat(s.chars().count())),
        (Value::List(xs), e) => Value::List(vec![e.clone(); xs.len()]),
        (other, _) => other.clone(),
    }
}

/// The greatest common divisor.
pub(super) fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(xs: &[i128]) -> Value {
        Value::List(xs.iter().map(|&x| Value::Int(x)).collect())
    }

    #[test]
    fn coupled_sequences_grow_together_and_fill_with_their_own_elements() {
        let list = Ty::List { item: Box::new(Ty::int(8, false)) };
        let params = [list.clone(), list];
        let x = vec![bytes(&[100, 1]), bytes(&[10])];
        let got = further(&params, &x);
        assert_eq!(got[0], vec![bytes(&[100, 1, 100, 1]), bytes(&[10, 10])]);
        assert!(got.contains(&vec![bytes(&[100, 100]), bytes(&[10])]));
        assert!(got.contains(&vec![bytes(&[1, 1]), bytes(&[10])]));
        let s = vec![Value::Str("ab".into()), Value::Int(3)];
        let str_int = [Ty::Str, Ty::int(8, false)];
        let grown: Vec<Value> = further(&str_int, &s).into_iter().map(|a| a[0].clone()).collect();
        assert_eq!(grown[..2], [Value::Str("aba".into()), Value::Str("abab".into())]);
        assert!(further(&str_int[1..], &vec![Value::Int(3)]).is_empty());
        // A character stays one character.
        assert!(further(&[Ty::Char], &vec![Value::Str("a".into())]).is_empty());
        // hex: `d` is accepted at the first pass; the second pass reads `\u{1}` first or second.
        let got = spliced(&params, &x);
        assert!(got.contains(&vec![bytes(&[100, 100, 1, 100]), bytes(&[10, 10])]), "{got:?}");
        assert!(got.contains(&vec![bytes(&[100, 100, 100, 1]), bytes(&[10, 10])]), "{got:?}");
        // No element of its own is a hex digit: `0` passes the first pass.
        let zeros = spliced(&params, &vec![bytes(&[0, 0]), bytes(&[0])]);
        assert!(zeros.contains(&vec![bytes(&[48, 48, 0, 48]), bytes(&[0, 0])]), "{zeros:?}");
    }
}
