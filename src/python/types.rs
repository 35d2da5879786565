//! Python annotations → abex value types.
//!
//! A small recursive-descent reader of annotation text (`int`, `list[int]`, `Optional[str]`,
//! `dict[str, list[float]]`, `tuple[int, ...]`, `int | None`, string annotations), mapped onto
//! [`Ty`]. Anything else is unsupported, with the offending type named in the reason.

use crate::value::Ty;

/// A parsed annotation: a dotted name with optional subscript arguments, or a union.
#[derive(Clone, Debug, PartialEq)]
enum Ann {
    Name(String, Vec<Ann>),
    Ellipsis,
    None,
    Union(Vec<Ann>),
}

/// The value type of a parameter annotated `text` (`None` for no annotation: any JSON value).
pub fn ty_of(text: Option<&str>) -> Result<Ty, String> {
    let Some(text) = text else { return Ok(Ty::Any) };
    let t = text.trim();
    let t = t
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .or_else(|| t.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')))
        .unwrap_or(t);
    let mut p = Reader { s: t.as_bytes(), i: 0 };
    let ann = p.union().ok_or_else(|| format!("cannot read the annotation `{text}`"))?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("cannot read the annotation `{text}`"));
    }
    to_ty(&ann)
}

/// Whether the annotation is a tuple type (`tuple[int, ...]` is a [`Ty::List`] that the worker
/// turns into a tuple).
pub fn is_tuple(text: Option<&str>) -> bool {
    text.is_some_and(|t| {
        let t = t.trim().trim_start_matches("typing.");
        t.starts_with("tuple") || t.starts_with("Tuple")
    })
}

fn to_ty(a: &Ann) -> Result<Ty, String> {
    let one = |args: &[Ann], i: usize| args.get(i).map_or(Ok(Ty::Any), to_ty);
    match a {
        Ann::None => Err("`None` alone is not an argument type".into()),
        Ann::Ellipsis => Err("`...` is only allowed in `tuple[T, ...]`".into()),
        Ann::Union(items) => {
            let some: Vec<&Ann> = items.iter().filter(|a| **a != Ann::None).collect();
            if some.len() == 1 && some.len() < items.len() {
                Ok(Ty::Option { item: Box::new(to_ty(some[0])?) })
            } else {
                Err("unions other than `T | None` are not supported".into())
            }
        }
        Ann::Name(name, args) => {
            let short = name.rsplit('.').next().unwrap_or(name);
            match short {
                "int" => Ok(Ty::int(64, true)),
                "float" => Ok(Ty::Float { bits: 64 }),
                "str" => Ok(Ty::Str),
                "bool" => Ok(Ty::Bool),
                "bytes" => Ok(Ty::Bytes),
                "Any" | "object" => Ok(Ty::Any),
                "list" | "List" | "Sequence" | "Iterable" | "MutableSequence" => {
                    Ok(Ty::List { item: Box::new(one(args, 0)?) })
                }
                "tuple" | "Tuple" => match args.as_slice() {
                    [] => Ok(Ty::List { item: Box::new(Ty::Any) }),
                    [item, Ann::Ellipsis] => Ok(Ty::List { item: Box::new(to_ty(item)?) }),
                    items => {
                        Ok(Ty::Tuple { items: items.iter().map(to_ty).collect::<Result<_, _>>()? })
                    }
                },
                "dict" | "Dict" | "Mapping" | "MutableMapping" => {
                    let key = one(args, 0)?;
                    if !matches!(key, Ty::Str | Ty::Int { .. } | Ty::Any) {
                        return Err(format!("dictionary keys of type `{key}` are not supported"));
                    }
                    Ok(Ty::Map { key: Box::new(key), value: Box::new(one(args, 1)?) })
                }
                "Optional" => Ok(Ty::Option { item: Box::new(one(args, 0)?) }),
                "Union" => to_ty(&Ann::Union(args.clone())),
                _ => Err(format!("type `{name}` is not supported")),
            }
        }
    }
}

struct Reader<'a> {
    s: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        let hit = self.s.get(self.i) == Some(&c);
        self.i += hit as usize;
        hit
    }

    fn union(&mut self) -> Option<Ann> {
        let mut items = vec![self.atom()?];
        while self.eat(b'|') {
            items.push(self.atom()?);
        }
        Some(if items.len() == 1 { items.pop()? } else { Ann::Union(items) })
    }

    fn atom(&mut self) -> Option<Ann> {
        self.ws();
        if self.s[self.i..].starts_with(b"...") {
            self.i += 3;
            return Some(Ann::Ellipsis);
        }
        let start = self.i;
        while self
            .s
            .get(self.i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.')
        {
            self.i += 1;
        }
        let name = std::str::from_utf8(&self.s[start..self.i]).ok()?.to_string();
        if name.is_empty() {
            return None;
        }
        if name == "None" {
            return Some(Ann::None);
        }
        let mut args = Vec::new();
        if self.eat(b'[') {
            loop {
                args.push(self.union()?);
                if !self.eat(b',') {
                    break;
                }
            }
            if !self.eat(b']') {
                return None;
            }
        }
        Some(Ann::Name(name, args))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(t: &str) -> String {
        ty_of(Some(t)).map(|t| t.to_string()).unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn annotations_map_onto_value_types() {
        assert_eq!(ty_of(None).unwrap(), Ty::Any);
        assert_eq!(ty_of(Some("int")).unwrap(), Ty::int(64, true));
        assert_eq!(
            ty_of(Some("Optional[list[str]]")).unwrap(),
            Ty::Option { item: Box::new(Ty::List { item: Box::new(Ty::Str) }) }
        );
        assert_eq!(
            ty_of(Some("int | None")).unwrap(),
            ty_of(Some("typing.Optional[int]")).unwrap()
        );
        assert_eq!(ty_of(Some("Union[None, int]")).unwrap(), ty_of(Some("int|None")).unwrap());
        assert_eq!(
            ty_of(Some("tuple[int, float]")).unwrap(),
            Ty::Tuple { items: vec![Ty::int(64, true), Ty::Float { bits: 64 }] }
        );
        assert_eq!(
            ty_of(Some("tuple[int, ...]")).unwrap(),
            Ty::List { item: Box::new(Ty::int(64, true)) }
        );
        assert!(is_tuple(Some("tuple[int, ...]")) && !is_tuple(Some("list[int]")));
        assert_eq!(
            ty_of(Some("'dict[str, bytes]'")).unwrap(),
            Ty::Map { key: Box::new(Ty::Str), value: Box::new(Ty::Bytes) }
        );
    }

    #[test]
    fn unsupported_annotations_say_which_type() {
        assert_eq!(ty("Path"), "error: type `Path` is not supported");
        assert_eq!(ty("int | str"), "error: unions other than `T | None` are not supported");
        assert!(ty("dict[float, int]").contains("keys of type"));
        assert!(ty("list[").starts_with("error: cannot read"));
    }
}
