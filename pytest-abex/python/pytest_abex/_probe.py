"""Probes for Python mutants (weak mutation): the mutated function, instrumented so that each
call reports whether the mutated site ran, whether the original and the mutant differed there,
how far from that they were, and how far each guard on the way was from leading there.

The worker (``worker.py``) builds a probed mutant with :func:`probed_code` when its target
carries ``"probe": true``. The site is found by comparing the original function's ``ast`` with
the mutant's; the mutant's ``ast`` is then rewritten, and the rewritten code calls a
:class:`Probe` stored in the function's globals. The protocol (``src/exec/probe.rs``): after each
call the worker adds ``"probe": Probe.report()`` to its answer::

    {"reached": R, "infected": I, "distance": D, "operands": [A, B],
     "guards": [[S, G], ...], "none": W}

How the site's infection is measured:

- a mutated comparison (``<`` → ``<=``, ``in`` → ``not in``…): its operands are evaluated once
  and both operators applied to them;
- a constant, an arithmetic operator or a deleted ``-`` under a comparison, with only
  arithmetic in between and only plain operands (names, constants, attributes, subscripts,
  ``len``/``abs``…): the comparison is evaluated as the mutant and, separately, as the
  original; through ``NAME = …`` the later comparisons that read ``NAME`` compare both values;
- such a site with no comparison above: its value against the original's;
- the default of ``d.get(k, c)`` (``d`` and ``k`` names, attributes or constants): the runs
  where ``k`` is not in ``d``, where the default is used;
- a removed ``not``, a negated condition, a constant outside any comparison: every run infects.

Other sites (``and``/``or``, assignments, replaced return values, several changes) have no
infection probe, only the count of runs. Guards are the conditions of ``if``/``elif``/``while``
and match guards that the site sits in, and those of earlier ``if`` statements whose branch
leaves the block (``return``, ``raise``, ``break``, ``continue``), with the direction that leads
to the site. The rewritten code evaluates every operand of the code under test exactly once,
in its order, except the plain operands of a recomputed original side (and a guard's truth
value, which the probe reads once more).
"""

import ast
import math
import operator

__all__ = ["Probe", "probed_code"]

_OPS = {
    ast.Lt: ("<", operator.lt),
    ast.LtE: ("<=", operator.le),
    ast.Gt: (">", operator.gt),
    ast.GtE: (">=", operator.ge),
    ast.Eq: ("==", operator.eq),
    ast.NotEq: ("!=", operator.ne),
    ast.In: ("in", lambda a, b: a in b),
    ast.NotIn: ("not in", lambda a, b: a not in b),
    ast.Is: ("is", operator.is_),
    ast.IsNot: ("is not", operator.is_not),
}
_FNS = {name: fn for name, fn in _OPS.values()}
_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.BitAnd, ast.BitOr,
          ast.BitXor, ast.LShift, ast.RShift)
_PLAIN_CALLS = {"len", "abs", "int", "float", "round", "min", "max"}


def _number(v):
    return isinstance(v, (int, float)) and not (isinstance(v, float) and math.isnan(v))


def _branch_distance(op, a, b, want):
    """How far ``a op b`` is from evaluating to ``want`` (0 when it does); ``None`` when the
    operands are not numbers or the operator is not an ordering or equality."""
    if not (_number(a) and _number(b)) or op not in ("<", "<=", ">", ">=", "==", "!="):
        return None
    try:
        d = float(a) - float(b)
    except OverflowError:
        return None
    k = 1.0 if isinstance(a, int) and isinstance(b, int) else 2.220446049250313e-16 * max(abs(a), abs(b), 1.0)
    flip = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
    if not want:
        op = flip[op]
    if op == "<":
        return 0.0 if d < 0 else d + k
    if op == "<=":
        return 0.0 if d <= 0 else d
    if op == ">":
        return 0.0 if d > 0 else -d + k
    if op == ">=":
        return 0.0 if d >= 0 else -d
    if op == "==":
        return abs(d)
    return 0.0 if d != 0 else k


def _finite(d):
    return d if d is not None and math.isfinite(d) else None


def _text(v):
    return repr(v) if isinstance(v, float) else str(v)


class Probe:
    """The per-call record of one probed mutant (see the module comment)."""

    def __init__(self, none=None):
        self.none = none
        self.counts = none is None  # whether the site's runs are counted
        self.guards = []  # per guard: (top id, wanted value, condition tree)
        self.atoms_of = {}
        self.reset()

    def reset(self):
        self.reached = 0
        self.infected = 0
        self.known = 0
        self.distance = None
        self.operands = None
        self.atoms = {}  # id -> [fresh, distance to True, distance to False]
        self.shadow = None
        self.seen = [[False, None] for _ in self.guards]

    def report(self):
        r = {"reached": self.reached if self.counts else None}
        none = self.none
        if none is None and self.reached and not self.known:
            none = "the values at the site are not numbers"
        if none is not None:
            r["infected"] = None
            r["none"] = none
        else:
            r["infected"] = self.infected
            r["distance"] = _finite(self.distance)
        if self.operands is not None:
            r["operands"] = [_text(v) for v in self.operands]
        r["guards"] = [[1 if s else 0, _finite(d)] for s, d in self.seen]
        return r

    def _infection(self, infected, distance, operands):
        self.known += 1
        if infected:
            self.infected += 1
            distance = 0.0
        if distance is not None and (self.distance is None or distance < self.distance):
            self.distance = distance
            if operands is not None:
                self.operands = operands

    # ---- calls made by the rewritten code ----

    def reach(self, value, infects=False):
        """The mutated site ran (and, when ``infects``, infected)."""
        self.reached += 1
        if infects:
            self._infection(True, 0.0, None)
        return value

    def default(self, value, mapping, key):
        """The mutated default of ``mapping.get(key, value)`` ran: it infects only where
        ``key`` is not in ``mapping`` (where the default is used). A mapping that cannot say
        counts as infected, as any changed constant does."""
        self.reached += 1
        try:
            used = key not in mapping
        except Exception:
            used = True
        self._infection(used, None, None)
        return value

    def _compare(self, op, a, b, alt_op, p, q):
        """Notes one evaluation: the mutant's ``a op b`` (returned) against the original's
        ``p alt_op q``, which is computed only from ``p`` and ``q``."""
        real = _FNS[op](a, b)
        try:
            alt = _FNS[alt_op](p, q)
        except Exception:  # the original fails where the mutant does not: a difference
            self._infection(True, 0.0, (a, b))
            return real
        d1 = _branch_distance(op, a, b, not real)
        d2 = _branch_distance(alt_op, p, q, not alt)
        d = None if d1 is None or d2 is None else min(d1, d2)
        numbers = (a, b) if _number(a) and _number(b) else None
        self._infection(bool(real) != bool(alt), d, numbers)
        return real

    def arm(self, a, b, op, alt_op):
        """A mutated comparison: both operators on the operands, evaluated once."""
        self.reached += 1
        return self._compare(op, a, b, alt_op, a, b)

    def site(self, mutant, original, op, alt_op):
        """A comparison above the site: ``mutant()`` and ``original()`` give its two operands."""
        a, b = mutant()
        try:
            p, q = original()
        except Exception:
            self._infection(True, 0.0, (a, b))
            return _FNS[op](a, b)
        return self._compare(op, a, b, alt_op, p, q)

    def value(self, mutant, original, shadow=False):
        """The site's own value against the original's; with ``shadow``, the original's is
        kept for the comparisons that read the name it is bound to."""
        v = mutant()
        try:
            o = original()
        except Exception:
            o = _Failed
        if shadow:
            self.shadow = o
            return v
        try:
            same = o is not _Failed and bool(v == o)
        except Exception:
            same = False
        numbers = (v, o) if _number(v) and _number(o) else None
        self._infection(not same, 0.0 if not same else 1.0, numbers)
        return v

    def then(self, a, b, op, side):
        """A comparison reading the name the site's value is bound to, as operand ``side``."""
        if self.shadow is None or self.shadow is _Failed:
            return _FNS[op](a, b)
        p, q = (self.shadow, b) if side == "a" else (a, self.shadow)
        return self._compare(op, a, b, op, p, q)

    def atom(self, aid, value, op=None, b=None, a=None):
        """A boolean a guard reads (or a comparison ``a op b`` giving ``value``)."""
        dt = _branch_distance(op, a, b, True) if op else None
        df = _branch_distance(op, a, b, False) if op else None
        if dt is None or df is None:
            dt, df = (0.0, 1.0) if value else (1.0, 0.0)
        self.atoms[aid] = [True, dt, df]
        return value

    def cmp_atom(self, aid, a, b, op):
        value = _FNS[op](a, b)
        return self.atom(aid, value, op, b, a)

    def guard(self, k, value):
        """Guard ``k``'s whole condition gave ``value``."""
        _, want, tree = self.guards[k]
        hit = bool(value) == want
        d = 0.0 if hit else self._cond_distance(tree, want)
        seen = self.seen[k]
        seen[0] = seen[0] or hit
        seen[1] = d if seen[1] is None else min(seen[1], d)
        for a in self.atoms.values():
            a[0] = False
        return value

    def _cond_distance(self, tree, want):
        kind = tree[0]
        if kind == "atom":
            a = self.atoms.get(tree[1])
            if a is None or not a[0]:
                return 0.0
            return a[1] if want else a[2]
        if kind == "not":
            return self._cond_distance(tree[1], not want)
        x, y = self._cond_distance(tree[1], want), self._cond_distance(tree[2], want)
        both = want if kind == "and" else not want
        return x + y if both else min(x, y)


class _FailedType:
    pass


_Failed = _FailedType()


# ---------------------------------------------------------------------------------------------
# The ast rewrite


def _same(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, ast.AST):
        return all(_same(getattr(a, f, None), getattr(b, f, None)) for f in a._fields)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _diff(a, b, out):
    """The smallest nodes of the mutant ``b`` that differ from the original ``a``: an
    expression or statement, never a bare operator."""
    if type(a) is not type(b):
        out.append((a, b))
        return
    for f in a._fields:
        x, y = getattr(a, f, None), getattr(b, f, None)
        if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            for p, q in zip(x, y):
                if isinstance(p, ast.AST) and not isinstance(p, (ast.cmpop, ast.operator, ast.boolop, ast.unaryop)):
                    if not _same(p, q):
                        _diff(p, q, out)
                elif not _same(p, q):
                    out.append((a, b))
                    return
        elif isinstance(x, ast.AST) and not isinstance(x, (ast.cmpop, ast.operator, ast.boolop, ast.unaryop)):
            if not _same(x, y):
                _diff(x, y, out)
        elif not _same(x, y):
            out.append((a, b))
            return


def _parents(root):
    parents = {}
    for node in ast.walk(root):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


def _replace(parents, old, new):
    parent = parents[old]
    for f in parent._fields:
        v = getattr(parent, f, None)
        if v is old:
            setattr(parent, f, new)
            break
        if isinstance(v, list):
            for i, x in enumerate(v):
                if x is old:
                    v[i] = new
                    break
    parents[new] = parent
    ast.copy_location(new, old)


def _plain(node):
    """Whether evaluating ``node`` again has no effect: names, constants, attributes,
    subscripts, arithmetic and a few builtins of those."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return _plain(node.value)
    if isinstance(node, ast.Subscript):
        return _plain(node.value) and _plain(node.slice)
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITH):
        return _plain(node.left) and _plain(node.right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _plain(node.operand)
    if isinstance(node, ast.Tuple):
        return all(_plain(e) for e in node.elts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _PLAIN_CALLS:
        return not node.keywords and all(_plain(a) for a in node.args)
    return False


def _call(helper, method, *args):
    return ast.Call(
        func=ast.Attribute(value=ast.Name(id=helper, ctx=ast.Load()), attr=method, ctx=ast.Load()),
        args=list(args), keywords=[],
    )


def _lambda(body):
    return ast.Lambda(
        args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                           kwarg=None, defaults=[]),
        body=body,
    )


def _const(v):
    return ast.Constant(value=v)


def _diverges(body):
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Break, ast.Continue))


def _copy(node):
    return ast.parse(ast.unparse(node), mode="eval").body


class _Rewrite:
    """Rewrites one mutated function (see :func:`probed_code`)."""

    def __init__(self, helper, probe, fn):
        self.helper = helper
        self.probe = probe
        self.fn = fn
        self.parents = _parents(fn)
        self.next = 0

    def id(self):
        self.next += 1
        return self.next

    def _arithmetic_path(self, site):
        """The comparison above ``site`` with only arithmetic in between: (compare, the operand
        holding the site), or ``None``."""
        child = site
        while True:
            parent = self.parents.get(child)
            if isinstance(parent, ast.Compare):
                if len(parent.ops) != 1 or type(parent.ops[0]) not in _OPS:
                    return None
                return parent, child
            if isinstance(parent, ast.BinOp) and isinstance(parent.op, _ARITH):
                child = parent
                continue
            if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, (ast.USub, ast.UAdd)):
                child = parent
                continue
            return None

    def _binding(self, site):
        """``NAME`` when ``site`` (through arithmetic) is the value of ``NAME = …``."""
        child = site
        while isinstance(self.parents.get(child), (ast.BinOp, ast.UnaryOp)):
            child = self.parents[child]
        parent = self.parents.get(child)
        if isinstance(parent, ast.Assign) and parent.value is child and len(parent.targets) == 1 \
                and isinstance(parent.targets[0], ast.Name):
            return parent.targets[0].id, child
        if isinstance(parent, ast.AnnAssign) and parent.value is child and isinstance(parent.target, ast.Name):
            return parent.target.id, child
        return None

    def site(self, original, mutant):
        """Instruments the site; returns why it has no infection probe, or ``None``."""
        h = self.helper
        if isinstance(mutant, ast.Compare) and isinstance(original, ast.Compare) \
                and len(mutant.ops) == 1 and len(original.ops) == 1 \
                and type(mutant.ops[0]) in _OPS and type(original.ops[0]) in _OPS \
                and _same(mutant.left, original.left) and _same(mutant.comparators, original.comparators):
            new = _call(h, "arm", mutant.left, mutant.comparators[0],
                        _const(_OPS[type(mutant.ops[0])][0]), _const(_OPS[type(original.ops[0])][0]))
            _replace(self.parents, mutant, new)
            return None
        if isinstance(original, ast.UnaryOp) and isinstance(original.op, ast.Not) and _same(original.operand, mutant):
            _replace(self.parents, mutant, _call(h, "reach", mutant, _const(True)))
            return None
        if isinstance(mutant, ast.UnaryOp) and isinstance(mutant.op, ast.Not) and _same(mutant.operand, original):
            _replace(self.parents, mutant, _call(h, "reach", mutant, _const(True)))
            return None
        numeric = (isinstance(mutant, ast.Constant) and isinstance(mutant.value, (int, float))
                   and not isinstance(mutant.value, bool)) \
            or (isinstance(mutant, ast.BinOp) and isinstance(mutant.op, _ARITH)) \
            or (isinstance(original, ast.UnaryOp) and isinstance(original.op, ast.USub))
        if not numeric:
            if isinstance(mutant, ast.expr):
                _replace(self.parents, mutant, _call(h, "reach", mutant))
                why = "a logical operator: only one side of it runs" if isinstance(mutant, ast.BoolOp) \
                    else "no probe for this kind of change"
                return why
            return "a changed statement"
        plain = _plain(mutant) and _plain(original)
        above = self._arithmetic_path(mutant) if plain else None
        if above is not None:
            compare, holder = above
            side = 0 if holder is compare.left else 1
            other = [compare.left, compare.comparators[0]][1 - side]
            if _plain(other) and _plain_path(self.parents, mutant, holder):
                orig = [_copy(compare.left), _copy(compare.comparators[0])]
                orig[side] = self._original_copy(holder, mutant, original)
                self._reach_at(mutant)
                op = _const(_OPS[type(compare.ops[0])][0])
                real = ast.Tuple(elts=[compare.left, compare.comparators[0]], ctx=ast.Load())
                new = _call(h, "site", _lambda(real), _lambda(ast.Tuple(elts=orig, ctx=ast.Load())), op, op)
                _replace(self.parents, compare, new)
                return None
        binding = self._binding(mutant) if plain else None
        if binding is not None and _plain_path(self.parents, mutant, binding[1]):
            name, value = binding
            readers = self._readers(name, value)
            if readers:
                assign = self.parents[value]
                orig = self._original_copy(value, mutant, original)
                self._reach_at(mutant)
                new = _call(h, "value", _lambda(assign.value), _lambda(orig), _const(True))
                _replace(self.parents, assign.value, new)
                for compare, side in readers:
                    op = _OPS[type(compare.ops[0])][0]
                    _replace(self.parents, compare,
                             _call(h, "then", compare.left, compare.comparators[0], _const(op), _const(side)))
                return None
        if isinstance(mutant, ast.Constant):
            got = self._get_default(mutant)
            if got is not None:
                # The default of ``d.get(k, c)`` is used only where ``k`` is not in ``d``.
                receiver, key = got
                _replace(self.parents, mutant, _call(h, "default", mutant, _copy(receiver), _copy(key)))
                return None
            _replace(self.parents, mutant, _call(h, "reach", mutant, _const(True)))
            return None
        if plain:
            new = _call(h, "value", _lambda(mutant), _lambda(_copy(original)))
            _replace(self.parents, mutant, new)
            self._reach_at(new)
            return None
        _replace(self.parents, mutant, _call(h, "reach", mutant))
        return "the operands are calls: the original's side cannot be evaluated again"

    def _get_default(self, node):
        """``(d, k)`` when ``node`` is the default of ``d.get(k, node)`` with ``d`` and ``k``
        read again without effect (names, attributes, constants), else ``None``."""
        call = self.parents.get(node)
        if not (isinstance(call, ast.Call) and len(call.args) == 2 and call.args[1] is node
                and not call.keywords and isinstance(call.func, ast.Attribute)
                and call.func.attr == "get"):
            return None
        receiver, key = call.func.value, call.args[0]
        simple = (ast.Name, ast.Attribute, ast.Constant)
        if not (isinstance(receiver, (ast.Name, ast.Attribute)) and _plain(receiver)
                and isinstance(key, simple) and _plain(key)):
            return None
        return receiver, key

    def _original_copy(self, holder, mutant, original):
        """A copy of ``holder`` with the original's site in place of the mutant's."""
        if holder is mutant:
            return _copy(original)
        path = []
        node = mutant
        while node is not holder:
            parent = self.parents[node]
            for f in parent._fields:
                v = getattr(parent, f, None)
                if v is node:
                    path.append((f, None))
                elif isinstance(v, list) and any(x is node for x in v):
                    path.append((f, next(i for i, x in enumerate(v) if x is node)))
            node = parent
        copy = _copy(holder)
        at = copy
        for f, i in reversed(path[1:]):
            at = getattr(at, f) if i is None else getattr(at, f)[i]
        f, i = path[0]
        if i is None:
            setattr(at, f, _copy(original))
        else:
            getattr(at, f)[i] = _copy(original)
        return copy

    def _reach_at(self, node):
        """Counts the runs of ``node`` (already rewritten around)."""
        parent = self.parents.get(node)
        if parent is None:
            return
        _replace(self.parents, node, _call(self.helper, "reach", node))

    def _readers(self, name, value):
        """The single comparisons after ``value`` that read ``name`` directly: (compare, side)."""
        out = []
        start = (value.end_lineno or 0, value.end_col_offset or 0)
        for node in ast.walk(self.fn):
            if not isinstance(node, ast.Compare) or len(node.ops) != 1 or type(node.ops[0]) not in _OPS:
                continue
            if (node.lineno, node.col_offset) < start:
                continue
            left, right = node.left, node.comparators[0]
            if isinstance(left, ast.Name) and left.id == name:
                out.append((node, "a"))
            elif isinstance(right, ast.Name) and right.id == name:
                out.append((node, "b"))
        return out

    def guards(self, site):
        """Wraps the guards on the way to ``site`` (its first rewritten ancestor)."""
        found = []
        child = site
        node = self.parents.get(child)
        while node is not None and child is not self.fn:
            if isinstance(node, (ast.If, ast.While)):
                if child in node.body:
                    found.append((node, True))
                elif isinstance(node, ast.If) and child in node.orelse:
                    found.append((node, False))
            if isinstance(node, ast.match_case) and node.guard is not None and child in node.body:
                found.append((node, True))
            for field in ("body", "orelse", "finalbody"):
                block = getattr(node, field, None)
                if isinstance(block, list) and child in block:
                    for earlier in block[:block.index(child)]:
                        self._leaving_if(earlier, found)
            child, node = node, self.parents.get(node)
        found.sort(key=lambda g: (_test(g[0]).lineno, _test(g[0]).col_offset))
        for owner, want in found:
            test = _test(owner)
            k = len(self.probe.guards)
            tree = self._cond(test)
            self.probe.guards.append((k, want, tree))
            wrapped = _call(self.helper, "guard", _const(k), _test(owner))
            ast.copy_location(wrapped, test)
            if isinstance(owner, ast.match_case):
                owner.guard = wrapped
            else:
                owner.test = wrapped
        self.probe.reset()

    def _leaving_if(self, stmt, found):
        while isinstance(stmt, ast.If):
            leaves = _diverges(stmt.body)
            if leaves:
                found.append((stmt, False))
            if len(stmt.orelse) == 1 and isinstance(stmt.orelse[0], ast.If):
                stmt = stmt.orelse[0]
                continue
            if stmt.orelse and not leaves and _diverges(stmt.orelse):
                found.append((stmt, True))
            return

    def _cond(self, test):
        """Instruments a guard's condition in place; its tree for the distance."""
        if isinstance(test, ast.BoolOp):
            trees = [self._cond(v) for v in test.values]
            kind = "and" if isinstance(test.op, ast.And) else "or"
            tree = trees[-1]
            for t in reversed(trees[:-1]):
                tree = (kind, t, tree)
            return tree
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return ("not", self._cond(test.operand))
        aid = self.id()
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _OPS:
            new = _call(self.helper, "cmp_atom", _const(aid), test.left, test.comparators[0],
                        _const(_OPS[type(test.ops[0])][0]))
        else:
            new = _call(self.helper, "atom", _const(aid), test)
        _replace(self.parents, test, new)
        return ("atom", aid)


def _test(owner):
    return owner.guard if isinstance(owner, ast.match_case) else owner.test


def _plain_path(parents, site, holder):
    """Whether every operand along the way from ``holder`` down to ``site`` is plain."""
    node = site
    while node is not holder:
        parent = parents[node]
        for child in ast.iter_child_nodes(parent):
            if child is not node and isinstance(child, ast.expr) and not _plain(child):
                return False
        node = parent
    return True


def find_def(tree, qualname):
    """The ``def`` or ``class`` of ``qualname`` (``Class.method`` through its classes) in a
    parsed module; ``None`` when it is not there."""
    node = tree
    for part in qualname.split("."):
        body = getattr(node, "body", [])
        found = None
        for item in body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and item.name == part:
                found = item
        if found is None:
            return None
        node = found
    return node


def probed_code(original_text, mutant_module, qualname, helper):
    """Rewrites the function ``qualname`` of ``mutant_module`` (the parsed module holding the
    mutated function) against the original file's text; returns its :class:`Probe`. The module
    is changed in place; its code then calls the probe as the global ``helper``."""
    probe = Probe()
    fn = find_def(mutant_module, qualname)
    try:
        original = find_def(ast.parse(original_text), qualname)
    except SyntaxError:
        original = None
    if fn is None or original is None:
        probe.none, probe.counts = "the original function could not be read", False
        return probe
    diffs = []
    _diff(original, fn, diffs)
    if len(diffs) != 1:
        probe.none = "the mutant changes %d places" % len(diffs) if diffs else "the mutant changes nothing"
        probe.counts = False
        return probe
    a, b = diffs[0]
    rewrite = _Rewrite(helper, probe, fn)
    if isinstance(b, ast.stmt) and not isinstance(b, ast.Expr):
        inner = getattr(b, "value", None)
        if isinstance(inner, ast.expr):
            rewrite.guards(b)
            _replace(rewrite.parents, inner, _call(helper, "reach", inner))
            probe.none = "a changed statement"
            ast.fix_missing_locations(mutant_module)
            return probe
        probe.none, probe.counts = "a changed statement", False
        return probe
    rewrite.guards(b)
    probe.none = rewrite.site(a, b)
    probe.reset()
    ast.fix_missing_locations(mutant_module)
    return probe
