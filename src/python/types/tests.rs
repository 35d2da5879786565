//! The annotation mapping end to end: annotation text in a module of a small project → value
//! type, and functions → their driven parameters.

use super::*;
use crate::python::source::{self, Kind, PyFn};
use crate::value::Value;

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
    assert_eq!(ty_of(Some("int | None")).unwrap(), ty_of(Some("typing.Optional[int]")).unwrap());
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
fn unions_literals_and_standard_types_are_values() {
    assert_eq!(ty("int | float | str"), "i64 | f64 | str");
    assert_eq!(ty("Union[int, Union[str, bytes]]"), "i64 | str | bytes");
    assert_eq!(ty("float | None | str"), "option[f64 | str]");
    assert_eq!(ty("str | Callable[[float], str]"), "str", "what cannot be built is left out");
    assert_eq!(ty("Literal['a', 'b', 3]"), "one of \"a\", \"b\", 3");
    assert_eq!(
        ty_of(Some("Literal[None, True]")).unwrap(),
        Ty::OneOf { values: vec![Value::Null, Value::Bool(true)] }
    );
    assert_eq!(ty("datetime.date"), "datetime.date");
    assert_eq!(ty("decimal.Decimal | None"), "option[decimal.Decimal]");
    assert_eq!(ty("set[int]"), "builtins.set");
    assert_eq!(ty("Annotated[int, 'meta']"), "i64");
    assert_eq!(ty("Path"), "error: type `Path` is not supported", "not imported: unknown");
    assert_eq!(ty("Callable[[int], str]"), "error: callables are not supported");
    assert!(ty("dict[float, int]").contains("keys of type"));
    assert!(ty("list[").starts_with("error: cannot read"));
}

/// Every function of a project of `files` (module, text), resolved with all their names.
fn project(files: &[(&str, &str)]) -> Vec<PyFn> {
    let mut index = Index::default();
    let mut all = Vec::new();
    for (module, text) in files {
        let (fns, scope) = source::read(text, module, false);
        index.scopes.insert(module.to_string(), scope);
        all.push((module.to_string(), fns));
    }
    let r = Resolver { index: &index };
    let mut out = Vec::new();
    for (module, fns) in all {
        for mut f in fns {
            function::resolve(&mut f, &module, &r);
            out.push(f);
        }
    }
    out
}

fn by<'a>(fns: &'a [PyFn], q: &str) -> &'a PyFn {
    fns.iter().find(|f| f.qualname == q).unwrap_or_else(|| panic!("no {q}"))
}

fn types_of(f: &PyFn) -> Vec<String> {
    f.params
        .iter()
        .zip(&f.passes)
        .map(|(p, pass)| {
            let t = p.ty.as_ref().map_or("?".to_string(), |t| t.to_string());
            format!("{}: {t} {pass:?}", p.name)
        })
        .collect()
}

#[test]
fn functions_take_the_projects_aliases_enums_classes_and_imports() {
    let fns = project(&[
        (
            "hum.time",
            r#"
from __future__ import annotations
import functools
from enum import Enum
TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as dt
    from typing import TypeAlias
    from collections.abc import Iterable
    NumberOrString: TypeAlias = float | str

class Unit(Enum):
    SECONDS = 0
    MINUTES = 1

    def __lt__(self, other):
        return self.value < other.value

def naturaldelta(value: dt.timedelta | float, months: bool = True) -> str:
    return ""

def ordinal(value: NumberOrString, gender: str = "male", fmt: Callable = None, *, sep: str = ",") -> str:
    return ""

def suppress(min_unit: Unit, suppress: Iterable[Unit]) -> set[Unit]:
    return set()

def total(*values: int, **named: float) -> float:
    return 0.0

def plain(*args, **kwargs):
    return args

@functools.lru_cache(maxsize=None)
def cached(n: int) -> int:
    return n

def retry(f):
    @functools.wraps(f)
    def inner(*a):
        return f(*a)
    return inner

@retry
def flaky(n: int) -> int:
    return n

@app.route("/")
def index() -> str:
    return ""

async def fetch(n: int) -> int:
    return n
"#,
        ),
        (
            "hum.shapes",
            r#"
from dataclasses import dataclass
from .time import Unit

@dataclass
class Point:
    x: int
    y: int

    def norm(self) -> int:
        return abs(self.x) + abs(self.y)

    @property
    def area(self) -> int:
        return 0

class Counter:
    def __init__(self, start: int = 0):
        self.n = start

    def bump(self, by: int) -> int:
        return self.n + by

    @property
    def start(self) -> int:
        return self.n

    @start.setter
    def start(self, value: int) -> None:
        self.n = value

class Plain:
    def twice(self, x: int) -> int:
        return 2 * x

def far(p: Point, unit: Unit) -> int:
    return p.x
"#,
        ),
    ]);
    assert_eq!(
        types_of(by(&fns, "naturaldelta")),
        ["value: datetime.timedelta | f64 Pos { only: false }", "months: bool Pos { only: false }"]
    );
    // `fmt` cannot be built: left to its default, and what follows is passed by name.
    assert_eq!(
        types_of(by(&fns, "ordinal")),
        ["value: f64 | str Pos { only: false }", "gender: str Pos { only: false }", "sep: str Kw"]
    );
    assert_eq!(
        types_of(by(&fns, "suppress"))[1],
        "suppress: list[hum.time.Unit] Pos { only: false }"
    );
    assert_eq!(
        types_of(by(&fns, "total")),
        ["values: list[i64] Star", "named: dict[str, f64] StarStar"]
    );
    assert_eq!(types_of(by(&fns, "plain")), ["args: list[any] Star"]);
    assert!(by(&fns, "cached").decorated && by(&fns, "cached").unsupported.is_none());
    assert!(by(&fns, "flaky").decorated && by(&fns, "flaky").unsupported.is_none());
    assert!(by(&fns, "index").unsupported.clone().unwrap().contains("@app.route"));
    assert!(by(&fns, "fetch").is_async && by(&fns, "fetch").unsupported.is_none());
    // A method of a class built with arguments takes its instance as a built receiver.
    let lt = by(&fns, "Unit.__lt__");
    assert!(lt.receiver);
    assert_eq!(
        types_of(lt),
        ["self: hum.time.Unit Pos { only: true }", "other: any Pos { only: false }"]
    );
    let norm = by(&fns, "Point.norm");
    assert!(norm.receiver && norm.unsupported.is_none());
    assert_eq!(by(&fns, "Point.area").kind, Kind::Property);
    assert!(by(&fns, "Counter.bump").receiver, "a constructor with arguments is driven");
    assert!(!by(&fns, "Plain.twice").receiver, "a class built with nothing is built per call");
    assert_eq!(by(&fns, "Counter.__init__").kind, Kind::Init);
    let setter =
        fns.iter().find(|f| f.qualname == "Counter.start" && f.kind == Kind::Setter).unwrap();
    assert_eq!(
        types_of(setter),
        ["self: hum.shapes.Counter Pos { only: true }", "value: i64 Pos { only: false }"]
    );
    assert_eq!(setter.role(), Some("setter"));
    assert_eq!(types_of(by(&fns, "Counter.__init__")), ["start: i64 Pos { only: false }"]);
    assert_eq!(
        types_of(by(&fns, "far")),
        ["p: hum.shapes.Point Pos { only: false }", "unit: hum.time.Unit Pos { only: false }"]
    );
}

#[test]
fn a_private_parameter_with_a_default_is_left_to_it() {
    // natsort 8.4.0's fake_fastnumbers: the globals bound as defaults are no caller's to pass;
    // one without a default is, and what follows a private one is passed by name.
    let fns = project(&[(
        "ns.fast",
        "import unicodedata\nFIRST = frozenset('0123456789')\n\ndef fast_int(x: str, key=None, _uni=unicodedata.digit, _first_char: frozenset = FIRST) -> int:\n    return int(x)\n\ndef walk(node: int, _depth: int = 0, limit: int = 3) -> int:\n    return node\n\ndef bare(_x: int) -> int:\n    return _x\n",
    )]);
    assert_eq!(
        types_of(by(&fns, "fast_int")),
        ["x: str Pos { only: false }", "key: any Pos { only: false }"]
    );
    assert_eq!(types_of(by(&fns, "walk")), ["node: i64 Pos { only: false }", "limit: i64 Kw"]);
    assert_eq!(types_of(by(&fns, "bare")), ["_x: i64 Pos { only: false }"]);
}

#[test]
fn pep_484_type_comments_type_the_parameters_they_name() {
    // hyperlink 21.0.0, code that runs on Python 2 too: unannotated, typed in comments. Before,
    // `URL`'s constructor took anything (every explored receiver failed its own type checks),
    // and `scheme_uses_netloc("", 0.0)` was a witness.
    let fns = project(&[(
        "hl.url",
        concat!(
            "from typing import Optional, Text\n\n",
            "def uses(scheme, default=None):\n",
            "    # type: (Text, Optional[bool]) -> Optional[bool]\n",
            "    return default\n\n",
            "def spread(first, *rest, **named):  # type: (int, *str, **float) -> None\n",
            "    pass\n\n",
            "def ignored(x):  # type: ignore\n    return x\n\n",
            "def wrong(x, y):\n    # type: (int) -> int\n    return x\n\n",
            "class URL:\n",
            "    def __init__(\n",
            "        self,\n",
            "        scheme=None,  # type: Optional[Text]\n",
            "        port=None,  # type: Optional[int]\n",
            "        rooted: bool = False,  # type: int\n",
            "        fragment=u'',\n",
            "    ):\n",
            "        # type: (...) -> None\n",
            "        self.port = port\n\n",
            "    def authority(self, with_password=False):\n",
            "        # type: (bool) -> Text\n",
            "        return ''\n",
        ),
    )]);
    assert_eq!(
        types_of(by(&fns, "uses")),
        ["scheme: str Pos { only: false }", "default: option[bool] Pos { only: false }"]
    );
    assert_eq!(
        types_of(by(&fns, "spread")),
        [
            "first: i64 Pos { only: false }",
            "rest: list[str] Star",
            "named: dict[str, f64] StarStar"
        ]
    );
    assert_eq!(types_of(by(&fns, "ignored")), ["x: any Pos { only: false }"]);
    // A comment that does not fit the parameters types none of them.
    assert_eq!(
        types_of(by(&fns, "wrong")),
        ["x: any Pos { only: false }", "y: any Pos { only: false }"]
    );
    let authority = by(&fns, "URL.authority");
    assert_eq!(types_of(authority)[1], "with_password: bool Pos { only: false }");
    // The receiver is built from the constructor's commented types; a written annotation wins.
    let Some(Ty::Built { ctors, .. }) = &authority.params[0].ty else { panic!("{authority:?}") };
    let ctor: Vec<String> = ctors[0].params.iter().map(|(n, t)| format!("{n}: {t}")).collect();
    assert_eq!(ctor, ["scheme: option[str]", "port: option[i64]", "rooted: bool", "fragment: any"]);
}

#[test]
fn a_decorator_from_another_module_that_keeps_the_function_is_called_through() {
    // validators' shape: `@validator` is `functools.wraps` in `utils`, imported relatively.
    let fns = project(&[
        (
            "checks.utils",
            "import functools\n\ndef validator(func):\n    @functools.wraps(func)\n    def wrapper(*a):\n        return func(*a) or False\n    return wrapper\n\ndef plain(func):\n    return func\n",
        ),
        (
            "checks.numbers",
            "from .utils import validator, plain\nfrom checks import utils\n\n@validator\ndef even(value: int):\n    return value % 2 == 0\n\n@utils.validator\ndef odd(value: int):\n    return value % 2 == 1\n\n@plain\ndef same(value: int):\n    return value\n",
        ),
    ]);
    for name in ["even", "odd"] {
        let f = by(&fns, name);
        assert!(f.decorated && f.unsupported.is_none(), "{name}: {:?}", f.unsupported);
    }
    // A decorator that does not keep the function (no `wraps`) is still refused, with its name.
    assert!(by(&fns, "same").unsupported.clone().unwrap().contains("@plain"));
}

#[test]
fn a_project_decorator_whose_wrapper_closes_over_the_function_is_called_through() {
    // No `wraps`: the worker finds the function in the wrapper's closure cells.
    let fns = project(&[
        (
            "shop.util",
            "def logged(func):\n    def inner(*a, **k):\n        return func(*a, **k)\n    return inner\n\ndef retry(times):\n    def deco(func):\n        def attempt(*a):\n            return func(*a)\n        return attempt\n    return deco\n",
        ),
        (
            "shop.prices",
            "import click\nfrom .util import logged, retry\n\n@logged\ndef fee(w: int):\n    return w\n\n@retry(3)\ndef tax(a: int):\n    return a\n\n@click.command()\ndef cli(n: int):\n    return n\n",
        ),
    ]);
    for name in ["fee", "tax"] {
        let f = by(&fns, name);
        assert!(f.decorated && f.unsupported.is_none(), "{name}: {:?}", f.unsupported);
    }
    // Another package's decorator (a command object, not a function) is still refused.
    assert!(by(&fns, "cli").unsupported.clone().unwrap().contains("@click.command()"));
}
