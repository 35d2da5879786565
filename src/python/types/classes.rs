//! The project's classes as built types: an `Enum` (`IntEnum`, `StrEnum`, `Flag`, …) is one of
//! its members (`Color.RED`); a dataclass, `NamedTuple`, `TypedDict`, attrs class or pydantic
//! model is its fields by name (`Point(x=1, y=2)`); another class is its `__init__`'s drivable
//! parameters (its own or a base class's of the project); a class deriving from `str`, `int`,
//! `float` or an exception takes one such value. The type's name is its import path
//! (`pkg.shapes.Point`); a constructor's name is how a test writes it (`Point`, `Color.RED`).

use super::lookup::{Lookup, Named, MAX_DEPTH};
use super::scope::{ClassInfo, Field, Pass, RawParam};
use crate::value::{Ctor, CtorForm, Ty};

const ENUM_BASES: &[&str] = &["Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"];
const FIELD_BASES: &[&str] =
    &["NamedTuple", "TypedDict", "BaseModel", "BaseSettings", "Struct", "SQLModel"];
const FIELD_DECORATORS: &[&str] =
    &["dataclass", "s", "attrs", "define", "frozen", "mutable", "dataclass_json"];
/// Immutable builtin bases: their `__new__` takes its arguments by position, so a subclass's
/// constructor is called by position too (`Source("x")`, not `Source(_="x")`).
const BY_POSITION: &[&str] =
    &["str", "int", "float", "bytes", "tuple", "frozenset", "date", "datetime", "time", "Decimal"];

/// Whether the class derives (through the project's classes) from a [`BY_POSITION`] base.
fn by_position(r: &dyn Lookup, module: &str, c: &ClassInfo, hops: usize) -> bool {
    hops < 8
        && bases(r, module, c).iter().any(|b| match b {
            Named::Path(p) => BY_POSITION.contains(&last(p)),
            Named::Class(m, q) => info(r, m, q).is_some_and(|bc| by_position(r, m, bc, hops + 1)),
            Named::Alias(..) => false,
        })
}

/// Bases that add nothing to a class's constructor.
const NEUTRAL_BASES: &[&str] = &["object", "ABC", "Generic", "ABCMeta"];

fn last(path: &str) -> &str {
    let path = path.split('[').next().unwrap_or(path);
    let path = path.split('(').next().unwrap_or(path);
    path.rsplit('.').next().unwrap_or(path).trim()
}

fn info<'a>(r: &'a dyn Lookup, module: &str, qual: &str) -> Option<&'a ClassInfo> {
    r.index().scopes.get(module)?.classes.get(qual)
}

/// The class's bases, resolved.
fn bases(r: &dyn Lookup, module: &str, c: &ClassInfo) -> Vec<Named> {
    c.bases.iter().map(|b| r.named(b.split('[').next().unwrap_or(b).trim(), module)).collect()
}

/// Whether the class is an enum (directly or through a project base).
pub fn is_enum(r: &dyn Lookup, module: &str, qual: &str, hops: usize) -> bool {
    let Some(c) = info(r, module, qual) else { return false };
    hops < 8
        && bases(r, module, c).iter().any(|b| match b {
            Named::Path(p) => ENUM_BASES.contains(&last(p)),
            Named::Class(m, q) => is_enum(r, m, q, hops + 1),
            Named::Alias(..) => false,
        })
}

/// Whether the class's constructor takes its fields by name.
fn has_fields(r: &dyn Lookup, module: &str, c: &ClassInfo, hops: usize) -> bool {
    c.decorators.iter().any(|d| FIELD_DECORATORS.contains(&last(d)))
        || (hops < 8
            && bases(r, module, c).iter().any(|b| match b {
                Named::Path(p) => FIELD_BASES.contains(&last(p)),
                Named::Class(m, q) => {
                    info(r, m, q).is_some_and(|bc| has_fields(r, m, bc, hops + 1))
                }
                Named::Alias(..) => false,
            }))
}

/// The fields of a fields-by-name class, its project bases' first: (module, field).
fn fields(r: &dyn Lookup, module: &str, c: &ClassInfo, hops: usize) -> Vec<(String, Field)> {
    let mut out: Vec<(String, Field)> = Vec::new();
    if hops < 8 {
        for b in bases(r, module, c) {
            if let Named::Class(m, q) = b {
                if let Some(bc) = info(r, &m, &q) {
                    out.extend(fields(r, &m, bc, hops + 1));
                }
            }
        }
    }
    for f in &c.fields {
        out.retain(|(_, o)| o.name != f.name);
        out.push((module.to_string(), f.clone()));
    }
    out
}

/// The `__init__` that builds the class: its own, or the first project base's: (module, params).
fn init(
    r: &dyn Lookup,
    module: &str,
    c: &ClassInfo,
    hops: usize,
) -> Option<(String, Vec<RawParam>)> {
    if let Some(ps) = &c.init {
        return Some((module.to_string(), ps.clone()));
    }
    if hops >= 8 {
        return None;
    }
    bases(r, module, c).into_iter().find_map(|b| match b {
        Named::Class(m, q) => info(r, &m, &q).and_then(|bc| init(r, &m, bc, hops + 1)),
        _ => None,
    })
}

/// The built type of the project class `qual` of `module`, at nesting `depth`.
pub fn ty(r: &dyn Lookup, module: &str, qual: &str, depth: usize) -> Result<Ty, String> {
    if depth >= MAX_DEPTH {
        return Err(format!("`{qual}` nests built values too deeply"));
    }
    let c = info(r, module, qual).ok_or_else(|| format!("no class `{qual}` in `{module}`"))?;
    let name = format!("{module}.{qual}");
    if is_enum(r, module, qual, 0) {
        if c.members.is_empty() {
            return Err(format!("the enum `{qual}` has no members abex can read"));
        }
        let ctors = c
            .members
            .iter()
            .map(|m| Ctor {
                name: format!("{qual}.{m}"),
                form: CtorForm::Unit,
                params: Vec::new(),
                seeds: Vec::new(),
                defaults: Vec::new(),
            })
            .collect();
        return Ok(Ty::Built { name, ctors });
    }
    if c.is_abstract {
        return Err(format!("`{qual}` is abstract"));
    }
    let ctor = |form, params, defaults| Ty::Built {
        name: name.clone(),
        ctors: vec![Ctor { name: qual.to_string(), form, params, seeds: Vec::new(), defaults }],
    };
    if has_fields(r, module, c, 0) {
        let mut params = Vec::new();
        for (m, f) in fields(r, module, c, 0).into_iter().filter(|(_, f)| f.init) {
            let t = match &f.ann {
                None => Ok(Ty::Any),
                Some(a) => r.ty_at(a, &m, depth + 1),
            };
            match t {
                Ok(t) => params.push((f.name.clone(), t)),
                Err(_) if f.default => {}
                Err(e) => return Err(format!("field `{}` of `{qual}`: {e}", f.name)),
            }
        }
        return Ok(ctor(CtorForm::Fields, params, Vec::new()));
    }
    if let Some((m, ps)) = init(r, module, c, 0) {
        let (form, params) = init_params(r, &m, &ps, depth, by_position(r, module, c, 0))
            .map_err(|e| format!("`{qual}(…)`: {e}"))?;
        let defaults = ps
            .iter()
            .filter(|p| params.iter().any(|(n, _)| *n == p.name))
            .filter_map(|p| Some((p.name.clone(), p.literal.clone()?)))
            .collect();
        return Ok(ctor(form, params, defaults));
    }
    for b in bases(r, module, c) {
        let Named::Path(p) = b else { continue };
        let base = last(&p);
        let one = |t: Ty| ctor(CtorForm::Call, vec![("value".to_string(), t)], Vec::new());
        match base {
            "str" => return Ok(one(Ty::Str)),
            "int" => return Ok(one(Ty::int(64, true))),
            "float" => return Ok(one(Ty::Float { bits: 64 })),
            "Protocol" => return Err(format!("`{qual}` is a protocol")),
            b if b.ends_with("Error") || b.ends_with("Exception") || b == "Warning" => {
                return Ok(ctor(
                    CtorForm::Call,
                    vec![("message".to_string(), Ty::Str)],
                    Vec::new(),
                ));
            }
            b if NEUTRAL_BASES.contains(&b) => {}
            _ => {
                return Err(format!(
                    "`{qual}` derives from `{p}`, whose constructor abex does not know"
                ))
            }
        }
    }
    Ok(ctor(CtorForm::Call, Vec::new(), Vec::new()))
}

/// The drivable parameters of an `__init__`: by name (fields form), or by position when one is
/// positional-only. A parameter abex cannot build is left to its default.
fn init_params(
    r: &dyn Lookup,
    module: &str,
    ps: &[RawParam],
    depth: usize,
    by_position: bool,
) -> Result<(CtorForm, Vec<(String, Ty)>), String> {
    let positional = by_position || ps.iter().any(|p| p.pass == Pass::Pos { only: true });
    let mut out = Vec::new();
    let mut skipped = false;
    for p in ps {
        if matches!(p.pass, Pass::Star | Pass::StarStar) {
            continue;
        }
        let t = match &p.ann {
            None => Ok(Ty::Any),
            Some(a) => r.ty_at(a, module, depth + 1),
        };
        match t {
            Ok(_) if positional && skipped && p.default => {}
            Ok(_) if positional && skipped => {
                return Err(format!(
                    "parameter `{}` follows one abex leaves to its default",
                    p.name
                ))
            }
            Ok(t) => out.push((p.name.clone(), t)),
            Err(_) if p.default => skipped = true,
            Err(e) => return Err(format!("parameter `{}`: {e}", p.name)),
        }
    }
    Ok((if positional { CtorForm::Call } else { CtorForm::Fields }, out))
}

/// Whether a built type's only way to build it takes nothing (`Counter()`).
pub fn takes_nothing(t: &Ty) -> bool {
    matches!(t, Ty::Built { ctors, .. } if ctors.len() == 1 && ctors[0].params.is_empty() && ctors[0].form != CtorForm::Unit)
}

#[cfg(test)]
mod tests {
    use super::super::resolve::{Index, Resolver};
    use super::super::scope;
    use super::*;

    fn index(files: &[(&str, &str)]) -> Index {
        let mut index = Index::default();
        for (module, src) in files {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&tree_sitter_python::LANGUAGE.into()).unwrap();
            let tree = parser.parse(src, None).unwrap();
            let s = scope::read(tree.root_node(), src.as_bytes(), module, false);
            index.scopes.insert(module.to_string(), s);
        }
        index
    }

    fn shown(r: &Resolver<'_>, text: &str, module: &str) -> String {
        match r.ty(text, module) {
            Ok(Ty::Built { name, ctors }) => {
                let cs: Vec<String> = ctors
                    .iter()
                    .map(|c| {
                        let ps: Vec<String> =
                            c.params.iter().map(|(n, t)| format!("{n}: {t}")).collect();
                        format!("{} {:?} ({})", c.name, c.form, ps.join(", "))
                    })
                    .collect();
                format!("{name}: {}", cs.join(" | "))
            }
            Ok(t) => t.to_string(),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn classes_are_built_by_members_fields_or_init() {
        let idx = index(&[
            (
                "shop.kinds",
                r#"
import enum
from dataclasses import dataclass, field
from typing import NamedTuple, TypedDict
import attr

class Color(enum.IntEnum):
    RED = 1
    GREEN = 2

@dataclass
class Point:
    x: int
    y: float = 0.0
    label: Callable[[int], str] = str
    hidden: int = field(init=False, default=0)

@dataclass
class Point3(Point):
    z: int = 0

class Pair(NamedTuple):
    a: str
    b: "Color"

class Movie(TypedDict):
    title: str

@attr.s
class Box:
    size = attr.ib()

class Account:
    def __init__(self, owner: str, balance: int = 0, *rest, hook: Callable = None):
        self.owner = owner

class Savings(Account):
    pass

class Tag(str):
    pass

class Source(str):
    def __init__(self, _: str) -> None:
        super().__init__()

class Oops(ValueError):
    pass

class Node:
    def __init__(self, value: int, next: "Node | None" = None):
        pass

class Worker(threading.Thread):
    pass
"#,
            ),
            ("shop.use", "from .kinds import Color, Point as P\n"),
        ]);
        let r = Resolver { index: &idx };
        assert_eq!(
            shown(&r, "Color", "shop.use"),
            "shop.kinds.Color: Color.RED Unit () | Color.GREEN Unit ()"
        );
        assert_eq!(shown(&r, "P", "shop.use"), "shop.kinds.Point: Point Fields (x: i64, y: f64)");
        assert_eq!(
            shown(&r, "Point3", "shop.kinds"),
            "shop.kinds.Point3: Point3 Fields (x: i64, y: f64, z: i64)"
        );
        assert_eq!(
            shown(&r, "Pair", "shop.kinds"),
            "shop.kinds.Pair: Pair Fields (a: str, b: shop.kinds.Color)"
        );
        assert_eq!(shown(&r, "Movie", "shop.kinds"), "shop.kinds.Movie: Movie Fields (title: str)");
        assert_eq!(shown(&r, "Box", "shop.kinds"), "shop.kinds.Box: Box Fields (size: any)");
        assert_eq!(
            shown(&r, "Savings", "shop.kinds"),
            "shop.kinds.Savings: Savings Fields (owner: str, balance: i64)"
        );
        assert_eq!(shown(&r, "Tag", "shop.kinds"), "shop.kinds.Tag: Tag Call (value: str)");
        assert_eq!(shown(&r, "Source", "shop.kinds"), "shop.kinds.Source: Source Call (_: str)");
        assert_eq!(shown(&r, "Oops", "shop.kinds"), "shop.kinds.Oops: Oops Call (message: str)");
        // A class that holds itself: the innermost is `None`.
        let node = shown(&r, "Node", "shop.kinds");
        assert!(
            node.starts_with(
                "shop.kinds.Node: Node Fields (value: i64, next: option[shop.kinds.Node])"
            ),
            "{node}"
        );
        assert!(shown(&r, "Worker", "shop.kinds").contains("whose constructor abex does not know"));
    }
}
