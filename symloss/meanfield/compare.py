r"""Comparisons between any two mean-field models: crossing loads, thresholds and dominance.

For two models ``a`` and ``b`` (any :class:`~symloss.MeanFieldModel`, shipped or user-defined) let
:math:`D(\rho) = \log B_a(\rho) - \log B_b(\rho)`.

* :func:`crossing_loads` finds every load in a range where :math:`D = 0`;
* :func:`threshold_load` is the load above which ``a`` blocks strictly less than ``b`` at every
  larger load (0 when that holds for every load), returned as a :class:`ThresholdLoad`: a number
  (to mpmath, the computed ``mpf``) whose ``repr``/``str``/``to_latex`` say it is EVIDENCE from a float scan;
* :func:`dominance` reports whether one model blocks no more than the other over a range.

The ``(C, d, dt)`` forms of :func:`crossing_loads` and :func:`threshold_load` stay as shorthands for
``model_a = RetrialOfD(C, dt)`` and ``model_b = PowerOfD(C, d)`` (random routing for ``d = 1``), the
question of the paper (Cuesta, Jonckheere, Prabhu, Brun, arXiv:2611.06267, 2026): from which load
does retrial-of-:math:`\tilde d` beat power-of-``d``?

Guarantees. The scan is a float64 log-grid with slope-based refinement (a stated heuristic, see
:func:`crossing_loads`); every crossing it finds is then refined and *certified* by sign changes of
ball-bracketed blockings of both models (each computed by its verified accelerator or by the generic
Krawczyk solver). With ``method="eliminant"`` every crossing is a real root of the resultant of the
two eliminants, isolated exactly, so none is missed in the range. Proofs over *all* loads are the
business of ``symloss verify``.

Modules beside this one (every name stays importable from here): :mod:`~symloss.meanfield.compare_results`
(the result types), :mod:`~symloss.meanfield.compare_pairs` (the pair of models and its log-differences),
:mod:`~symloss.meanfield.crossing_exact` (exact and dyadic arithmetic of the eliminant path).

Size: crossing loads, thresholds, dominance and the entry of the certified comparison share one scan
and one labelling of EVIDENCE and PROVED; they are kept together so that the labels cannot drift
apart.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import sympy as sp
from flint import arb

from ..core.docstrings import fill_doc
from ..core.model import BSYM, RHO
from ..core.precision import DEFAULT_DPS, PrecisionError, check_dps, flint_prec, to_mpf
from ..core.validation import BudgetError, check_int, check_real
from ._docfragments import MEANFIELD_DOCS
from .compare_pairs import (  # noqa: F401  (re-exported: _logdiff, _float_logdiff, _shorthand)
    _equal_at_sample_loads,
    _float_logdiff,
    _identical_models,
    _is_int_like,
    _keyword_shorthand,
    _logdiff,
    _logdiff_models,
    _models,
    _refine_crossing,
    _shorthand,
    _sign,
)
from .compare_results import CrossingResult, DominanceResult
from .crossing_exact import (  # noqa: F401  (re-exported)
    _MAX_EXACT_GCD_DEGREE,
    _arb_dyadic,
    _arb_ends,
    _ball,
    _common_root_data,
    _dyadic_hull,
    _dyadic_in,
    _dyadic_mpf,
    _eval_b,
    _exact_bound,
    _fraction_to_mpf,
    _gcd_sign_change,
    _round_values,
    _sample_sign,
    _Undecided,
)
from .elimination import isolate_real_roots, linear_subresultant, poly_in_b
from .series import blocking_expansion

__all__ = ["crossing_loads", "threshold_load", "dominance", "CrossingResult", "DominanceResult", "ThresholdLoad"]


@fill_doc(MEANFIELD_DOCS)
class ThresholdLoad(Fraction):
    r"""A threshold load found by :func:`threshold_load`: a number that says it is EVIDENCE.

    A thin number type: the exact value of the computed ``mpmath.mpf`` (a dyadic rational, so a
    :class:`fractions.Fraction`) that also exposes ``_mpf_``, so mpmath treats it as that mpf
    (``mpmath.nstr``, ``mpmath.log``, arithmetic with an ``mpf`` gives a plain ``mpf``), symloss's
    argument checks accept it exactly (``model.blocking(threshold)``), ``float()`` and comparisons work,
    and JSON/CSV writers record its digits. Its ``repr``, ``str`` and :meth:`to_latex` carry the status
    ``EVIDENCE`` and how it was found: the largest crossing of a float64 log-grid scan of
    ``[rho_min, rho_max]`` (each crossing bisected with certified ball signs), the search itself not a
    proof that no crossing is missed. A threshold proved for every load is a
    :class:`~symloss.meanfield.certified.CertifiedComparison`
    (:func:`~symloss.meanfield.certified.certified_threshold`, re-checked by
    :func:`~symloss.meanfield.certified.verify_comparison`): PROVED. The thresholds are those of [1]_.

    Parameters
    ----------
    value : mpmath.mpf
        The load (its bits are kept exactly, whatever ``mpmath.mp.dps`` is).
    method : str
        How it was found (one sentence).
    rho_range : (float, float)
        The loads searched.
    models : (str, str), optional
        Names of the two models.
    dps : int, optional
        Digits it was computed to (those shown by ``repr`` and ``str``).

    Attributes
    ----------
    status : str
        Always ``"EVIDENCE"``.

    Raises
    ------
    ValueError
        If ``value`` is not finite.

    {{references_retrial}}

    Examples
    --------
    >>> import mpmath
    >>> t = ThresholdLoad(mpmath.mpf("0.949635604002727"), dps=15, rho_range=(0.01, 150),
    ...                   method="largest crossing in a float scan of [0.01, 150]")
    >>> t
    ThresholdLoad(0.949635604002727, EVIDENCE: largest crossing in a float scan of [0.01, 150])
    >>> float(t), t > 0.9, mpmath.nstr(t, 6), type(t * mpmath.mpf(2)).__name__
    (0.949635604002727, True, '0.949636', 'mpf')
    >>> print(t.to_latex(digits=6))
    $\rho^{*} = 0.949636$ (EVIDENCE: largest crossing in a float scan of [0.01, 150])
    """

    __slots__ = ("_mpf_", "status", "method", "rho_range", "models", "dps")

    def __new__(cls, value, *, method: str, rho_range=(None, None), models=(None, None), dps: int | None = None):
        mpf = value if isinstance(value, mpmath.mpf) else mpmath.mpf(value)
        sign, man, exp, _bc = mpf._mpf_
        if not man and mpf._mpf_ != mpmath.mpf(0)._mpf_:
            raise ValueError(f"value must be a finite load, got {mpf}")
        num = (-1) ** sign * int(man)
        self = super().__new__(cls, num * 2 ** exp if exp >= 0 else Fraction(num, 2 ** -exp))
        self._mpf_ = mpf._mpf_
        self.status = "EVIDENCE"
        self.method = str(method)
        self.rho_range = tuple(rho_range)
        self.models = tuple(models)
        self.dps = None if dps is None else int(dps)
        return self

    @classmethod
    def from_float(cls, f):          # what Fraction's comparisons with a float call: a plain Fraction
        return Fraction.from_float(f)

    @classmethod
    def from_decimal(cls, dec):
        return Fraction.from_decimal(dec)

    def __reduce__(self):
        return (_rebuild_threshold, (self._mpf_, self.method, self.rho_range, self.models, self.dps))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def value(self) -> mpmath.mpf:
        """The number as a plain ``mpmath.mpf`` (all its bits, whatever ``mpmath.mp.dps`` is).

        Returns
        -------
        mpmath.mpf
        """
        v = mpmath.mpf.__new__(mpmath.mpf)
        v._mpf_ = self._mpf_
        return v

    def _digits(self, digits=None) -> str:
        n = digits or self.dps or 15
        return "0" if not self else mpmath.nstr(self.value(), n)

    def how(self) -> str:
        """How the value was found, with its status: ``"EVIDENCE: <method>"``.

        Returns
        -------
        str
        """
        return f"{self.status}: {self.method}"

    def __repr__(self) -> str:
        return f"ThresholdLoad({self._digits()}, {self.how()})"

    def __str__(self) -> str:
        if not self:
            return f"0 (better at every load; {self.how()})"
        return f"{self._digits()} ({self.how()})"

    def __format__(self, spec: str) -> str:
        return format(float(self), spec) if spec else str(self)

    def to_dict(self) -> mpmath.mpf:
        """The value symloss's JSON, CSV and table writers record: the number itself (a plain ``mpf``).

        Those writers (:func:`symloss.core.results.to_jsonable`) turn an object with ``to_dict()`` into
        the JSON of what it returns; for a threshold that is its digits, so sweeps, tables and
        ``--json`` files keep a number. The status and the method are in :meth:`record`.

        Returns
        -------
        mpmath.mpf
        """
        return self.value()

    def record(self) -> dict:
        """Plain data: the value (its digits), the status, the method, the range searched, the models.

        Returns
        -------
        dict
        """
        lo, hi = self.rho_range
        return {"threshold": self._digits(), "status": self.status, "method": self.method,
                "rho_min": lo, "rho_max": hi, "models": list(self.models), "dps": self.dps}

    def to_latex(self, digits: int | None = None, *, symbol: str = r"\rho^{*}") -> str:
        r"""The threshold for a paper: ``$\rho^{*} = ...$ (EVIDENCE: ...)``, text-mode LaTeX.

        Parameters
        ----------
        digits : int, optional
            Significant digits, ``1 <= digits <= 100000`` (default: the digits it was computed to).
        symbol : str
            The math name of the threshold.

        Returns
        -------
        str
            The value in math mode followed by its status and how it was found, e.g.
            ``$\rho^{*} = 0.949636$ (EVIDENCE: largest crossing in a float scan of [0.01, 150], ...)``.

        Raises
        ------
        ValueError
            If ``digits`` is out of range.
        """
        from ..core.latex import escape_text
        from ..core.paper_numbers import _check_digits, _num_math
        digits = _check_digits(digits)
        if not self:
            return f"${symbol} = 0$ (better at every load; {escape_text(self.how())})"
        num = _num_math(mpmath.nstr(self.value(), digits or self.dps or 15), digits or self.dps or 15)
        return f"${symbol} = {num}$ ({escape_text(self.how())})"

    def _repr_latex_(self) -> str:
        return self.to_latex()


def _rebuild_threshold(mpf_tuple, method, rho_range, models, dps):
    v = mpmath.mpf.__new__(mpmath.mpf)
    v._mpf_ = tuple(mpf_tuple)
    return ThresholdLoad(v, method=method, rho_range=rho_range, models=models, dps=dps)


#: Irreducible factors of the resultant up to this degree may use the exact gcd over Q[rho]/(q)
#: (Euclid in K[B]; its coefficients grow fast: degree 41 did not end in minutes).

def _blocking_ball(model, lo: Fraction, hi: Fraction, prec: int) -> arb:
    """Enclosure of the model's blocking for every load of [lo, hi] (parametric Krawczyk)."""
    try:
        return model.enclose(_dyadic_mpf(lo), _dyadic_mpf(hi), prec=prec).blocking
    except (PrecisionError, ValueError, ArithmeticError, ZeroDivisionError) as exc:
        raise _Undecided(f"no certified enclosure of the blocking of {model!r} on [{lo}, {hi}] ({exc})") from None


def _decide_root(a, b, Pa, Pb, G, root):
    """Is the root of the resultant in ``root`` a crossing (``B_a = B_b`` there)?

    Returns ``("crossing", order)`` or ``("excluded", reason)``; raises :class:`_Undecided`.

    ``G`` (:func:`_common_root_data`) is either the degree-1 subresultant ``h1 B + h0`` with ``h1``
    and both leading coefficients in ``B`` non-zero at the root (then the common root of ``P_a`` and
    ``P_b`` there exists and is unique: ``-h0/h1``), or the exact monic gcd of ``P_a`` and ``P_b``
    over the root's irreducible factor (whose roots are the common roots).

    Crossing: with ``E_a``, ``E_b`` enclosures of the two blockings over a small interval ``I``
    around the root and ``E`` a widening of their hull, ``dP_a/dB`` and ``dP_b/dB`` have no zero on
    ``I x E`` (each eliminant has at most one root in ``E``, which is then the model's blocking), and
    ``G`` changes sign over ``E`` (a common root in ``E``): so both blockings equal that common root.
    ``order`` is the multiplicity of the factor in the resultant when that is provably the order of
    the zero of ``B_a - B_b`` (a unique common root, simple in both eliminants, both leading
    coefficients non-zero: then only the physical pair of branches meets, and the resultant is a
    product over pairs of branches), else ``None``. Excluded: no common root (exact gcd 1), disjoint
    enclosures ``E_a``, ``E_b``, or the unique common root outside ``E``.
    """
    if G["degree"] == 0:
        return "excluded", "P_a and P_b have no common root in B at this load (exact gcd over its factor is 1)"
    g = G["gcd"]
    for bits, prec in ((40, 128), (80, 192), (160, 320), (320, 640)):
        x0 = root.lo if root.exact is not None else (root.lo + root.hi) / 2
        if root.exact is None:
            root.refine(x0 * Fraction(1, 2 ** bits))
        lo_c, hi_c = _dyadic_hull(root.lo, root.hi, bits + 8)
        Ea = _blocking_ball(a, lo_c, hi_c, prec)
        Eb = _blocking_ball(b, lo_c, hi_c, prec)
        with flint_prec(prec):
            if Ea < Eb or Eb < Ea:
                return "excluded", (f"the certified blocking enclosures on [{lo_c}, {hi_c}] are disjoint "
                                    f"({Ea.str(5)} vs {Eb.str(5)})")
            (al, ah), (bl, bh) = _arb_ends(Ea), _arb_ends(Eb)
            El, Eh = min(al, bl), max(ah, bh)
            R = _ball(lo_c, hi_c)
            for mult in (2, 2 ** 8, 2 ** 20):
                w = (Eh - El) * mult + Fraction(1, 2 ** (prec - 16))
                L, H = El - w, Eh + w
                EB = _ball(L, H)
                if _eval_b(Pa, R, EB, True).contains(0) or _eval_b(Pb, R, EB, True).contains(0):
                    break
                sign = _gcd_sign_change(g, root, L, H, bits, prec)
                if sign is True:
                    order = root.multiplicity if (G["degree"] == 1 and G["lc_nonzero"]) else None
                    return "crossing", order
                if sign is False and G["degree"] == 1:
                    return "excluded", ("the only common root in B of P_a and P_b at this load lies outside the "
                                        "certified enclosures of the blockings")
    raise _Undecided("the blockings' enclosures overlap near this root of the resultant but equality could not be "
                     "certified (a multiple root in B, or the enclosures are too wide)")



def _crossings_by_elimination(a, b, rho_min, rho_max, dps):
    """Every crossing in [rho_min, rho_max] is a real root of R(rho) = Res_B(P_a(rho, B), P_b(rho, B)).
    All real roots of R near the range are isolated exactly (disjoint closed rational intervals,
    rational roots exactly, :func:`~symloss.meanfield.elimination.isolate_real_roots`); each one in
    the range is decided (:func:`_decide_root`): a crossing or a touch (sign of ``B_a - B_b``
    certified at dyadic loads on both sides, inside the gaps to the neighbouring roots of ``R``,
    and, where provable, the order of the zero), or not a crossing. Returns (records, info) or None."""
    try:
        P1 = a.eliminant()
        P2 = b.eliminant()
    except BudgetError:
        raise
    except (PrecisionError, AssertionError, NotImplementedError, ValueError):
        return None
    R = sp.Poly(sp.resultant(P1.as_expr(), P2.as_expr(), BSYM), RHO)
    if R.is_zero:
        return None
    lo_q, hi_q = _exact_bound(rho_min, "rho_min"), _exact_bound(rho_max, "rho_max")
    w_lo, w_hi = lo_q / 2, hi_q * 2
    window = isolate_real_roots(R, w_lo, w_hi)
    for r in window:          # irrational roots: refine until the interval is inside or outside the range
        while r.exact is None and not (r.hi < lo_q or r.lo > hi_q or (lo_q <= r.lo and r.hi <= hi_q)):
            r.refine((r.hi - r.lo) / 2)
    Pa, Pb = poly_in_b(P1), poly_in_b(P2)
    H = linear_subresultant(P1, P2)
    gcds: dict = {}
    records = []
    for i, root in enumerate(window):
        if not (lo_q <= root.lo and root.hi <= hi_q):
            continue
        rec = {"exact": root.exact, "factor": list(root.factor), "multiplicity": root.multiplicity,
               "order": None, "sign_change": None, "signs": None, "kind": "undecided", "certified": False,
               "reason": "", "listed": False, "_root": root}
        try:
            if root.factor not in gcds:
                gcds[root.factor] = _common_root_data(Pa, Pb, H, root.factor)
            rec["common_root"] = gcds[root.factor]["source"]
            status, info = _decide_root(a, b, Pa, Pb, gcds[root.factor], root)
            if status == "excluded":
                rec.update(kind="not a crossing", certified=True, reason=info, interval=(root.lo, root.hi))
                records.append(rec)
                continue
            order = info
            left = window[i - 1].hi if i > 0 else w_lo
            right = window[i + 1].lo if i + 1 < len(window) else w_hi
            try:
                sl = _sample_sign(a, b, Pa, Pb, _dyadic_in(max(left, root.lo * 3 / 4), root.lo))
                sr = _sample_sign(a, b, Pa, Pb, _dyadic_in(root.hi, min(right, root.hi * 5 / 4)))
            except _Undecided as exc:
                if order is None:
                    raise
                sl = sr = None
                rec["reason"] = f"sign change from the certified order only ({exc})"
            if sl is not None:
                change = sl != sr
                if order is not None and (order % 2 == 1) != change:
                    raise _Undecided(f"the certified order {order} and the certified signs {sl}, {sr} on both "
                                     "sides disagree")
            else:
                change = order % 2 == 1
            rec.update(kind="crossing" if change else "touch", sign_change=change, order=order,
                       signs=None if sl is None else (sl, sr), certified=True, listed=True)
        except (_Undecided, ArithmeticError) as exc:
            rec.update(kind="undecided", certified=False, order=None, sign_change=None, signs=None, listed=False,
                       reason=str(exc))
            mid = root.exact if root.exact is not None else (root.lo + root.hi) / 2
            try:
                with mpmath.workdps(dps + 20):
                    v = _logdiff_models(a, b, _fraction_to_mpf(mid, dps + 20), dps + 5)[0]
                rec["listed"] = bool(abs(v) < mpmath.mpf(10) ** (-(dps - 5)))
            except PrecisionError as exc2:
                rec["reason"] += f"; no numerical check either ({exc2})"
        records.append(rec)
    _round_values(records, window, dps)
    for rec in records:
        root = rec.pop("_root")
        rec.setdefault("interval", (root.lo, root.hi))
        rec.setdefault("value", None)
        rec.setdefault("digits", None)
        rec.setdefault("text", None)
    return records, {"resultant_degree": R.degree(), "isolated_roots": len(records), "window_roots": len(window)}


def _scan(a, b, rho_min, rho_max):
    """Adaptive float log-grid scan of D; returns (sign-change cells in log rho, evaluations, D)."""
    n_eval = 0
    lo_l, hi_l = math.log(float(rho_min)), math.log(float(rho_max))
    n0 = max(16, int(64 * (hi_l - lo_l) / math.log(10)))
    grid = [lo_l + (hi_l - lo_l) * i / n0 for i in range(n0 + 1)]
    vals = {}

    def D(l):
        nonlocal n_eval
        if l not in vals:
            n_eval += 1
            vals[l] = _float_logdiff(a, b, math.exp(l))
        return vals[l]
    for l in grid:
        D(l)
    cells = list(zip(grid[:-1], grid[1:]))
    sign_cells = []
    # the refinement test runs on asinh(D): the same signs, equal to D near 0 (where crossings are),
    # ~ log(2|D|) far from 0. Power-of-d's log-blocking reaches -1e302 at light loads, and a Lipschitz
    # test on D itself refined such cells 20 000 times (C = 1000) to no purpose.
    S = lambda l: math.asinh(D(l))  # noqa: E731
    while cells:
        x0, x1 = cells.pop()
        D0, D1 = D(x0), D(x1)
        if D0 == 0 or D1 == 0 or (D0 < 0) != (D1 < 0):
            sign_cells.append((x0, x1))
            continue
        D0, D1 = S(x0), S(x1)
        slope = abs(D1 - D0) / (x1 - x0)
        i_prev, i_next = x0 - (x1 - x0), x1 + (x1 - x0)
        neigh = [abs(S(i_next) - D1) / (x1 - x0) if i_next <= hi_l else 0.0,
                 abs(D0 - S(i_prev)) / (x1 - x0) if i_prev >= lo_l else 0.0]
        L = 4 * max([slope] + neigh)
        if min(abs(D0), abs(D1)) <= 2 * L * (x1 - x0) and x1 - x0 > 1e-8:
            m = (x0 + x1) / 2
            cells += [(x0, m), (m, x1)]
    return sorted(sign_cells), n_eval, D


@fill_doc(MEANFIELD_DOCS)
def crossing_loads(model_a=None, model_b=None, dt=None, *, C=None, d=None, rho_min=0.01, rho_max=None,
                   dps: int = DEFAULT_DPS, method: str = "auto") -> CrossingResult:
    r"""Every load in ``[rho_min, rho_max]`` where the two models' blockings are equal.

    Call as ``crossing_loads(model_a, model_b)`` with any two :class:`~symloss.MeanFieldModel`, or
    with the shorthand ``crossing_loads(C, d, dt)`` (or ``C=.., d=.., dt=..``) for
    ``RetrialOfD(C, dt)`` against ``PowerOfD(C, d)``.

    Algorithm: :math:`D(\rho) = \log B_a - \log B_b` is sampled on a grid uniform in
    :math:`\log\rho` (64 cells per decade at least; float64 evaluations from the accelerators or the
    generic float continuation) and refined adaptively: a cell :math:`[\rho_1, \rho_2]` without a
    sign change is split while :math:`\min(|D(\rho_1)|, |D(\rho_2)|) \le 2 L (\log\rho_2 - \log\rho_1)`,
    where ``L`` bounds :math:`|dD/d\log\rho|` on the cell, estimated from the finite differences of
    the neighbouring cells times a safety factor 4. Guarantee (stated, not proved): no sign change
    of ``D`` is missed in a cell whose slope is within the factor 4 of its neighbours' and which is
    wider than :math:`10^{-8}` in :math:`\log\rho`; each crossing is then refined by bisection with
    certified signs (ball brackets of both blockings) to ``dps`` digits. ``rho_max`` defaults to
    ``50 C`` (``C`` of the first model that has one, else 50).

    With ``method="eliminant"`` (``"auto"`` uses it for the shorthand with ``C <= 2`` and
    ``d, dt <= 3``) the guarantee is a certificate. Every crossing is a real root of
    :math:`R(\rho) = \operatorname{Res}_B(P_a, P_b)`, the resultant in ``B`` of the two eliminants.
    ``R`` is factored over the integers; the real roots of each irreducible factor are isolated
    exactly (a linear factor gives its rational root exactly; otherwise exact Sturm counts and
    bisection), and the closed rational intervals are refined until no two of them meet. Each root in
    the range is then decided: it is a crossing when both blockings equal the common root in ``B`` of
    ``P_a`` and ``P_b`` there (the degree-1 subresultant, or the exact gcd over the root's factor, has
    a sign change over the hull of Krawczyk enclosures of both blockings, on which neither eliminant's
    ``B``-derivative vanishes), and it is not a crossing when the enclosures are disjoint (or there is
    no common root). A crossing carries its certified signs of ``B_a - B_b`` at dyadic loads just
    below and above (inside the gaps to the neighbouring roots of ``R``): "crossing" (sign change) or
    "touch" (no sign change, e.g. a tangential root), and, where provable, the order of the zero (the
    multiplicity of its factor in ``R``), which must agree in parity with the signs. The values are
    rounded from the isolating intervals: each returned value (and its printed ``text``) lies in the
    root's reported interval, which contains no other root and is disjoint from the others; where
    ``dps`` digits do not separate two roots, those two get the fewest more digits that do. The label
    starts with "certified" only when every root in the range was decided so; otherwise it starts with
    "EVIDENCE" and names the undecided roots (listed when the blockings agree to ``dps - 5`` digits
    there). The per-root records are in ``.roots``. Float ends of the range are read as the decimals
    they print as (``0.01`` is 1/100); other types exactly.

    Two identical models (same stationary system and blocking) are refused with a ``ValueError``.
    The shorthand also reads as keywords: ``crossing_loads(C=3, d=2, dt=3)``.

    Parameters
    ----------
    model_a, model_b : MeanFieldModel
        The two models (any definitions); or the integers ``C`` and ``d`` of the shorthand.
    dt : int, optional
        Third integer of the positional shorthand ``(C, d, dt)``.
    C, d : int, optional
        Keyword spelling of the shorthand (with ``dt``): ``RetrialOfD(C, dt)`` against
        ``PowerOfD(C, d)`` (``RandomRouting(C)`` for ``d = 1``), ``1 <= C <= 1000``,
        ``1 <= d, dt <= 64``.
    rho_min : float
        Lower end of the range, ``> 0``.
    rho_max : float, optional
        Upper end, ``> rho_min``; default ``50 C``.
    dps : int
        Significant digits of each crossing, ``5 <= dps <= 100000``.
    method : {"auto", "eliminant", "adaptive"}
        ``"eliminant"``: exact root isolation of the resultant (small models only);
        ``"adaptive"``: the scan; ``"auto"``: the eliminant for the shorthand with ``C <= 2`` and
        ``d, dt <= 3``, else the scan.

    Returns
    -------
    CrossingResult
        The crossings (increasing; touches included) and the guarantee that holds for them; with the
        eliminant method also ``roots`` (one record per root of the resultant in the range) and
        ``certified``.

    Raises
    ------
    TypeError
        If the models are neither two :class:`~symloss.MeanFieldModel` nor three integers, or both
        forms are given.
    ValueError
        If an argument is out of range, the two models coincide, or ``method="eliminant"`` is not
        tractable.
    PrecisionError
        If the sign of ``log B_a - log B_b`` cannot be certified near a crossing.

    See Also
    --------
    threshold_load : The largest crossing, as a :class:`ThresholdLoad` (EVIDENCE).
    dominance : Which model blocks less over a whole range.

    {{references_retrial}}

    Examples
    --------
    Retrial-of-3 and power-of-2 at capacity 3 cross once, at the threshold load of [1]_:

    >>> import mpmath
    >>> from symloss import crossing_loads
    >>> res = crossing_loads(3, 2, 3, rho_max=20, dps=15)
    >>> [mpmath.nstr(c, 15) for c in res.crossings]
    ['0.949635604002727']

    Two models given as definitions:

    >>> from symloss import RetrialOfD, PowerOfD
    >>> crossing_loads(RetrialOfD(2, 3), PowerOfD(2, 2), rho_max=20, dps=15).crossings
    []

    Two user models (M/M/1/1 with arrival rates ``rho`` and ``rho (1 + (rho - 1)(rho - 1001/1000))``,
    blockings ``h/(1 + h)``) cross exactly at 1 and 1001/1000:

    >>> import sympy as sp
    >>> from symloss import RHO, define_model
    >>> u = sp.Symbol("u", nonnegative=True)
    >>> def mm11(g):
    ...     return define_model(f"g={g}", [u], [({u: 1}, RHO * g * (1 - u)), ({u: -1}, u)], blocking=u)
    >>> res = crossing_loads(mm11(1 + (RHO - 1) * (RHO - sp.Rational(1001, 1000))), mm11(sp.Integer(1)),
    ...                      rho_min=0.5, rho_max=2, dps=15, method="eliminant")
    >>> [(r["exact"], r["kind"], r["text"]) for r in res.roots], res.certified
    ([(Fraction(1, 1), 'crossing', '1.00000000000000'), (Fraction(1001, 1000), 'crossing', '1.00100000000000')], True)
    """
    model_a, model_b = _keyword_shorthand(model_a, model_b, C, d, "crossing_loads")
    a, b, (C, d, dtt) = _models(model_a, model_b, dt, "crossing_loads")
    check_real(rho_min, "rho_min", lower=0, lower_open=True)
    dps = check_dps(dps)
    if rho_max is None:
        rho_max = 50 * (getattr(a, "C", None) or getattr(b, "C", None) or 1)
    check_real(rho_max, "rho_max", lower=float(to_mpf(rho_min)), lower_open=True)
    if method not in ("auto", "eliminant", "adaptive"):
        raise ValueError(f"method must be 'auto', 'eliminant' or 'adaptive', got {method!r}")
    if _identical_models(a, b):
        raise ValueError(f"the two models have the same stationary equations and blocking ({a!r}, {b!r}): "
                         "their blockings are equal at every load, so there are no isolated crossings")
    if _equal_at_sample_loads(a, b, rho_min, rho_max):
        raise ValueError(f"{a!r} and {b!r} have equal blockings (to 25 digits) at three loads spread over "
                         f"[{rho_min}, {rho_max}]: they coincide (e.g. both are random routing for C = 1), so "
                         "there are no isolated crossings")
    names = (repr(a), repr(b))
    short = C is not None
    if method == "eliminant" or (method == "auto" and short and C <= 2 and max(d, dtt) <= 3):
        try:
            res = _crossings_by_elimination(a, b, rho_min, rho_max, dps)
        except BudgetError as exc:
            if method == "eliminant":
                raise BudgetError(f"method='eliminant': {exc}; or use method='adaptive'") from None
            res = None
        if res is not None:
            records, info = res
            return CrossingResult(C, d, dtt, [r["value"] for r in records if r["listed"]], rho_min, rho_max,
                                  info["isolated_roots"], _elimination_guarantee(records, info), names,
                                  roots=records, certified=all(r["certified"] for r in records))
        if method == "eliminant":
            raise ValueError(f"elimination is not tractable for {names[0]} vs {names[1]}; use method='adaptive'")
    cells, n_eval, _D = _scan(a, b, rho_min, rho_max)
    roots = [c for c in (_refine_crossing(a, b, mpmath.exp(x0), mpmath.exp(x1), dps) for x0, x1 in cells)
             if c is not None]
    return CrossingResult(C, d, dtt, roots, rho_min, rho_max, n_eval,
                          "adaptive log-grid with slope-based refinement (see docstring); each crossing "
                          "certified by sign changes of ball-bracketed blockings", names)


def _elimination_guarantee(records, info) -> str:
    """The label of an elimination result: "certified: ..." only when every root of the resultant in
    the range was decided with its certificate, else "EVIDENCE: ..." with the reasons."""
    n_c = sum(r["kind"] == "crossing" for r in records)
    n_t = sum(r["kind"] == "touch" for r in records)
    n_x = sum(r["kind"] == "not a crossing" for r in records)
    head = (f"every crossing is a real root of R = Res_B(P_a, P_b) (degree {info['resultant_degree']}); its "
            f"{len(records)} real root(s) in the range were isolated exactly in disjoint closed rational "
            "intervals (rational roots exactly) and each decided: ")
    tally = f"{n_c} crossing(s) (sign change), {n_t} touch(es) (no sign change), {n_x} not a crossing"
    if all(r["certified"] for r in records):
        return ("certified: " + head + tally + " -- equality from the common root in B of P_a and P_b (degree-1 "
                "subresultant, or exact gcd over the root's irreducible factor) and Krawczyk enclosures of both "
                "blockings (or excluded by disjoint enclosures), signs certified at dyadic loads on both sides, "
                "orders from the multiplicity in R where provable; each value lies in its own reported interval "
                "(see .roots)")
    why = "; ".join(f"root in [{r['interval'][0]}, {r['interval'][1]}]: {r['reason']}"
                    for r in records if not r["certified"])
    return "EVIDENCE: " + head + tally + f", {sum(not r['certified'] for r in records)} undecided ({why})"


def _leading_term(model):
    return blocking_expansion(model, 0, 1).terms[0]


@fill_doc(MEANFIELD_DOCS)
def threshold_load(model_a=None, model_b=None, dt=None, *, C=None, d=None, dps: int = DEFAULT_DPS, rho_max=None):
    r"""The load above which ``model_a`` blocks strictly less than ``model_b`` at every larger load
    (in the mean field); exactly 0 where that holds for every load.

    ``threshold_load(RetrialOfD(C, dt), PowerOfD(C, d))`` equals the shorthand
    ``threshold_load(C, d, dt)`` (retrial-of-``dt`` against power-of-``d``, ``dt > d``).

    Computed as the largest crossing of :func:`crossing_loads` on ``[10^-2, rho_max]``
    (``rho_max = 50 C`` by default). The sign at ``rho_max`` must be "a lower" (for the shorthand,
    both blockings are ``1 - C/rho + C/(d rho^2) + O(rho^-3)``, so retrial-of-dt is lower at large
    load), else a ``ValueError`` asks for a larger ``rho_max``. Without a crossing in range, 0 is
    returned when the sign at ``10^-2`` agrees with the exact small-load leading terms of both
    blockings (:func:`symloss.blocking_expansion`); otherwise ``[10^-6, 10^-2]`` is searched. Not
    excluded: a pair of crossings below ``10^-2`` between which the sign returns (use
    ``symloss verify`` for the certified cases).

    Parameters
    ----------
    model_a, model_b : MeanFieldModel
        The two models; or the integers ``C`` and ``d`` of the shorthand.
    dt : int, optional
        Third integer of the positional shorthand ``(C, d, dt)``, ``dt > d``.
    C, d : int, optional
        Keyword spelling of the shorthand (with ``dt``).
    dps : int
        Significant digits of the threshold, ``5 <= dps <= 100000``.
    rho_max : float, optional
        Largest load searched; default ``50 C``.

    Returns
    -------
    ThresholdLoad
        The threshold load, to ``dps`` digits (exactly 0 when ``a`` is lower at every load): a
        number (mpmath treats it as the computed ``mpf``) whose ``repr``, ``str`` and ``to_latex()``
        say it is EVIDENCE (a float scan) and how it was found. For PROVED, use :func:`symloss.certified_threshold` and
        :func:`symloss.verify_comparison`.

    Raises
    ------
    TypeError
        If the models are neither two :class:`~symloss.MeanFieldModel` nor three integers.
    ValueError
        If ``dt <= d`` in the shorthand, ``a`` is not lower at ``rho_max``, or the sign as
        ``rho -> 0`` is not settled.
    PrecisionError
        If a sign cannot be certified near a crossing.

    See Also
    --------
    crossing_loads, dominance, symloss.finite_n_threshold

    {{references_retrial}}

    Examples
    --------
    >>> from symloss import threshold_load
    >>> t = threshold_load(2, 2, 3, dps=10)
    >>> t == 0, t.status
    (True, 'EVIDENCE')
    >>> print(t)
    0 (better at every load; EVIDENCE: no crossing in a float scan of [0.01, 100], lower at its low end and by the exact small-load terms)
    >>> import mpmath
    >>> mpmath.nstr(threshold_load(3, 2, 3, dps=15), 15)
    '0.949635604002727'
    >>> threshold_load(3, 2, 3, dps=15)
    ThresholdLoad(0.949635604002727, EVIDENCE: largest crossing in a float scan of [0.01, 150], not proved for every load)
    """
    model_a, model_b = _keyword_shorthand(model_a, model_b, C, d, "threshold_load")
    if _is_int_like(model_a):
        check_int(model_a, "C", min_value=1, max_value=1000)
        d0 = check_int(model_b, "d", min_value=1, max_value=64)
        dt0 = check_int(dt, "dt", min_value=1, max_value=64)
        if dt0 <= d0:
            raise ValueError(f"dt must be > d (got d={d0}, dt={dt0}): for dt <= d power-of-d blocks no more "
                             "than retrial-of-dt at every load")
    a, b, _ = _models(model_a, model_b, dt, "threshold_load")
    dps = check_dps(dps)
    if rho_max is None:
        rho_max = 50 * (getattr(a, "C", None) or getattr(b, "C", None) or 1)
    res = crossing_loads(a, b, rho_min=0.01, rho_max=rho_max, dps=dps)
    top = _logdiff_models(a, b, rho_max, 15)
    if not top[2] < 0:
        raise ValueError(f"{a!r} does not block less than {b!r} at rho_max={rho_max}; increase rho_max")
    names = (getattr(a, "name", None), getattr(b, "name", None))

    def found(value, lo):
        where = f"a float scan of [{lo:g}, {float(rho_max):g}]"
        method = (f"no crossing in {where}, lower at its low end and by the exact small-load terms" if not value
                  else f"largest crossing in {where}, not proved for every load")
        return ThresholdLoad(value, method=method, rho_range=(lo, float(rho_max)), models=names, dps=dps)
    if res.crossings:
        return found(res.crossings[-1], 0.01)
    low = _logdiff_models(a, b, 0.01, 15)
    try:
        (c_a, e_a), (c_b, e_b) = _leading_term(a), _leading_term(b)
        a_lower_at_0 = e_a > e_b or (e_a == e_b and c_a < c_b)
        lead = f"{c_a} rho^{e_a} vs {c_b} rho^{e_b}"
    except (ValueError, TypeError, NotImplementedError, PrecisionError) as exc:
        a_lower_at_0, lead = None, f"no expansion at 0 ({exc})"
    if low[2] < 0 and a_lower_at_0:
        return found(mpmath.mpf(0), 0.01)
    sub = crossing_loads(a, b, rho_min=1e-6, rho_max=0.01, dps=dps, method="adaptive")
    if sub.crossings:
        return found(sub.crossings[-1], 1e-6)
    if low[2] < 0 and a_lower_at_0 is None:
        raise ValueError(f"no crossing in [1e-6, {rho_max}] and {a!r} is lower there, but the sign as rho -> 0 "
                         f"is not settled ({lead})")
    raise ValueError(f"the sign below rho = 0.01 is not settled (leading terms {lead})")


@fill_doc(MEANFIELD_DOCS)
def dominance(model_a, model_b, *, rho_min=0.01, rho_max=None, dps: int = 20) -> DominanceResult:
    """Does ``model_a`` block no more than ``model_b`` on ``[rho_min, rho_max]``?

    The crossings are found and certified as in :func:`crossing_loads`; the sign of
    ``log B_a - log B_b`` is certified (ball brackets) at one load inside each piece between
    consecutive crossings and at both ends. ``holds`` is True when every certified sign is <= 0
    (``a`` lower) and there is no crossing in the open range. This is EVIDENCE over the range (the
    scan's guarantee is stated, not proved); proofs for every load are the claims of
    ``symloss verify``.

    Parameters
    ----------
    model_a, model_b : MeanFieldModel
        The two models.
    rho_min : float
        Lower end of the range, ``> 0``.
    rho_max : float, optional
        Upper end, ``> rho_min``; default ``50 C``.
    dps : int
        Digits of the crossings and of the certified samples, ``5 <= dps <= 100000``.

    Returns
    -------
    DominanceResult
        ``holds``, the crossings and the certified sign on each piece.

    Raises
    ------
    TypeError
        If a model is not a :class:`~symloss.MeanFieldModel`.
    ValueError
        If the range is invalid or the two models coincide.
    PrecisionError
        If a sign cannot be certified.

    See Also
    --------
    crossing_loads : Every crossing of the two blocking curves in a range.
    threshold_load : The largest crossing.

    {{references_retrial}}

    Examples
    --------
    >>> from symloss import RetrialOfD, PowerOfD, dominance
    >>> res = dominance(RetrialOfD(2, 3), PowerOfD(2, 2), rho_min=0.5, rho_max=10, dps=15)
    >>> res.holds, res.signs
    (True, [-1])
    """
    res = crossing_loads(model_a, model_b, rho_min=rho_min, rho_max=rho_max, dps=dps)
    a, b, _ = _models(model_a, model_b, None, "dominance")
    pts = [to_mpf(res.rho_min)] + list(res.crossings) + [to_mpf(res.rho_max)]
    signs, samples = [], []
    with mpmath.workdps(dps + 10):
        for lo, hi in zip(pts[:-1], pts[1:]):
            m = mpmath.sqrt(lo * hi)
            t = _logdiff_models(a, b, m, dps)
            s = _sign(t)
            signs.append(s)
            samples.append({"rho": mpmath.nstr(m, 12), "log_ratio": mpmath.nstr(t[0], 8), "sign": s})
    holds = not res.crossings and all(s < 0 for s in signs)
    return DominanceResult(res.models, holds, res.crossings, signs, res.rho_min, res.rho_max,
                           "EVIDENCE over the range: " + res.guarantee + "; the sign is certified at one load "
                           "in each piece", samples)
