//! Annotations → value types, across the project: a name is looked up in its module (classes,
//! aliases, imports, followed into the project's other modules), then among the builtins, the
//! `typing` and `collections.abc` generics and the standard library's value types.
//!
//! Unions keep the options abex can build and leave out the rest (`str | Callable[..]` is a
//! `str`); `Literal[...]` is one of its constants; a project class is built by its constructor
//! ([`super::classes`]), nested at most [`MAX_DEPTH`] deep.

use super::annotation::{self, Ann};
pub use super::lookup::{Index, Lookup, Named, MAX_DEPTH};
use super::{classes, stdlib};
use crate::value::{Ty, Value};

/// Alias and import hops followed before giving up (a cycle).
const MAX_HOPS: usize = 12;

const BUILTINS: &[&str] = &[
    "int",
    "float",
    "str",
    "bool",
    "bytes",
    "object",
    "list",
    "tuple",
    "dict",
    "set",
    "frozenset",
    "type",
    "complex",
    "bytearray",
];

/// Looks names and annotations up in an [`Index`].
pub struct Resolver<'a> {
    /// The project's modules.
    pub index: &'a Index,
}

impl Resolver<'_> {
    /// The value type of an annotation written in `module`.
    pub fn ty(&self, text: &str, module: &str) -> Result<Ty, String> {
        self.text(text, module, 0, 0)
    }

    fn text(&self, text: &str, module: &str, depth: usize, hops: usize) -> Result<Ty, String> {
        let ann = annotation::parse(text)?;
        self.ann(&ann, module, depth, hops)
    }

    fn named_hops(&self, name: &str, module: &str, hops: usize) -> Named {
        let head = name.split('.').next().unwrap_or(name);
        let rest = name.get(head.len() + 1..).unwrap_or_default();
        if let Some(scope) = self.index.scopes.get(module) {
            if scope.classes.contains_key(name) {
                return Named::Class(module.to_string(), name.to_string());
            }
            if rest.is_empty() {
                if let Some(text) = scope.aliases.get(name) {
                    return Named::Alias(module.to_string(), text.clone());
                }
                // A function of the module (a decorator): named by its module, which says
                // what it does (`checks.utils.validator`).
                if scope.functions.contains(name) {
                    return Named::Path(format!("{module}.{name}"));
                }
            }
            if let Some(target) = scope.imports.get(head) {
                let full =
                    if rest.is_empty() { target.clone() } else { format!("{target}.{rest}") };
                return self.path(&full, hops + 1);
            }
        }
        if rest.is_empty() && BUILTINS.contains(&name) {
            return Named::Path(format!("builtins.{name}"));
        }
        self.path(name, hops + 1)
    }

    /// A dotted path that may lead into the project (a class re-exported by a package).
    fn path(&self, full: &str, hops: usize) -> Named {
        if hops > MAX_HOPS {
            return Named::Path(full.to_string());
        }
        let module = self
            .index
            .scopes
            .keys()
            .filter(|m| !m.is_empty() && full.len() > m.len() && full.starts_with(m.as_str()))
            .filter(|m| full.as_bytes()[m.len()] == b'.')
            .max_by_key(|m| m.len());
        match module {
            Some(m) => self.named_hops(&full[m.len() + 1..], m, hops),
            None => Named::Path(full.to_string()),
        }
    }

    fn ann(&self, a: &Ann, module: &str, depth: usize, hops: usize) -> Result<Ty, String> {
        if hops > MAX_HOPS {
            return Err("the annotation's aliases go round in a circle".into());
        }
        match a {
            Ann::None => Err("`None` alone is not an argument type".into()),
            Ann::Ellipsis => Err("`...` is only allowed in `tuple[T, ...]`".into()),
            Ann::Const(_) | Ann::List(_) => Err("a constant is not a type".into()),
            Ann::Union(items) => self.union(items, module, depth, hops),
            Ann::Name(name, args) => match self.named(name, module) {
                Named::Class(m, q) => classes::ty(self, &m, &q, depth),
                Named::Alias(m, text) => self.text(&text, &m, depth, hops + 1),
                Named::Path(p) => self.generic(name, &p, args, module, depth, hops),
            },
        }
    }

    /// A union: the options abex can build (with `None`, an optional value of them).
    fn union(&self, items: &[Ann], module: &str, depth: usize, hops: usize) -> Result<Ty, String> {
        let with_none = items.contains(&Ann::None);
        let mut options: Vec<Ty> = Vec::new();
        let mut first_err = None;
        for item in items.iter().filter(|a| **a != Ann::None) {
            match self.ann(item, module, depth, hops) {
                // A nested union or optional flattens into this one.
                Ok(Ty::Union { options: inner }) => options.extend(inner),
                Ok(Ty::Option { item }) if with_none => options.push(*item),
                Ok(t) => options.push(t),
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
        options.dedup();
        let ty = match options.len() {
            0 if with_none => return Ok(Ty::OneOf { values: vec![Value::Null] }),
            0 => return Err(first_err.unwrap_or_else(|| "an empty union".into())),
            1 => options.remove(0),
            _ => Ty::Union { options },
        };
        Ok(if with_none { Ty::Option { item: Box::new(ty) } } else { ty })
    }

    fn generic(
        &self,
        written: &str,
        path: &str,
        args: &[Ann],
        module: &str,
        depth: usize,
        hops: usize,
    ) -> Result<Ty, String> {
        let arg = |i: usize| args.get(i).map_or(Ok(Ty::Any), |a| self.ann(a, module, depth, hops));
        let short = ["builtins.", "typing.", "typing_extensions.", "collections.abc.", "numbers."]
            .iter()
            .find_map(|p| path.strip_prefix(p))
            .unwrap_or(path);
        Ok(match short {
            "int" | "Integral" | "SupportsInt" | "SupportsIndex" => Ty::int(64, true),
            "float" | "Real" | "SupportsFloat" | "Number" => Ty::Float { bits: 64 },
            "str" | "Text" => Ty::Str,
            "bool" => Ty::Bool,
            "bytes" => Ty::Bytes,
            "Any" | "object" => Ty::Any,
            "list" | "List" | "Sequence" | "Iterable" | "MutableSequence" | "Collection"
            | "Reversible" => Ty::List { item: Box::new(arg(0)?) },
            "tuple" | "Tuple" => match args {
                [] => Ty::List { item: Box::new(Ty::Any) },
                [item, Ann::Ellipsis] => {
                    Ty::List { item: Box::new(self.ann(item, module, depth, hops)?) }
                }
                items => Ty::Tuple {
                    items: items
                        .iter()
                        .map(|a| self.ann(a, module, depth, hops))
                        .collect::<Result<_, _>>()?,
                },
            },
            "dict" | "Dict" | "Mapping" | "MutableMapping" => {
                let key = arg(0)?;
                if !matches!(key, Ty::Str | Ty::Int { .. } | Ty::Any) {
                    return Err(format!("dictionary keys of type `{key}` are not supported"));
                }
                Ty::Map { key: Box::new(key), value: Box::new(arg(1)?) }
            }
            "set" | "Set" | "AbstractSet" | "MutableSet" => {
                stdlib::ty("builtins.set", &[arg(0)?]).ok_or("no set type")?
            }
            "frozenset" | "FrozenSet" => {
                stdlib::ty("builtins.frozenset", &[arg(0)?]).ok_or("no frozenset type")?
            }
            "Optional" => self.union(
                &[args.first().cloned().unwrap_or(Ann::None), Ann::None],
                module,
                depth,
                hops,
            )?,
            "Union" => self.union(args, module, depth, hops)?,
            "Annotated" | "Final" | "Required" | "NotRequired" | "ReadOnly" => arg(0)?,
            "Literal" => {
                let values: Vec<Value> = args
                    .iter()
                    .filter_map(|a| match a {
                        Ann::Const(v) => Some(v.clone()),
                        Ann::None => Some(Value::Null),
                        _ => None,
                    })
                    .collect();
                if values.is_empty() {
                    return Err(format!("`{written}` has no constant abex can write"));
                }
                Ty::OneOf { values }
            }
            "Callable" => return Err("callables are not supported".into()),
            "PathLike" | "os.PathLike" => stdlib::ty("pathlib.Path", &[]).ok_or("no Path")?,
            _ => {
                let mapped: Vec<Ty> =
                    args.iter().filter_map(|a| self.ann(a, module, depth, hops).ok()).collect();
                return stdlib::ty(path, &mapped)
                    .ok_or_else(|| format!("type `{written}` is not supported"));
            }
        })
    }
}

impl Lookup for Resolver<'_> {
    fn index(&self) -> &Index {
        self.index
    }

    fn named(&self, name: &str, module: &str) -> Named {
        self.named_hops(name, module, 0)
    }

    fn ty_at(&self, text: &str, module: &str, depth: usize) -> Result<Ty, String> {
        self.text(text, module, depth, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::super::scope::Scope;
    use super::*;

    #[test]
    fn names_are_followed_through_imports_into_other_modules() {
        let mut index = Index::default();
        let mut pkg = Scope { module: "pkg".into(), is_package: true, ..Scope::default() };
        pkg.imports.insert("Unit".into(), "pkg.time.Unit".into());
        let mut time = Scope { module: "pkg.time".into(), ..Scope::default() };
        time.classes.insert("Unit".into(), Default::default());
        time.imports.insert("dt".into(), "datetime".into());
        index.scopes.insert("pkg".into(), pkg);
        index.scopes.insert("pkg.time".into(), time);
        let r = Resolver { index: &index };
        assert_eq!(r.named("Unit", "pkg"), Named::Class("pkg.time".into(), "Unit".into()));
        assert_eq!(r.named("pkg.Unit", "other"), Named::Class("pkg.time".into(), "Unit".into()));
        assert_eq!(r.named("dt.date", "pkg.time"), Named::Path("datetime.date".into()));
        assert_eq!(r.named("int", "pkg"), Named::Path("builtins.int".into()));
    }
}
