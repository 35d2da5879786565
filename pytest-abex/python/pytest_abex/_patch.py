"""Mutant switching for Python: give a live function the code of its mutated source.

Both the worker (witnesses) and the runner (tests of a mutant) import the project as it is, then
swap the target function's ``__code__`` for the one compiled from the mutated file, so every
reference to the function (``from m import f`` included) runs the mutant.
"""

import importlib
import sys
import types


def resolve(module, qualname):
    """The module object and the plain function behind ``module.qualname``."""
    mod = importlib.import_module(module)
    owner = mod
    parts = qualname.split(".")
    for part in parts[:-1]:
        owner = getattr(owner, part)
    raw = owner.__dict__[parts[-1]] if isinstance(owner, type) else getattr(owner, parts[-1])
    func = getattr(raw, "__func__", raw)  # staticmethod / classmethod
    return mod, func


def _find_code(code, path):
    for const in code.co_consts:
        if isinstance(const, types.CodeType) and const.co_name == path[0]:
            if len(path) == 1:
                return const
            found = _find_code(const, path[1:])
            if found is not None:
                return found
    return None


def compiled(patch):
    """The code object of the mutated function of ``patch``; ``ValueError`` with a reason when
    the mutated source does not parse or lacks the function."""
    try:
        module_code = compile(patch["source"], patch["file"], "exec", dont_inherit=True)
    except SyntaxError as e:
        raise ValueError(f"the mutant does not parse: {e}") from None
    code = _find_code(module_code, patch["qualname"].split("."))
    if code is None:
        raise ValueError(f"no function {patch['qualname']} in the mutated source")
    return code


def mutant_function(patch):
    """A new function object running the mutant's code, beside the original (which is left
    alone), so that one worker can call the original and several mutants."""
    _, func = resolve(patch["module"], patch["qualname"])
    new = types.FunctionType(compiled(patch), func.__globals__, func.__name__, func.__defaults__, func.__closure__)
    new.__kwdefaults__ = func.__kwdefaults__
    return new


def apply(patch):
    """Applies a patch ``{"module", "qualname", "file", "source"}``; raises ``ValueError`` with
    a reason when the mutant cannot be swapped in (a syntax error, a different closure)."""
    code = compiled(patch)
    _, func = resolve(patch["module"], patch["qualname"])
    func.__code__ = code  # ValueError when the free variables differ


def add_paths(paths):
    """Puts the project's import roots first on ``sys.path``."""
    for p in reversed(paths):
        if p not in sys.path:
            sys.path.insert(0, p)
