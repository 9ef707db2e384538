r"""The level-reduction solvers of :class:`~symloss.twoqueue.jsq.TwoQueueJSQ` (``method="mp"``,
``"exact"``, ``"symbolic"``), as functions of the model.

Each runs :func:`~symloss.twoqueue.solvers.reduce_levels` on the kernels generated from the model's
``transitions`` (``model.kernels()``): ``"exact"`` in ``fmpq`` rationals (:func:`solve_exact`),
``"symbolic"`` over the field :math:`\mathbb{Q}(\rho)` (:func:`solve_symbolic`), ``"mp"`` with
python-flint ``arb_mat`` midpoints at ``dps + 15`` and ``dps + 30`` digits, every entry required to
agree to ``dps + 2`` digits (:func:`solve_mp`).
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy
from flint import fmpq
from sympy.polys.domains import QQ
from sympy.polys.fields import field

from ..core.precision import PrecisionError, arb_to_mpf, dps_to_prec, flint_prec, to_arb, to_mpf
from ..core.validation import exact_real
from .distribution import TwoQueueDistribution
from .kernels import LevelKernels
from .solvers import assemble_joint, reduce_levels

__all__ = ["to_fmpq", "solve_exact", "solve_symbolic_field", "solve_symbolic", "solve_mp", "residual_kernels"]


def to_fmpq(x):
    """An exact rational load as ``fmpq`` through the input layer (integer-valued binary floats are
    accepted, other binary values are refused: their value is rarely the rational meant).

    Parameters
    ----------
    x : int, fractions.Fraction, flint.fmpq or real
        The load.

    Returns
    -------
    flint.fmpq

    Raises
    ------
    TypeError
        If ``x`` is not an exact rational (or an integer-valued float).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from symloss.twoqueue.exact_solve import to_fmpq
    >>> to_fmpq(Fraction(3, 2)), to_fmpq(2.0)
    (3/2, 2)
    """
    msg = (f"method='exact' needs a rational rho (int, fractions.Fraction or flint.fmpq), got "
           f"{type(x).__name__} {x!r}; write e.g. Fraction(3, 2), or use method='mp'")
    if isinstance(x, fmpq):
        return x
    try:
        v = exact_real(x, "rho")
    except TypeError:
        raise TypeError(msg) from None
    if isinstance(v, bool):
        raise TypeError(msg)
    if isinstance(v, int):
        return fmpq(v)
    if isinstance(v, Fraction) and not isinstance(x, (float, mpmath.mpf)) and type(x).__module__ != "numpy":
        return fmpq(v.numerator, v.denominator)
    if isinstance(v, (float, mpmath.mpf, Fraction)) and v == int(v):
        return fmpq(int(v))
    raise TypeError(msg)


def _total(values):
    """The sum of a non-empty sequence, in its own number type (no zero of another type added)."""
    s = values[0]
    for x in values[1:]:
        s = s + x
    return s


def _normalised(q):
    """Normalised level vectors of exact level vectors ``q``: ``(conditionals c_K, level law pi_K)``."""
    sums = [_total(v) for v in q]
    tot = _total(sums)
    level = [s / tot for s in sums]
    c = [[x / s for x in v] for v, s in zip(q, sums)]
    return c, level


def solve_exact(model) -> TwoQueueDistribution:
    """``method="exact"``: level reduction in ``fmpq`` rationals.

    Parameters
    ----------
    model : TwoQueueJSQ
        The model (rational ``rho``).

    Returns
    -------
    TwoQueueDistribution
        The joint law with ``fmpq`` entries (``method="exact"``).
    """
    rho = to_fmpq(model.rho)
    kern = model.kernels()
    q = reduce_levels(kern, rho, "fmpq")
    c, level = _normalised(q)
    qn = [[x * lv for x in v] for v, lv in zip(c, level)]
    P = assemble_joint(kern, qn, fmpq(0), fmpq(1, 2))
    return TwoQueueDistribution(N=model.N, rho=model.rho, method="exact", p=P, level=level,
                                conditional_levels=c if kern.lumped else None)


def solve_symbolic_field(model, full: bool = False):
    """Level reduction over the field Q(rho) (SymPy ``FracField`` elements), on the kernels generated from
    the model's ``transitions``.

    Parameters
    ----------
    model : TwoQueueJSQ
        The model (its ``rho`` value is not used).
    full : bool
        Also return the level law and the conditional vectors.

    Returns
    -------
    list of list or tuple
        The joint law ``p[m][n]`` as field elements; with ``full``, ``(p, level, conditionals)``.
    """
    F, r = field("rho", QQ)
    kern = model.kernels()
    q = reduce_levels(kern, r, "field")
    c, level = _normalised(q)
    qn = [[x * lv for x in v] for v, lv in zip(c, level)]
    Pf = assemble_joint(kern, qn, F(0), F(1) / 2)
    return (Pf, level, c) if full else Pf


def solve_symbolic(model) -> TwoQueueDistribution:
    r"""``method="symbolic"``: the law as rational functions of :math:`\rho` (SymPy expressions).

    Parameters
    ----------
    model : TwoQueueJSQ
        The model (the value of its ``rho`` is not used: ``rho`` is the positive SymPy symbol).

    Returns
    -------
    TwoQueueDistribution
        The joint law with SymPy entries, rational functions of the symbol ``rho``.
    """
    Pf, level, c = solve_symbolic_field(model, full=True)
    rs = sympy.Symbol("rho", positive=True)

    def conv(x):
        e = x.as_expr()
        return e.subs(sympy.Symbol("rho"), rs)
    P = [[conv(x) for x in row] for row in Pf]
    conds = [[conv(x) for x in v] for v in c] if model.kernels().lumped else None
    return TwoQueueDistribution(N=model.N, rho=rs, method="symbolic", p=P, level=[conv(x) for x in level],
                                conditional_levels=conds)


def solve_mp(model, dps: int) -> TwoQueueDistribution:
    """``method="mp"``: level reduction in ball arithmetic at two working precisions, every entry required
    to agree to ``dps + 2`` digits, rounded to ``dps`` digits.

    Parameters
    ----------
    model : TwoQueueJSQ
        The model.
    dps : int
        Digits of the answer.

    Returns
    -------
    TwoQueueDistribution
        The joint law with ``mpf`` entries correct to ``dps`` digits (``method="mp"``).

    Raises
    ------
    PrecisionError
        If the two precisions disagree.
    """
    kern = model.kernels()
    kern.require("adjacent", "irreducible", solver="method='mp'")
    sizes = kern.sizes

    def compute(work_dps):
        with flint_prec(dps_to_prec(work_dps)):
            q = reduce_levels(kern, to_arb(model.rho), "arb")
            sums = [_total(v) for v in q]
            tot = _total(sums)
            c = [[(x / s).mid() for x in v] for v, s in zip(q, sums)]
            level = [(s / tot).mid() for s in sums]
            return [arb_to_mpf(x) for v in c for x in v] + [arb_to_mpf(x) for x in level]
    lo = compute(dps + 15)
    hi = compute(dps + 30)
    worst = mpmath.mpf(0)
    with mpmath.workdps(dps + 30):
        for u, v in zip(lo, hi):
            if v != 0:
                worst = max(worst, abs(u - v) / abs(v))
            elif u != 0:
                worst = mpmath.inf
    if not worst <= mpmath.mpf(10) ** (-(dps + 2)):
        raise PrecisionError(f"mp solver: values at {dps + 15} and {dps + 30} digits differ by "
                             f"{mpmath.nstr(worst, 3)} (relative); cannot certify {dps} digits")
    c, pos = [], 0
    for nsz in sizes:
        c.append(hi[pos:pos + nsz])
        pos += nsz
    level = hi[pos:]
    with mpmath.workdps(dps + 30):
        qn = [[x * lv for x in v] for v, lv in zip(c, level)]
        Pm = assemble_joint(kern, qn, mpmath.mpf(0), mpmath.mpf(1) / 2)
        res = residual_kernels(kern, to_mpf(model.rho), qn)
    with mpmath.workdps(dps):   # rounding to dps digits
        P = [[+x for x in row] for row in Pm]
        cm = [[+x for x in v] for v in c]
        lm = [+x for x in level]
    return TwoQueueDistribution(N=model.N, rho=model.rho, method="mp", p=P, level=lm,
                                conditional_levels=cm if kern.lumped else None,
                                residual=float(res), error=float(worst), dps=dps)


def residual_kernels(kern: LevelKernels, rho, q):
    """Max relative residual of the generated level equations at the level vectors ``q`` (any number
    type): ``out_i q_K(i) = (U_K q_{K-1} + D_K q_{K+1} + I_K q_K)(i)``.

    Parameters
    ----------
    kern : LevelKernels
        The generated kernels.
    rho : real
        The load, in the number type of ``q``.
    q : list of list
        Level vectors ``q_K``, ``K = 0..2N``.

    Returns
    -------
    number
        In the number type of ``q``.
    """
    worst = 0
    for K in range(2 * kern.N + 1):
        rhs = [0 * x for x in q[K]]
        for M, src in ((kern.U[K], K - 1), (kern.D[K], K + 1), (kern.I[K], K)):
            for (i, j), (c1, c0) in M.items():
                rate = rho * c1.numerator / c1.denominator + c0.numerator / c0.denominator
                rhs[i] += rate * q[src][j]
        for i, x in enumerate(q[K]):
            c1, c0 = kern.out[K][i]
            lhs = (rho * c1.numerator / c1.denominator + c0.numerator / c0.denominator) * x
            if lhs != 0:
                worst = max(worst, abs(lhs - rhs[i]) / abs(lhs))
    return worst
