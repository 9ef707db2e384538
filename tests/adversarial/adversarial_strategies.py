"""Hypothesis strategies and helpers of the adversarial suite (issue 17).

Every public entry point is probed with three kinds of input:

* **valid** values of every accepted numeric type (int, float, Fraction, Decimal, mpmath.mpf, numpy integer
  and float scalars of every width, python-flint fmpz/fmpq/arb, SymPy numbers) - the result must be right;
* **extreme** values (1e-300 .. 1e300, subnormals, huge integers, huge sizes) - right, or a clear refusal;
* **invalid** values (bool, complex of every kind, str, bytes, None, containers, objects, NaN, +-inf, negative,
  0) - a ``TypeError``/``ValueError`` (or a documented subclass) naming the argument, quickly.

``run_isolated`` runs a snippet in a fresh interpreter with a wall-clock limit, for inputs that could crash
the process (segfault) or hang in compiled code, where pytest-timeout cannot interrupt.
"""
from __future__ import annotations

import decimal
import subprocess
import sys
import textwrap
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp
from flint import arb, fmpq, fmpz
from hypothesis import strategies as st

# --------------------------------------------------------------------------------------------------
# the public API covered by this suite (tests/adversarial/test_coverage.py checks it is all of it)
# --------------------------------------------------------------------------------------------------

COVERED: set = set()


def covers(*names):
    """Decorator: record that a test probes the public names ``names``."""
    COVERED.update(names)

    def deco(f):
        return f
    return deco


# --------------------------------------------------------------------------------------------------
# numeric types
# --------------------------------------------------------------------------------------------------

NUMPY_INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
NUMPY_FLOATS = (np.float16, np.float32, np.float64, np.longdouble)


def as_type(value: Fraction, kind: str):
    """``value`` (a Fraction) as the accepted numeric type ``kind``; returns (object, exact Fraction of
    the object) - the object may round (float, float32, ...), the Fraction is what it really holds."""
    if kind == "int":
        v = int(value)
        return v, Fraction(v)
    if kind == "Fraction":
        return value, value
    if kind == "float":
        v = float(value)
        return v, Fraction(v)
    if kind == "Decimal":
        v = decimal.Decimal(value.numerator) / decimal.Decimal(value.denominator)
        return v, Fraction(v)
    if kind == "mpf":
        with mpmath.workprec(80):
            v = mpmath.mpf(value.numerator) / value.denominator
        s, man, exp, _ = v._mpf_
        f = Fraction(man) * Fraction(2) ** exp
        return v, (-f if s else f)
    if kind == "fmpz":
        v = fmpz(int(value))
        return v, Fraction(int(value))
    if kind == "fmpq":
        return fmpq(value.numerator, value.denominator), value
    if kind == "arb":   # an exact ball (a dyadic point)
        f = float(value)
        return arb(f), Fraction(f)
    if kind == "sympy_Rational":
        return sp.Rational(value.numerator, value.denominator), value
    if kind == "sympy_Integer":
        return sp.Integer(int(value)), Fraction(int(value))
    if kind == "sympy_Float":
        v = sp.Float(float(value), 20)
        s, man, exp, _ = v._mpf_
        f = Fraction(man) * Fraction(2) ** exp
        return v, (-f if s else f)
    if kind.startswith("np."):
        t = getattr(np, kind[3:])
        if np.issubdtype(t, np.integer):
            v = t(int(value))
            return v, Fraction(int(v))
        with np.errstate(over="ignore"):
            v = t(float(value)) if t is not np.longdouble else np.longdouble(value.numerator) / np.longdouble(
                value.denominator)
        if not np.isfinite(v):
            return v, None              # the type cannot hold the value (float16 of 1e300): refused
        n, d = v.as_integer_ratio()
        return v, Fraction(n, d)
    raise KeyError(kind)


REAL_KINDS = ("int", "Fraction", "float", "Decimal", "mpf", "fmpq", "arb", "sympy_Rational", "sympy_Float",
              "np.float16", "np.float32", "np.float64", "np.longdouble")
INTEGER_KINDS = ("int", "fmpz", "sympy_Integer", "np.int8", "np.int16", "np.int32", "np.int64", "np.uint8",
                 "np.uint16", "np.uint32", "np.uint64")


def typed_reals(lo: float, hi: float, kinds=REAL_KINDS):
    """Strategy of (object, exact Fraction value) with the value in [lo, hi] (after the type's rounding
    the value may move slightly; the exact Fraction says where it really is)."""
    def build(args):
        x, kind = args
        return as_type(Fraction(x), kind)
    return st.tuples(st.floats(lo, hi, allow_nan=False, allow_infinity=False), st.sampled_from(kinds)).map(build)


def typed_ints(lo: int, hi: int, kinds=INTEGER_KINDS):
    def ok(args):
        v, kind = args
        if kind.startswith("np.u") and v < 0:
            return False
        if kind.startswith("np.int") or kind.startswith("np.uint"):
            info = np.iinfo(getattr(np, kind[3:]))
            return info.min <= v <= info.max
        return True

    def build(args):
        v, kind = args
        return as_type(Fraction(v), kind)
    return st.tuples(st.integers(lo, hi), st.sampled_from(kinds)).filter(ok).map(build)


class _Opaque:
    def __repr__(self):
        return "<opaque object>"


class _FloatLike:
    """Has __float__ but is not a number: must be refused (no duck-typed silent conversion)."""

    def __float__(self):
        return 1.0


def invalid_type_values():
    """Values of types no numeric argument accepts: each must give a TypeError naming the argument."""
    return [True, False, np.bool_(True), 1 + 2j, complex(1, 0), np.complex128(1 + 0j), np.complex64(1),
            mpmath.mpc(1, 1), None, [1.0], (1.0,), {1.0}, {"x": 1}, b"1", _Opaque(), _FloatLike(), np.array([1.0]),
            np.array([[1.0]]), sp.Symbol("x"), sp.I, sp.sqrt(2) * sp.Symbol("y"), object, float, "abc"]


def string_values():
    """Decimal strings: refused where a function does not document strings."""
    return ["1", "0.5", "1e-3", "7/10", " 2 ", "nan", "inf", "1e99999999"]


NONFINITE = [float("nan"), float("inf"), float("-inf"), np.float64("nan"), np.float32("inf"), mpmath.nan,
             mpmath.inf, -mpmath.inf, decimal.Decimal("NaN"), decimal.Decimal("Infinity"), np.longdouble("inf")]


# --------------------------------------------------------------------------------------------------
# isolation
# --------------------------------------------------------------------------------------------------

def run_isolated(code: str, timeout: float = 30.0) -> tuple[int | None, str, str]:
    """Run ``code`` in a fresh interpreter; returns (returncode, stdout, stderr); returncode ``None``
    when it did not finish within ``timeout`` seconds (the child is killed). A negative return code
    (or 139) is a crash by a signal (segfault)."""
    try:
        p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        return None, exc.stdout or "", exc.stderr or ""
    return p.returncode, p.stdout, p.stderr


def isolated_outcome(expr: str, timeout: float = 30.0, setup: str = "") -> str:
    """Evaluate ``expr`` in a fresh interpreter and describe what happened: ``"ok <repr>"``,
    ``"raised <ExceptionType>: <message>"``, ``"timeout"`` or ``"crash <returncode>"``."""
    code = f"""
import warnings
warnings.simplefilter("ignore")
import numpy as np, mpmath
from fractions import Fraction
import symloss
{setup}
try:
    r = {expr}
    print("ok", repr(r)[:300])
except BaseException as e:
    print("raised", type(e).__name__ + ":", str(e)[:400])
"""
    rc, out, err = run_isolated(code, timeout)
    if rc is None:
        return "timeout"
    if rc != 0:
        return f"crash {rc} {err.strip()[-300:]}"
    return out.strip().splitlines()[-1] if out.strip() else "no output"
