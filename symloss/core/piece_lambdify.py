"""``sympy.lambdify`` for the evaluators of a piece (``symloss.core.piecewise_pieces``), with each
expression printed once per process.

A new piece of a piecewise-smooth model needs seven evaluators (rows, Jacobian, load derivative,
blocking, branch decisions; floats and ``arb`` balls), and ``sympy.lambdify`` prints every expression
twice (the code and the docstring) on every call: at C = 20 the printing was most of the cost of a new
piece. ``_lambdify`` writes the same code as :func:`~symloss.core.printers.arb_lambdify` and
:func:`~symloss.core.printers.numpy_lambdify` (the same printers and namespaces; the generated sources
are compared in ``tests/core/test_piecewise_compile_speed.py``), memoising the printed text of each
expression (``_printed``, a pure function of the expression). Any input it does not handle (a
``Dummy`` argument, a ``Subs``, an implemented function), or a SymPy without the namespace helper it
uses, goes to ``sympy.lambdify`` itself.
"""
from __future__ import annotations

import builtins
import functools
import itertools
import keyword
import linecache
import weakref

import numpy as np
import sympy as sp
from sympy.printing.numpy import NumPyPrinter

from .printers import _ARB_NS, ArbPrinter

try:                                     # SymPy's own namespace builder (private; absent: sympy.lambdify)
    from sympy.utilities.lambdify import _get_namespace
except ImportError:                      # pragma: no cover - depends on the SymPy version
    _get_namespace = None

_MEMO_SIZE = 1 << 16


def _np_heaviside(x, h0=0.5):
    return np.heaviside(x, h0)


#: the namespaces of the two printers (as :func:`~symloss.core.printers.numpy_lambdify` and
#: :func:`~symloss.core.printers.arb_lambdify` pass them to ``sympy.lambdify``)
_MODULES = {"arb": [_ARB_NS], "np": [{"Heaviside": _np_heaviside}, "numpy"]}


#: the settings of the printer ``sympy.lambdify`` makes for the numpy modules (ArbPrinter: the defaults)
_NP_SETTINGS = {"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": True,
                "user_functions": {"Heaviside": "Heaviside"}}


@functools.lru_cache(maxsize=_MEMO_SIZE)
def _printed(kind: str, e):
    """``(code, module imports)`` of one expression as ``sympy.lambdify`` prints it with the printer
    of ``kind`` (memoised: a pure function of the expression), or None for an expression that needs
    ``sympy.lambdify`` itself (a ``Subs``, an implemented function)."""
    if e.has(sp.Subs) or any(getattr(f.func, "_imp_", None) is not None for f in e.atoms(sp.Function)):
        return None
    pr = ArbPrinter() if kind == "arb" else NumPyPrinter(_NP_SETTINGS)
    code = pr.doprint(e)
    return code, tuple((m, tuple(sorted(ks))) for m, ks in sorted(getattr(pr, "module_imports", {}).items()))


def _lambdify(kind: str, args, expr):
    """``sympy.lambdify(args, expr)`` with the modules and printer of :mod:`symloss.core.printers`
    (``kind``: ``"arb"`` or ``"np"``), for symbol arguments and a (list of lists of) SymPy
    expression(s): the same code, compiled in the same namespace, with each expression printed once
    per process (:func:`_printed`) and without SymPy's docstring (the ``str`` of the expression). Any
    other input goes to ``sympy.lambdify``."""
    names = [str(a) for a in args]
    simple = (all(isinstance(a, sp.Symbol) and not isinstance(a, sp.Dummy) for a in args)
              and all(n.isidentifier() and not keyword.iskeyword(n) for n in names))
    imports: dict = {}

    def text(x):
        if isinstance(x, list):
            parts = [text(y) for y in x]
            return None if None in parts else "[" + ", ".join(parts) + "]"
        if not isinstance(x, sp.Basic):
            return None
        out = _printed(kind, x)
        for m, ks in (out[1] if out is not None else ()):
            imports.setdefault(m, set()).update(ks)
        return None if out is None else out[0]
    body = text(expr) if simple and _get_namespace is not None else None
    if body is None:
        printer = ArbPrinter if kind == "arb" else None
        return sp.lambdify(list(args), expr, modules=_MODULES[kind], printer=printer, docstring_limit=0)
    if "\n" in body:
        body = f"({body})"
    funcstr = f"def _lambdifygenerated({', '.join(names)}):\n    return {body}\n"
    namespace: dict = {}
    for m in _MODULES[kind][::-1]:
        namespace.update(_get_namespace(m))
    if isinstance(expr, sp.Basic):
        namespace.update({str(t): t for t in expr.atoms(sp.Symbol)})
    for mod, keys in imports.items():
        for k in keys:
            if k not in namespace:
                exec(f"from {mod} import {k}", {}, namespace)
    namespace.update({"builtins": builtins, "range": range})
    filename, funclocals = f"<piecewise-generated-{next(_GENERATED)}>", {}
    exec(compile(funcstr, filename, "exec"), namespace, funclocals)
    linecache.cache[filename] = (len(funcstr), None, funcstr.splitlines(True), filename)
    func = funclocals["_lambdifygenerated"]
    weakref.finalize(func, linecache.cache.pop, filename, None)
    return func


_GENERATED = itertools.count()
