r"""The law of the threshold :math:`\rho^*(C, d, d_t)` for large ``C``.

:math:`\rho^*(C, d, d_t)` is the load above which retrial-of-:math:`d_t` (:class:`~symloss.RetrialOfD`)
blocks strictly less than power-of-:math:`d` (:class:`~symloss.PowerOfD`) in the mean field. This
module derives (with SymPy, from the two models' own stationary equations) its expansion as
:math:`C \to \infty`:

.. math:: \rho^*(C, d, d_t) = a^* C + b^* + O(C^{-1}),

the overloaded ("fluid") scaling :math:`\rho = a C`, :math:`a > 1`.

Derivation (each step is checked by :func:`derive_reduced_equations`):

* **Flow balance.** For every policy, carried load = busy servers, so
  :math:`B = 1 - (C - I)/\rho` with :math:`I` the mean number of idle slots per server. At
  :math:`\rho = a C`: :math:`B = 1 - 1/a + I/(aC)`, and retrial blocks less exactly when its
  :math:`I` is smaller: the threshold is the root of :math:`I_{ret}(\rho) = I_{pod}(\rho)`.
* **Retrial-of-d_t.** Detailed balance of the library's drift gives
  :math:`x_{C-j} = x_C\, r^j \prod_{i<j}(1 - i/C)` with :math:`r = C/\Lambda`; with
  :math:`P = \lim x_C` this yields in closed form
  :math:`I_{ret} = I^{(0)}_{ret} + I^{(1)}_{ret}/C + O(C^{-2})`,
  :math:`P^{d_t} = 1 - 1/a`, :math:`I^{(0)}_{ret} = (1 - P)/P`.
* **Power-of-d.** The library's rows, summed from the top and written in the deficits
  :math:`e_j = 1 - u_{C-j}`, are exactly the first-order recursion
  :math:`(1 - e_{j+1})^d = 1 - \tfrac1a[(1 - j/C) e_j - T_j/C]`, :math:`T_j = \sum_{i \ge j} e_i`,
  :math:`e_{-1} = 1`. At :math:`C = \infty`: :math:`e_{n+1} = \varphi(e_n) = 1 - (1 - e_n/a)^{1/d}`,
  :math:`I^{(0)}_{pod} = \sum_{n\ge0} e_n`; the first order :math:`f_j` of :math:`e_j` in
  :math:`1/C` obeys a linear recursion, :math:`I^{(1)}_{pod} = \sum f_j`.
* **Threshold.** :math:`a^*` solves :math:`\Delta_0(a) = I^{(0)}_{ret}(a) - I^{(0)}_{pod}(a) = 0`
  (no closed form: :math:`I^{(0)}_{pod}` is a sum of iterates of :math:`\varphi`), and
  :math:`b^* = -\Delta_1(a^*)/\Delta_0'(a^*)`, :math:`\Delta_1 = I^{(1)}_{ret} - I^{(1)}_{pod}`.

What is PROVED here: the enclosures of :math:`a^*` and :math:`b^*` (ball arithmetic on the
limiting equations, with proved tail bounds of the infinite sums), the uniqueness of the root
:math:`a^*` in a stated window, and the algebraic identities of the derivation (exact SymPy
checks on the library's equations for the tested ``C``). What is NOT proved: that the formal
expansion in :math:`1/C` is the asymptotic expansion of the threshold (the terms neglected are
exponentially small in ``C`` in the derivation, not bounded); it is EVIDENCE from the certified
thresholds (``docs/threshold_law.md``). For ``d = 1`` (random routing) :math:`\rho^* = 0` for every
``C`` and the law is the constant 0.

Size: the derivation, its certified constants and the error table are one argument, read in order; each
step calls the one before it.
"""
from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass, field

import mpmath
import sympy as sp
from flint import arb, ctx, fmpq

from ..core.docstrings import fill_doc
from ..core.model import RHO
from ..core.printers import arb_lambdify
from ..core.validation import check_int
from ._docfragments import MEANFIELD_DOCS
from .models import PowerOfD, RetrialOfD

__all__ = ["ThresholdLaw", "ConstantEnclosure", "threshold_law", "threshold_asymptotic",
           "threshold_constants", "idle_asymptotic", "derive_reduced_equations", "retrial_idle_expansion",
           "A", "EPS", "P", "DT"]

#: the scaled load :math:`a = \rho / C`
A = sp.Symbol("a", positive=True)
#: :math:`\varepsilon = 1/C`
EPS = sp.Symbol("epsilon", positive=True)
#: :math:`P = \lim x_C` (retrial), :math:`P^{d_t} = 1 - 1/a`
P = sp.Symbol("P", positive=True)
#: a symbolic number of retrial attempts (for the general-:math:`d_t` closed form)
DT = sp.Symbol("d_t", positive=True, integer=True)
_J, _I = sp.symbols("j i", integer=True, nonnegative=True)
_R = sp.Symbol("r", positive=True)
_E, _ENEXT, _T, _F, _FNEXT = sp.symbols("e e_next T f f_next")

#: window of ``a`` in which the uniqueness of :math:`a^*` is certified
WINDOW = (fmpq(1) + fmpq(1, 2 ** 40), fmpq(64))
_MAX_D = 64


def _check_pair(d, dt):
    d = check_int(d, "d", min_value=1, max_value=_MAX_D)
    dt = check_int(dt, "dt", min_value=2, max_value=_MAX_D)
    if dt <= d:
        raise ValueError(f"dt must be > d (retrial-of-dt against power-of-d); got d={d}, dt={dt}")
    return d, dt


def _check_pair_digits(d, dt, digits):
    """:func:`_check_pair` and the digits of the certified constants, in ``[10, 200]``."""
    d, dt = _check_pair(d, dt)
    return d, dt, check_int(digits, "digits", min_value=10, max_value=200)


# ==================================================================================================
# the derivation (SymPy, from the library's definitions)
# ==================================================================================================

def _check_power_rows(d: int, C0: int, a) -> None:
    """The rows of ``PowerOfD(C0, d).drift()``, summed from the top and written in deficits, are
    ``a C0`` times the reduced recursion (exact SymPy identity)."""
    model = PowerOfD(C0, d)
    e = sp.symbols(f"e0:{C0}")
    sub = {model.variables[k - 1]: 1 - e[C0 - k] for k in range(1, C0 + 1)}
    sub[RHO] = a * C0
    rows = [sp.expand(r.subs(sub)) for r in model.drift()]          # row index k - 1
    eps = sp.Rational(1, C0)
    X = sp.Add(*e)
    total = sp.Add(*rows)                                           # all rows (J = C0 - 1)
    for J in range(C0):
        m = C0 - J                                                  # rows m..C0
        s_J = sp.Add(*rows[m - 1:])
        e_next = e[J + 1] if J + 1 < C0 else 0                      # u_0 = 1
        T_J = X - sp.Add(*e[:J])
        reduced = (1 - e_next) ** d - 1 + ((1 - eps * J) * e[J] - eps * T_J) / a
        if sp.expand(s_J - total - a * C0 * reduced) != 0:
            raise AssertionError(f"PowerOfD({C0}, {d}): reduced recursion does not match row sum J={J}")
    # and the sum of all rows is the flow balance a C0 (1 - s^d) = C0 - X
    if sp.expand(total - (a * C0 * (1 - (1 - e[0]) ** d) - (C0 - X))) != 0:
        raise AssertionError(f"PowerOfD({C0}, {d}): flow balance does not match")


def _check_retrial_rows(dt: int, C0: int) -> None:
    """Every row of ``RetrialOfD(C0, dt).drift()`` is the birth-death row with arrival rate
    ``Lambda`` (the library's :meth:`~symloss.RetrialOfD.arrival_rate_expr`), and detailed balance
    ``x_k = x_C C!/k! Lambda^(k-C)`` makes those rows vanish identically (``Lambda`` a free symbol)."""
    model = RetrialOfD(C0, dt)
    x = model.variables
    lam = model.arrival_rate_expr()
    L = sp.Symbol("Lambda", positive=True)
    X = (0,) + tuple(x) + (0,)                                      # X[k + 1] = x_k
    template = [L * X[k] * int(k > 0) - (L * int(k < C0) + k) * X[k + 1] + (k + 1) * X[k + 2] * int(k < C0)
                for k in range(C0 + 1)]
    for row, tmpl in zip(model.drift(), template):
        if sp.expand(row - tmpl.subs(L, lam)) != 0:
            raise AssertionError(f"RetrialOfD({C0}, {dt}): a row is not the birth-death row with rate Lambda")
    sub = {x[k]: x[-1] * sp.factorial(C0) / sp.factorial(k) * L ** (k - C0) for k in range(C0)}
    for tmpl in template:
        if sp.cancel(tmpl.subs(sub)) != 0:
            raise AssertionError(f"RetrialOfD({C0}, {dt}): detailed balance does not solve the drift")
    if sp.expand(model.blocking_expr() - x[-1] ** dt) != 0:
        raise AssertionError(f"RetrialOfD({C0}, {dt}): blocking is not x_C^dt")


def _geometric_moment(n: int):
    r""":math:`\sum_{j \ge 0} j^n r^j` as a rational function of ``r``."""
    f = 1 / (1 - _R)
    for _ in range(n):
        f = sp.cancel(_R * sp.diff(f, _R))
    return f


def _geometric_sum(poly_in_j):
    r""":math:`\sum_{j \ge 0} r^j q(j)` for a polynomial ``q``."""
    q = sp.Poly(sp.expand(poly_in_j), _J)
    return sp.Add(*[c * _geometric_moment(m[0]) for m, c in zip(q.monoms(), q.coeffs())])


@functools.lru_cache(maxsize=None)
def _retrial_expansion(dt: int):
    r""":math:`I^{(0)}_{ret}, I^{(1)}_{ret}` in ``P`` (closed forms), from the top-layer sums.

    ``x_{C-j} = x_C y_j``, ``y_j = r^j prod_{i<j} (1 - i eps)``; normalisation ``x_C sum y_j = 1``;
    ``Lambda = C / r = a C (1 - p^dt)/(1 - p)``; idle ``I = x_C sum_j j y_j``.
    """
    c1 = -sp.summation(_I, (_I, 0, _J - 1))                      # eps-coefficient of prod (1 - i eps)
    F = _geometric_sum(1) + EPS * _geometric_sum(c1)              # sum_j y_j to O(eps^2)
    G = _geometric_sum(_J) + EPS * _geometric_sum(_J * c1)        # sum_j j y_j
    p1, r1 = sp.symbols("p1 r1")
    a = 1 / (1 - P ** dt)
    p, r = P + EPS * p1, (1 - P) + EPS * r1

    def coeffs(expr):                                        # Taylor coefficients 0 and 1 in eps
        return expr.subs(EPS, 0), sp.diff(expr, EPS).subs(EPS, 0)
    e1 = coeffs(p * F.subs(_R, r) - 1)
    e2 = coeffs((1 - p) - a * r * (1 - p ** dt))
    if sp.cancel(e1[0]) != 0 or sp.cancel(e2[0]) != 0:
        raise AssertionError("retrial: the leading order is not P^dt = 1 - 1/a")
    sol = sp.solve([e1[1], e2[1]], [p1, r1], dict=True)[0]
    idle = coeffs(p * G.subs(_R, r))
    I0 = sp.factor(sp.cancel(idle[0]))
    I1 = sp.factor(sp.cancel(idle[1].subs(sol)))
    # flow balance I = C (1 - a (1 - p^dt)): its O(1) term (the eps-coefficient of 1 - a (1 - p^dt))
    fb0 = sp.diff(1 - a * (1 - p ** dt), EPS).subs(EPS, 0).subs(sol)
    if sp.cancel(fb0 - I0) != 0:
        raise AssertionError("retrial: idle count and flow balance disagree at leading order")
    return I0, I1


def retrial_idle_expansion(dt):
    r"""Closed forms :math:`I^{(0)}_{ret}, I^{(1)}_{ret}` of the retrial-of-:math:`d_t` idle count
    :math:`I = I^{(0)} + I^{(1)}/C + O(C^{-2})` at :math:`\rho = aC`, in :math:`P` with
    :math:`P^{d_t} = 1 - 1/a` (derived in SymPy from the top-layer sums of the detailed balance).

    Parameters
    ----------
    dt : int in [1, 64] or sympy.Symbol
        The number of attempts; the symbol :data:`DT` gives the general formula.

    Returns
    -------
    tuple of sympy.Expr
        ``(I0, I1)``.

    Raises
    ------
    ValueError, TypeError
        Bad ``dt``.

    Examples
    --------
    >>> from symloss.meanfield.threshold_law import retrial_idle_expansion
    >>> retrial_idle_expansion(2)
    (-(P - 1)/P, -(P - 1)**2*(3*P + 1)/(2*P**4))
    """
    if not isinstance(dt, sp.Symbol):
        dt = check_int(dt, "dt", min_value=1, max_value=_MAX_D)
    return _retrial_expansion(dt)


@functools.lru_cache(maxsize=None)
def _power_expansion(d: int):
    """The reduced power-of-d map and its first order in ``eps`` (SymPy)."""
    reduced = (1 - _ENEXT) ** d - 1 + ((1 - EPS * _J) * _E - EPS * _T) / A
    phi = 1 - (1 - _E / A) ** sp.Rational(1, d)
    if sp.simplify(reduced.subs({EPS: 0, _ENEXT: phi})) != 0:
        raise AssertionError("power: leading map does not solve the reduced recursion")
    # first order: e = e0 + eps f  (d/d eps of the reduced relation at eps = 0)
    g = reduced.subs({_ENEXT: _ENEXT + EPS * _FNEXT, _E: _E + EPS * _F})
    lin = sp.expand(sp.diff(g, EPS).subs(EPS, 0))
    f_next = sp.solve(lin, _FNEXT)[0]
    return phi, sp.factor(f_next), reduced


@fill_doc(MEANFIELD_DOCS)
def derive_reduced_equations(d: int, dt: int, *, check_C=(5,)) -> dict:
    r"""Derive the reduced equations of both models from the library's definitions (SymPy).

    Checks, exactly: the rows of ``PowerOfD(C, d)`` summed from the top are ``a C`` times the
    reduced recursion in deficits (symbolic ``a``, each ``C`` of ``check_C``); the rows of
    ``RetrialOfD(C, dt)`` are birth-death rows that detailed balance solves; the retrial
    expansion's leading order agrees with flow balance. Then expands both in
    :math:`\varepsilon = 1/C`.

    Parameters
    ----------
    {{params_d_dt}}
    check_C : tuple of int in [2, 12], optional
        The capacities at which the library's equations are checked symbolically (default ``(5,)``).

    Returns
    -------
    dict
        ``"I_ret0"``, ``"I_ret1"`` (closed forms in :data:`P`), ``"phi"`` (the map
        :math:`e \mapsto 1 - (1 - e/a)^{1/d}` in ``e``), ``"f_next"`` (the first-order recursion in
        ``e, e_next, f, T, j``), ``"reduced"`` (the exact reduced relation).

    Raises
    ------
    ValueError, TypeError
        Bad ``d``, ``dt``.
    AssertionError
        If a library definition does not have the structure the derivation uses.

    Examples
    --------
    >>> from symloss.meanfield.threshold_law import derive_reduced_equations
    >>> derive_reduced_equations(2, 3)["I_ret0"]
    -(P - 1)/P
    """
    d, dt = _check_pair(d, dt)
    if isinstance(check_C, (int, str)) or not all(isinstance(c, int) and not isinstance(c, bool) and 2 <= c <= 12
                                                  for c in check_C) or not check_C:
        raise ValueError(f"check_C must be a non-empty tuple of ints in [2, 12], got {check_C!r}")
    return _derive(d, dt, tuple(sorted(set(check_C))))


@functools.lru_cache(maxsize=None)
def _derive(d: int, dt: int, check_C: tuple) -> dict:
    for C0 in check_C:
        _check_power_rows(d, C0, A)
        _check_retrial_rows(dt, C0)
    I0, I1 = _retrial_expansion(dt)
    phi, f_next, reduced = _power_expansion(d)
    return {"I_ret0": I0, "I_ret1": I1, "phi": phi, "f_next": f_next, "reduced": reduced}


# ==================================================================================================
# ball evaluation of the limiting quantities (with proved tail bounds)
# ==================================================================================================

def _upper(x: arb) -> arb:
    return arb(x.mid() + x.rad())


@functools.lru_cache(maxsize=None)
def _arb_fns(d: int, dt: int):
    eq = derive_reduced_equations(d, dt)
    I0, I1 = eq["I_ret0"], eq["I_ret1"]
    Pa = (1 - 1 / A) ** sp.Rational(1, dt)
    ret0 = arb_lambdify([P], I0)
    ret1 = arb_lambdify([P], I1)
    dret0 = arb_lambdify([P], sp.diff(I0, P))
    dPda = arb_lambdify([A], sp.diff(Pa, A))
    Pfun = arb_lambdify([A], Pa)
    phi = _stable_phi(eq["phi"], d)
    phi_e = arb_lambdify([_E, A], sp.diff(eq["phi"], _E))
    phi_a = arb_lambdify([_E, A], sp.diff(eq["phi"], A))
    fnext = arb_lambdify([_E, _ENEXT, _F, _T, _J, A], eq["f_next"])
    return ret0, ret1, dret0, dPda, Pfun, phi, phi_e, phi_a, fnext


def _stable_phi(phi_expr, d: int):
    r"""Ball evaluation of the SymPy map :math:`\varphi(e) = 1 - (1 - e/a)^{1/d}` without the
    cancellation of ``1 - (...)`` at small ``e``: as :math:`-\operatorname{expm1}(\operatorname{log1p}(-e/a)/d)`
    (the same function; checked against the SymPy expression at two points before use)."""
    def phi(e, a):
        return -((-e / a).log1p() / d).expm1()
    direct = arb_lambdify([_E, A], phi_expr)
    for e0, a0 in ((fmpq(1, 3), fmpq(3, 2)), (fmpq(1), fmpq(17, 16))):
        if not direct(arb(e0), arb(a0)).overlaps(phi(arb(e0), arb(a0))):
            raise AssertionError("the stable form of phi differs from the derived map")
    return phi


def _geometric_tail_bound(g_N: arb, kappa: arb, S: arb, theta: arb) -> arb:
    r"""Bound of :math:`\sum_{n > N} g_n` when :math:`g_{n+1} \le \kappa g_n + S \theta^{n-N}`,
    :math:`0 \le \kappa < \theta < 1`: :math:`g_n \le G \theta^{n-N}`, :math:`G = \max(g_N, S/(\theta-\kappa))`."""
    G = max(_upper(abs(g_N)), _upper(S / (theta - kappa)))
    return _upper(G * theta / (1 - theta))


def _pod_sums(a: arb, d: int, dt: int):
    r"""Balls of :math:`I^{(0)}_{pod}(a)`, :math:`\partial_a I^{(0)}_{pod}(a)`, :math:`I^{(1)}_{pod}(a)`.

    Iterates :math:`e_{n+1} = \varphi(e_n)` from :math:`e_{-1} = 1`, its ``a``-derivative ``h`` and
    the first order ``f`` until :math:`e_N < 2^{-prec}`, then adds proved tail bounds: ``phi`` is
    convex in ``e`` with ``phi(0) = 0``, so for ``n >= N`` :math:`e_{n+1} \le q e_n`,
    :math:`q = \varphi(E)/E`, and the multipliers of ``h`` and ``f`` are at most their values at
    :math:`E \ge e_N` (both increase with ``e``); :func:`_geometric_tail_bound` bounds the rest.
    """
    _, _, _, _, _, phi, phi_e, phi_a, fnext = _arb_fns(d, dt)
    prec = ctx.prec
    tiny = arb(2) ** (-prec - 8)
    es, hs = [], []
    e, h = arb(1), arb(0)
    for _n in range(40 * prec + 2000):
        h = phi_e(e, a) * h + phi_a(e, a)
        e = phi(e, a)
        es.append(e)
        hs.append(h)
        if _upper(e) < tiny:
            break
    else:  # pragma: no cover - the iteration contracts like 1/(a d)
        raise ArithmeticError(f"the power-of-{d} iteration did not reach 2^-{prec} at a = {a}")
    N = len(es) - 1
    E = _upper(es[-1])
    E = max(E, arb(2) ** (-4 * prec))
    q = _upper(phi(E, a) / E)
    if not q < 1:
        raise ArithmeticError("tail ratio not < 1")
    tail_e = _upper(E * q / (1 - q))
    I0 = sum(es, arb(0)) + arb(0, tail_e)
    # h: |h_{n+1}| <= kappa |h_n| + mu e_n,  mu e_n <= mu E q^(n-N)
    kappa = _upper(phi_e(E, a))
    mu = _upper(abs(phi_a(E, a)) / E)
    theta = (1 + max(kappa, q)) / 2
    if not theta < 1:
        raise ArithmeticError("tail multiplier of the a-derivative not < 1")
    tail_h = _geometric_tail_bound(hs[-1], kappa, mu * E, theta)
    dI0 = sum(hs, arb(0)) + arb(0, tail_h)
    # f: f_{J+1} = (f_J - J e_J - T_J) / (a d (1 - e_{J+1})^(d-1)), f_{-1} = 0, e_{-1} = 1, T_{-1} = 1 + I0
    T = 1 + I0
    f, fs = arb(0), []
    prev_e = arb(1)
    for J in range(-1, N):
        e_next = es[J + 1]
        f = fnext(prev_e, e_next, f, T, arb(J), a)
        fs.append(f)
        T = T - prev_e
        prev_e = e_next
    kappa2 = _upper(1 / (a * d * (1 - E) ** (d - 1)))
    theta2 = (1 + max(kappa2, q)) / 2
    if not theta2 < 1:
        raise ArithmeticError("tail multiplier of the first order not < 1")
    rho_ = q / theta2
    poly = N + 1 / (math.e * (-rho_.log()))            # sup_m (N + m) rho^m
    S = _upper(kappa2 * E * (poly + 1 / (1 - q)))
    tail_f = _geometric_tail_bound(fs[-1], kappa2, S, theta2)
    I1 = sum(fs, arb(0)) + arb(0, tail_f)
    return I0, dI0, I1


def _delta(a: arb, d: int, dt: int):
    r"""Balls of :math:`\Delta_0(a)`, :math:`\Delta_0'(a)`, :math:`\Delta_1(a)`."""
    ret0, ret1, dret0, dPda, Pfun, *_ = _arb_fns(d, dt)
    Pv = Pfun(a)
    I0, dI0, I1 = _pod_sums(a, d, dt)
    return ret0(Pv) - I0, dret0(Pv) * dPda(a) - dI0, ret1(Pv) - I1


# ==================================================================================================
# certified constants
# ==================================================================================================

@dataclass(frozen=True)
class ConstantEnclosure:
    """A constant of the law with a proved enclosure.

    Parameters
    ----------
    name : str
        ``"a_star"`` or ``"b_star"``.
    lo, hi : str
        Decimal strings of the ends (outward rounded): the constant lies in ``[lo, hi]``.
    how : str
        How the enclosure was proved.
    """
    name: str
    lo: str
    hi: str
    how: str

    @property
    def mid(self) -> mpmath.mpf:
        """Midpoint of the enclosure.

        Returns
        -------
        mpmath.mpf
        """
        with mpmath.workdps(max(len(self.lo), 20) + 5):
            return (mpmath.mpf(self.lo) + mpmath.mpf(self.hi)) / 2

    def to_dict(self) -> dict:
        """Plain data.

        Returns
        -------
        dict
            ``name``, ``lo``, ``hi``, ``how``.
        """
        return {"name": self.name, "lo": self.lo, "hi": self.hi, "how": self.how}


def _ball_ends(x: arb):
    """The exact ends ``mid -/+ rad`` of a ball as ``fmpq``."""
    m, r = _dyadic(x.mid()), _dyadic(x.rad())
    return m - r, m + r


def _count_roots_in_window(d: int, dt: int, max_cells: int = 4000) -> int:
    """Number of roots of Delta_0 in WINDOW (proved by subdivision: a cell either has a definite sign,
    or a definite negative/positive derivative and then its end signs count its one root)."""
    lo_w, hi_w = WINDOW
    # cells uniform in log(a - 1) (the equation varies fastest near a = 1)
    cells = []
    n0 = 64
    t_lo, t_hi = math.log(float(lo_w - 1)), math.log(float(hi_w - 1))
    pts = [lo_w] + [fmpq(1) + fmpq(round(math.exp(t_lo + (t_hi - t_lo) * i / n0) * 2 ** 40), 2 ** 40)
                    for i in range(1, n0)] + [hi_w]
    cells = [(pts[i], pts[i + 1]) for i in range(n0)]
    roots, used = 0, 0

    def sign_at(x: fmpq) -> int:
        v = _delta(arb(x), d, dt)[0]
        if v > 0:
            return 1
        if v < 0:
            return -1
        raise ArithmeticError(f"sign of Delta_0 undecided at a = {x}")
    while cells:
        lo, hi = cells.pop()
        used += 1
        if used > max_cells:
            raise ArithmeticError("uniqueness window: too many cells")
        ball = arb(fmpq(lo + hi) / 2, arb(fmpq(hi - lo) / 2))
        D0, D0p, _ = _delta(ball, d, dt)
        if D0 > 0 or D0 < 0:
            continue
        if D0p < 0 or D0p > 0:
            roots += int(sign_at(lo) != sign_at(hi))
            continue
        mid = fmpq(round(float(fmpq(lo + hi) / 2) * 2 ** 50), 2 ** 50)
        if not lo < mid < hi:
            mid = fmpq(lo + hi) / 2
        cells += [(lo, mid), (mid, hi)]
    return roots


@functools.lru_cache(maxsize=None)
def _constants(d: int, dt: int, digits: int):
    prec = int(digits * 3.33) + 40
    with _prec(prec):
        # locate the sign change of Delta_0 (+ near a = 1, - at large a), then Newton on midpoints
        grid = [fmpq(1) + fmpq(1, 2 ** k) for k in range(40, -1, -2)] + [fmpq(2 ** k) for k in range(2, 7)]
        vals = [_delta(arb(x), d, dt)[0] for x in grid]
        idx = next(i for i in range(len(grid) - 1) if vals[i] > 0 and vals[i + 1] < 0)
        lo, hi = grid[idx], grid[idx + 1]
        for _ in range(60):                                 # bisection to float accuracy
            m = (lo + hi) / 2
            if _delta(arb(m), d, dt)[0] > 0:
                lo = m
            else:
                hi = m
        x = arb((lo + hi) / 2)
        for _ in range(12):                                 # Newton on midpoints
            D0, D0p, _ = _delta(x, d, dt)
            x = arb(x.mid() - (D0 / D0p).mid())
        width = arb(2) ** (-prec + 24) * x
        a_lo, a_hi = _dyadic(x.mid() - width.mid()), _dyadic(x.mid() + width.mid())
        s_lo, s_hi = _delta(arb(a_lo), d, dt)[0], _delta(arb(a_hi), d, dt)[0]
        if not (s_lo > 0 and s_hi < 0):
            raise ArithmeticError(f"a*: no certified sign change in [{a_lo}, {a_hi}]")
        a_ball = arb(fmpq(a_lo + a_hi) / 2, arb(fmpq(a_hi - a_lo) / 2))
        D0, D0p, D1 = _delta(a_ball, d, dt)
        if not D0p < 0:
            raise ArithmeticError("a*: derivative of Delta_0 not certified negative on the enclosure")
        b_ball = -D1 / D0p
    with _prec(64):
        n_roots = _count_roots_in_window(d, dt)
    if n_roots != 1:
        raise ArithmeticError(f"Delta_0 has {n_roots} roots in the window {WINDOW}")
    how_a = (f"root of Delta_0(a) = I_ret0(a) - I_pod0(a): certified sign change (arb, {prec} bits, "
             f"proved tail bounds) at both ends, Delta_0' < 0 on the interval, the only root in "
             f"[1 + 2^-40, 64] (certified subdivision)")
    how_b = "b* = -Delta_1(a*)/Delta_0'(a*), ball arithmetic over the enclosure of a* (proved tail bounds)"
    b_lo, b_hi = _ball_ends(b_ball)
    return (ConstantEnclosure("a_star", _round_out(a_lo, digits, -1), _round_out(a_hi, digits, 1), how_a),
            ConstantEnclosure("b_star", _round_out(b_lo, digits, -1), _round_out(b_hi, digits, 1), how_b))


def _round_out(x: fmpq, digits: int, direction: int) -> str:
    """Decimal string of ``x`` rounded outward (down for ``direction = -1``, up for ``+1``)."""
    scale = 10 ** digits
    n = int(x.p) * scale
    den = int(x.q)
    q = n // den if direction < 0 else -((-n) // den)
    sign = "-" if q < 0 else ""
    s = str(abs(q)).rjust(digits + 1, "0")
    return f"{sign}{s[:-digits]}.{s[-digits:]}"


def _dyadic(x) -> fmpq:
    """The exact value of an ``arf``/``arb`` midpoint as ``fmpq``."""
    m, e = arb(x).mid().man_exp()
    return fmpq(int(m)) * (fmpq(2) ** int(e) if e >= 0 else fmpq(1, 2 ** (-int(e))))


class _prec:
    def __init__(self, prec):
        self.prec = prec

    def __enter__(self):
        self.old = ctx.prec
        ctx.prec = self.prec

    def __exit__(self, *exc):
        ctx.prec = self.old


@fill_doc(MEANFIELD_DOCS)
def threshold_constants(d: int, dt: int, *, digits: int = 30):
    r"""The certified constants :math:`a^*, b^*` of :math:`\rho^* = a^* C + b^* + O(1/C)`.

    Parameters
    ----------
    {{params_d_dt}}
    digits : int in [10, 200], optional
        Decimal digits of the enclosures (default 30).

    Returns
    -------
    tuple of ConstantEnclosure or None
        ``(a_star, b_star)``; ``None`` for ``d = 1`` (no threshold: :math:`\rho^* = 0`).

    {{raises_d_dt_digits}}
    ArithmeticError
        If a sign or the uniqueness cannot be certified.

    {{references_retrial_jagerman}}

    Examples
    --------
    >>> from symloss.meanfield.threshold_law import threshold_constants
    >>> a, b = threshold_constants(2, 3, digits=12)
    >>> a.lo[:10], b.lo[:8]
    ('1.04317605', '-2.60188')
    """
    d, dt, digits = _check_pair_digits(d, dt, digits)
    if d == 1:
        return None
    a, b = _constants(d, dt, digits)
    return a, b


# ==================================================================================================
# the law
# ==================================================================================================

@dataclass
class ThresholdLaw:
    r"""The large-``C`` law :math:`\rho^*(C, d, d_t) = a^* C + b^* + O(1/C)`.

    Parameters
    ----------
    d, dt : int
        The pair (power-of-d against retrial-of-dt).
    expressions : dict of sympy.Expr
        ``"rho_star"`` (in ``C``, ``a^*``, ``b^*``), ``"I_ret0"``, ``"I_ret1"`` (closed forms in
        ``a``), ``"phi"`` (the power-of-d map), ``"f_next"`` (its first order), ``"limit_equation"``
        (:math:`\Delta_0(a) = 0` with the sum written symbolically), ``"b_star"``.
    latex : dict of str
        LaTeX of each.
    a_star, b_star : ConstantEnclosure or None
        The certified constants (``None`` for ``d = 1``: :math:`\rho^* = 0`).
    """
    d: int
    dt: int
    expressions: dict
    latex: dict
    a_star: ConstantEnclosure | None = None
    b_star: ConstantEnclosure | None = None
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        """Plain data.

        Returns
        -------
        dict
            The pair, the LaTeX, the enclosures (as dicts) and the notes.
        """
        return {"d": self.d, "dt": self.dt, "latex": dict(self.latex),
                "a_star": self.a_star.to_dict() if self.a_star else None,
                "b_star": self.b_star.to_dict() if self.b_star else None, "notes": list(self.notes)}

    def _repr_latex_(self) -> str:
        return "$" + self.latex["rho_star"] + "$"


_C = sp.Symbol("C", positive=True)
_ASTAR, _BSTAR = sp.symbols("a^* b^*", positive=True)


@fill_doc(MEANFIELD_DOCS)
def threshold_law(d: int, dt: int, *, digits: int = 30) -> ThresholdLaw:
    r"""The law of :math:`\rho^*(C, d, d_t)` as :math:`C \to \infty`: closed-form pieces (SymPy,
    derived from the models' equations), LaTeX, and the certified constants.

    .. math::
        \rho^* = a^* C + b^* + O(C^{-1}),\qquad
        (1 - 1/a^*)^{-1/d_t} - 1 = \sum_{n \ge 0} e_n(a^*),\quad e_{-1} = 1,\
        e_{n+1} = 1 - (1 - e_n/a)^{1/d},

    :math:`b^* = -\Delta_1(a^*)/\Delta_0'(a^*)` (module docstring).

    Parameters
    ----------
    d : int in [1, 64]
        Power-of-d (``d = 1``: random routing; then :math:`\rho^* = 0` for every ``C``).
    dt : int in [2, 64], > d
        Retrial-of-dt.
    digits : int in [10, 200], optional
        Digits of the certified enclosures (default 30).

    Returns
    -------
    ThresholdLaw
        The closed-form pieces and their LaTeX, and the certified :math:`a^*`, :math:`b^*`
        (``None`` for ``d = 1``).

    {{raises_d_dt_digits}}

    {{references_retrial_jagerman}}

    Examples
    --------
    >>> from symloss.meanfield.threshold_law import threshold_law
    >>> law = threshold_law(2, 3, digits=12)
    >>> law.expressions["I_ret0"]
    -1 + (1 - 1/a)**(-1/3)
    >>> law.a_star.lo[:6]
    '1.0431'
    """
    d, dt, digits = _check_pair_digits(d, dt, digits)
    eq = derive_reduced_equations(d, dt)
    Pa = (1 - 1 / A) ** sp.Rational(1, dt)
    I_ret0 = sp.expand(eq["I_ret0"]).subs(P, Pa)
    I_ret1_P = eq["I_ret1"]
    n = sp.Symbol("n", integer=True, nonnegative=True)
    e_n = sp.Function("e")
    limit_eq = sp.Eq(I_ret0, sp.Sum(e_n(n), (n, 0, sp.oo)))
    I_ret1_general = retrial_idle_expansion(DT)[1]
    expressions = {"I_ret0": I_ret0, "I_ret1_in_P": I_ret1_P, "I_ret1_general": I_ret1_general, "P": Pa,
                   "phi": eq["phi"],
                   "f_next": eq["f_next"], "limit_equation": limit_eq}
    notes = []
    if d == 1:
        # phi(e) = e / a: I_pod0 = 1/(a - 1) > I_ret0 for every a > 1 (retrial wins everywhere)
        expressions["rho_star"] = sp.Integer(0)
        notes.append("d = 1: I_pod0 = 1/(a-1) > (1-1/a)^(-1/dt) - 1 = I_ret0 for all a > 1; rho* = 0 "
                     "(the certified thresholds are 0 at every C)")
        a_enc = b_enc = None
    else:
        expressions["rho_star"] = _ASTAR * _C + _BSTAR + sp.O(1 / _C, (_C, sp.oo))
        a_enc, b_enc = threshold_constants(d, dt, digits=digits)
    Delta0, Delta1 = sp.Function(r"\Delta_0"), sp.Function(r"\Delta_1")
    expressions["b_star"] = sp.Eq(_BSTAR, -Delta1(_ASTAR) / sp.Derivative(Delta0(A), A).subs(A, _ASTAR))
    latex = {
        "rho_star": (r"\rho^*(C, d, d_t) = a^* C + b^* + O(C^{-1})" if d > 1 else r"\rho^*(C, 1, d_t) = 0"),
        "I_ret0": r"I^{(0)}_{ret}(a) = " + sp.latex(I_ret0),
        "I_ret1": r"I^{(1)}_{ret} = " + sp.latex(I_ret1_P) + r",\quad P = " + sp.latex(Pa),
        "I_ret1_general": r"I^{(1)}_{ret} = " + sp.latex(I_ret1_general),
        "phi": r"e_{n+1} = " + sp.latex(eq["phi"].subs(_E, sp.Symbol("e_n"))) + r",\quad e_{-1} = 1",
        "f_next": r"f_{j+1} = " + sp.latex(eq["f_next"].subs({_E: sp.Symbol("e_j"), _ENEXT: sp.Symbol("e_{j+1}"),
                                                              _F: sp.Symbol("f_j"), _T: sp.Symbol("T_j")})),
        "limit_equation": r"(1 - 1/a^*)^{-1/d_t} - 1 = \sum_{n\ge 0} e_n(a^*)",
        "b_star": r"b^* = -\frac{I^{(1)}_{ret}(a^*) - I^{(1)}_{pod}(a^*)}{\partial_a (I^{(0)}_{ret} - I^{(0)}_{pod})(a^*)}",
    }
    return ThresholdLaw(d, dt, expressions, latex, a_enc, b_enc, notes)


@fill_doc(MEANFIELD_DOCS)
def threshold_asymptotic(C, d: int, dt: int, *, order: int = 2):
    r"""The law evaluated: :math:`a^* C` (``order=1``) or :math:`a^* C + b^*` (``order=2``).

    Parameters
    ----------
    C : int or float, >= 1
        Capacity.
    {{params_d_dt}}
    order : {1, 2}, optional
        Number of terms (default 2).

    Returns
    -------
    mpmath.mpf
        The asymptotic threshold (``0`` for ``d = 1``), from the midpoints of the certified
        constants (30 digits).

    Raises
    ------
    ValueError, TypeError
        Bad ``C``, ``d``, ``dt`` or ``order``.

    {{references_retrial_jagerman}}

    Examples
    --------
    >>> from symloss.meanfield.threshold_law import threshold_asymptotic
    >>> round(float(threshold_asymptotic(1000, 2, 3)), 3)       # certified: 1040.5809...
    1040.574
    """
    if isinstance(C, bool) or not isinstance(C, numbers.Real) or not math.isfinite(C):
        raise TypeError(f"C must be a finite int or float, got {C!r}")
    C = int(C) if isinstance(C, numbers.Integral) else float(C)
    if C < 1:
        raise ValueError(f"C must be >= 1, got {C}")
    if isinstance(order, bool) or order not in (1, 2):
        raise ValueError(f"order must be 1 or 2, got {order!r}")
    d, dt = _check_pair(d, dt)
    if d == 1:
        return mpmath.mpf(0)
    a, b = threshold_constants(d, dt)
    with mpmath.workdps(30):
        out = a.mid * C
        if order == 2:
            out += b.mid
        return +out


def idle_asymptotic(policy: str, a, d: int, *, order: int = 2, C=None):
    r"""The mean idle slots per server :math:`I = I^{(0)}(a) + I^{(1)}(a)/C` at :math:`\rho = a C`.

    With it the blocking is :math:`B = 1 - 1/a + I/(aC)` (flow balance).

    Parameters
    ----------
    policy : {"retrial", "power"}
        Retrial-of-d or power-of-d.
    a : float or str, > 1
        Scaled load :math:`\rho/C`.
    d : int in [1, 64]
        Number of attempts / of samples.
    order : {1, 2}, optional
        ``1``: :math:`I^{(0)}`; ``2``: with the :math:`1/C` term (needs ``C``).
    C : int or float, optional
        Capacity (for ``order=2``).

    Returns
    -------
    mpmath.mpf
        The value (midpoint of a ball evaluated at 128 bits).

    Raises
    ------
    ValueError, TypeError
        Bad input.

    Examples
    --------
    >>> from symloss.meanfield.threshold_law import idle_asymptotic
    >>> float(idle_asymptotic("retrial", 2, 1, order=1))     # random routing: 1/(a - 1)
    1.0
    """
    if policy not in ("retrial", "power"):
        raise ValueError(f"policy must be 'retrial' or 'power', got {policy!r}")
    d = check_int(d, "d", min_value=1, max_value=_MAX_D)
    if isinstance(order, bool) or order not in (1, 2):
        raise ValueError(f"order must be 1 or 2, got {order!r}")
    try:
        av = mpmath.mpf(a)
    except (TypeError, ValueError):
        raise TypeError(f"a must be a real number > 1, got {a!r}") from None
    if not (mpmath.isfinite(av) and av > 1):
        raise ValueError(f"a must be a finite real number > 1, got {a!r}")
    if order == 2 and (C is None or not isinstance(C, (int, float)) or isinstance(C, bool) or not C >= 1):
        raise ValueError(f"order=2 needs C >= 1, got C={C!r}")
    with _prec(128):
        ab = arb(mpmath.nstr(av, 40))
        if policy == "retrial" or d == 1:              # power-of-1 is random routing = retrial-of-1
            I0s, I1s = _retrial_expansion(d)
            Pv = (1 - 1 / ab) ** arb(fmpq(1, d))
            I0, I1 = arb_lambdify([P], I0s)(Pv), arb_lambdify([P], I1s)(Pv)
        else:
            I0, _, I1 = _pod_sums(ab, d, max(d + 1, 2))
        out = I0 if order == 1 else I0 + I1 / C
        return mpmath.mpf(out.mid().str(40, radius=False))
