r"""One-variable Taylor models in ball arithmetic (python-flint ``arb``), for certified enclosures of
a smooth function over an interval together with the dependency between its parts.

A **Taylor model** of order :math:`K` of a function :math:`f` on :math:`m + [-h, h]` is a polynomial
:math:`P` of degree :math:`\le K` and a bound :math:`r` such that

.. math:: f(m + \tau) \in P(\tau) + [-r, r] \qquad \text{for every } |\tau| \le h

(:class:`BallTM`; the coefficients of :math:`P` are ``arb`` balls and the statement holds for the
ball evaluation of :math:`P`). Arithmetic on Taylor models keeps the polynomial part exact in the
sense of ball arithmetic and bounds everything it drops (high-order terms of products, the tail of
an elementary function's Taylor series) in :math:`r`, so that the dependency problem of plain
interval evaluation disappears to order :math:`K` (Berz and Makino 1998; Neumaier 2003).

:class:`ExactTM` is the variant used at the end point of a compactified variable: on ``[0, h]``,

.. math:: f(\tau) \in \sum_{n \le K} c_n \tau^n + \tau^{K+1} R \qquad (0 \le \tau \le h),

with *exact rational* coefficients :math:`c_n` (python-flint ``fmpq``) and a ball :math:`R`. Exact
coefficients let leading terms cancel exactly (two blockings that agree to order :math:`\tau^3`
give a difference whose first three coefficients are exactly 0), and the scaled remainder gives the
sign of :math:`f(\tau)/\tau^m` on the whole half-open interval :math:`(0, h]`.

:class:`DualBallTM` carries a Taylor model of a function and one of its derivative (forward-mode
differentiation), used to prove that a function is strictly monotone on an interval (so that a sign
change there is exactly one zero).

Elementary functions (``inv``, ``pow`` with a rational exponent) are composed by their Taylor series
at the exact midpoint :math:`x_0` of the argument's constant coefficient, with the Lagrange remainder
:math:`g^{(K+1)}(\xi)/(K+1)!\,y^{K+1}` bounded by the ``arb_series`` coefficient of :math:`g` on the
ball that contains every value of the argument.

The module is over 700 lines only because every method carries a full numpydoc docstring (the code
is about 350 lines, one subject: the three Taylor-model types and their arithmetic), so it is kept in
one piece.

References
----------
K. Makino, M. Berz, "Taylor models and other validated functional inclusion methods", Int. J. Pure
Appl. Math. 4 (2003). A. Neumaier, "Taylor forms - use and limits", Reliable Computing 9 (2003).

Size: one algebra: the ball Taylor model and the three model classes whose operators call each other; a
split would put mutually dependent operators in different modules.
"""
from __future__ import annotations

import contextlib

from flint import arb, arb_poly, arb_series, ctx, fmpq, fmpq_poly

from ..core.docstrings import fill_doc
from ._docfragments import MEANFIELD_DOCS

__all__ = ["BallTM", "DualBallTM", "ExactTM", "analytic_tm", "series_cap", "series_coeffs"]


def _upper(x: arb) -> arb:
    """An exact ball ``[u, u]`` with ``u >= |x|`` for every point of ``x``."""
    return arb(abs(x).upper())


@contextlib.contextmanager
def series_cap(n: int):
    """python-flint truncates every ``arb_series`` result at the global ``ctx.cap`` (10 by default),
    whatever the requested length: raise it to at least ``n`` for the duration.

    Parameters
    ----------
    n : int
        The number of series terms needed inside the context; ``ctx.cap`` becomes
        ``max(ctx.cap, n)`` and is restored on exit.

    Yields
    ------
    None
    """
    old = ctx.cap
    ctx.cap = max(old, int(n))
    try:
        yield
    finally:
        ctx.cap = old


def series_coeffs(s: arb_series, n: int) -> list:
    """The first ``n`` coefficients of an ``arb_series`` (zero-padded).

    Parameters
    ----------
    s : flint.arb_series
        The series.
    n : int
        The number of coefficients wanted.

    Returns
    -------
    list of flint.arb
        ``n`` coefficients; trailing coefficients python-flint dropped because they are zero are
        padded with ``arb(0)``.

    Raises
    ------
    ValueError
        When the series is known to fewer than ``n`` terms (``s.prec < n``): a missing coefficient
        is not zero (raise the cap with :func:`series_cap`).
    """
    if s.prec < n:
        raise ValueError(f"series known to {s.prec} terms only, {n} needed (raise the series cap)")
    cs = list(s.coeffs())[:n]
    return cs + [arb(0)] * (n - len(cs))


def _g_inv(x: arb, n: int) -> list:
    with series_cap(n):
        return series_coeffs(arb_series([x, arb(1)], prec=n).inv(), n)


def _g_pow(x: arb, n: int, q) -> list:
    with series_cap(n):
        return series_coeffs(arb_series([x, arb(1)], prec=n) ** q, n)


def _padded(c: list, K: int, zero) -> list:
    """The coefficients ``c`` of a model of order ``K``: truncated or padded with ``zero`` to ``K + 1``."""
    c = c[:K + 1]
    if len(c) < K + 1:
        c += [zero] * (K + 1 - len(c))
    return c


class _Subtraction:
    """``a - b`` as ``a + (-b)``, for the Taylor models (each defines ``+`` and unary ``-``)."""
    __slots__ = ()

    def __sub__(self, o):
        return self + (-o)

    def __rsub__(self, o):
        return (-self) + o


class _BallDivision(_Subtraction):
    """Division of the ball models (:class:`BallTM`, :class:`DualBallTM`): by a model of the same
    class as ``* o.inv()``, by a number as ``* (1 / arb(o))``; ``o / model`` as ``model.inv() * o``."""
    __slots__ = ()

    def __truediv__(self, o):
        if isinstance(o, type(self)):
            return self * o.inv()
        return self * (1 / (o if isinstance(o, arb) else arb(o)))

    def __rtruediv__(self, o):
        return self.inv() * o


def _dg_coeffs(cs: list) -> list:
    """Taylor coefficients of g' from those of g (one fewer)."""
    return [cs[k + 1] * (k + 1) for k in range(len(cs) - 1)]


# ==================================================================================================
# Taylor models with ball coefficients on m + [-h, h]
# ==================================================================================================

@fill_doc(MEANFIELD_DOCS)
class BallTM(_BallDivision):
    """Taylor model ``f(m + tau) in P(tau) + [-r, r]`` for ``|tau| <= h`` (see the module docstring).

    Parameters
    ----------
    c : sequence of flint.arb
        Coefficients of ``P`` in powers of ``tau``; truncated or zero-padded to ``K + 1`` entries.
    r : flint.arb
        Remainder bound (its upper bound is used).
    h : flint.arb
        Half-width of the interval, an exact positive ball.
    K : int
        Order of the model.
    hb : flint.arb, optional
        The ball ``[-h, h]``, passed on by derived models to avoid rebuilding it.
    """
    __slots__ = ("K", "_hb", "c", "h", "r")

    def __init__(self, c, r, h, K, hb=None):
        self.c = _padded(list(c), K, arb(0))
        self.r = r
        self.h = h
        self.K = K
        self._hb = arb(0, h) if hb is None else hb      # the ball [-h, h]

    # ---- construction -------------------------------------------------------------------------
    @classmethod
    def var(cls, m: arb, h: arb, K: int) -> BallTM:
        """The identity ``f(m + tau) = m + tau``.

        Parameters
        ----------
        m : flint.arb
            Midpoint of the interval.
        h : flint.arb
            Half-width of the interval (exact, positive).
        K : int
            Order of the model.

        Returns
        -------
        BallTM
            The model with polynomial ``m + tau`` and remainder 0.
        """
        return cls([m, arb(1)], arb(0), h, K)

    def like(self, c, r) -> BallTM:
        """A model on the same interval and of the same order with new coefficients and remainder.

        Parameters
        ----------
        c : sequence of flint.arb
            Coefficients of the new polynomial part.
        r : flint.arb
            Remainder bound of the new model.

        Returns
        -------
        BallTM
            The model ``sum c_n tau^n + [-r, r]`` on the interval of ``self``, of order ``K``.
        """
        return BallTM(c, r, self.h, self.K, self._hb)

    def const(self, v) -> BallTM:
        """The constant ``v`` as a model on the same interval.

        Parameters
        ----------
        v : flint.arb or number
            The constant (converted with ``arb``).

        Returns
        -------
        BallTM
            Polynomial ``v``, remainder 0.
        """
        return self.like([v if isinstance(v, arb) else arb(v)], arb(0))

    # ---- bounds ---------------------------------------------------------------------------------
    def poly_bound(self, start: int = 0) -> arb:
        """Upper bound of ``|sum_{n >= start} c_n tau^n|`` on ``|tau| <= h``.

        Parameters
        ----------
        start : int, optional
            The lowest power included (0: the whole polynomial part).

        Returns
        -------
        flint.arb
            An exact ball ``[u, u]`` with ``u`` at least that absolute value.
        """
        cs = self.c[start:]
        if not cs:
            return arb(0)
        v = arb_poly(cs)(self._hb)
        if start:
            v = v * self.h ** start
        return _upper(v)

    def enclosure(self) -> arb:
        """A ball containing ``f`` on the whole interval.

        Returns
        -------
        flint.arb
            ``c_0 +- (poly_bound(1) + r)``.
        """
        return self.c[0] + arb(0, 1) * (self.poly_bound(1) + self.r).upper()

    def deviation(self) -> arb:
        """Upper bound of ``|f(m + tau) - c_0|`` on the interval.

        Returns
        -------
        flint.arb
            An exact ball ``[u, u]`` with ``u >= poly_bound(1) + r``.
        """
        return _upper(self.poly_bound(1) + self.r)

    # ---- arithmetic ---------------------------------------------------------------------------
    def __add__(self, o):
        if isinstance(o, BallTM):
            return self.like([a + b for a, b in zip(self.c, o.c)], self.r + o.r)
        c = list(self.c)
        c[0] = c[0] + o
        return self.like(c, self.r)

    __radd__ = __add__

    def __neg__(self):
        return self.like([-a for a in self.c], self.r)

    def __mul__(self, o):
        if not isinstance(o, BallTM):
            o = o if isinstance(o, arb) else arb(o)
            return self.like([a * o for a in self.c], self.r * _upper(o))
        K = self.K
        q = (arb_poly(self.c) * arb_poly(o.c)).coeffs()
        low = q[:K + 1]
        if len(q) > K + 1:
            high = _upper(arb_poly(q[K + 1:])(self._hb)) * self.h ** (K + 1)
        else:
            high = arb(0)
        r = high + self.poly_bound() * o.r + o.poly_bound() * self.r + self.r * o.r
        return self.like(low, r)

    __rmul__ = __mul__

    def compose(self, g) -> BallTM:
        """``g(self)``: compose an analytic function with the model.

        ``g`` is expanded at the exact midpoint ``x0`` of the constant coefficient; the Lagrange
        remainder uses the coefficient of order ``K + 1`` on the ball holding every value of
        ``self``.

        Parameters
        ----------
        g : callable
            ``g(x, n)`` returns the first ``n`` Taylor coefficients of ``g`` at the ball ``x``
            (valid for every point of the ball).

        Returns
        -------
        BallTM
            A model of ``g(f)`` on the same interval and of the same order.
        """
        K = self.K
        x0 = arb(self.c[0].mid())
        y = self - x0
        Y = y.deviation() + _upper(y.c[0])
        gs = g(x0, K + 1)
        G = g(x0 + arb(0, 1) * Y.upper(), K + 2)[K + 1]
        res = y.const(gs[K])
        for n in range(K - 1, -1, -1):
            res = res * y + gs[n]
        res.r = res.r + _upper(G) * Y ** (K + 1)
        return res

    def inv(self) -> BallTM:
        """``1 / self`` (the argument must stay away from 0 on the interval).

        Returns
        -------
        BallTM
            The model of ``1 / self``: the Taylor coefficients of ``1/x`` composed at the constant term.
        """
        return self.compose(_g_inv)

    def pow(self, q) -> BallTM:
        """``self ** q`` for a rational ``q`` (the argument must stay positive).

        Parameters
        ----------
        {{param_q}}

        Returns
        -------
        BallTM
            The model of ``self ** q``: the Taylor coefficients of ``x ** q`` composed at the constant term.
        """
        q = fmpq(q)
        qa = arb(q)
        return self.compose(lambda x, n: _g_pow(x, n, qa))



def analytic_tm(f, m: arb, h: arb, K: int) -> BallTM:
    r"""Taylor model of an analytic function given by its Taylor coefficients.

    Remainder: Lagrange, :math:`|f^{(K+1)}(\xi)/(K+1)!|\,h^{K+1}` with the coefficient bounded on
    the ball ``m +- h``.

    Parameters
    ----------
    f : callable
        ``f(x, n)`` returns the first ``n`` Taylor coefficients of the function at the ball ``x``.
    m, h : flint.arb
        The interval ``m + [-h, h]`` (as in :meth:`BallTM.var`).
    K : int
        Order of the model.

    Returns
    -------
    BallTM
        The model ``f(m + tau) in P(tau) + [-r, r]`` on ``|tau| <= h``.
    """
    cs = f(m, K + 1)
    G = f(m + arb(0, 1) * h, K + 2)[K + 1]
    return BallTM(cs[:K + 1], _upper(G) * h ** (K + 1), h, K)


# ==================================================================================================
# dual numbers of Taylor models (value and derivative)
# ==================================================================================================

@fill_doc(MEANFIELD_DOCS)
class DualBallTM(_BallDivision):
    """A pair (Taylor model of ``f``, Taylor model of ``f'``) on the same interval.

    Parameters
    ----------
    v : BallTM
        Model of the function.
    d : BallTM
        Model of its derivative, on the same interval and of the same order.
    """
    __slots__ = ("d", "v")

    def __init__(self, v: BallTM, d: BallTM):
        self.v = v
        self.d = d

    @classmethod
    def var(cls, m, h, K):
        """The identity ``x = m + tau`` and its derivative 1.

        Parameters
        ----------
        m, h, K
            Interval ``m + [-h, h]`` and order, as in :meth:`BallTM.var`.

        Returns
        -------
        DualBallTM
            Value ``m + tau`` (:meth:`BallTM.var`) and derivative the constant 1.
        """
        v = BallTM.var(m, h, K)
        return cls(v, v.const(1))

    @classmethod
    def from_analytic(cls, f, m, h, K):
        """Value and derivative models of an analytic function (see :func:`analytic_tm`).

        Parameters
        ----------
        f : callable
            ``f(x, n)`` returns the first ``n`` Taylor coefficients at the ball ``x``; the
            derivative's model is built from ``f(x, n + 1)``.
        m, h, K
            Interval ``m + [-h, h]`` and order, as in :meth:`BallTM.var`.

        Returns
        -------
        DualBallTM
            Value ``analytic_tm(f, m, h, K)`` and derivative from the shifted coefficients ``f(x, n + 1)``.
        """
        v = analytic_tm(f, m, h, K)
        d = analytic_tm(lambda x, n: _dg_coeffs(f(x, n + 1)), m, h, K)
        return cls(v, d)

    def const(self, v):
        """The constant ``v`` (derivative 0) on the same interval.

        Parameters
        ----------
        v : flint.arb or number
            The constant.

        Returns
        -------
        DualBallTM
            Value ``v`` and derivative 0, both on the interval of ``self``.
        """
        return DualBallTM(self.v.const(v), self.v.const(0))

    def __add__(self, o):
        if isinstance(o, DualBallTM):
            return DualBallTM(self.v + o.v, self.d + o.d)
        return DualBallTM(self.v + o, self.d)

    __radd__ = __add__

    def __neg__(self):
        return DualBallTM(-self.v, -self.d)

    def __mul__(self, o):
        if isinstance(o, DualBallTM):
            return DualBallTM(self.v * o.v, self.d * o.v + self.v * o.d)
        return DualBallTM(self.v * o, self.d * o)

    __rmul__ = __mul__

    def _compose(self, g):
        gv = self.v.compose(g)
        dg = self.v.compose(lambda x, n: _dg_coeffs(g(x, n + 1)))
        return DualBallTM(gv, dg * self.d)

    def inv(self):
        """``1 / f`` with derivative ``-f' / f**2`` (``f`` must stay away from 0).

        Returns
        -------
        DualBallTM
            Value ``1 / f`` and the chain-rule derivative ``-f' / f**2``.
        """
        return self._compose(_g_inv)

    def pow(self, q):
        """``f ** q`` with derivative ``q f**(q-1) f'`` (``f`` must stay positive).

        Parameters
        ----------
        {{param_q}}

        Returns
        -------
        DualBallTM
            Value ``f ** q`` and the chain-rule derivative ``q f**(q-1) f'``.
        """
        qa = arb(fmpq(q))
        return self._compose(lambda x, n: _g_pow(x, n, qa))



# ==================================================================================================
# Taylor models with exact rational coefficients on [0, h], scaled remainder
# ==================================================================================================

def _binomial_series(q: fmpq, n: int) -> list:
    """Taylor coefficients of ``(1 + y)^q`` at ``y = 0`` (exact)."""
    out = [fmpq(1)]
    b = fmpq(1)
    for k in range(1, n):
        b = b * (q - (k - 1)) / k
        out.append(b)
    return out


@fill_doc(MEANFIELD_DOCS)
class ExactTM(_Subtraction):
    """``f(tau) in sum_{n<=K} c_n tau^n + tau^(K+1) R`` for ``0 <= tau <= h`` (module docstring).

    Parameters
    ----------
    c : sequence of rationals
        Exact coefficients (converted with ``fmpq``), truncated or zero-padded to ``K + 1``.
    R : flint.arb
        Ball containing the scaled remainder ``(f(tau) - P(tau)) / tau^(K+1)`` on ``(0, h]``.
    h : flint.arb
        Right end of the interval ``[0, h]`` (positive).
    K : int
        Order of the model.
    I : flint.arb, optional
        The ball ``[0, h]``, passed on by derived models to avoid rebuilding it.
    """
    __slots__ = ("K", "R", "_I", "c", "h")

    def __init__(self, c, R, h, K, I=None):
        self.c = _padded([fmpq(x) for x in c], K, fmpq(0))
        self.R = R
        self.h = h
        self.K = K
        self._I = arb(0).union(h) if I is None else I        # the ball [0, h]

    @classmethod
    def var(cls, h: arb, K: int) -> ExactTM:
        """The identity ``f(tau) = tau`` on ``[0, h]``.

        Parameters
        ----------
        h : flint.arb
            Right end of the interval.
        K : int
            Order of the model.

        Returns
        -------
        ExactTM
            Coefficients ``[0, 1]`` and scaled remainder 0.
        """
        return cls([0, 1], arb(0), h, K)

    def like(self, c, R):
        """A model on the same interval and of the same order with new coefficients and remainder.

        Parameters
        ----------
        c : sequence of rationals
            Exact coefficients of the new model.
        R : flint.arb
            Scaled remainder of the new model.

        Returns
        -------
        ExactTM
            The model ``sum c_n tau^n + tau^(K+1) R`` on ``[0, h]``, of order ``K``.
        """
        return ExactTM(c, R, self.h, self.K, self._I)

    def const(self, v):
        """The exact constant ``v`` on the same interval.

        Parameters
        ----------
        v : int, fractions.Fraction or flint.fmpq
            The constant, kept exact (``fmpq(v)``): the coefficients of an ``ExactTM`` are rationals.

        Returns
        -------
        ExactTM
            Coefficients ``[v]`` and scaled remainder 0.
        """
        return self.like([fmpq(v)], arb(0))

    def _range(self, cs) -> arb:
        """Ball enclosing ``sum cs[n] tau^n`` over ``[0, h]``."""
        if not cs:
            return arb(0)
        return arb_poly([arb(c) for c in cs])(self._I)

    def range(self) -> arb:
        """Ball enclosing ``f`` on ``[0, h]``.

        Returns
        -------
        flint.arb
            Contains ``f(tau)`` for every ``tau`` in ``[0, h]``: the polynomial part evaluated on the ball,
            plus ``[0, h]^(K+1) R``.
        """
        return self._range(self.c) + self._I ** (self.K + 1) * self.R

    def __add__(self, o):
        if isinstance(o, ExactTM):
            return self.like([a + b for a, b in zip(self.c, o.c)], self.R + o.R)
        c = list(self.c)
        c[0] = c[0] + fmpq(o)
        return self.like(c, self.R)

    __radd__ = __add__

    def __neg__(self):
        return self.like([-a for a in self.c], -self.R)

    def __mul__(self, o):
        if not isinstance(o, ExactTM):
            o = fmpq(o)
            return self.like([a * o for a in self.c], self.R * arb(o))
        K = self.K
        q = (fmpq_poly(self.c) * fmpq_poly(o.c)).coeffs()
        low = q[:K + 1]
        high = self._range(q[K + 1:])            # Q_high(tau) / tau^(K+1) on [0, h]
        hk = self._I ** (K + 1)
        R = high + self._range(self.c) * o.R + self._range(o.c) * self.R + hk * self.R * o.R
        return self.like(low, R)

    __rmul__ = __mul__

    def compose(self, gq, ga) -> ExactTM:
        """``g(self)``: compose a function, expanded exactly at the constant term ``w0``.

        Parameters
        ----------
        gq : callable
            ``gq(w0, n)`` returns the first ``n`` exact (rational) Taylor coefficients of ``g`` at
            the rational constant term ``w0``.
        ga : callable
            ``ga(x, n)`` returns the first ``n`` arb Taylor coefficients of ``g`` at a ball ``x``
            (for the Lagrange remainder).

        Returns
        -------
        ExactTM
            A model of ``g(f)`` on the same interval and of the same order.
        """
        K = self.K
        w0 = self.c[0]
        y = self - w0                 # y(0) = 0 exactly: |y / tau| <= Ybar on [0, h]
        Ybar = _upper(self._range(y.c[1:]) + self._I ** K * y.R)
        gs = gq(w0, K + 1)
        G = ga(arb(w0) + arb(0, 1) * (self.h * Ybar).upper(), K + 2)[K + 1]
        res = y.const(gs[K])
        for n in range(K - 1, -1, -1):
            res = res * y + gs[n]
        res.R = res.R + G * arb(0, 1) * Ybar ** (K + 1)
        return res

    def pow(self, q) -> ExactTM:
        """``self ** q`` (rational ``q``) for a constant term ``w0 > 0`` whose ``q``-th power is
        rational (``w0 = 1`` here).

        Parameters
        ----------
        {{param_q}}

        Returns
        -------
        ExactTM
            The model of ``self ** q`` with exact coefficients (the binomial series of ``(1 + y)^q``).

        Raises
        ------
        ValueError
            When the constant term is not exactly 1.
        """
        q = fmpq(q)
        qa = arb(q)

        def gq(w0, n):
            if w0 != 1:
                raise ValueError("ExactTM.pow needs the constant term 1")
            return _binomial_series(q, n)
        return self.compose(gq, lambda x, n: _g_pow(x, n, qa))

    def inv(self) -> ExactTM:
        """``1 / self`` for a non-zero constant term.

        Returns
        -------
        ExactTM
            The model of ``1 / self`` with exact coefficients (the geometric series at ``w0``).

        Raises
        ------
        ZeroDivisionError
            When the constant term is exactly 0.
        """
        def gq(w0, n):
            if w0 == 0:
                raise ZeroDivisionError("ExactTM.inv of a model with constant term 0")
            return [fmpq((-1) ** k) / w0 ** (k + 1) for k in range(n)]
        return self.compose(gq, _g_inv)

    def __truediv__(self, o):
        if isinstance(o, ExactTM):
            return self * o.inv()
        return self * (1 / fmpq(o))

    def shift(self, s: int) -> ExactTM:
        """``tau^s f(tau)`` as a model of the same order on the same interval: the coefficients move
        up by ``s``; those beyond order ``K`` and the remainder (times ``[0, h]^s``) form the new
        remainder.

        Parameters
        ----------
        s : int
            The power, ``s >= 0``.

        Returns
        -------
        ExactTM
            The model of ``tau^s f(tau)``.

        Raises
        ------
        ValueError
            When ``s`` is negative.
        """
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise ValueError(f"s must be an integer >= 0, got {s!r}")
        if s == 0:
            return self
        K = self.K
        if s > K:                                # every coefficient moves above order K
            high = self._I ** (s - K - 1) * self._range(self.c)
            return self.like([0], high + self._I ** s * self.R)
        cs = [fmpq(0)] * s + list(self.c)
        return self.like(cs[:K + 1], self._range(cs[K + 1:]) + self._I ** s * self.R)

    def leading(self):
        """The lowest exactly non-zero coefficient.

        Returns
        -------
        tuple
            ``(m, c_m)``: its order and value (``(None, None)`` if all vanish).
        """
        for n, c in enumerate(self.c):
            if c != 0:
                return n, c
        return None, None

    def scaled_range(self, m: int) -> arb:
        """Ball enclosing ``f(tau) / tau^m`` on ``(0, h]``.

        Parameters
        ----------
        m : int
            The scaling order; ``c_n = 0`` must hold exactly for ``n < m``.

        Returns
        -------
        flint.arb
            Contains ``f(tau) / tau^m`` for every ``tau`` in ``(0, h]``.

        Raises
        ------
        ValueError
            When a coefficient below order ``m`` is not exactly 0.
        """
        if any(c != 0 for c in self.c[:m]):
            raise ValueError(f"coefficients below order {m} do not all vanish")
        return self._range(self.c[m:]) + self._I ** (self.K + 1 - m) * self.R
