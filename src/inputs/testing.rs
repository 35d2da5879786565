//! Helpers shared by the tests of the value operators.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::value::{Ctor, CtorForm, Ty, Value};

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
        built(),
        Ty::Union {
            options: vec![Ty::int(32, true), Ty::Str, Ty::Option { item: Box::new(Ty::Bool) }],
        },
        Ty::OneOf { values: vec![s("a"), s("b"), Value::Int(3)] },
    ]);
    v
}

/// A built type with a unit variant, a call with a nested built argument, and named fields.
pub(super) fn built() -> Ty {
    let op = Ty::Built {
        name: "Op".into(),
        ctors: vec![
            Ctor {
                name: "Op::Exact".into(),
                form: CtorForm::Unit,
                params: vec![],
                seeds: vec![],
                defaults: Vec::new(),
            },
            Ctor {
                name: "Op::Caret".into(),
                form: CtorForm::Unit,
                params: vec![],
                seeds: vec![],
                defaults: Vec::new(),
            },
        ],
    };
    Ty::Built {
        name: "Comparator".into(),
        ctors: vec![
            Ctor {
                name: "Comparator".into(),
                form: CtorForm::Fields,
                params: vec![("op".into(), op), ("major".into(), Ty::int(64, false))],
                seeds: vec![],
                defaults: Vec::new(),
            },
            Ctor {
                name: "Comparator::parse".into(),
                form: CtorForm::Call,
                params: vec![("text".into(), Ty::Str)],
                seeds: vec![vec![s(">=1.2.3")], vec![s("^0.1")]],
                defaults: Vec::new(),
            },
        ],
    }
}

pub(super) use super::conform::conforms;
