r"""Truncated power series, and the numbers of the corner law evaluated from its SymPy closed form.

:class:`PowerSeries` is the number type into which the closed-form expressions of
:mod:`symloss.twoqueue.derivation` are lambdified (``sympy.lambdify(..., modules=[{"sqrt": ps_sqrt}])``): the same
expression that prints in LaTeX is the one whose coefficients are extracted. Coefficients are float64
(``numpy``) or ``mpmath.mpf`` (object arrays), so the closed form can be checked against an
independent solve to any precision.

The corner expressions are used in the partial-fraction form in :math:`\zeta` (``sympy.apart``), each
term ``c / (alpha - zeta)^k`` with :math:`\alpha > \zeta(0)`: the power series of :math:`\zeta(X)` has
positive coefficients, so every term is a series of one sign and the coefficient extraction has no
cancellation (checked against level reduction to 1e-14 in float and 1e-35 at 50 digits in the tests).
"""
from __future__ import annotations

import functools

import mpmath
import numpy as np
import sympy

from ..core.validation import check_int, check_real
from . import derivation as dv
from .definition import RULES

__all__ = ["PowerSeries", "ps_sqrt", "corner_conditional_laws"]


class PowerSeries:
    """Truncated power series ``sum c[k] X^k``, ``k < n`` (float64 or mpmath coefficients).

    Supports ``+``, ``-``, ``*``, ``/`` (with series and numbers), integer powers and ``** 0.5``.

    Parameters
    ----------
    c : numpy.ndarray
        The coefficients (float, complex or an object array of ``mpmath.mpf``).

    Examples
    --------
    >>> import numpy as np
    >>> from symloss.twoqueue.series import PowerSeries
    >>> (1 / PowerSeries(np.array([1.0, 1.0, 0.0, 0.0]))).c.tolist()     # 1/(1 + X)
    [1.0, -1.0, 1.0, -1.0]
    """

    __slots__ = ("c",)

    def __init__(self, c):
        self.c = c

    @property
    def n(self):
        """Number of coefficients kept."""
        return len(self.c)

    def _lift(self, o):
        if isinstance(o, PowerSeries):
            return o.c
        out = np.zeros_like(self.c)
        out[0] = self._num(o)
        return out

    def _num(self, o):
        if self.c.dtype == object:
            return o if isinstance(o, (mpmath.mpf, mpmath.mpc, int)) else mpmath.mpf(o)
        if isinstance(o, complex) or np.iscomplexobj(self.c):
            return complex(o)
        return float(o)

    def __add__(self, o):
        return PowerSeries(self.c + self._lift(o))

    __radd__ = __add__

    def __sub__(self, o):
        return PowerSeries(self.c - self._lift(o))

    def __rsub__(self, o):
        return PowerSeries(self._lift(o) - self.c)

    def __neg__(self):
        return PowerSeries(-self.c)

    def __mul__(self, o):
        if isinstance(o, PowerSeries):
            return PowerSeries(_conv(self.c, o.c))
        return PowerSeries(self.c * self._num(o))

    __rmul__ = __mul__

    def inverse(self):
        """``1 / self`` (the constant term must be non-zero).

        Returns
        -------
        PowerSeries
        """
        c = self.c
        n = len(c)
        out = np.zeros_like(c)
        out[0] = 1 / c[0]
        for k in range(1, n):
            s = c[1] * out[k - 1]
            for i in range(2, k + 1):
                s = s + c[i] * out[k - i]
            out[k] = -s / c[0]
        return PowerSeries(out)

    def __truediv__(self, o):
        if isinstance(o, PowerSeries):
            return self * o.inverse()
        return PowerSeries(self.c / self._num(o))

    def __rtruediv__(self, o):
        return self.inverse() * o

    def __pow__(self, k):
        if isinstance(k, (sympy.Rational, float)) and float(k) == 0.5:
            return ps_sqrt(self)
        k = int(k)
        base = self if k >= 0 else self.inverse()
        k = abs(k)
        res = PowerSeries(self._lift(1))
        while k:
            if k & 1:
                res = res * base
            base = base * base
            k >>= 1
        return res


def _conv(u, v):
    n = len(u)
    if u.dtype == object or v.dtype == object:
        out = np.empty(n, dtype=object)
        for k in range(n):
            s = mpmath.mpf(0)
            for i in range(k + 1):
                s += u[i] * v[k - i]
            out[k] = s
        return out
    return np.convolve(u, v)[:n]


def ps_sqrt(s):
    """Square root of a power series with positive constant term (or of a number).

    Parameters
    ----------
    s : PowerSeries or number
        The argument.

    Returns
    -------
    PowerSeries or number

    Examples
    --------
    >>> import numpy as np
    >>> from symloss.twoqueue.series import PowerSeries, ps_sqrt
    >>> ps_sqrt(PowerSeries(np.array([1.0, 1.0, 0.0, 0.0]))).c.tolist()     # sqrt(1 + X)
    [1.0, 0.5, -0.125, 0.0625]
    """
    if not isinstance(s, PowerSeries):
        return mpmath.sqrt(s) if isinstance(s, mpmath.mpf) else np.sqrt(s)
    c = s.c
    n = len(c)
    out = np.zeros_like(c)
    out[0] = mpmath.sqrt(c[0]) if c.dtype == object else np.sqrt(c[0])
    for k in range(1, n):
        acc = c[k]
        for i in range(1, k):
            acc = acc - out[i] * out[k - i]
        out[k] = acc / (2 * out[0])
    return PowerSeries(out)


@functools.lru_cache(maxsize=8)
def _corner_funcs(rules):
    """Lambdified pieces of the corner closed form: zeta(Y) with X = Y/load^2, and base, G0, w/load as
    functions of zeta (partial fractions in zeta)."""
    law = dv.corner_law(rules)
    Y = sympy.Symbol("Y")
    zY = law.kernel_root.subs(dv.X, Y / law.load ** 2)
    f_zeta = sympy.lambdify((Y, dv.a), zY, modules=[{"sqrt": ps_sqrt}, "mpmath"])
    pieces = []
    for e in (law.G0, law.base, law.w / law.load):
        pf = sympy.apart(sympy.factor(e), dv.zeta)
        pieces.append(sympy.lambdify((dv.zeta, dv.a), pf, modules=[{"sqrt": ps_sqrt}, "mpmath"]))
    return f_zeta, pieces


def corner_conditional_laws(a, J: int, *, rules=None, dps: int | None = None):
    r"""Conditional laws :math:`c^{(0)}_j(d)`, ``j = 0..J`` (``d = j mod 2, ..., j``), of the corner law,
    from its closed form (:func:`.derivation.corner_law`) by coefficient extraction.

    ``dps=None``: float64 arrays; otherwise lists of ``mpmath.mpf`` computed at ``dps`` digits.
    ``a`` may be any positive value (for ``a >= 1/2`` the coefficients are those of the analytic
    continuation in ``a``, used by the ``a ~ 1/2`` layer).

    Parameters
    ----------
    a : real or complex
        ``N / rho``, ``> 0`` when real.
    J : int
        Largest corner level, ``>= 0``.
    rules : sequence of Rule, optional
        The rule table (default the Yao-Knessl model's).
    dps : int, optional
        Digits (``>= 5``) of mpmath coefficients; ``None``: float64.

    Returns
    -------
    list
        ``J + 1`` vectors, the law of ``d`` given level ``j`` (float arrays or lists of ``mpf``).

    Raises
    ------
    TypeError
        If ``J`` or ``dps`` is not an integer.
    ValueError
        If ``a``, ``J`` or ``dps`` is out of range.

    Examples
    --------
    >>> from symloss.twoqueue.series import corner_conditional_laws
    >>> [[round(float(v), 10) for v in c] for c in corner_conditional_laws(0.3, 2)]
    [[1.0], [1.0], [0.6384919825, 0.3615080175]]
    """
    J = check_int(J, "J", min_value=0)
    if not isinstance(a, complex):
        check_real(a if not isinstance(a, str) else mpmath.mpf(a), "a", lower=0, lower_open=True)
    if dps is not None:
        dps = check_int(dps, "dps", min_value=5)
    rules = RULES if rules is None else tuple(rules)
    f_zeta, (fG0, fbase, fw) = _corner_funcs(rules)
    n = J // 2 + 1
    if dps is None:
        cplx = isinstance(a, complex)
        Yc = np.zeros(n, dtype=complex if cplx else float)
        if n > 1:
            Yc[1] = 1.0
        av = a if cplx else float(a)
        conv = complex if cplx else float
    else:
        ctx = mpmath.workdps(dps)
        ctx.__enter__()
        Yc = np.array([mpmath.mpf(0)] * n, dtype=object)
        if n > 1:
            Yc[1] = mpmath.mpf(1)
        av = mpmath.mpf(a)
        def conv(x):
            return +x
    try:
        Ys = PowerSeries(Yc)
        z = f_zeta(Ys, av)
        G0 = fG0(z, av)
        base = fbase(z, av)
        w = fw(z, av)
        cols = [G0.c]
        cur = base
        for _D in range(1, J + 1):
            cur = cur * w
            cols.append(cur.c)
        out = []
        for jj in range(J + 1):
            v = [conv(cols[dd][(jj - dd) // 2]) for dd in range(jj % 2, jj + 1, 2)]
            out.append(np.array(v) if dps is None else v)
        return out
    finally:
        if dps is not None:
            ctx.__exit__(None, None, None)
