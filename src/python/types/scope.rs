//! What a Python module declares that annotations can name: its imports (`import datetime as
//! dt`, `from .time import Unit`), its type aliases (`NumberOrString: TypeAlias = float | str`,
//! `Pair = tuple[int, int]`, `type Id = int`), its classes (bases, decorators, fields, enum
//! members, `__init__` parameters) and the decorators it defines with `functools.wraps`. Read
//! with tree-sitter from the module's top level, `if TYPE_CHECKING:` and `try:` blocks included.

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use super::annotation::{self, Ann};
use crate::value::Value;

/// How a parameter receives its argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pass {
    /// By position (before `/` it cannot be passed by name).
    Pos {
        /// Whether it is positional-only (before `/`).
        only: bool,
    },
    /// By name (after `*` or `*args`, or when an earlier parameter is left to its default).
    Kw,
    /// By name when given, left out of the call when its value is `None`: a parameter whose
    /// default is not a literal (`default=__marker`, `timer=time.monotonic`), whose "not
    /// given" branch no value can reach (cachetools 5.5's `Cache.pop(key, default=__marker)`
    /// raises `KeyError(key)` only when `default` is not passed).
    Unset,
    /// `*args`: a list spread as positional arguments.
    Star,
    /// `**kwargs`: a dictionary spread as keyword arguments.
    StarStar,
}

/// A parameter as written.
#[derive(Clone, Debug, PartialEq)]
pub struct RawParam {
    /// Its name.
    pub name: String,
    /// Its annotation's text.
    pub ann: Option<String>,
    /// Whether it has a default.
    pub default: bool,
    /// Its default when that is a plain literal: an int, a float, a string, a bool or `None`.
    pub literal: Option<Value>,
    /// How it receives its argument.
    pub pass: Pass,
}

/// A field of a dataclass-like class (`x: int = 0`, `x = attr.ib()`).
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// Its name.
    pub name: String,
    /// Its annotation's text.
    pub ann: Option<String>,
    /// Whether it has a default.
    pub default: bool,
    /// Whether the generated `__init__` takes it (not `field(init=False)`, not a `ClassVar`).
    pub init: bool,
}

/// A class as its module declares it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClassInfo {
    /// Its bases as written (keyword arguments such as `metaclass=` left out).
    pub bases: Vec<String>,
    /// Its decorators as written, without `@`.
    pub decorators: Vec<String>,
    /// Annotated class-level names (and `attr.ib()` / `field()` assignments), in order.
    pub fields: Vec<Field>,
    /// Plain `NAME = value` assignments in its body (an enum's members).
    pub members: Vec<String>,
    /// Its own `__init__`'s parameters, `self` excluded.
    pub init: Option<Vec<RawParam>>,
    /// Whether it declares an `@abstractmethod`.
    pub is_abstract: bool,
}

/// What one module declares.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// Its dotted name.
    pub module: String,
    /// Whether it is a package's `__init__`.
    pub is_package: bool,
    /// Local name → the dotted path it imports (`dt` → `datetime`, `Unit` → `pkg.time.Unit`).
    pub imports: BTreeMap<String, String>,
    /// Local name → the annotation text it stands for.
    pub aliases: BTreeMap<String, String>,
    /// Qualified name in the module (`Outer.Inner`) → the class.
    pub classes: BTreeMap<String, ClassInfo>,
    /// Module-level functions whose text uses `wraps(`, or that define a function inside
    /// (a closure, which holds what it wraps): decorators that keep what they wrap, as the
    /// worker finds it (`__wrapped__`, or the wrapper's closure cells).
    pub wrapping: BTreeSet<String>,
    /// Module-level functions (a decorator imported from here is found by its module).
    pub functions: BTreeSet<String>,
}

fn text(n: Node<'_>, src: &[u8]) -> String {
    n.utf8_text(src).unwrap_or_default().to_string()
}

/// The scope of `module` (its dotted name; `is_package` for an `__init__.py`), from the
/// syntax tree's `root`.
pub fn read(root: Node<'_>, src: &[u8], module: &str, is_package: bool) -> Scope {
    let mut s = Scope { module: module.to_string(), is_package, ..Scope::default() };
    block(root, src, &mut s);
    s
}

fn block(n: Node<'_>, src: &[u8], s: &mut Scope) {
    let mut c = n.walk();
    for item in n.named_children(&mut c) {
        statement(item, src, s);
    }
}

fn statement(item: Node<'_>, src: &[u8], s: &mut Scope) {
    match item.kind() {
        "import_statement" => {
            let mut c = item.walk();
            for name in item.children_by_field_name("name", &mut c) {
                match name.kind() {
                    "aliased_import" => {
                        let path = name.child_by_field_name("name").map(|n| text(n, src));
                        let alias = name.child_by_field_name("alias").map(|n| text(n, src));
                        if let (Some(path), Some(alias)) = (path, alias) {
                            s.imports.insert(alias, path);
                        }
                    }
                    _ => {
                        // `import a.b` binds `a`.
                        let path = text(name, src);
                        let head = path.split('.').next().unwrap_or_default().to_string();
                        s.imports.insert(head.clone(), head);
                    }
                }
            }
        }
        "import_from_statement" => {
            let Some(from) = item.child_by_field_name("module_name") else { return };
            let from = absolute(&text(from, src), &s.module, s.is_package);
            let mut c = item.walk();
            for name in item.children_by_field_name("name", &mut c) {
                let (path, local) = match name.kind() {
                    "aliased_import" => (
                        name.child_by_field_name("name").map(|n| text(n, src)),
                        name.child_by_field_name("alias").map(|n| text(n, src)),
                    ),
                    _ => (Some(text(name, src)), Some(text(name, src))),
                };
                if let (Some(path), Some(local)) = (path, local) {
                    let full = if from.is_empty() { path } else { format!("{from}.{path}") };
                    s.imports.insert(local, full);
                }
            }
        }
        "if_statement" | "try_statement" | "else_clause" | "elif_clause" | "except_clause"
        | "finally_clause" => {
            let mut c = item.walk();
            for part in item.named_children(&mut c) {
                match part.kind() {
                    "block" => block(part, src, s),
                    "else_clause" | "elif_clause" | "except_clause" | "finally_clause" => {
                        statement(part, src, s)
                    }
                    _ => {}
                }
            }
        }
        "expression_statement" => {
            let Some(a) = item.named_child(0).filter(|a| a.kind() == "assignment") else { return };
            let (Some(left), Some(right)) =
                (a.child_by_field_name("left"), a.child_by_field_name("right"))
            else {
                return;
            };
            if left.kind() != "identifier" {
                return;
            }
            let declared = a.child_by_field_name("type").map(|t| text(t, src));
            let right_text = text(right, src);
            if let Some(of) = new_type(right, src).or_else(|| type_var(right, src)) {
                s.aliases.insert(text(left, src), of);
            } else if declared.as_deref().is_some_and(|d| d.ends_with("TypeAlias"))
                || looks_like_a_type(&right_text)
            {
                s.aliases.insert(text(left, src), right_text);
            }
        }
        "type_alias_statement" => {
            let left = item.child_by_field_name("left").map(|n| text(n, src));
            let right = item.child_by_field_name("right").map(|n| text(n, src));
            if let (Some(l), Some(r)) = (left, right) {
                s.aliases.insert(l, r);
            }
        }
        "decorated_definition" => {
            let (def, decorators) = unwrap_decorated(item, src);
            definition(def, decorators, src, s, "");
        }
        "class_definition" | "function_definition" => definition(item, Vec::new(), src, s, ""),
        _ => {}
    }
}

/// Whether the body of the function `def` defines a function (at any depth): a decorator's
/// wrapper, or a decorator factory's decorator.
fn defines_function(def: Node<'_>) -> bool {
    let Some(body) = def.child_by_field_name("body") else { return false };
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if n.kind() == "function_definition" {
            return true;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    false
}

fn definition(def: Node<'_>, decorators: Vec<String>, src: &[u8], s: &mut Scope, outer: &str) {
    let name = def.child_by_field_name("name").map(|n| text(n, src)).unwrap_or_default();
    if def.kind() == "function_definition" {
        if outer.is_empty() {
            if text(def, src).contains("wraps(") || defines_function(def) {
                s.wrapping.insert(name.clone());
            }
            s.functions.insert(name);
        }
        return;
    }
    let qual = if outer.is_empty() { name } else { format!("{outer}.{name}") };
    let mut info = ClassInfo { decorators, ..ClassInfo::default() };
    if let Some(sup) = def.child_by_field_name("superclasses") {
        let mut c = sup.walk();
        for b in sup.named_children(&mut c) {
            if b.kind() != "keyword_argument" {
                info.bases.push(text(b, src));
            }
        }
    }
    if let Some(body) = def.child_by_field_name("body") {
        let mut c = body.walk();
        for member in body.named_children(&mut c) {
            class_member(member, src, s, &qual, &mut info);
        }
    }
    s.classes.insert(qual, info);
}

fn class_member(member: Node<'_>, src: &[u8], s: &mut Scope, qual: &str, info: &mut ClassInfo) {
    let (def, decorators) = unwrap_decorated(member, src);
    match def.kind() {
        "class_definition" => definition(def, decorators, src, s, qual),
        "function_definition" => {
            if decorators.iter().any(|d| d.ends_with("abstractmethod")) {
                info.is_abstract = true;
            }
            let name = def.child_by_field_name("name").map(|n| text(n, src));
            if name.as_deref() == Some("__init__")
                && def.child_by_field_name("parameters").is_some()
            {
                info.init = Some(params(def, src, 1));
            }
        }
        "expression_statement" => {
            let Some(a) = def.named_child(0).filter(|a| a.kind() == "assignment") else { return };
            let Some(left) = a.child_by_field_name("left").filter(|l| l.kind() == "identifier")
            else {
                return;
            };
            let name = text(left, src);
            let ann = a.child_by_field_name("type").map(|t| text(t, src));
            let right = a.child_by_field_name("right");
            let right_text = right.map(|r| text(r, src)).unwrap_or_default();
            let call = right
                .filter(|r| r.kind() == "call")
                .and_then(|r| r.child_by_field_name("function").map(|f| text(f, src)));
            let field_call = call.as_deref().is_some_and(|f| {
                matches!(f.rsplit('.').next(), Some("field" | "ib" | "attrib" | "Field"))
            });
            if ann.is_none() && !field_call {
                if !name.starts_with('_') && right.is_some_and(|r| r.kind() != "lambda") {
                    info.members.push(name);
                }
                return;
            }
            let class_var = ann.as_deref().is_some_and(|a| a.contains("ClassVar"));
            let (default, init) = if field_call {
                let has = |k: &str| right_text.contains(&format!("{k}="));
                let init = !right_text.replace(' ', "").contains("init=False");
                (has("default") || has("default_factory") || has("factory"), init)
            } else {
                (right.is_some(), true)
            };
            info.fields.push(Field { name, ann, default, init: init && !class_var });
        }
        _ => {}
    }
}

/// The definition inside a `decorated_definition`, and its decorators' texts (without `@`).
pub fn unwrap_decorated<'t>(n: Node<'t>, src: &[u8]) -> (Node<'t>, Vec<String>) {
    if n.kind() != "decorated_definition" {
        return (n, Vec::new());
    }
    let mut decorators = Vec::new();
    let mut c = n.walk();
    for d in n.named_children(&mut c) {
        if d.kind() == "decorator" {
            decorators.push(text(d, src).trim_start_matches('@').trim().to_string());
        }
    }
    (n.child_by_field_name("definition").unwrap_or(n), decorators)
}

/// The parameters of the function definition `def`, the first `skip` (the receiver) left out,
/// each with its annotation: the one written in the signature, else the one a PEP 484 type
/// comment gives, on the parameter's own line (`port=None,  # type: Optional[int]`) or for the
/// whole signature under the `def` line (`# type: (str, int) -> bool`, the receiver's type not
/// written): code that runs on Python 2 too types itself so (hyperlink 21.0.0's `URL`).
pub fn params(def: Node<'_>, src: &[u8], skip: usize) -> Vec<RawParam> {
    let Some(plist) = def.child_by_field_name("parameters") else { return Vec::new() };
    let mut all = written_params(plist, src);
    if let Some(types) = signature_comment(def, src) {
        let start = match types.len() {
            n if n + skip == all.len() => skip,
            n if n == all.len() => 0,
            _ => all.len(),
        };
        for (p, t) in all.iter_mut().skip(start).zip(types) {
            p.ann = p.ann.take().or(Some(t));
        }
    }
    all.into_iter().skip(skip).collect()
}

/// What a PEP 484 type comment says, `# type: ` taken off (`Optional[int]`, `(str) -> bool`);
/// None for another comment and for `# type: ignore`.
fn type_comment(n: Node<'_>, src: &[u8]) -> Option<String> {
    if n.kind() != "comment" {
        return None;
    }
    let t = text(n, src);
    let said = t.strip_prefix('#')?.trim_start().strip_prefix("type:")?;
    // A comment after it (`# type: int  # noqa`) is not part of it.
    let said = said.split('#').next().unwrap_or("").trim();
    (!said.is_empty() && !said.starts_with("ignore")).then(|| said.to_string())
}

/// The parameters' types a signature's type comment gives (`# type: (str, *int) -> bool`: `str`
/// and `int`), in order; None without one, or for `(...)` (each parameter's own comment says).
fn signature_comment(def: Node<'_>, src: &[u8]) -> Option<Vec<String>> {
    let mut c = def.walk();
    let after_params = def
        .children(&mut c)
        .skip_while(|n| n.kind() != "parameters")
        .filter(|n| n.kind() == "comment")
        .collect::<Vec<_>>();
    let mut b = def.walk();
    let body_first: Vec<Node<'_>> = def
        .child_by_field_name("body")
        .map(|body| body.children(&mut b).take_while(|n| n.kind() == "comment").collect())
        .unwrap_or_default();
    let said = after_params.into_iter().chain(body_first).find_map(|n| type_comment(n, src))?;
    // No `->` is written inside a type: the first is the signature's.
    let (args, _) = said.split_once("->")?;
    let inner = args.trim().strip_prefix('(')?.strip_suffix(')')?;
    if inner.trim() == "..." {
        return None;
    }
    let types: Vec<String> = crate::value::split_top(inner)
        .iter()
        .map(|t| t.trim_start_matches('*').trim().to_string())
        .collect();
    (!types.iter().any(String::is_empty)).then_some(types)
}

/// The parameters of a `parameters` node as written, each with its annotation or, without one,
/// the type comment on its line.
fn written_params(plist: Node<'_>, src: &[u8]) -> Vec<RawParam> {
    let mut out = Vec::new();
    let mut keyword = false;
    let mut c = plist.walk();
    let all: Vec<Node<'_>> = plist.named_children(&mut c).collect();
    let slash = all.iter().position(|p| p.kind() == "positional_separator");
    for (k, p) in all.iter().enumerate() {
        let only = slash.is_some_and(|s| k < s);
        let named = |n: Node<'_>| n.child_by_field_name("name").map(|n| text(n, src));
        let ty = p.child_by_field_name("type").map(|t| text(t, src));
        let (name, ann, default, pass) = match p.kind() {
            "identifier" => (text(*p, src), None, false, Pass::Pos { only }),
            "typed_parameter" => {
                let first = p.named_child(0);
                match first.map(|f| f.kind()) {
                    Some("list_splat_pattern") => {
                        keyword = true;
                        (splat_name(first, src), ty, false, Pass::Star)
                    }
                    Some("dictionary_splat_pattern") => {
                        (splat_name(first, src), ty, false, Pass::StarStar)
                    }
                    _ => (
                        first.map(|f| text(f, src)).unwrap_or_default(),
                        ty,
                        false,
                        Pass::Pos { only },
                    ),
                }
            }
            "default_parameter" | "typed_default_parameter" => {
                (named(*p).unwrap_or_default(), ty, true, Pass::Pos { only })
            }
            "list_splat_pattern" => {
                keyword = true;
                (splat_name(Some(*p), src), None, false, Pass::Star)
            }
            "dictionary_splat_pattern" => (splat_name(Some(*p), src), None, false, Pass::StarStar),
            "keyword_separator" => {
                keyword = true;
                continue;
            }
            _ => continue,
        };
        let pass = match pass {
            Pass::Pos { .. } if keyword => Pass::Kw,
            other => other,
        };
        let literal = p.child_by_field_name("value").and_then(|v| literal(v, src));
        // `port=None,  # type: Optional[int]`: the comment after the comma, on its line.
        let commented = all
            .get(k + 1)
            .filter(|n| n.start_position().row == p.end_position().row)
            .and_then(|n| type_comment(*n, src))
            .filter(|t| !t.starts_with('('));
        let ann = ann.or(commented);
        out.push(RawParam { name, ann, default, literal, pass });
    }
    out
}

/// The value of a plain literal: an int, a float, a string without interpolation or escapes,
/// `True`, `False` or `None` (a leading `-` on a number kept).
fn literal(n: Node<'_>, src: &[u8]) -> Option<Value> {
    let t = text(n, src);
    match n.kind() {
        "integer" => t.replace('_', "").parse().ok().map(Value::Int),
        "float" => t.replace('_', "").parse().ok().map(Value::Float),
        "none" => Some(Value::Null),
        "true" => Some(Value::Bool(true)),
        "false" => Some(Value::Bool(false)),
        "unary_operator" if t.starts_with('-') => match literal(n.named_child(0)?, src)? {
            Value::Int(i) => Some(Value::Int(-i)),
            Value::Float(f) => Some(Value::Float(-f)),
            _ => None,
        },
        "string" => {
            let q = t.find(['"', '\''])?;
            let (prefix, body) = t.split_at(q);
            let quote = if body.starts_with("\"\"\"") || body.starts_with("'''") { 3 } else { 1 };
            let inner = body.get(quote..body.len().checked_sub(quote)?)?;
            let plain = prefix.is_empty() || prefix.eq_ignore_ascii_case("u");
            (plain && !inner.contains('\\')).then(|| Value::Str(inner.to_string()))
        }
        _ => None,
    }
}

fn splat_name(n: Option<Node<'_>>, src: &[u8]) -> String {
    n.map(|n| text(n, src).trim_start_matches('*').to_string()).unwrap_or_default()
}

/// The arguments of `right` when it calls `typing`'s `name` (`NewType(...)`,
/// `typing.TypeVar(...)`).
fn typing_call<'t>(right: Node<'t>, src: &[u8], name: &str) -> Option<Node<'t>> {
    if right.kind() != "call" {
        return None;
    }
    let f = text(right.child_by_field_name("function")?, src);
    if f.rsplit('.').next()? != name {
        return None;
    }
    right.child_by_field_name("arguments")
}

/// `NewType("UserId", int)`: the annotation it stands for.
fn new_type(right: Node<'_>, src: &[u8]) -> Option<String> {
    typing_call(right, src, "NewType")?.named_child(1).map(|a| text(a, src))
}

/// `TypeVar("T", str, Platform)`, `TypeVar("T", bound=Base)`, `TypeVar("T")`: what a value of
/// it may be, the union of its constraints, its bound, or anything (pathvalidate 3.2.0's
/// `normalize_platform(name: Optional[PlatformType])` was called with `None` alone).
fn type_var(right: Node<'_>, src: &[u8]) -> Option<String> {
    let args = typing_call(right, src, "TypeVar")?;
    let mut c = args.walk();
    let all: Vec<Node<'_>> = args.named_children(&mut c).skip(1).collect();
    let constraints: Vec<String> = all
        .iter()
        .filter(|a| a.kind() != "keyword_argument" && a.kind() != "comment")
        .map(|a| annotation::unquote(&text(*a, src)).to_string())
        .collect();
    if !constraints.is_empty() {
        return Some(format!("Union[{}]", constraints.join(", ")));
    }
    let bound = all.iter().find(|a| {
        a.kind() == "keyword_argument"
            && a.child_by_field_name("name").is_some_and(|n| text(n, src) == "bound")
    });
    Some(match bound.and_then(|b| b.child_by_field_name("value")) {
        Some(v) => annotation::unquote(&text(v, src)).to_string(),
        None => "Any".into(),
    })
}

/// Whether the right side of an assignment reads as a type (`int | str`, `list[int]`, `Foo`),
/// not as a value (`5`, `f(x)`, `"text"`).
fn looks_like_a_type(right: &str) -> bool {
    let first = right.trim_start().chars().next();
    if first.is_none_or(|c| !(c.is_alphabetic() || c == '_')) || right.contains('(') {
        return false;
    }
    match annotation::parse(right) {
        Ok(Ann::Name(n, args)) => {
            // A bare lowercase name is more often a value (`default = other`) than a type.
            !args.is_empty()
                || n.split('.').next_back().is_some_and(|l| l.starts_with(char::is_uppercase))
        }
        Ok(Ann::Union(_)) => true,
        _ => false,
    }
}

/// The absolute module of `from {written} import …` in `module`.
fn absolute(written: &str, module: &str, is_package: bool) -> String {
    let dots = written.chars().take_while(|c| *c == '.').count();
    if dots == 0 {
        return written.to_string();
    }
    let mut parts: Vec<&str> = module.split('.').filter(|p| !p.is_empty()).collect();
    // `.` is the package that holds the module (the module itself for a package's `__init__`).
    let up = if is_package { dots - 1 } else { dots };
    for _ in 0..up {
        parts.pop();
    }
    let rest = &written[dots..];
    if !rest.is_empty() {
        parts.push(rest);
    }
    parts.join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope_of(src: &str, module: &str, package: bool) -> Scope {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&tree_sitter_python::LANGUAGE.into()).unwrap();
        let tree = parser.parse(src, None).unwrap();
        read(tree.root_node(), src.as_bytes(), module, package)
    }

    #[test]
    fn imports_aliases_and_classes_are_read_from_the_module() {
        let s = scope_of(
            r#"
from __future__ import annotations
import enum
from .time import Unit as U
from . import number
TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as dt
    from typing import TypeAlias
    NumberOrString: TypeAlias = float | str
Pair = tuple[int, int]
UserId = NewType("UserId", int)
PlatformType = TypeVar("PlatformType", str, "Platform")
Shape = TypeVar("Shape", bound="Base")
T = TypeVar("T")
limit = other
type Id = int

class Color(enum.Enum):
    RED = 1
    GREEN = "g"
    _ignore_ = []

    def shade(self) -> str:
        return self.name

@dataclass(frozen=True)
class Point:
    x: int
    y: int = 0
    tags: ClassVar[list] = []
    cache: dict = field(init=False, default_factory=dict)

    class Inner:
        def __init__(self, a: int, /, b, *, c: str = "x", **kw):
            pass
"#,
            "pkg.sub.mod",
            false,
        );
        assert_eq!(s.imports["dt"], "datetime");
        assert_eq!(s.imports["U"], "pkg.sub.time.Unit");
        assert_eq!(s.imports["number"], "pkg.sub.number");
        assert_eq!(s.imports["enum"], "enum");
        assert_eq!(s.aliases["NumberOrString"], "float | str");
        assert_eq!(s.aliases["Pair"], "tuple[int, int]");
        assert_eq!(s.aliases["UserId"], "int");
        assert_eq!(s.aliases["PlatformType"], "Union[str, Platform]");
        assert_eq!(s.aliases["Shape"], "Base");
        assert_eq!(s.aliases["T"], "Any");
        assert_eq!(s.aliases["Id"], "int");
        assert!(!s.aliases.contains_key("limit"), "a lowercase name is a value");
        let color = &s.classes["Color"];
        assert_eq!(color.bases, ["enum.Enum"]);
        assert_eq!(color.members, ["RED", "GREEN"]);
        let point = &s.classes["Point"];
        assert_eq!(point.decorators, ["dataclass(frozen=True)"]);
        let fields: Vec<(&str, bool, bool)> =
            point.fields.iter().map(|f| (f.name.as_str(), f.default, f.init)).collect();
        assert_eq!(
            fields,
            [("x", false, true), ("y", true, true), ("tags", true, false), ("cache", true, false)]
        );
        let init = s.classes["Point.Inner"].init.clone().unwrap();
        let passes: Vec<(&str, Pass)> = init.iter().map(|p| (p.name.as_str(), p.pass)).collect();
        assert_eq!(
            passes,
            [
                ("a", Pass::Pos { only: true }),
                ("b", Pass::Pos { only: false }),
                ("c", Pass::Kw),
                ("kw", Pass::StarStar)
            ]
        );
    }

    #[test]
    fn relative_imports_of_a_package_start_at_the_package() {
        assert_eq!(absolute(".time", "humanize", true), "humanize.time");
        assert_eq!(absolute(".time", "humanize.number", false), "humanize.time");
        assert_eq!(absolute("..x", "a.b.c", false), "a.x");
        assert_eq!(absolute("os.path", "a", false), "os.path");
    }
}
