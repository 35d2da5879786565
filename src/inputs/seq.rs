//! Operators on sequences whatever their elements (chars of a string, list elements, the
//! arguments of a call): the same edit made to two sequences, and the midpoint of two sequences,
//! by position or by half an edit script. The element operation is passed in by the caller, so
//! that this file knows no element type.

use rand::Rng;

use super::edit_script::{apply_half, edit_script, intern};
use super::same::same;
use crate::value::Value;

/// One insertion, deletion or replacement made at the same place of both sequences, inside their
/// common prefix or common suffix. `fresh(near)` makes an element to insert (often a copy of
/// `near`), `step` a replacement for an element.
pub(super) fn shared_edit<T: Clone + PartialEq, R: Rng>(
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

/// The midpoint of two sequences of the same length, position by position: with several
/// differing positions, the first half of them take `b`'s element; with exactly one, the
/// `midpoint(i, a[i], b[i])` of that position. `None` when no position differs.
pub(super) fn positional_midpoint(
    a: &[Value],
    b: &[Value],
    midpoint: impl FnOnce(usize, &Value, &Value) -> Option<Value>,
) -> Option<Vec<Value>> {
    let diff: Vec<usize> = (0..a.len()).filter(|&i| !same(&a[i], &b[i])).collect();
    match diff.len() {
        0 => None,
        1 => {
            let i = diff[0];
            let m = midpoint(i, &a[i], &b[i])?;
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

/// Midpoint of two sequences: the element `midpoint` when they differ in exactly one position,
/// otherwise the first half of a shortest edit script.
pub(super) fn seq_midpoint(
    a: &[Value],
    b: &[Value],
    midpoint: impl FnOnce(&Value, &Value) -> Option<Value>,
) -> Option<Vec<Value>> {
    if a.len() == b.len() {
        let diff: Vec<usize> = (0..a.len()).filter(|&i| !same(&a[i], &b[i])).collect();
        if diff.len() == 1 {
            let i = diff[0];
            let m = midpoint(&a[i], &b[i])?;
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
