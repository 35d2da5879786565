//! The text of a Python annotation, read into a small tree: dotted names with subscript
//! arguments (`dict[str, list[float]]`, `dt.timedelta`), unions (`int | None`), `...`, `None`,
//! and the constants of `Literal[...]` (strings, integers, booleans). String annotations
//! (`"Optional[int]"`) are read inside their quotes.

use crate::value::Value;

/// A parsed annotation.
#[derive(Clone, Debug, PartialEq)]
pub enum Ann {
    /// A dotted name with optional subscript arguments: `list[int]`, `dt.date`.
    Name(String, Vec<Ann>),
    /// `...` (in `tuple[T, ...]`).
    Ellipsis,
    /// `None`.
    None,
    /// `A | B | …`.
    Union(Vec<Ann>),
    /// A constant (in `Literal[...]`).
    Const(Value),
    /// `[A, B]` (the parameters of `Callable[[A, B], R]`).
    List(Vec<Ann>),
}

/// Reads `text`, an annotation as written (quotes around it are removed first).
pub fn parse(text: &str) -> Result<Ann, String> {
    let t = unquote(text.trim());
    let mut p = Reader { s: t.as_bytes(), i: 0 };
    let ann = p.union().ok_or_else(|| format!("cannot read the annotation `{text}`"))?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("cannot read the annotation `{text}`"));
    }
    Ok(ann)
}

/// `text` without the quotes of a string annotation.
pub fn unquote(t: &str) -> &str {
    t.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .or_else(|| t.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')))
        .unwrap_or(t)
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

    /// Comma-separated annotations up to `close`.
    fn list(&mut self, close: u8) -> Option<Vec<Ann>> {
        let mut args = Vec::new();
        if self.eat(close) {
            return Some(args);
        }
        loop {
            args.push(self.union()?);
            if !self.eat(b',') {
                break;
            }
            if self.eat(close) {
                return Some(args); // a trailing comma
            }
        }
        self.eat(close).then_some(args)
    }

    fn atom(&mut self) -> Option<Ann> {
        self.ws();
        let rest = &self.s[self.i..];
        if rest.starts_with(b"...") {
            self.i += 3;
            return Some(Ann::Ellipsis);
        }
        match rest.first()? {
            b'"' | b'\'' => return self.string(),
            b'[' => {
                self.i += 1;
                return self.list(b']').map(Ann::List);
            }
            c if c.is_ascii_digit() || *c == b'-' => return self.number(),
            _ => {}
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
        match name.as_str() {
            "" => return None,
            "None" => return Some(Ann::None),
            "True" => return Some(Ann::Const(Value::Bool(true))),
            "False" => return Some(Ann::Const(Value::Bool(false))),
            _ => {}
        }
        let args = if self.eat(b'[') { self.list(b']')? } else { Vec::new() };
        Some(Ann::Name(name, args))
    }

    fn string(&mut self) -> Option<Ann> {
        let quote = self.s[self.i];
        self.i += 1;
        let start = self.i;
        while self.s.get(self.i).is_some_and(|c| *c != quote) {
            if self.s[self.i] == b'\\' {
                self.i += 1;
            }
            self.i += 1;
        }
        let text = std::str::from_utf8(self.s.get(start..self.i)?).ok()?.to_string();
        self.i += 1;
        Some(Ann::Const(Value::Str(text)))
    }

    fn number(&mut self) -> Option<Ann> {
        let start = self.i;
        self.i += 1;
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
            self.i += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).ok()?.replace('_', "");
        let n = if let Some(hex) = text.strip_prefix("0x") {
            i128::from_str_radix(hex, 16).ok()?
        } else {
            text.parse().ok()?
        };
        Some(Ann::Const(Value::Int(n)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(n: &str, args: Vec<Ann>) -> Ann {
        Ann::Name(n.into(), args)
    }

    #[test]
    fn annotations_are_read_into_names_unions_and_constants() {
        assert_eq!(
            parse("'dt.date | None'").unwrap(),
            Ann::Union(vec![name("dt.date", vec![]), Ann::None])
        );
        assert_eq!(
            parse("Literal['a', \"b\", -1, True]").unwrap(),
            name(
                "Literal",
                vec![
                    Ann::Const(Value::Str("a".into())),
                    Ann::Const(Value::Str("b".into())),
                    Ann::Const(Value::Int(-1)),
                    Ann::Const(Value::Bool(true)),
                ]
            )
        );
        assert_eq!(
            parse("Callable[[int], str]").unwrap(),
            name("Callable", vec![Ann::List(vec![name("int", vec![])]), name("str", vec![])])
        );
        assert_eq!(
            parse("tuple[int, ...]").unwrap(),
            name("tuple", vec![name("int", vec![]), Ann::Ellipsis])
        );
        assert!(parse("list[").is_err());
    }
}
