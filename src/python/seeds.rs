//! Types and seeds of unannotated parameters, from the calls the project's own tests make: the
//! runner's traced baseline records the arguments each test passes to a function
//! (`pytest_abex.values.describe`: a kind's tag and the value, or its recipe), and a parameter
//! that was `any` becomes the union of the kinds seen, with the values seen as seeds (a built
//! value's arguments are its constructor's seeds; plain values are a `one_of` option beside
//! their kind, so that the explorer starts from them and steps away through the kind).

use super::runner::Seen;
use super::source::PyFn;
use super::types::{self, lookup::Named, Lookup};
use crate::targets::Param;
use crate::value::{Ctor, CtorForm, Ty, Value};

/// Plain values kept per parameter as seeds.
const MAX_SEEDS: usize = 12;

/// Whether the baseline should record what the tests pass to `f`: it has a parameter typed by
/// nothing but its default, if by that ([`learnable`]).
pub fn wanted(f: &PyFn) -> bool {
    f.unsupported.is_none() && f.params.iter().any(|p| learnable(f, p).is_some())
}

/// Whether parameter `p` of `f` is one whose type what the tests pass tells: `Some` when it is
/// of unknown type (`Some(None)`) or typed only by its literal default (`Some(Some(default))`),
/// `None` when its annotation types it.
fn learnable<'f>(f: &'f PyFn, p: &Param) -> Option<Option<&'f Value>> {
    if p.ty == Some(Ty::Any) {
        return Some(None);
    }
    let default = f.raw.iter().find(|r| r.name == p.name && r.ann.is_none())?.literal.as_ref()?;
    (p.ty == Some(types::function::of_default(Some(default)))).then_some(Some(default))
}

/// The tag a value seen by the tests would have (`pytest_abex.values.describe`).
fn tag_of(v: &Value) -> &'static str {
    match v {
        Value::Bool(_) => "bool",
        Value::Int(_) => "int",
        Value::Float(_) => "float",
        _ => "str",
    }
}

/// The type of a tag, or `None` when it says nothing about the type (`none`).
fn ty_of_tag(tag: &str, r: &types::Resolver<'_>) -> Option<Ty> {
    Some(match tag {
        "int" => Ty::int(64, true),
        "float" => Ty::Float { bits: 64 },
        "str" => Ty::Str,
        "bool" => Ty::Bool,
        "bytes" => Ty::Bytes,
        "list" => Ty::List { item: Box::new(Ty::Any) },
        "dict" => Ty::Map { key: Box::new(Ty::Str), value: Box::new(Ty::Any) },
        t => {
            if let Some(path) = t.strip_prefix("std:") {
                return types::stdlib::ty(path, &[Ty::Any]);
            }
            let path = t.strip_prefix("class:")?;
            match r.named(path, "") {
                Named::Class(m, q) => types::classes::ty(r, &m, &q, 0).ok()?,
                _ => return None,
            }
        }
    })
}

/// `f`'s parameters with the unannotated ones typed and seeded from `seen`; `None` when the
/// tests told nothing new.
pub fn learnt(f: &PyFn, seen: &[Seen], r: &types::Resolver<'_>) -> Option<Vec<Param>> {
    let mut params = f.params.clone();
    let mut changed = false;
    for (p, pass) in params.iter_mut().zip(&f.passes) {
        let Some(default) = learnable(f, p) else { continue };
        if let Some(ty) = learnt_ty(&p.name, default, seen, r) {
            let unset = *pass == types::scope::Pass::Unset;
            p.ty = Some(if unset { types::function::unset(ty) } else { ty });
            changed = true;
        }
    }
    changed.then_some(params)
}

/// The type of parameter `name` from the values `seen` passed to it (their kinds, and the plain
/// values among them as a `one_of` beside their kind; a built value's arguments go to its
/// constructor's seeds), with its literal `default` a value of it too; `None` when nothing
/// seen says what it is.
fn learnt_ty(
    name: &str,
    default: Option<&Value>,
    seen: &[Seen],
    r: &types::Resolver<'_>,
) -> Option<Ty> {
    let mut kinds: Vec<(String, Ty)> = Vec::new();
    let mut plain: Vec<Value> = Vec::new();
    let mut none = false;
    for (tag, json) in seen.iter().filter_map(|s| s.get(name)) {
        if tag == "none" {
            none = true;
            continue;
        }
        let value = Value::from_json(json);
        if !kinds.iter().any(|(t, _)| t == tag) {
            let Some(ty) = ty_of_tag(tag, r) else { continue };
            kinds.push((tag.clone(), ty));
        }
        let Some((_, ty)) = kinds.iter_mut().find(|(t, _)| t == tag) else { continue };
        match (ty, value) {
            (Ty::Built { ctors, .. }, Value::Built { ctor, args }) => {
                if let Some(c) = ctors.iter_mut().find(|c| c.name == ctor) {
                    let fits = c.params.len() == args.len()
                        && c.params
                            .iter()
                            .zip(&args)
                            .all(|((_, t), x)| crate::inputs::conforms(t, x));
                    if fits && !c.seeds.contains(&args) && c.seeds.len() < MAX_SEEDS {
                        c.seeds.insert(0, args);
                    }
                }
            }
            (Ty::Int { .. } | Ty::Float { .. } | Ty::Str, v)
                if !plain.contains(&v) && plain.len() < MAX_SEEDS =>
            {
                plain.push(v);
            }
            _ => {}
        }
    }
    if kinds.is_empty() {
        return None;
    }
    // A list holds the kinds of elements the tests put in theirs (croniter 2.0.5's
    // `_get_prev_nearest_diff(x, to_check, range_val)`, always given integers, was proven on
    // `[24.0]`, where only `0.0` against `0` told the mutant apart).
    if let Some((_, Ty::List { item })) = kinds.iter_mut().find(|(t, _)| t == "list") {
        let lists = seen.iter().filter_map(|s| s.get(name)).filter(|(t, _)| t == "list");
        if let Some(t) = element_kind(lists.flat_map(|(_, j)| j.as_array().into_iter().flatten())) {
            **item = t;
        }
    }
    // The default is a value of the parameter too.
    if default == Some(&Value::Null) {
        none = true;
    } else if let Some(d) = default {
        if !kinds.iter().any(|(t, _)| t == tag_of(d)) {
            kinds.extend(ty_of_tag(tag_of(d), r).map(|ty| (tag_of(d).to_string(), ty)));
        }
        if !matches!(d, Value::Bool(_)) && !plain.contains(d) && plain.len() < MAX_SEEDS {
            plain.insert(0, d.clone());
        }
    }
    let mut options: Vec<Ty> = kinds.into_iter().map(|(_, t)| t).collect();
    if !plain.is_empty() {
        options.push(Ty::OneOf { values: plain });
    }
    let ty = if options.len() == 1 { options.remove(0) } else { Ty::Union { options } };
    Some(if none { Ty::Option { item: Box::new(ty) } } else { ty })
}

/// The one kind of plain value all `elements` are (integers and floats together: either),
/// or `None` when they are of several, of another, or none at all.
fn element_kind<'j>(elements: impl Iterator<Item = &'j serde_json::Value>) -> Option<Ty> {
    let (mut int, mut float, mut text, mut truth, mut other, mut any) =
        (false, false, false, false, false, false);
    for e in elements {
        any = true;
        match e {
            serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => int = true,
            serde_json::Value::Number(_) => float = true,
            serde_json::Value::String(_) => text = true,
            serde_json::Value::Bool(_) => truth = true,
            _ => other = true,
        }
    }
    let (i, f) = (Ty::int(64, true), Ty::Float { bits: 64 });
    match (any && !other, int, float, text, truth) {
        (true, true, false, false, false) => Some(i),
        (true, false, true, false, false) => Some(f),
        (true, true, true, false, false) => Some(Ty::Union { options: vec![i, f] }),
        (true, false, false, true, false) => Some(Ty::Str),
        (true, false, false, false, true) => Some(Ty::Bool),
        _ => None,
    }
}

/// The project classes among the types of `f`'s parameters (its receiver's first) whose
/// constructor takes a parameter of unknown type, as `(Ty::Built name, constructor name)`: what
/// the tests pass to their `__init__` types and seeds it ([`learnt_ctor`]).
pub fn constructors(f: &PyFn) -> Vec<(String, String)> {
    fn walk(t: &Ty, out: &mut Vec<(String, String)>) {
        match t {
            Ty::Built { name, ctors } => {
                for c in ctors {
                    if c.form != CtorForm::Unit && c.params.iter().any(|(_, t)| *t == Ty::Any) {
                        let key = (name.clone(), c.name.clone());
                        if !out.contains(&key) {
                            out.push(key);
                        }
                    }
                }
            }
            Ty::Option { item } | Ty::List { item } => walk(item, out),
            Ty::Union { options } => options.iter().for_each(|o| walk(o, out)),
            Ty::Tuple { items } => items.iter().for_each(|o| walk(o, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if f.unsupported.is_none() {
        for p in &f.params {
            if let Some(t) = &p.ty {
                walk(t, &mut out);
            }
        }
    }
    out
}

/// Types the parameters of unknown type of constructor `ctor` of the built type `name`
/// wherever it is in `params`, from the argument lists `seen` passed to its `__init__`
/// (`init`), and seeds it with each whole argument list seen (defaults included); whether
/// anything changed.
pub fn learnt_ctor(
    params: &mut [Param],
    name: &str,
    ctor: &str,
    init: &PyFn,
    seen: &[Seen],
    r: &types::Resolver<'_>,
) -> bool {
    fn walk(t: &mut Ty, name: &str, learn: &mut dyn FnMut(&mut Ctor) -> bool) -> bool {
        match t {
            Ty::Built { name: n, ctors } if n == name => {
                ctors.iter_mut().fold(false, |changed, c| learn(c) | changed)
            }
            Ty::Option { item } | Ty::List { item } => walk(item, name, learn),
            Ty::Union { options } => {
                options.iter_mut().fold(false, |changed, o| walk(o, name, learn) | changed)
            }
            Ty::Tuple { items } => {
                items.iter_mut().fold(false, |changed, o| walk(o, name, learn) | changed)
            }
            _ => false,
        }
    }
    if seen.is_empty() {
        return false;
    }
    let mut learn = |c: &mut Ctor| {
        if c.name != ctor {
            return false;
        }
        let mut changed = false;
        for (p, t) in c.params.iter_mut().filter(|(_, t)| *t == Ty::Any) {
            let default = init.raw.iter().find(|x| x.name == *p).and_then(|x| x.literal.as_ref());
            if let Some(ty) = learnt_ty(p, default, seen, r) {
                *t = ty;
                changed = true;
            }
        }
        for s in seen {
            let args: Option<Vec<Value>> = c
                .params
                .iter()
                .map(|(p, t)| {
                    let v = Value::from_json(&s.get(p)?.1);
                    crate::inputs::conforms(t, &v).then_some(v)
                })
                .collect();
            let Some(args) = args else { continue };
            if !c.seeds.contains(&args) && c.seeds.len() < MAX_SEEDS {
                c.seeds.push(args);
                changed = true;
            }
        }
        changed
    };
    params
        .iter_mut()
        .filter_map(|p| p.ty.as_mut())
        .fold(false, |changed, t| walk(t, name, &mut learn) | changed)
}

/// The argument lists of `key` (`module:qualname`) seen by any of the baselines `results`.
pub fn seen_by<'a>(
    results: impl Iterator<Item = &'a super::runner::RunResult>,
    key: &str,
) -> Vec<Seen> {
    let mut out: Vec<Seen> = Vec::new();
    for r in results {
        for s in r.seen.get(key).into_iter().flatten() {
            if !out.contains(s) {
                out.push(s.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// Calls `body` with function `name` of module `m` (`src`), its parameters resolved.
    fn with_function(src: &str, name: &str, body: impl FnOnce(&PyFn, &types::Resolver<'_>)) {
        let (mut fns, scope) = super::super::source::read(src, "m", false);
        let mut index = types::Index::default();
        index.scopes.insert("m".into(), scope);
        let r = types::Resolver { index: &index };
        let f = fns.iter_mut().find(|f| f.name == name).unwrap();
        types::function::resolve(f, "m", &r);
        body(f, &r);
    }

    #[test]
    fn an_unannotated_parameter_takes_the_kinds_and_values_the_tests_pass() {
        let src = "import enum\n\nclass Unit(enum.Enum):\n    S = 1\n    M = 2\n\ndef f(value, unit, other: int):\n    return value\n";
        with_function(src, "f", |f, r| {
            assert!(wanted(f));
            let call = |v: (&str, serde_json::Value), u: (&str, serde_json::Value)| -> Seen {
                let mut s = BTreeMap::new();
                s.insert("value".to_string(), (v.0.to_string(), v.1));
                s.insert("unit".to_string(), (u.0.to_string(), u.1));
                s
            };
            let unit = |m: &str| {
                ("class:m.Unit", serde_json::json!({"$ctor": format!("Unit.{m}"), "$args": []}))
            };
            let seen = vec![
                call(("int", serde_json::json!(1000)), unit("S")),
                call(("float", serde_json::json!(2.5)), unit("M")),
                call(("none", serde_json::Value::Null), unit("S")),
            ];
            let ps = learnt(f, &seen, r).unwrap();
            assert_eq!(
                ps[0].ty.as_ref().unwrap().to_string(),
                "option[i64 | f64 | one of 1000, 2.5]"
            );
            assert_eq!(ps[1].ty.as_ref().unwrap().to_string(), "m.Unit");
            assert_eq!(ps[2].ty, Some(Ty::int(64, true)), "annotated parameters keep their type");
            assert!(learnt(f, &[], r).is_none());
        });
    }

    #[test]
    fn an_unannotated_parameter_with_a_literal_default_takes_its_kind_until_the_tests_say_more() {
        // isodate 0.6.1's `build_tzinfo(tzname, tzsign='+', tzhour=0, tzmin=0)`: the tests pass
        // only `tzname`; the others were of any type, and its witnesses passed `[]` and `False`
        // for a sign and an hour.
        let src = "def build(name, sign='+', hour=0, scale=1.5, strict=False, neg=-2, fmt=f'{1}', x=None, y: object = 'a'):\n    return name\n";
        with_function(src, "build", |f, r| {
            let ty = |ps: &[Param], i: usize| ps[i].ty.as_ref().unwrap().to_string();
            let typed: Vec<String> = (0..f.params.len()).map(|i| ty(&f.params, i)).collect();
            assert_eq!(
                typed,
                [
                    "any",
                    "str | one of \"+\"",
                    "i64 | one of 0",
                    "f64 | one of 1.5",
                    "bool",
                    "i64 | one of -2",
                    "any",
                    "any",
                    "any"
                ]
            );
            assert!(wanted(f));
            // What the tests pass widens a typed default: `hour` seen as a float keeps its `0`.
            let mut call = BTreeMap::new();
            call.insert("name".to_string(), ("str".to_string(), serde_json::json!("+01:00")));
            call.insert("hour".to_string(), ("float".to_string(), serde_json::json!(2.5)));
            call.insert("y".to_string(), ("int".to_string(), serde_json::json!(7)));
            let ps = learnt(f, &[call], r).unwrap();
            assert_eq!(ty(&ps, 0), "str | one of \"+01:00\"");
            assert_eq!(ty(&ps, 1), "str | one of \"+\"", "not seen: its default's kind");
            assert_eq!(ty(&ps, 2), "f64 | i64 | one of 0, 2.5");
            // An annotation that says nothing (`object`) learns as before, its default aside.
            assert_eq!(ty(&ps, 8), "i64 | one of 7");
            // Nothing seen, nothing learnt: the defaults' kinds stand.
            assert!(learnt(f, &[], r).is_none());
        });
    }

    #[test]
    fn a_constructor_takes_the_kinds_and_argument_lists_the_tests_pass_to_its_init() {
        // semantic_version 2.10.0's `Version(version_string=None, major=None, ..., partial=False)`
        // and its `truncate(level='patch')`: random receivers were refused by `__init__`.
        let src = "class Version:\n    def __init__(self, text=None, major=None, partial=False):\n        self.text = text\n\n    def truncate(self, level='patch'):\n        return self\n";
        with_function(src, "__init__", |init, _| {
            with_function(src, "truncate", |f, r| {
                let wanted = constructors(f);
                assert_eq!(wanted, [("m.Version".to_string(), "Version".to_string())]);
                let call = |args: &[(&str, &str, serde_json::Value)]| -> Seen {
                    args.iter()
                        .map(|(n, t, v)| (n.to_string(), (t.to_string(), v.clone())))
                        .collect()
                };
                let seen = vec![
                    call(&[
                        ("text", "str", serde_json::json!("1.2.3")),
                        ("major", "none", serde_json::Value::Null),
                        ("partial", "bool", serde_json::json!(false)),
                    ]),
                    call(&[
                        ("text", "none", serde_json::Value::Null),
                        ("major", "int", serde_json::json!(4)),
                        ("partial", "bool", serde_json::json!(true)),
                    ]),
                    // An argument abex could not write: its kinds count, the list seeds nothing.
                    call(&[
                        ("text", "str", serde_json::json!("2.0")),
                        ("major", "none", serde_json::Value::Null),
                    ]),
                ];
                let mut params = f.params.clone();
                assert!(learnt_ctor(&mut params, "m.Version", "Version", init, &seen, r));
                let Some(Ty::Built { ctors, .. }) = &params[0].ty else { panic!("{params:?}") };
                let typed: Vec<String> =
                    ctors[0].params.iter().map(|(n, t)| format!("{n}: {t}")).collect();
                assert_eq!(
                    typed,
                    [
                        "text: option[str | one of \"1.2.3\", \"2.0\"]",
                        "major: option[i64 | one of 4]",
                        "partial: bool"
                    ]
                );
                let s = |t: &str| Value::Str(t.into());
                assert_eq!(
                    ctors[0].seeds,
                    [
                        vec![s("1.2.3"), Value::Null, Value::Bool(false)],
                        vec![Value::Null, Value::Int(4), Value::Bool(true)]
                    ]
                );
                // Nothing seen, nothing learnt.
                let mut again = f.params.clone();
                assert!(!learnt_ctor(&mut again, "m.Version", "Version", init, &[], r));
                assert_eq!(again, f.params);
            });
        });
    }

    #[test]
    fn a_list_holds_the_kind_of_elements_the_tests_put_in_it() {
        let src = "def nearest(x, to_check, names, mixed, empty):\n    return x\n";
        with_function(src, "nearest", |f, r| {
            let arg = |t: &str, v: serde_json::Value| (t.to_string(), v);
            let call = |a: serde_json::Value, b: serde_json::Value, c: serde_json::Value| -> Seen {
                [
                    ("to_check".to_string(), arg("list", a)),
                    ("names".to_string(), arg("list", b)),
                    ("mixed".to_string(), arg("list", c)),
                    ("empty".to_string(), arg("list", serde_json::json!([]))),
                ]
                .into_iter()
                .collect()
            };
            let seen = vec![
                call(serde_json::json!([1, 31]), serde_json::json!(["a"]), serde_json::json!([1])),
                call(serde_json::json!([0]), serde_json::json!([]), serde_json::json!(["b"])),
            ];
            let ps = learnt(f, &seen, r).unwrap();
            let ty = |i: usize| ps[i].ty.as_ref().unwrap().to_string();
            assert_eq!(ty(1), "list[i64]");
            assert_eq!(ty(2), "list[str]");
            assert_eq!(ty(3), "list[any]", "ints and strings: any element");
            assert_eq!(ty(4), "list[any]", "no element seen");
        });
    }
}
