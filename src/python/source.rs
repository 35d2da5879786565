//! Python sources: the functions of one file, read with tree-sitter.
//!
//! Module-level functions, static and class methods, and methods of classes that can be built
//! with no arguments are callable; every other function is still found (so a diff touching it
//! lists it) and carries the reason it cannot be driven.

use tree_sitter::{Node, Parser};

use crate::targets::{Param, Span};

use super::types::scope::{self, Pass, RawParam, Scope};

/// How a function is reached from its module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// `module.f`.
    Function,
    /// `module.Class().f` on a fresh instance per call.
    Method,
    /// `module.Class.f`, a `@staticmethod` (`"staticmethod"` to the worker, `calls.py`).
    #[serde(rename = "staticmethod")]
    StaticMethod,
    /// `module.Class.f`, a `@classmethod` (`"classmethod"` to the worker).
    #[serde(rename = "classmethod")]
    ClassMethod,
    /// `instance.f`, a `@property` (or `functools.cached_property`): read, not called.
    Property,
    /// `instance.f = value`, a property's `@f.setter`, observed through what reads back.
    Setter,
    /// `module.Class(…)`: the class's `__init__`, observed through the instance it builds.
    Init,
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
    /// The parameters abex drives: the receiver first when it is a built value
    /// ([`PyFn::receiver`]), then those it can build (one it cannot build is left to its
    /// default).
    pub params: Vec<Param>,
    /// Per parameter: whether the worker passes a tuple (a `tuple[...]` annotation).
    pub tuples: Vec<bool>,
    /// Per parameter: how it is passed.
    pub passes: Vec<Pass>,
    /// Whether the first parameter is the instance a method is called on (a class whose
    /// constructor takes arguments, or an enum).
    pub receiver: bool,
    /// The docstring.
    pub doc: String,
    /// Why abex cannot call it, if it cannot.
    pub unsupported: Option<String>,
    /// The class it is defined in (its qualified name in the module).
    pub class: Option<String>,
    /// Its decorators as written, without `@`.
    pub decorators: Vec<String>,
    /// Whether it is called through its decorator (`functools.lru_cache`, a project decorator
    /// that uses `functools.wraps`).
    pub decorated: bool,
    /// Whether it is `async def` (the worker runs it on an event loop).
    pub is_async: bool,
    /// Its parameters as written, receiver excluded.
    pub raw: Vec<RawParam>,
}

impl PyFn {
    /// Which function of a property it is, when not the getter: `setter`.
    pub fn role(&self) -> Option<&'static str> {
        (self.kind == Kind::Setter).then_some("setter")
    }
}

/// The functions of `text` (types not read yet) and the names the module `module` declares.
pub fn read(text: &str, module: &str, is_package: bool) -> (Vec<PyFn>, Scope) {
    let mut parser = Parser::new();
    if parser.set_language(&tree_sitter_python::LANGUAGE.into()).is_err() {
        return (Vec::new(), Scope::default());
    }
    let Some(tree) = parser.parse(text, None) else {
        return (Vec::new(), Scope::default());
    };
    let src = text.as_bytes();
    let mut out = Vec::new();
    let root = tree.root_node();
    let scope = scope::read(root, src, module, is_package);
    let mut cursor = root.walk();
    for item in root.named_children(&mut cursor) {
        let (def, decorators) = scope::unwrap_decorated(item, src);
        match def.kind() {
            "function_definition" => {
                out.push(read_fn(item, def, &decorators, None, src));
            }
            "class_definition" => {
                let Some(class) = def.child_by_field_name("name").map(|n| text_of(n, src)) else {
                    continue;
                };
                let Some(body) = def.child_by_field_name("body") else { continue };
                let mut c2 = body.walk();
                for member in body.named_children(&mut c2) {
                    let (mdef, mdec) = scope::unwrap_decorated(member, src);
                    if mdef.kind() == "function_definition" {
                        out.push(read_fn(member, mdef, &mdec, Some(&class), src));
                    }
                }
            }
            _ => {}
        }
    }
    (out, scope)
}

fn text_of(n: Node<'_>, src: &[u8]) -> String {
    n.utf8_text(src).unwrap_or_default().to_string()
}

/// Whether `body` yields (outside the functions and classes defined in it).
fn yields(n: Node<'_>) -> bool {
    let mut c = n.walk();
    let found = n.named_children(&mut c).any(|ch| match ch.kind() {
        "yield" => true,
        "function_definition" | "class_definition" | "lambda" => false,
        _ => yields(ch),
    });
    found
}

fn read_fn(
    outer: Node<'_>,
    def: Node<'_>,
    decorators: &[String],
    class: Option<&str>,
    src: &[u8],
) -> PyFn {
    let name = def.child_by_field_name("name").map(|n| text_of(n, src)).unwrap_or_default();
    let body = def.child_by_field_name("body");
    let body_span =
        body.map_or((def.end_byte(), def.end_byte()), |b| (b.start_byte(), b.end_byte()));
    // The signature ends at the definition's own `:`: a comment between it and the first
    // statement belongs to neither.
    let colon = {
        let mut c = def.walk();
        let end = def.children(&mut c).filter(|n| n.kind() == ":").map(|n| n.end_byte()).last();
        end
    };
    let sig_end = colon.or(body.map(|b| b.start_byte())).unwrap_or(def.end_byte());
    let signature = String::from_utf8_lossy(&src[def.start_byte()..sig_end]).trim().to_string();
    let is_async = {
        let mut c = def.walk();
        let a = def.children(&mut c).any(|n| n.kind() == "async");
        a
    };
    let mut unsupported = None;
    if is_async && body.is_some_and(yields) {
        unsupported = Some("async generators are not supported".to_string());
    }
    let is = |names: &[&str]| {
        decorators.iter().any(|d| names.contains(&d.rsplit('.').next().unwrap_or(d)))
    };
    let kind = match class {
        None => Kind::Function,
        Some(_) if is(&["staticmethod"]) => Kind::StaticMethod,
        Some(_) if is(&["classmethod"]) => Kind::ClassMethod,
        Some(_) if is(&["property", "cached_property"]) => Kind::Property,
        Some(_) if decorators.iter().any(|d| *d == format!("{name}.setter")) => Kind::Setter,
        Some(_) if name == "__init__" => Kind::Init,
        Some(_) => Kind::Method,
    };
    let skip = usize::from(!matches!(kind, Kind::Function | Kind::StaticMethod));
    let raw = scope::params(def, src, skip);
    let doc = body.and_then(|b| docstring(b, src)).unwrap_or_default();
    let qualname = match class {
        Some(c) => format!("{c}.{name}"),
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
        params: Vec::new(),
        tuples: Vec::new(),
        passes: Vec::new(),
        receiver: false,
        doc,
        unsupported,
        class: class.map(str::to_string),
        decorators: decorators.to_vec(),
        decorated: false,
        is_async,
        raw,
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
    use crate::python::types::function::functions;
    use crate::value::Ty;

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
    # A comment before the first statement is no part of the signature.
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
        let anything = by_name(&fns, "anything");
        assert_eq!(
            anything.signature,
            "def anything(a, b: \"Optional[str]\" = None, *rest, **kw):"
        );
        let scale = by_name(&fns, "scale");
        assert_eq!(scale.params.len(), 2, "keyword-only parameters are passed by name");
        assert_eq!(scale.passes[1], Pass::Kw);
        let any = by_name(&fns, "anything");
        assert_eq!(any.params[0].ty, Some(Ty::Any));
        assert_eq!(any.params[1].ty, Some(Ty::Option { item: Box::new(Ty::Str) }));
        assert_eq!(any.params.len(), 3, "`*rest` is a list, `**kw` unannotated is left out");
        assert_eq!(any.passes[2], Pass::Star);
        assert_eq!(by_name(&fns, "Counter.bump").kind, Kind::Method);
        let bump = by_name(&fns, "Counter.bump");
        assert!(bump.receiver, "`Counter(start)` is built with a start");
        assert_eq!(bump.params.len(), 2);
        assert_eq!(by_name(&fns, "Counter.twice").kind, Kind::StaticMethod);
        // The worker (`pytest_abex/calls.py`) knows the kinds by these names: a static method
        // sent as `static_method` was called on `Class()`, which fails where `__init__` takes
        // arguments (semver 3's `Version._increment_string`: 0 boundaries in 322 cells).
        let names: Vec<serde_json::Value> = [Kind::StaticMethod, Kind::ClassMethod, Kind::Method]
            .iter()
            .map(|k| serde_json::to_value(k).unwrap())
            .collect();
        assert_eq!(names, ["staticmethod", "classmethod", "method"]);
        assert_eq!(by_name(&fns, "Counter.make").kind, Kind::ClassMethod);
        assert_eq!(by_name(&fns, "Counter.make").params.len(), 1);
    }

    #[test]
    fn functions_abex_cannot_call_carry_a_reason() {
        let fns = functions(SRC);
        let reason = |q: &str| by_name(&fns, q).unsupported.clone().unwrap_or_default();
        assert_eq!(reason("fetch"), "", "async functions run on an event loop");
        assert_eq!(reason("cached"), "", "called through `lru_cache`");
        assert!(by_name(&fns, "cached").decorated);
        assert_eq!(reason("path_of"), "parameter `p`: type `Path` is not supported");
        assert_eq!(reason("Needs.get"), "", "its instance is a built receiver");
        assert!(by_name(&fns, "Needs.get").receiver);
        assert_eq!(reason("Counter.bump"), "");
    }
}
