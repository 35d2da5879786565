"""Mutant switching for Python: give a live function the code of its mutated source.

Both the worker (witnesses) and the runner (tests of a mutant) import the project as it is, then
swap the target function's ``__code__`` for the one compiled from the mutated function's text,
so every reference to the function (``from m import f`` included) runs the mutant.
"""

import __future__
import ast
import functools
import importlib
import inspect
import sys
import types

from . import _probe


def resolve(module, qualname, role=None):
    """The module object and the plain function behind ``module.qualname`` (a property's
    ``setter`` or ``deleter`` when ``role`` says so)."""
    mod = importlib.import_module(module)
    owner = mod
    parts = qualname.split(".")
    for part in parts[:-1]:
        owner = getattr(owner, part)
    raw = owner.__dict__[parts[-1]] if isinstance(owner, type) else getattr(owner, parts[-1])
    func = getattr(raw, "__func__", raw)  # staticmethod / classmethod
    if isinstance(func, property) and role in ("setter", "deleter"):
        func = func.fset if role == "setter" else func.fdel
    return mod, _plain(func, parts[-1])


def _plain(obj, name=None):
    """The function behind a property, a cached property, or a decorator that keeps it
    (``functools.wraps`` sets ``__wrapped__``: ``lru_cache``, most decorators), or one that
    closes over it (``def logged(f): def inner(*a): return f(*a); return inner``): then the
    function named ``name`` among the wrapper's closure cells, a few closures deep. ``ValueError``
    when a wrapper hides it."""
    if isinstance(obj, property):
        obj = obj.fget
    elif isinstance(obj, functools.cached_property):
        obj = obj.func
    obj = inspect.unwrap(obj)
    code = getattr(obj, "__code__", None)
    if name is None or code is None or code.co_name == name:
        return obj
    found = _closed_over(obj, name, depth=4)
    if found is None:
        raise ValueError(f"the decorator's wrapper `{code.co_name}` hides `{name}`: it is neither "
                         "`functools.wraps`'d nor held in the wrapper's closure")
    return found


def _closed_over(wrapper, name, depth):
    """The function named ``name`` in ``wrapper``'s closure cells (breadth first, ``depth``
    closures deep), or ``None``."""
    level = [wrapper]
    for _ in range(depth):
        nxt = []
        for f in level:
            for cell in getattr(f, "__closure__", None) or ():
                try:
                    v = inspect.unwrap(cell.cell_contents)
                except ValueError:  # an empty cell
                    continue
                c = getattr(v, "__code__", None)
                if c is None:
                    continue
                if c.co_name == name:
                    return v
                nxt.append(v)
        level = nxt
    return None


def _find_code(code, path):
    for const in code.co_consts:
        if isinstance(const, types.CodeType) and const.co_name == path[0]:
            if len(path) == 1:
                return const
            found = _find_code(const, path[1:])
            if found is not None:
                return found
    return None


_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag


def _wrapped(patch, flags_from):
    """The text to compile for ``patch``: the function alone at its own line, inside a class of
    the same name for a method (so that ``super()`` and private names compile as they do in the
    file); the future flags are those of the original's code ``flags_from``."""
    classes = patch["qualname"].split(".")[:-1]
    head = "".join(" " * depth + f"class {name}:\n" for depth, name in enumerate(classes))
    blank = "\n" * max(patch["line"] - 1 - len(classes), 0)
    return blank + head + patch["source"], flags_from.co_flags & _FUTURE_FLAGS


def compiled(patch, original):
    """The code object of the mutated function of ``patch``; ``ValueError`` with a reason when
    the mutated source does not parse or lacks the function. ``patch["source"]`` is the mutated
    function alone, starting at ``patch["line"]``; ``original`` is the function's live code
    object (for its future flags)."""
    text, flags = _wrapped(patch, original)
    try:
        module_code = compile(text, patch["file"], "exec", flags=flags, dont_inherit=True)
    except SyntaxError as e:
        raise ValueError(f"the mutant does not parse: {e}") from None
    code = _find_code(module_code, patch["qualname"].split("."))
    if code is None:
        raise ValueError(f"no function {patch['qualname']} in the mutated source")
    return code


def mutant_function(patch):
    """A new function object running the mutant's code, beside the original (which is left
    alone), so that one worker can call the original and several mutants."""
    _, func = resolve(patch["module"], patch["qualname"], patch.get("role"))
    new = types.FunctionType(compiled(patch, func.__code__), func.__globals__, func.__name__, func.__defaults__, func.__closure__)
    new.__kwdefaults__ = func.__kwdefaults__
    return new


def probed_function(patch, helper):
    """Like :func:`mutant_function`, with the mutant's site instrumented (see
    :mod:`pytest_abex._probe`): the new function and its :class:`~pytest_abex._probe.Probe`,
    stored in the function's globals as ``helper``. A mutant the rewrite cannot handle runs as
    it is, with a probe that says why."""
    _, func = resolve(patch["module"], patch["qualname"], patch.get("role"))
    try:
        text, flags = _wrapped(patch, func.__code__)
        tree = ast.parse(text, patch["file"])
        with open(patch["file"], encoding="utf-8") as f:
            original = f.read()
        probe = _probe.probed_code(original, tree, patch["qualname"], helper)
        module_code = compile(tree, patch["file"], "exec", flags=flags, dont_inherit=True)
        code = _find_code(module_code, patch["qualname"].split("."))
        if code is None or code.co_freevars != func.__code__.co_freevars:
            raise ValueError("the probed function does not fit")
    except Exception as e:  # noqa: BLE001 - any failure leaves the mutant unprobed
        probe = _probe.Probe(none=f"the mutant could not be probed: {type(e).__name__}: {e}")
        code = compiled(patch, func.__code__)
    func.__globals__[helper] = probe
    new = types.FunctionType(code, func.__globals__, func.__name__, func.__defaults__, func.__closure__)
    new.__kwdefaults__ = func.__kwdefaults__
    return new, probe


def traced_function(patch, helper):
    """The function of ``patch`` (the original's own source) with its comparisons traced (see
    :mod:`pytest_abex._trace`): the new function and its :class:`~pytest_abex._trace.Trace`,
    stored in the function's globals as ``helper``."""
    from . import _trace

    _, func = resolve(patch["module"], patch["qualname"], patch.get("role"))
    text, flags = _wrapped(patch, func.__code__)
    tree = ast.parse(text, patch["file"])
    trace = _trace.traced_code(tree, patch["qualname"], helper)
    if trace is None:
        raise ValueError(f"no function {patch['qualname']} to trace")
    code = _find_code(compile(tree, patch["file"], "exec", flags=flags, dont_inherit=True), patch["qualname"].split("."))
    if code is None or code.co_freevars != func.__code__.co_freevars:
        raise ValueError("the traced function does not fit")
    func.__globals__[helper] = trace
    new = types.FunctionType(code, func.__globals__, func.__name__, func.__defaults__, func.__closure__)
    new.__kwdefaults__ = func.__kwdefaults__
    return new, trace


def entry_hooked(func, qualname, hook):
    """A code object for ``func`` that first calls the global ``hook()`` with no argument and
    then runs the function's own body; ``None`` when it cannot be made the same in every other
    way (no source, a closure, a different signature).

    It is compiled from the function's own text with one call put before its first statement,
    on that statement's line, so the code keeps its name, file, line numbers, argument names
    and defaults: what ``inspect.signature``, ``getfullargspec``, tracebacks and ``logging``
    read of it is unchanged (a decorator that stores arguments by name still finds them). The
    hook reads the arguments from its caller's frame when it needs them."""
    code = func.__code__
    if code.co_freevars:
        return None
    try:
        lines, start = inspect.getsourcelines(func)
        file = inspect.getsourcefile(func) or code.co_filename
        patch = {"qualname": qualname, "line": start, "source": "".join(lines)}
        text, flags = _wrapped(patch, code)
        tree = ast.parse(text, file)
        node = _probe.find_def(tree, qualname)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        first = node.body[0]
        docstring = (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                     and isinstance(first.value.value, str))
        at = node.body[1] if docstring and len(node.body) > 1 else first
        call = ast.copy_location(ast.Expr(ast.Call(ast.Name(hook, ast.Load()), [], [])), at)
        node.body.insert(1 if docstring else 0, call)
        ast.fix_missing_locations(tree)
        new = _find_code(compile(tree, file, "exec", flags=flags, dont_inherit=True), qualname.split("."))
    except (OSError, TypeError, SyntaxError, ValueError):
        return None
    return new if new is not None and _same_signature(new, code) else None


def _same_signature(a, b):
    """Whether two code objects take the same arguments under the same names, in the same file
    and under the same name."""
    fields = ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_flags", "co_freevars",
              "co_name", "co_filename", "co_firstlineno")
    arguments = b.co_argcount + b.co_kwonlyargcount + bool(b.co_flags & inspect.CO_VARARGS) \
        + bool(b.co_flags & inspect.CO_VARKEYWORDS)
    return all(getattr(a, f) == getattr(b, f) for f in fields) \
        and a.co_varnames[:arguments] == b.co_varnames[:arguments]


def apply(patch):
    """Applies a patch ``{"module", "qualname", "file", "source", "line"}``; raises ``ValueError`` with
    a reason when the mutant cannot be swapped in (a syntax error, a different closure)."""
    _, func = resolve(patch["module"], patch["qualname"], patch.get("role"))
    func.__code__ = compiled(patch, func.__code__)  # ValueError when the free variables differ


def add_paths(paths):
    """Puts the project's import roots first on ``sys.path``."""
    for p in reversed(paths):
        if p not in sys.path:
            sys.path.insert(0, p)
