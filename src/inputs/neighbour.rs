//! Neighbours: one small typed step from a value to a different valid value, for one argument of
//! a list, or the same step applied to both inputs of a pair.

use rand::Rng;

use super::built::{built_neighbour, one_of_neighbour, union_neighbour};
use super::collections::{fields_neighbour, list_neighbour, list_shared_edit, map_neighbour};
use super::floats::float_neighbour;
use super::ints::{int_neighbour, translate, IntRange};
use super::random::random_value;
use super::same::same;
use super::seq::shared_edit;
use super::text::{char_neighbour, char_step, insert_char, same_class_char, str_neighbour};
use crate::value::{Args, Ty, Value};

/// One small typed step from `v` to a different valid value of `ty`. `None` only when `ty` has no
/// other value (an empty array or tuple). A value of the wrong shape gets a fresh random value.
pub fn neighbour(ty: &Ty, v: &Value, rng: &mut impl Rng) -> Option<Value> {
    let n = match ty {
        Ty::Int { bits, signed } => int_neighbour(IntRange::new(*bits, *signed), v, rng),
        Ty::Float { bits } => float_neighbour(*bits, v, rng),
        Ty::Bool => Some(Value::Bool(!matches!(v, Value::Bool(true)))),
        Ty::Char => char_neighbour(v, rng),
        Ty::Str => str_neighbour(v, rng),
        Ty::Bytes => list_neighbour(&Ty::int(8, false), v, rng, neighbour),
        Ty::List { item } => list_neighbour(item, v, rng, neighbour),
        Ty::Array { item, len } => {
            let items: Vec<&Ty> = vec![item.as_ref(); *len];
            fields_neighbour(&items, v, rng, neighbour)
        }
        Ty::Option { item } => match v {
            Value::Null => Some(random_value(item, rng)),
            _ if rng.random_ratio(1, 4) => Some(Value::Null),
            _ => Some(neighbour(item, v, rng).unwrap_or(Value::Null)),
        },
        Ty::Tuple { items } => {
            let items: Vec<&Ty> = items.iter().collect();
            fields_neighbour(&items, v, rng, neighbour)
        }
        Ty::Map { key, value } => map_neighbour(key, value, v, rng, neighbour),
        Ty::Any => any_neighbour(v, rng),
        Ty::Built { ctors, .. } => built_neighbour(ctors, v, rng, random_value, neighbour),
        Ty::Union { options } => union_neighbour(options, v, rng, random_value, neighbour),
        Ty::OneOf { values } => one_of_neighbour(values, v, rng),
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
                    list_shared_edit(item, xs, ys, rng, neighbour)
                }
                (Ty::Bytes, Value::List(xs), Value::List(ys)) => {
                    list_shared_edit(&Ty::int(8, false), xs, ys, rng, neighbour)
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

/// A fresh value of any type (no built value is of `Any`).
fn random_any_value(rng: &mut impl Rng) -> Value {
    random_value(&Ty::Any, rng)
}

fn any_neighbour(v: &Value, rng: &mut impl Rng) -> Option<Value> {
    match v {
        Value::Null => Some(Value::Int(0)),
        Value::Bool(b) => Some(Value::Bool(!b)),
        Value::Int(_) | Value::BigUint(_) => int_neighbour(IntRange::new(128, true), v, rng),
        Value::Float(_) => float_neighbour(64, v, rng),
        Value::Str(_) => str_neighbour(v, rng),
        Value::List(_) => list_neighbour(&Ty::Any, v, rng, neighbour),
        Value::Map(_) => map_neighbour(&Ty::Str, &Ty::Any, v, rng, neighbour),
        Value::Built { .. } => Some(random_any_value(rng)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::edit_script::{edit_script, intern, Op};
    use crate::inputs::random_args;
    use crate::inputs::testing::{all_types, conforms, rng};

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
}
