//! Midpoints: a value strictly between two others, for bisecting a pair down to a boundary, and
//! the argument-list midpoint that refinement steps through.

use super::built::{built_midpoint, option_of};
use super::collections::{fields_midpoint, list_midpoint, map_midpoint};
use super::floats::float_midpoint;
use super::ints::{int_midpoint, IntRange};
use super::same::same;
use super::seq::positional_midpoint;
use super::text::{char_midpoint, str_midpoint};
use crate::value::{Args, Ty, Value};

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
        Ty::Char => char_midpoint(a, b),
        Ty::Str => str_midpoint(a, b),
        Ty::Bytes => list_midpoint(&Ty::int(8, false), a, b, midpoint),
        Ty::List { item } => list_midpoint(item, a, b, midpoint),
        Ty::Array { item, len } => {
            let items: Vec<&Ty> = vec![item.as_ref(); *len];
            fields_midpoint(&items, a, b, midpoint)
        }
        Ty::Option { item } => match (a, b) {
            (Value::Null, _) | (_, Value::Null) => None,
            _ => midpoint(item, a, b),
        },
        Ty::Tuple { items } => {
            let items: Vec<&Ty> = items.iter().collect();
            fields_midpoint(&items, a, b, midpoint)
        }
        Ty::Map { value, .. } => map_midpoint(value, a, b, midpoint),
        Ty::Any => any_midpoint(a, b),
        Ty::Built { ctors, .. } => built_midpoint(ctors, a, b, |params, x, y| {
            args_midpoint(params, &x.to_vec(), &y.to_vec())
        }),
        Ty::Union { options } => match (option_of(options, a), option_of(options, b)) {
            (Some(s), Some(t)) if s == t => midpoint(s, a, b),
            _ => None,
        },
        Ty::OneOf { .. } => None,
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
    positional_midpoint(a, b, |i, p, q| midpoint(&params[i], p, q))
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
        (Value::List(_), Value::List(_)) => list_midpoint(&Ty::Any, a, b, midpoint),
        (Value::Map(_), Value::Map(_)) => map_midpoint(&Ty::Any, a, b, midpoint),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::random_value;
    use crate::inputs::testing::{all_types, conforms, rng};

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
