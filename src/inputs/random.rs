//! Random values of a type, about half boundary constants and half sampled, and random argument
//! lists. The constants and samplers of each kind live in its own file.

use rand::seq::IndexedRandom;
use rand::Rng;

use super::built::{random_built, random_union};
use super::floats::random_float;
use super::ints::{boundary_int, sampled_int, IntRange};
use super::text::{random_char, random_string};
use crate::value::{stringify_arg, Args, Ty, Value};

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
        Ty::Built { ctors, .. } => random_built(ctors, rng, |t, rng| generate(t, rng, boundary)),
        Ty::Union { options } => random_union(options, rng, |t, rng| generate(t, rng, boundary)),
        Ty::OneOf { values } => values.choose(rng).cloned().unwrap_or(Value::Null),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::testing::{all_types, conforms, rng};

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
}
