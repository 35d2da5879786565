//! A function's drivable parameters, with the project's names: each parameter's type (one abex
//! cannot build is left to its default, so that `f(x: int, cb: Callable = None)` is driven
//! through `x`), how it is passed (by position, by name, `*args`, `**kwargs`), the instance a
//! method is called on (a built receiver when its class's constructor takes arguments), and
//! whether a decorator lets abex call it (one that keeps the function, as `functools.wraps`
//! does: `lru_cache`, a project decorator using `wraps` or whose wrapper closes over it).

use super::classes;
use super::lookup::{Lookup, Named};
use super::resolve::{Index, Resolver};
use super::scope::Pass;
use crate::python::source::{Kind, PyFn};
use crate::targets::Param;
use crate::value::{Ty, Value};

/// Every function of `text` defined at module level or directly in a module-level class, with
/// its parameters' types read from `text` alone (a module named `""`); a project reads them
/// with every module's names ([`crate::python::source::read`], then [`resolve`]).
pub fn functions(text: &str) -> Vec<PyFn> {
    let (mut fns, scope) = crate::python::source::read(text, "", false);
    let mut index = Index::default();
    index.scopes.insert(String::new(), scope);
    let r = Resolver { index: &index };
    for f in &mut fns {
        resolve(f, "", &r);
    }
    fns
}

/// The type of an unannotated parameter from its default: a literal's kind, the default itself
/// first among its values (`tzsign='+'` takes strings, from `'+'`); `Any` without one. What the
/// tests pass to it types it better where they pass anything ([`crate::python::seeds`]).
pub fn of_default(literal: Option<&Value>) -> Ty {
    let kind = match literal {
        Some(Value::Bool(_)) => return Ty::Bool,
        Some(Value::Int(_)) => Ty::int(64, true),
        Some(Value::Float(_)) => Ty::Float { bits: 64 },
        Some(Value::Str(_)) => Ty::Str,
        _ => return Ty::Any,
    };
    let values = literal.into_iter().cloned().collect();
    Ty::Union { options: vec![kind, Ty::OneOf { values }] }
}

/// The type of a [`Pass::Unset`] parameter: `None` among its values (it stands for "not
/// given").
pub fn unset(t: Ty) -> Ty {
    match t {
        Ty::Any | Ty::Option { .. } => t,
        t => Ty::Option { item: Box::new(t) },
    }
}

/// Decorators that keep the function they decorate reachable (`__wrapped__`) and callable.
const KEEPING: &[&str] =
    &["lru_cache", "cache", "wraps", "deprecated", "final", "override", "no_type_check"];
/// Decorators that leave the function as it is.
const PLAIN: &[&str] = &["final", "override", "no_type_check"];

/// The decorator's name without its arguments: `functools.lru_cache(maxsize=4)` →
/// `functools.lru_cache`.
fn bare(d: &str) -> &str {
    d.split('(').next().unwrap_or(d).trim()
}

/// Why abex cannot call through `d` (None: it can), and whether it calls through it.
fn decorator(d: &str, module: &str, r: &Resolver<'_>) -> Result<bool, String> {
    let name = bare(d);
    let last = name.rsplit('.').next().unwrap_or(name);
    match last {
        "staticmethod" | "classmethod" | "property" | "cached_property" => return Ok(false),
        "setter" => return Ok(false),
        "deleter" => return Err("a property's deleter".into()),
        "overload" => return Err("an `@overload` declaration".into()),
        "abstractmethod" => return Err("an abstract method".into()),
        "contextmanager" | "asynccontextmanager" => {
            return Err("a context manager (abex calls functions that return values)".into())
        }
        _ => {}
    }
    if KEEPING.contains(&last) {
        return Ok(!PLAIN.contains(&last));
    }
    let wraps = match r.named(name, module) {
        Named::Path(p) => {
            let (m, f) = p.rsplit_once('.').unwrap_or(("", &p));
            r.index.scopes.get(m).is_some_and(|s| s.wrapping.contains(f))
        }
        _ => false,
    } || r.index.scopes.get(module).is_some_and(|s| s.wrapping.contains(name));
    if wraps {
        return Ok(true);
    }
    Err(format!(
        "decorated with `@{d}`: abex calls through a decorator only when it keeps the function (`functools.wraps`, or a project decorator whose wrapper closes over it)"
    ))
}

/// Fills `f`'s driven parameters and reasons from the project's names; `module` is its module.
pub fn resolve(f: &mut PyFn, module: &str, r: &Resolver<'_>) {
    f.params.clear();
    f.tuples.clear();
    f.passes.clear();
    f.receiver = false;
    let mut why: Option<String> = f.unsupported.clone();
    let mut note = |reason: String| {
        why.get_or_insert(reason);
    };
    f.decorated = false;
    for d in &f.decorators {
        match decorator(d, module, r) {
            Ok(through) => f.decorated |= through,
            Err(e) => note(e),
        }
    }
    if let (Some(class), Kind::Method | Kind::Property | Kind::Setter | Kind::Init) =
        (&f.class, f.kind)
    {
        match classes::ty(r, module, class, 0) {
            Err(e) => note(format!("abex cannot build a `{class}` to call it on: {e}")),
            Ok(_) if f.kind == Kind::Init && classes::is_enum(r, module, class, 0) => {
                note("an enum's `__init__` runs only when the enum is defined".into())
            }
            Ok(_) if f.kind == Kind::Init => {}
            Ok(t) if classes::takes_nothing(&t) => {}
            Ok(t) => {
                f.receiver = true;
                f.params.push(Param { name: "self".into(), type_text: class.clone(), ty: Some(t) });
                f.tuples.push(false);
                f.passes.push(Pass::Pos { only: true });
            }
        }
    }
    let mut left_out = false;
    for p in &f.raw {
        // A parameter named private (`_uni=unicodedata.numeric`, `_first_char=FIRST`: the idiom
        // that binds a global as a local for speed, or a recursion's `_depth=0`) is left to its
        // default: no caller passes it, so an input that sets it reaches what callers cannot,
        // and a test written on it pins an implementation detail (natsort 8.4.0's
        // `fast_int(" 0", _first_char=frozenset(["0"]))`).
        if p.default && p.name.starts_with('_') && matches!(p.pass, Pass::Pos { .. } | Pass::Kw) {
            left_out |= matches!(p.pass, Pass::Pos { .. });
            continue;
        }
        let ty = p
            .ann
            .as_deref()
            .map_or_else(|| Ok(of_default(p.literal.as_ref())), |a| r.ty(a, module));
        let (ty, pass) = match (p.pass, ty) {
            (Pass::Star, _) if left_out => continue,
            (Pass::Star, Ok(t)) => (Ty::List { item: Box::new(t) }, Pass::Star),
            (Pass::StarStar, Ok(t)) if p.ann.is_some() => {
                (Ty::Map { key: Box::new(Ty::Str), value: Box::new(t) }, Pass::StarStar)
            }
            (Pass::Star | Pass::StarStar, _) => continue,
            (_, Err(_)) if p.default => {
                left_out |= matches!(p.pass, Pass::Pos { .. });
                continue;
            }
            (_, Err(e)) => {
                note(format!("parameter `{}`: {e}", p.name));
                let type_text = p.ann.clone().unwrap_or_default();
                f.params.push(Param { name: p.name.clone(), type_text, ty: None });
                f.tuples.push(false);
                f.passes.push(p.pass);
                continue;
            }
            (Pass::Pos { only: true }, Ok(_)) if left_out && p.default => continue,
            (Pass::Pos { only: true }, Ok(_)) if left_out => {
                note(format!("parameter `{}` follows one abex leaves to its default", p.name));
                continue;
            }
            // A default that is no literal: `None` stands for "not given" (and the parameters
            // after it are passed by name, since it may be left out).
            (Pass::Pos { only: false } | Pass::Kw, Ok(t)) if p.default && p.literal.is_none() => {
                left_out = true;
                (unset(t), Pass::Unset)
            }
            (Pass::Pos { .. }, Ok(t)) if left_out => (t, Pass::Kw),
            (pass, Ok(t)) => (t, pass),
        };
        let tuple = super::is_tuple(p.ann.as_deref()) && matches!(ty, Ty::List { .. });
        f.params.push(Param {
            name: p.name.clone(),
            type_text: p.ann.clone().unwrap_or_default(),
            ty: Some(ty),
        });
        f.tuples.push(tuple);
        f.passes.push(pass);
    }
    f.unsupported = why;
}
