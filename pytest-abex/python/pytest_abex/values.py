"""Argument values of every abex type, from their JSON (``docs/values.md``).

A plain value is its JSON (floats' ``"NaN"``, ``"inf"``, ``"-inf"`` become floats, byte lists
``bytes``, ``tuple[...]`` tuples). A recipe ``{"$ctor": "date", "$args": [2024, 2, 29]}`` of a
``built`` type is its constructor applied to its arguments, themselves values: the type's name
is its import path (``datetime.date``, ``pkg.shapes.Point``), a constructor's name is how a test
writes it (``date``, ``Point``, ``Color.RED``, ``Decimal``), found on the type. A ``union``
value is built as the first option its JSON fits; a ``one_of`` value is its JSON.

A constructor that raises (``date(2024, 2, 30)``) raises :class:`BuildError`: the worker answers
it as the call's error, never as a crash.
"""

import importlib
import math

_SPECIAL = {"NaN": math.nan, "inf": math.inf, "-inf": -math.inf}


class BuildError(Exception):
    """A recipe's constructor raised ``error``."""

    def __init__(self, recipe, error):
        super().__init__(f"{recipe}: {type(error).__name__}: {error}")
        self.recipe = recipe
        self.error = error


def failure(e):
    """The worker's answer to a :class:`BuildError`: the constructor's exception, saying what
    it was building."""
    return {"err": [type(e.error).__name__, f"while building {e.recipe}: {e.error}"]}


def _identity(v):
    return v


def _inner(ty):
    return converter(ty) or _identity


def converter(ty, as_tuple=False):
    """A function turning the JSON of an argument into the Python value of type ``ty``, or
    ``None`` when the JSON value is already that value."""
    kind = ty["kind"]
    if kind == "float":
        return lambda v: _SPECIAL[v] if isinstance(v, str) else float(v)
    if kind == "bytes":
        return bytes
    if kind in ("list", "array"):
        if converter(ty["item"]) is None and not as_tuple:
            return None  # a JSON list of such values is the value
        item = _inner(ty["item"])
        if as_tuple:
            return lambda v: tuple(item(x) for x in v)
        return lambda v: [item(x) for x in v]
    if kind == "tuple":
        items = [_inner(t) for t in ty["items"]]
        return lambda v: tuple(f(x) for f, x in zip(items, v))
    if kind == "option":
        if converter(ty["item"]) is None:
            return None
        item = _inner(ty["item"])
        return lambda v: None if v is None else item(v)
    if kind == "map":
        key = int if ty["key"]["kind"] == "int" else _identity
        value = _inner(ty["value"])
        return lambda v: {key(k): value(x) for k, x in v.items()}
    if kind == "built":
        return _Built(ty)
    if kind == "union":
        options = [(t, _inner(t)) for t in ty["options"]]

        def pick(v):
            for t, conv in options:
                if fits(t, v):
                    return conv(v)
            return v

        return pick
    return None  # int, bool, str, char, any, one_of: the JSON value as it is


def fits(ty, v):
    """Whether the JSON value ``v`` is a value of ``ty`` (which option of a union it is)."""
    kind = ty["kind"]
    number = isinstance(v, (int, float)) and not isinstance(v, bool)
    if kind == "int":
        return isinstance(v, int) and not isinstance(v, bool)
    if kind == "float":
        return number or (isinstance(v, str) and v in _SPECIAL)
    if kind in ("str", "char"):
        return isinstance(v, str)
    if kind == "bool":
        return isinstance(v, bool)
    if kind == "bytes":
        return isinstance(v, list) and all(isinstance(x, int) for x in v)
    if kind in ("list", "array"):
        return isinstance(v, list) and all(fits(ty["item"], x) for x in v)
    if kind == "tuple":
        return isinstance(v, list) and len(v) == len(ty["items"]) and all(map(fits, ty["items"], v))
    if kind == "option":
        return v is None or fits(ty["item"], v)
    if kind == "map":
        return isinstance(v, dict) and "$ctor" not in v
    if kind == "built":
        return isinstance(v, dict) and any(c["name"] == v.get("$ctor") for c in ty["ctors"])
    if kind == "union":
        return any(fits(t, v) for t in ty["options"])
    if kind == "one_of":
        return any(v == x and type(v) is type(x) for x in ty["values"])
    return True


def locate(type_name, ctor):
    """The object constructor ``ctor`` names on the type ``type_name`` (an import path): the
    type itself (``date`` of ``datetime.date``), or an attribute of it (``Color.RED``)."""
    parts = type_name.split(".")
    for k in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        qual = parts[k:]
        for part in qual:
            obj = getattr(obj, part)
        names = ctor.split(".")
        for j in range(min(len(qual), len(names)), 0, -1):
            if names[:j] == qual[-j:]:
                for attr in names[j:]:
                    obj = getattr(obj, attr)
                return obj
        raise LookupError(f"`{ctor}` does not name `{type_name}` or one of its attributes")
    raise ImportError(f"cannot import `{type_name}`")


def check(ty):
    """Raises when a constructor of ``ty`` (or of a type inside it) cannot be found."""
    kind = ty["kind"]
    if kind == "built":
        for c in ty["ctors"]:
            locate(ty["name"], c["name"])
            for _, t in c["params"]:
                check(t)
    for key in ("item", "value"):
        if key in ty:
            check(ty[key])
    for t in ty.get("items", []) + ty.get("options", []):
        check(t)


def _code(ctor, form, names, values):
    """The recipe as code, for messages: ``date(2024, 2, 30)``, ``Point(x=1, y=2)``."""
    if form == "unit":
        return ctor
    if form == "fields":
        return f"{ctor}({', '.join(f'{n}={v!r}' for n, v in zip(names, values))})"
    return f"{ctor}({', '.join(repr(v) for v in values)})"


class _Built:
    """The converter of a built type: finds each constructor once, builds anew per call."""

    def __init__(self, ty):
        self.ty = ty
        self.ctors = {c["name"]: c for c in ty["ctors"]}
        self.found = {}

    def _ctor(self, name):
        if name not in self.found:
            c = self.ctors[name]
            obj = locate(self.ty["name"], name)
            names = [p for p, _ in c["params"]]
            convs = [_inner(t) for _, t in c["params"]]
            self.found[name] = (obj, c["form"], names, convs)
        return self.found[name]

    def __call__(self, v):
        obj, form, names, convs = self._ctor(v["$ctor"])
        if form == "unit":
            return obj
        values = [f(a) for f, a in zip(convs, v["$args"])]
        try:
            if form == "fields":
                return obj(**dict(zip(names, values)))
            return obj(*values)
        except Exception as e:  # noqa: BLE001 - the call's outcome, not the worker's failure
            raise BuildError(_code(v["$ctor"], form, names, values), e) from None


# The standard library's value types, by their recipes (as `src/python/types/stdlib.rs` writes
# them): type → (import path, describer of a value as its constructor's arguments).
def _std():
    import datetime
    import decimal
    import fractions
    import pathlib
    import uuid

    def date(v):
        return "date", [v.year, v.month, v.day]

    def dt(v):
        if v.microsecond or v.tzinfo is not None:
            raise ValueError("not written by its recipe")
        return "datetime", [v.year, v.month, v.day, v.hour, v.minute, v.second]

    def time(v):
        if v.microsecond or v.tzinfo is not None:
            raise ValueError("not written by its recipe")
        return "time", [v.hour, v.minute, v.second]

    return [
        (datetime.datetime, "datetime.datetime", dt),
        (datetime.date, "datetime.date", date),
        (datetime.time, "datetime.time", time),
        (datetime.timedelta, "datetime.timedelta", lambda v: ("timedelta", [v.days, v.seconds + v.microseconds / 1e6])),
        (decimal.Decimal, "decimal.Decimal", lambda v: ("Decimal", [str(v)])),
        (fractions.Fraction, "fractions.Fraction", lambda v: ("Fraction", [v.numerator, v.denominator])),
        (pathlib.PurePath, "pathlib.Path", lambda v: ("Path", [str(v)])),
        (uuid.UUID, "uuid.UUID", lambda v: ("UUID", [v.int])),
    ]


_STD = []


def describe(v, depth=0):
    """``(tag, json)`` of a value the project's tests pass, for seeds: the tag is its kind
    (``int``, ``float``, ``str``, ``bool``, ``none``, ``bytes``, ``list``, ``dict``), ``std:PATH``
    for a standard type (``std:datetime.date``) or ``class:MODULE.QUALNAME`` for an enum member or
    a dataclass of the project; the JSON is the value or its recipe. Raises ``ValueError`` for a
    value abex cannot write."""
    import dataclasses
    import enum

    if depth > 3:
        raise ValueError("nested too deeply")
    if v is None:
        return "none", None
    if isinstance(v, bool):
        return "bool", v
    if isinstance(v, enum.Enum):
        cls = type(v)
        return f"class:{cls.__module__}.{cls.__qualname__}", {"$ctor": f"{cls.__qualname__}.{v.name}", "$args": []}
    if isinstance(v, int):
        return "int", v
    if isinstance(v, float):
        if v != v:
            return "float", "NaN"
        if v in (math.inf, -math.inf):
            return "float", "inf" if v > 0 else "-inf"
        return "float", v
    if isinstance(v, str):
        return "str", v
    if isinstance(v, bytes):
        return "bytes", list(v)
    if isinstance(v, (list, tuple)) and len(v) <= 64:
        return "list", [describe(x, depth + 1)[1] for x in v]
    if isinstance(v, dict) and len(v) <= 64 and all(isinstance(k, str) for k in v):
        return "dict", {k: describe(x, depth + 1)[1] for k, x in v.items()}
    if not _STD:
        _STD.extend(_std())
    for cls, path, args in _STD:
        if isinstance(v, cls):
            ctor, xs = args(v)
            return f"std:{path}", {"$ctor": ctor, "$args": xs}
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        cls = type(v)
        fields = [f for f in dataclasses.fields(v) if f.init]
        xs = [describe(getattr(v, f.name), depth + 1)[1] for f in fields]
        return f"class:{cls.__module__}.{cls.__qualname__}", {"$ctor": cls.__qualname__, "$args": xs}
    raise ValueError(f"abex cannot write a {type(v).__name__}")
