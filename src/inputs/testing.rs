//! Helpers shared by the tests of the value operators.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::text::single_char;
use crate::value::{Ty, Value};

pub(super) fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

pub(super) fn s(t: &str) -> Value {
    Value::Str(t.into())
}

pub(super) fn list(t: &Ty) -> Ty {
    Ty::List { item: Box::new(t.clone()) }
}

/// Every type the generators know, nested a little.
pub(super) fn all_types() -> Vec<Ty> {
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
pub(super) fn conforms(ty: &Ty, v: &Value) -> bool {
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
