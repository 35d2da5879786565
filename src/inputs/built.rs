//! Built values (recipes), unions and one-of types: a built value is a constructor applied to
//! arguments, so it is generated, stepped and bisected through its arguments, and now and then
//! switched to another constructor; a union value is one of its options' values, stepped inside
//! its option or, now and then, swapped for another option's; a one-of value is one of its
//! constants. The dispatchers hand in the operators of the argument types.

use rand::seq::IndexedRandom;
use rand::Rng;

use super::conform::conforms_any;
use super::same::same;
use crate::value::{Ctor, Ty, Value};

/// How often a step changes the constructor (or the union's option) rather than an argument.
const SWITCH: f64 = 0.2;
/// How often a fresh built value takes an argument list seen in the project.
const SEEDED: f64 = 0.5;

/// A fresh value of one of `ctors`, arguments from `arg` (or a seed of the project's).
pub(super) fn random_built<R: Rng>(
    ctors: &[Ctor],
    rng: &mut R,
    arg: impl Fn(&Ty, &mut R) -> Value,
) -> Value {
    let Some(c) = ctors.choose(rng) else { return Value::Null };
    if !c.seeds.is_empty() && rng.random_bool(SEEDED) {
        if let Some(seed) = c.seeds.choose(rng) {
            return Value::Built { ctor: c.name.clone(), args: seed.clone() };
        }
    }
    let args = c.params.iter().map(|(_, t)| arg(t, rng)).collect();
    Value::Built { ctor: c.name.clone(), args }
}

/// One small step from the built value `v`: one argument's neighbour (through `neighbour`), or,
/// now and then or when there is no argument to step, a fresh value of another constructor.
pub(super) fn built_neighbour<R: Rng>(
    ctors: &[Ctor],
    v: &Value,
    rng: &mut R,
    random: impl Fn(&Ty, &mut R) -> Value,
    neighbour: impl Fn(&Ty, &Value, &mut R) -> Option<Value>,
) -> Option<Value> {
    let own = match v {
        Value::Built { ctor, args } => ctors
            .iter()
            .find(|c| c.name == *ctor && c.params.len() == args.len())
            .map(|c| (c, args)),
        _ => None,
    };
    let Some((c, args)) = own else { return Some(random_built(ctors, rng, random)) };
    let others: Vec<&Ctor> = ctors.iter().filter(|o| o.name != c.name).collect();
    if c.params.is_empty() || (!others.is_empty() && rng.random_bool(SWITCH)) {
        let o = others.choose(rng)?;
        let args = o.params.iter().map(|(_, t)| random(t, rng)).collect();
        return Some(Value::Built { ctor: o.name.clone(), args });
    }
    let start = rng.random_range(0..c.params.len());
    for k in 0..c.params.len() {
        let i = (start + k) % c.params.len();
        if let Some(x) = neighbour(&c.params[i].1, &args[i], rng) {
            let mut args = args.clone();
            args[i] = x;
            return Some(Value::Built { ctor: c.name.clone(), args });
        }
    }
    None
}

/// A built value between `a` and `b` of the same constructor, through their arguments (as an
/// argument list bisects); `None` across constructors.
pub(super) fn built_midpoint(
    ctors: &[Ctor],
    a: &Value,
    b: &Value,
    args_midpoint: impl Fn(&[Ty], &[Value], &[Value]) -> Option<Vec<Value>>,
) -> Option<Value> {
    let (Value::Built { ctor: ca, args: xa }, Value::Built { ctor: cb, args: xb }) = (a, b) else {
        return None;
    };
    let c = ctors.iter().find(|c| c.name == *ca && *ca == *cb)?;
    let params: Vec<Ty> = c.params.iter().map(|(_, t)| t.clone()).collect();
    args_midpoint(&params, xa, xb).map(|args| Value::Built { ctor: c.name.clone(), args })
}

/// The option of a union that `v` belongs to, if any.
pub(super) fn option_of<'t>(options: &'t [Ty], v: &Value) -> Option<&'t Ty> {
    conforms_any(options, v)
}

/// A fresh value of a random option.
pub(super) fn random_union<R: Rng>(
    options: &[Ty],
    rng: &mut R,
    random: impl Fn(&Ty, &mut R) -> Value,
) -> Value {
    options.choose(rng).map_or(Value::Null, |t| random(t, rng))
}

/// A step inside `v`'s option, or now and then a fresh value of another option.
pub(super) fn union_neighbour<R: Rng>(
    options: &[Ty],
    v: &Value,
    rng: &mut R,
    random: impl Fn(&Ty, &mut R) -> Value,
    neighbour: impl Fn(&Ty, &Value, &mut R) -> Option<Value>,
) -> Option<Value> {
    let Some(own) = option_of(options, v) else { return Some(random_union(options, rng, random)) };
    let others: Vec<&Ty> = options.iter().filter(|t| *t != own).collect();
    if !others.is_empty() && rng.random_bool(SWITCH) {
        let t = others.choose(rng)?;
        return Some(random(t, rng));
    }
    neighbour(own, v, rng)
}

/// Another of the constants.
pub(super) fn one_of_neighbour(values: &[Value], v: &Value, rng: &mut impl Rng) -> Option<Value> {
    let others: Vec<&Value> = values.iter().filter(|x| !same(x, v)).collect();
    others.choose(rng).map(|x| (*x).clone())
}
