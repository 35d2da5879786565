//! Shortest edit scripts between two sequences of interned keys, and applying half of one: the
//! midpoint of two strings, lists or maps.

use std::collections::HashMap;

/// Replaces each distinct key by a small integer, so the edit script works on cheap ids.
pub(super) fn intern<'a>(a: &'a [String], b: &'a [String]) -> (Vec<u32>, Vec<u32>) {
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
pub(super) enum Op {
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
pub(super) fn edit_script(a: &[u32], b: &[u32]) -> Vec<Op> {
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
pub(super) fn apply_half<T: Clone>(ops: &[Op], a: &[T], b: &[T]) -> Option<Vec<T>> {
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
    use super::*;

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
}
