"""Tracing the original's comparisons, for the explorer's threshold operator.

The worker (``worker.py``) builds a traced function with :func:`traced_code` when its target
carries ``"trace": true`` and a patch of the function to trace (the original's own source).
Every single comparison ``a OP b`` of the function with an ordering or equality operator is
rewritten as ``helper.cmp(ID, a, b, "OP")``, which evaluates ``a`` and ``b`` once, in their
order, and returns ``a OP b``; chained comparisons (``a < b < c``) are left as they are. After
each call the worker adds ``"probe": Trace.report()`` to its answer (the protocol of
``src/exec/probe.rs``)::

    {"cmps": [[ID, "<", "184", "185"], ...]}

one entry per comparison that ran with two numbers, at its evaluation with the smallest
``|a - b|``. Ids are the comparisons' order in the function's source, from 1.
"""

import ast
import math

from . import _probe

__all__ = ["Trace", "traced_code"]

# The ordering and equality operators of the probes' table.
_OPS = {node: op for node, op in _probe._OPS.items() if op[0] in ("<", "<=", ">", ">=", "==", "!=")}
_FNS = {name: fn for name, fn in _OPS.values()}


def _number(v):
    """A number whose distance to another means something: ints and finite floats, not bools."""
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    return isinstance(v, float) and math.isfinite(v)


def _gap(a, b):
    """``|a - b|``, exact for ints of any size."""
    if isinstance(a, int) and isinstance(b, int):
        return abs(a - b)
    try:
        return abs(float(a) - float(b))
    except OverflowError:
        return math.inf


def _text(v):
    return repr(v) if isinstance(v, float) else str(v)


class Trace:
    """The per-call record of a traced function (see the module comment)."""

    def __init__(self):
        self.closest = {}  # id -> (gap, op, a, b)

    def reset(self):
        self.closest = {}

    def report(self):
        return {"cmps": [[i, op, _text(a), _text(b)] for i, (_, op, a, b) in sorted(self.closest.items())]}

    def cmp(self, cid, a, b, op):
        """Comparison ``cid``: notes ``a`` and ``b`` when they are the closest so far."""
        if _number(a) and _number(b):
            gap = _gap(a, b)
            seen = self.closest.get(cid)
            if seen is None or gap < seen[0]:
                self.closest[cid] = (gap, op, a, b)
        return _FNS[op](a, b)


class _Rewrite(ast.NodeTransformer):
    def __init__(self, helper):
        self.helper = helper
        self.next = 0

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) != 1 or type(node.ops[0]) not in _OPS:
            return node
        self.next += 1
        call = ast.Call(
            func=ast.Attribute(value=ast.Name(id=self.helper, ctx=ast.Load()), attr="cmp", ctx=ast.Load()),
            args=[ast.Constant(value=self.next), node.left, node.comparators[0],
                  ast.Constant(value=_OPS[type(node.ops[0])][0])],
            keywords=[],
        )
        return ast.copy_location(call, node)


def traced_code(module, qualname, helper):
    """Rewrites the function ``qualname`` of the parsed ``module`` in place so that its
    comparisons call the global ``helper`` (a :class:`Trace`, returned); ``None`` when the
    function is not found."""
    node = _probe.find_def(module, qualname)
    if node is None:
        return None
    _Rewrite(helper).visit(node)
    ast.fix_missing_locations(module)
    return Trace()
