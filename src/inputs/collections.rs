//! Lists, bytes, arrays, tuples and maps: neighbours that change one element or the length,
//! shared edits that move two lists alike, and midpoints by element or by half an edit script.
//!
//! An operator that works on one element takes the element operation as its `neighbour` or
//! `midpoint` parameter: the dispatchers (`neighbour.rs`, `midpoint.rs`) pass themselves, so
//! that they depend on this file and not the other way round.

use rand::Rng;

use super::edit_script::{apply_half, edit_script, intern};
use super::random::random_value;
use super::same::{same, same_list};
use super::seq::{positional_midpoint, seq_midpoint, shared_edit};
use crate::value::{stringify_arg, Ty, Value};

pub(super) fn list_shared_edit<R: Rng>(
    item: &Ty,
    xs: &[Value],
    ys: &[Value],
    rng: &mut R,
    neighbour: impl Fn(&Ty, &Value, &mut R) -> Option<Value>,
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

pub(super) fn list_neighbour<R: Rng>(
    item: &Ty,
    v: &Value,
    rng: &mut R,
    neighbour: impl Fn(&Ty, &Value, &mut R) -> Option<Value>,
) -> Option<Value> {
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

/// A neighbour of one field of a fixed-shape list (array or tuple).
pub(super) fn fields_neighbour<R: Rng>(
    items: &[&Ty],
    v: &Value,
    rng: &mut R,
    neighbour: impl Fn(&Ty, &Value, &mut R) -> Option<Value>,
) -> Option<Value> {
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

pub(super) fn map_neighbour<R: Rng>(
    key: &Ty,
    value: &Ty,
    v: &Value,
    rng: &mut R,
    neighbour: impl Fn(&Ty, &Value, &mut R) -> Option<Value>,
) -> Option<Value> {
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

pub(super) fn fields_midpoint(
    items: &[&Ty],
    a: &Value,
    b: &Value,
    midpoint: impl Fn(&Ty, &Value, &Value) -> Option<Value>,
) -> Option<Value> {
    match (a, b) {
        (Value::List(x), Value::List(y)) if x.len() == items.len() && y.len() == items.len() => {
            positional_midpoint(x, y, |i, p, q| midpoint(items[i], p, q)).map(Value::List)
        }
        _ => None,
    }
}

pub(super) fn list_midpoint(
    item: &Ty,
    a: &Value,
    b: &Value,
    midpoint: impl Fn(&Ty, &Value, &Value) -> Option<Value>,
) -> Option<Value> {
    match (a, b) {
        (Value::List(x), Value::List(y)) => {
            seq_midpoint(x, y, |p, q| midpoint(item, p, q)).map(Value::List)
        }
        _ => None,
    }
}

pub(super) fn map_midpoint(
    value: &Ty,
    a: &Value,
    b: &Value,
    midpoint: impl Fn(&Ty, &Value, &Value) -> Option<Value>,
) -> Option<Value> {
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

#[cfg(test)]
mod tests {
    use crate::inputs::midpoint;
    use crate::inputs::testing::list;
    use crate::value::{Ty, Value};

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
}
