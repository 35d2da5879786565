//! Python sources: the functions of one file, read with tree-sitter.
//!
//! Module-level functions, static and class methods, and methods of classes that can be built
//! with no arguments are callable; every other function is still found (so a diff touching it
//! lists it) and carries the reason it cannot be driven.

use tree_sitter::{Node, Parser};

use crate::targets::{Param, Span};
use crate::value::Ty;

use super::types;

/// How a function is reached from its module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// `module.f`.
    Function,
    /// `module.Class().f` on a fresh instance per call.
    Method,
    /// `module.Class.f`, a `@staticmethod`.
    StaticMethod,
    /// `module.Class.f`, a `@classmethod`.
    ClassMethod,
}

/// One function found in a file.
#[derive(Clone, Debug)]
pub struct PyFn {
    /// Its own name.
    pub name: String,
    /// `Class.name` or `name`.
    pub qualname: String,
    /// How it is called.
    pub kind: Kind,
    /// Lines, decorators included.
    pub span: Span,
    /// Bytes of the whole definition, decorators included.
    pub byte_span: (usize, usize),
    /// Bytes of the body block.
    pub body_span: (usize, usize),
    /// The `def …:` line(s).
    pub signature: String,
    /// Parameters, receiver excluded.
    pub params: Vec<Param>,
    /// Per parameter: whether the worker passes a tuple (a `tuple[...]` annotation).
    pub tuples: Vec<bool>,
    /// The docstring.
    pub doc: String,
    /// Why abex cannot call it, if it cannot.
    pub unsupported: Option<String>,
}

/// Every function of `text` defined at module level or directly in a module-level class.
pub fn functions(text: &str) -> Vec<PyFn> {
    let mut parser = Parser::new();
    if parser.set_language(&tree_sitter_python::LANGUAGE.into()).is_err() {
        return Vec::new();
    }
    let Some(tree) = parser.parse(text, None) else { return Vec::new() };
    let src = text.as_bytes();
    let mut out = Vec::new();
    let root = tree.root_node();
    let mut cursor = root.walk();
    for item in root.named_children(&mut cursor) {
        let (def, decorators) = unwrap_decorated(item, src);
        match def.kind() {
            "function_definition" => {
                out.push(read_fn(item, def, &decorators, None, src));
            }
            "class_definition" => {
                let Some(class) = def.child_by_field_name("name").map(|n| text_of(n, src)) else {
                    continue;
                };
                let Some(body) = def.child_by_field_name("body") else { continue };
                let buildable = class_is_buildable(body, src);
                let mut c2 = body.walk();
                for member in body.named_children(&mut c2) {
                    let (mdef, mdec) = unwrap_decorated(member, src);
                    if mdef.kind() == "function_definition" {
                        out.push(read_fn(member, mdef, &mdec, Some((&class, buildable)), src));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn text_of(n: Node<'_>, src: &[u8]) -> String {
    n.utf8_text(src).unwrap_or_default().to_string()
}

/// The definition inside a `decorated_definition`, and its decorators' texts (without `@`).
fn unwrap_decorated<'t>(n: Node<'t>, src: &[u8]) -> (Node<'t>, Vec<String>) {
    if n.kind() != "decorated_definition" {
        return (n, Vec::new());
    }
    let mut decorators = Vec::new();
    let mut c = n.walk();
    for d in n.named_children(&mut c) {
        if d.kind() == "decorator" {
            decorators.push(text_of(d, src).trim_start_matches('@').trim().to_string());
        }
    }
    (n.child_by_field_name("definition").unwrap_or(n), decorators)
}

/// A class can be built with no arguments when its own `__init__` (if any) needs none.
fn class_is_buildable(body: Node<'_>, src: &[u8]) -> bool {
    let mut c = body.walk();
    for member in body.named_children(&mut c) {
        let (def, _) = unwrap_decorated(member, src);
        if def.kind() == "function_definition"
            && def.child_by_field_name("name").is_some_and(|n| text_of(n, src) == "__init__")
        {
            let Some(params) = def.child_by_field_name("parameters") else { return false };
            let mut pc = params.walk();
            return params.named_children(&mut pc).skip(1).all(|p| {
                matches!(
                    p.kind(),
                    "default_parameter"
                        | "typed_default_parameter"
                        | "list_splat_pattern"
                        | "dictionary_splat_pattern"
                        | "keyword_separator"
                        | "positional_separator"
                )
            });
        }
    }
    true
}

fn read_fn(
    outer: Node<'_>,
    def: Node<'_>,
    decorators: &[String],
    class: Option<(&str, bool)>,
    src: &[u8],
) -> PyFn {
    let name = def.child_by_field_name("name").map(|n| text_of(n, src)).unwrap_or_default();
    let body = def.child_by_field_name("body");
    let body_span =
        body.map_or((def.end_byte(), def.end_byte()), |b| (b.start_byte(), b.end_byte()));
    let sig_end = body.map_or(def.end_byte(), |b| b.start_byte());
    let signature = String::from_utf8_lossy(&src[def.start_byte()..sig_end]).trim().to_string();
    let mut unsupported: Option<String> = None;
    let mut note = |reason: String| {
        unsupported.get_or_insert(reason);
    };
    let is_async = {
        let mut c = def.walk();
        let a = def.children(&mut c).any(|n| n.kind() == "async");
        a
    };
    if is_async {
        note("async functions are not supported".into());
    }
    let kind = match class {
        None => Kind::Function,
        Some(_) if decorators.iter().any(|d| d == "staticmethod") => Kind::StaticMethod,
        Some(_) if decorators.iter().any(|d| d == "classmethod") => Kind::ClassMethod,
        Some(_) => Kind::Method,
    };
    for d in decorators {
        if d != "staticmethod" && d != "classmethod" {
            note(format!("decorated with `@{d}`: abex calls undecorated functions only"));
        }
    }
    if let Some((cname, buildable)) = class {
        if kind == Kind::Method && !buildable {
            note(format!("`{cname}()` needs arguments, so abex cannot build an instance"));
        }
    }
    // Parameters, receiver excluded.
    let mut params = Vec::new();
    let mut tuples = Vec::new();
    let mut keyword_only = false;
    if let Some(plist) = def.child_by_field_name("parameters") {
        let mut c = plist.walk();
        let skip = usize::from(matches!(kind, Kind::Method | Kind::ClassMethod));
        for p in plist.named_children(&mut c).skip(skip) {
            let (pname, ann, has_default) = match p.kind() {
                "identifier" => (text_of(p, src), None, false),
                "typed_parameter" => {
                    let mut pc = p.walk();
                    let first = p.named_children(&mut pc).next();
                    if first.is_some_and(|f| f.kind() != "identifier") {
                        continue; // `*args: int`, `**kw: str`: never passed.
                    }
                    let t = p.child_by_field_name("type").map(|t| text_of(t, src));
                    (first.map(|f| text_of(f, src)).unwrap_or_default(), t, false)
                }
                "default_parameter" | "typed_default_parameter" => {
                    let n =
                        p.child_by_field_name("name").map(|n| text_of(n, src)).unwrap_or_default();
                    (n, p.child_by_field_name("type").map(|t| text_of(t, src)), true)
                }
                "keyword_separator" | "list_splat_pattern" => {
                    keyword_only = true;
                    continue;
                }
                _ => continue,
            };
            if keyword_only {
                if !has_default {
                    note(format!("keyword-only parameter `{pname}` has no default"));
                }
                continue;
            }
            let ty = match types::ty_of(ann.as_deref()) {
                Ok(t) => Some(t),
                Err(e) => {
                    note(format!("parameter `{pname}`: {e}"));
                    None
                }
            };
            tuples.push(types::is_tuple(ann.as_deref()) && matches!(ty, Some(Ty::List { .. })));
            params.push(Param { name: pname, type_text: ann.unwrap_or_default(), ty });
        }
    }
    let doc = body.and_then(|b| docstring(b, src)).unwrap_or_default();
    let qualname = match class {
        Some((c, _)) => format!("{c}.{name}"),
        None => name.clone(),
    };
    PyFn {
        name,
        qualname,
        kind,
        span: Span {
            start_line: outer.start_position().row + 1,
            end_line: outer.end_position().row + 1,
        },
        byte_span: (outer.start_byte(), outer.end_byte()),
        body_span,
        signature,
        params,
        tuples,
        doc,
        unsupported,
    }
}

/// The body's leading string literal, with its quotes and common indentation removed.
fn docstring(body: Node<'_>, src: &[u8]) -> Option<String> {
    let first = body.named_child(0)?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let s = first.named_child(0)?;
    if s.kind() != "string" {
        return None;
    }
    let raw = text_of(s, src);
    let t = raw.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let q = if t.starts_with("\"\"\"") || t.starts_with("'''") { 3 } else { 1 };
    let inner = t.get(q..t.len().saturating_sub(q)).unwrap_or_default();
    Some(inner.lines().map(str::trim).collect::<Vec<_>>().join("\n").trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"
import math

def clamp(x: int, lo: int = 0, hi: int = 10) -> int:
    """Clamp x."""
    return max(lo, min(x, hi))

async def fetch(url: str) -> str:
    return url

def scale(xs: list[float], *, factor: float = 2.0) -> list[float]:
    return [x * factor for x in xs]

def anything(a, b: "Optional[str]" = None, *rest, **kw):
    return a

@functools.lru_cache
def cached(n: int) -> int:
    return n

def path_of(p: Path) -> str:
    return str(p)

class Counter:
    def __init__(self, start: int = 0):
        self.n = start

    def bump(self, by: int) -> int:
        return self.n + by

    @staticmethod
    def twice(x: int) -> int:
        return 2 * x

    @classmethod
    def make(cls, n: int) -> "Counter":
        return cls(n)

class Needs:
    def __init__(self, x):
        self.x = x

    def get(self) -> int:
        return self.x
"#;

    fn by_name<'a>(fns: &'a [PyFn], q: &str) -> &'a PyFn {
        fns.iter().find(|f| f.qualname == q).unwrap()
    }

    #[test]
    fn functions_methods_and_their_parameters_are_found() {
        let fns = functions(SRC);
        let names: Vec<&str> = fns.iter().map(|f| f.qualname.as_str()).collect();
        assert_eq!(
            names,
            [
                "clamp",
                "fetch",
                "scale",
                "anything",
                "cached",
                "path_of",
                "Counter.__init__",
                "Counter.bump",
                "Counter.twice",
                "Counter.make",
                "Needs.__init__",
                "Needs.get"
            ]
        );
        let clamp = by_name(&fns, "clamp");
        assert_eq!(clamp.span, Span { start_line: 4, end_line: 6 });
        assert_eq!(clamp.doc, "Clamp x.");
        assert_eq!(clamp.signature, "def clamp(x: int, lo: int = 0, hi: int = 10) -> int:");
        assert_eq!(clamp.params.len(), 3);
        assert!(clamp.unsupported.is_none());
        assert_eq!(&SRC[clamp.body_span.0..clamp.body_span.0 + 3], "\"\"\"");
        let scale = by_name(&fns, "scale");
        assert_eq!(scale.params.len(), 1, "keyword-only parameters with defaults are left out");
        let any = by_name(&fns, "anything");
        assert_eq!(any.params[0].ty, Some(Ty::Any));
        assert_eq!(any.params[1].ty, Some(Ty::Option { item: Box::new(Ty::Str) }));
        assert_eq!(any.params.len(), 2);
        assert_eq!(by_name(&fns, "Counter.bump").kind, Kind::Method);
        assert_eq!(by_name(&fns, "Counter.bump").params.len(), 1);
        assert_eq!(by_name(&fns, "Counter.twice").kind, Kind::StaticMethod);
        assert_eq!(by_name(&fns, "Counter.make").kind, Kind::ClassMethod);
        assert_eq!(by_name(&fns, "Counter.make").params.len(), 1);
    }

    #[test]
    fn functions_abex_cannot_call_carry_a_reason() {
        let fns = functions(SRC);
        let reason = |q: &str| by_name(&fns, q).unsupported.clone().unwrap_or_default();
        assert_eq!(reason("fetch"), "async functions are not supported");
        assert!(reason("cached").contains("@functools.lru_cache"));
        assert_eq!(reason("path_of"), "parameter `p`: type `Path` is not supported");
        assert!(reason("Needs.get").contains("`Needs()` needs arguments"));
        assert_eq!(reason("Counter.bump"), "");
    }
}
