"""How the worker calls a target: its callable and its arguments' converters.

A target (``src/python/worker.rs``) names its module, qualified name and kind (``function``,
``method``, ``staticmethod``, ``classmethod``, ``property``, ``setter``, ``init``) and lists its parameters
with their types and how each is passed: ``pos``, ``kw`` (by name), ``unset`` (by name, left
out when ``None``: a parameter whose default is not a literal), ``star`` (a list spread as
``*args``) or ``starstar`` (a dictionary spread as ``**kwargs``). With ``receiver``, the first
argument is the instance a method is called on (a built value); without, a method is called on
a fresh ``Class()``. ``decorated``: the function is called through its decorator (one that
keeps it, as ``functools.wraps`` does, or closes over it). ``is_async``: the coroutine runs on a new event loop.
An ``init`` target builds the class and answers the instance's attributes (``vars``); a
``setter`` target sets the property and answers what it reads back.

A target with a ``patch`` calls that mutant of the function (:mod:`pytest_abex._patch`) the same
way: a decorated one through its decorator, with the mutant's code swapped in for the call.
"""

import inspect

from . import _patch, values


def _owner(mod, qualname):
    obj = mod
    for part in qualname.split(".")[:-1]:
        obj = getattr(obj, part)
    return obj


def _spread(params, vals):
    """Positional and keyword arguments from the converted values, by each parameter's way."""
    args, kwargs = [], {}
    for p, v in zip(params, vals):
        way = p.get("pass", "pos")
        if way == "pos":
            args.append(v)
        elif way == "kw":
            kwargs[p["name"]] = v
        elif way == "unset":
            if v is not None:
                kwargs[p["name"]] = v
        elif way == "star":
            args.extend(v)
        else:
            kwargs.update(v)
    return args, kwargs


def _swapped(wrapper, code):
    """Calls ``wrapper`` with its innermost function running ``code`` (a cache such as
    ``lru_cache``'s is cleared, so that it does not answer for another code)."""
    inner = _patch._plain(wrapper, code.co_name)
    clear = getattr(wrapper, "cache_clear", None)

    def call(*args, **kwargs):
        saved = inner.__code__
        inner.__code__ = code
        if clear:
            clear()
        try:
            return wrapper(*args, **kwargs)
        finally:
            inner.__code__ = saved
            if clear:
                clear()

    return call


def _state(obj):
    """What an ``init`` target answers: the instance's attributes, or the instance."""
    return vars(obj) if hasattr(obj, "__dict__") else obj


# What separates a call's value from the state of its receiver after the call (the core's
# ``value::AFTER``); a suggested test asserts both.
AFTER = " \u27f9 "


class _Changed:
    """A method's result when the call changed its receiver: its repr is the result's, then the
    receiver's state after the call (``None ⟹ receiver = {'n': 2}``)."""

    def __init__(self, result, state):
        self.text = f"{result!r}{AFTER}receiver = {state}"

    def __repr__(self):
        return self.text


def _state_text(obj):
    """The state of a receiver, as a suggested test reads it back: ``repr(vars(obj))``, or
    ``repr(obj)`` for an object without attributes of its own."""
    try:
        return repr(vars(obj)) if hasattr(obj, "__dict__") else repr(obj)
    except Exception:  # a repr that raises: the state is not shown
        return None


def target(t, mutant=None):
    """The callable of target ``t`` (taking the converted arguments, in order) and its
    argument converters (``None`` when the JSON values are the arguments); ``mutant``, the
    function object of ``t``'s patch, is called in the function's place."""
    mod, func = _patch.resolve(t["module"], t["qualname"], "setter" if t["kind"] == "setter" else None)
    kind, name = t["kind"], t["qualname"].rsplit(".", 1)[-1]
    params = t["params"]
    for p in params:
        if p["ty"] is not None:
            values.check(p["ty"])
    owner = _owner(mod, t["qualname"])
    decorated = t.get("decorated") and kind != "property"
    receiver = bool(t.get("receiver"))
    rest = params[1:] if receiver else params

    def bound(instance):
        """The method or attribute of ``instance`` the call runs."""
        if mutant is None:
            return getattr(instance, name)
        if decorated:
            return _swapped(getattr(instance, name), mutant.__code__)
        return lambda *a, **kw: mutant(instance, *a, **kw)

    if kind == "function" or kind == "staticmethod":
        plain = getattr(owner, name)
        if mutant is not None:
            plain = _swapped(plain, mutant.__code__) if decorated else mutant

        def run(*vals):
            args, kwargs = _spread(rest, vals)
            return plain(*args, **kwargs)
    elif kind == "classmethod":

        def run(*vals):
            args, kwargs = _spread(rest, vals)
            if mutant is None:
                return getattr(owner, name)(*args, **kwargs)
            return mutant(owner, *args, **kwargs)
    elif kind == "init":

        def run(*vals):
            args, kwargs = _spread(rest, vals)
            if mutant is None:
                return _state(owner(*args, **kwargs))
            obj = owner.__new__(owner)
            mutant(obj, *args, **kwargs)
            return _state(obj)
    elif kind == "setter":

        def run(*vals):
            instance, value = (vals[0], vals[1]) if receiver else (owner(), vals[0])
            if mutant is None:
                setattr(instance, name, value)
            else:
                mutant(instance, value)
            return getattr(instance, name)  # what reads back
    elif kind == "property":

        def run(*vals):
            instance = vals[0] if receiver else owner()
            return getattr(instance, name) if mutant is None else mutant(instance)
    else:  # a method

        def run(*vals):
            instance = vals[0] if receiver else owner()
            args, kwargs = _spread(rest, vals[1:] if receiver else vals)
            if not receiver or t.get("is_async"):
                return bound(instance)(*args, **kwargs)
            before = _state_text(instance)
            result = bound(instance)(*args, **kwargs)
            after = _state_text(instance)
            return result if after is None or after == before else _Changed(result, after)

    call = run
    if t.get("is_async"):

        # Imported here: asyncio takes longer to import than the rest of the worker, and
        # every worker start (one per explored function's tracer, one per survivors' set)
        # would pay for it.
        import asyncio

        def call(*vals):
            result = run(*vals)
            return asyncio.run(result) if inspect.iscoroutine(result) else result

    convs = [values.converter(p["ty"], p.get("tuple", False)) if p["ty"] else None for p in params]
    if all(c is None for c in convs):
        return call, None
    return call, [c or values._identity for c in convs]
