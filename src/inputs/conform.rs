//! Whether a value belongs to a type in the value model: which option of a union a value is, and
//! the tests' check that every operator stays inside its type.

use super::same::same;
use super::text::single_char;
use crate::value::{Ty, Value};

/// Whether `v` is a valid value of `ty` in the value model.
pub fn conforms(ty: &Ty, v: &Value) -> bool {
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
        (Ty::Built { ctors, .. }, Value::Built { ctor, args }) => ctors.iter().any(|c| {
            c.name == *ctor
                && c.params.len() == args.len()
                && c.params.iter().zip(args).all(|((_, t), x)| conforms(t, x))
        }),
        (Ty::Union { options }, v) => options.iter().any(|t| conforms(t, v)),
        (Ty::OneOf { values }, v) => values.iter().any(|x| same(x, v)),
        _ => false,
    }
}

/// The first of `options` that `v` belongs to.
pub fn conforms_any<'t>(options: &'t [Ty], v: &Value) -> Option<&'t Ty> {
    options.iter().find(|t| conforms(t, v))
}
