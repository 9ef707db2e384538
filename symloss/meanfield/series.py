r"""Asymptotic expansions of the mean-field blocking at small and at large load.

:func:`blocking_series` expands the stationary blocking :math:`B(\rho)` of a mean-field model of
:mod:`symloss.meanfield` (:class:`~symloss.RetrialOfD`, :class:`~symloss.RandomRouting`,
:class:`~symloss.PowerOfD`, :class:`~symloss.JSQ`) in powers of :math:`\rho` at :math:`\rho \to 0`
and in powers of :math:`1/\rho` at :math:`\rho \to \infty`, exactly (rational coefficients).

Method (Newton polygon, then a regular formal power series)
------------------------------------------------------------
The expansion is derived from the model's own stationary equations (``model.drift()``), not from
hand-written formulas:

1. **Newton-polygon / dominant-balance scaling.** Each state variable is written as
   :math:`X_k = \beta_k + \sigma_k t^{e_k} c_k (1 + v_k)` with the small parameter :math:`t = \rho`
   (at 0) or :math:`t = 1/\rho` (at infinity). The exponents :math:`e_k` are the valuations at which
   two terms of each stationary equation balance (the edges of the Newton polygon):

   * power-of-d at 0: :math:`u_k \sim \rho\,u_{k-1}^d/k`, so :math:`e_k = 1 + d e_{k-1}`,
     :math:`e_k = (d^k - 1)/(d - 1)` and :math:`B_{pod}(d) = u_C^d \sim c\,\rho^{d(d^C-1)/(d-1)}`;
   * retrial-of-d at 0: cut equations :math:`\Lambda x_{k-1} = k x_k` with :math:`\Lambda \sim \rho`,
     so :math:`x_k \sim \rho^k/k!` and :math:`B_{ret}(d) = x_C^d \sim (\rho^C/C!)^d`;
   * power-of-d at infinity: :math:`1 - u_k \sim c_k \rho^{-(C-k+1)}`;
   * retrial-of-d at infinity: :math:`x_{C-j} \sim c_{C-j} \rho^{-j}` and
     :math:`1 - x_C \sim c_C/\rho`.

   For retrial-of-d the drift (a birth-death flux balance) is replaced by its partial sums, the
   cut equations :math:`S_k = \sum_{j<k} f_j = k x_k - \Lambda x_{k-1} = 0`, which are equivalent
   to ``drift = 0`` because :math:`\sum_j f_j \equiv 0` (checked symbolically).
2. Each scaled equation is divided by its lowest power of ``t``. At ``t = 0`` (with ``v = 0``) the
   scaled system is triangular in the leading coefficients :math:`c_k`; it is solved exactly.
3. At the solution the Jacobian :math:`J_0` of the scaled system in ``v`` at ``t = 0`` is checked to
   be invertible, so by the implicit function theorem the corrections :math:`v_k(t)` are convergent
   power series in ``t`` with :math:`v_k(0) = 0`. They are computed by the iteration
   :math:`v \leftarrow v - J_0^{-1} G(v, t) \bmod t^M` in exact rational arithmetic (python-flint
   ``fmpq_poly``), which gains at least one order per step; the result is accepted only when
   :math:`G(v, t) \equiv 0 \bmod t^M` holds exactly.
4. The blocking expression (``model.blocking_expr()``) is expanded in the same way; ``M`` is
   doubled until ``n + 1`` non-zero terms are known, so the returned ``O`` term is the order of
   the first omitted non-zero term.

JSQ has the exact fluid blocking :math:`\max(0, 1 - C/\rho)`: its expansion at 0 is identically 0
and at infinity it is the two-term expression :math:`1 - C/\rho`.

Source: the small-load leading terms of D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in
Loss Systems: Mean-Field Analysis, Erlang Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026);
user-defined models get their scaling read off certified fixed points and verified exactly.
"""
from __future__ import annotations

import contextlib
import math
import numbers
import sys
from dataclasses import dataclass, field
from typing import Any

import mpmath
import sympy as sp
from flint import fmpq, fmpq_poly

from ..core.precision import DEFAULT_DPS, check_dps, rounded, to_mpf
from ..core.results import ResultMixin
from ..core.validation import Deadline, TimeLimitExceeded, check_int, check_real

__all__ = ["blocking_series", "blocking_expansion", "BlockingSeries", "big_int_str"]

RHO = sp.Symbol("rho", positive=True)
_T = sp.Symbol("t", positive=True)
_MAX_ORDER = 1024
_MAX_TERMS = 64


# ==================================================================================================
# result
# ==================================================================================================

@dataclass
class BlockingSeries(ResultMixin):
    r"""An asymptotic expansion of the mean-field blocking.

    :math:`B(\rho) = \sum_{i=1}^{n} a_i \rho^{k_i} + O(\rho^{k_{n+1}})` with exact rational
    :math:`a_i`; at infinity the exponents :math:`k_i` are :math:`\le 0` and decrease.

    Attributes
    ----------
    policy : str
        ``"retrial"``, ``"random"``, ``"power"``, ``"jsq"`` (the shipped scalings) or ``"generic"``.
    C, d : int or None
        Capacity and parameter of the model (``None`` when it has none).
    at : str
        ``"0"`` or ``"oo"``.
    terms : list of (sympy.Rational, int)
        Coefficient and exponent of ``rho`` of each term.
    next_term : (sympy.Rational, int) or None
        The first omitted non-zero term (``None`` when the expansion is exact or when no further
        non-zero term was found below the order ``order``).
    remainder_exponent : int or None
        The exponent of ``rho`` in the ``O`` term (``None``: exact).
    order : int
        Relative truncation order used: all coefficients of the relative series below ``t^order``
        were computed exactly.
    method : str
        How the expansion was derived.
    leading_exponents : dict
        The scaling exponent of each state variable.
    """
    policy: str
    C: int
    d: int
    at: str
    terms: list
    next_term: Any
    remainder_exponent: Any
    order: int
    method: str
    leading_exponents: dict = field(default_factory=dict)

    @property
    def expr(self) -> sp.Expr:
        """The expansion as a SymPy expression in ``rho`` including the ``O`` term."""
        s = sum((c * RHO ** k for c, k in self.terms), sp.Integer(0))
        if self.remainder_exponent is None:
            return s
        if self.at == "0":
            return s + sp.Order(RHO ** self.remainder_exponent, (RHO, 0))
        return s + sp.Order(RHO ** self.remainder_exponent, (RHO, sp.oo))

    @property
    def polynomial(self) -> sp.Expr:
        """The sum of the kept terms (no ``O`` term)."""
        return sum((c * RHO ** k for c, k in self.terms), sp.Integer(0))

    def evaluate(self, rho, *, dps: int = DEFAULT_DPS, terms: int | None = None, check: bool = True):
        """Partial sum of the first ``terms`` terms (default: all) at ``rho``.

        With ``check`` (default), a partial sum outside ``[0, 1]`` (``rho`` far outside the range where
        the truncated expansion approximates a blocking probability) is refused with a ``ValueError``;
        ``check=False`` returns the polynomial value regardless. The expansion has no remainder
        bound: :meth:`evaluate_next` estimates the truncation error.

        Parameters
        ----------
        rho : float or mpmath.mpf
            Load, ``> 0`` (a ``Fraction`` is exact).
        dps : int
            Significant digits, ``5 <= dps <= 100000``.
        terms : int, optional
            Number of terms summed, ``0 <= terms <= len(self.terms)``.
        check : bool
            Refuse a partial sum outside ``[0, 1]`` (see above).

        Returns
        -------
        mpmath.mpf

        Raises
        ------
        ValueError
            If an argument is out of range, or (``check``) the partial sum is not in ``[0, 1]``.

        Examples
        --------
        >>> import mpmath
        >>> from fractions import Fraction
        >>> from symloss import PowerOfD, blocking_expansion
        >>> e = blocking_expansion(PowerOfD(2, 2), 0, n=2)      # rho^6/4 - rho^8/2 + O(rho^10)
        >>> mpmath.nstr(e.evaluate(Fraction(1, 10), dps=20), 20)
        '2.45e-7'
        """
        check_real(rho, "rho", lower=0, lower_open=True)
        dps = check_dps(dps)
        k = len(self.terms) if terms is None else check_int(terms, "terms", min_value=0, max_value=len(self.terms))
        with mpmath.workdps(dps + 15):
            r = to_mpf(rho)
            vals = [_rat_mpf(c) * r ** e for c, e in self.terms[:k]]
            total = mpmath.fsum(vals)
            if check and k > 0 and not (0 <= total <= 1):
                raise ValueError(f"rho={mpmath.nstr(r, 6)} is outside the range of this expansion at {self.at}: "
                                 f"the partial sum {mpmath.nstr(total, 3)} is not a probability (terms from "
                                 f"{mpmath.nstr(vals[0], 3)} to {mpmath.nstr(vals[-1], 3)}); use the certified "
                                 f"blocking, or check=False for the polynomial value")
            return rounded(total, dps)

    def evaluate_next(self, rho, *, dps: int = DEFAULT_DPS):
        """The first omitted term at ``rho`` (an estimate of the truncation error).

        Parameters
        ----------
        rho : float or mpmath.mpf
            Load, ``> 0``.
        dps : int
            Significant digits, ``5 <= dps <= 100000``.

        Returns
        -------
        mpmath.mpf
            The term, or 0 if there is none.

        Raises
        ------
        ValueError
            If an argument is out of range.
        """
        check_real(rho, "rho", lower=0, lower_open=True)
        dps = check_dps(dps)
        if self.next_term is None:
            return mpmath.mpf(0)
        with mpmath.workdps(dps + 15):
            c, e = self.next_term
            return rounded(_rat_mpf(c) * to_mpf(rho) ** e, dps)

    def to_dict(self) -> dict:
        """Plain data (exact coefficients as strings), for JSON.

        Returns
        -------
        dict
        """
        with big_int_str():
            return self._to_dict()

    def _to_dict(self) -> dict:
        return {"policy": self.policy, "C": self.C, "d": self.d, "at": self.at,
                "terms": [[str(c), int(k)] for c, k in self.terms],
                "next_term": None if self.next_term is None else [str(self.next_term[0]), int(self.next_term[1])],
                "remainder_exponent": self.remainder_exponent, "order": self.order, "method": self.method,
                "expr": str(self.expr)}

    def _latex_pieces(self, digits) -> tuple[list, bool]:
        """The terms for print (each with its sign, in the order of the expansion, then the ``O`` term):
        exact coefficients, or decimals correctly rounded from the exact rationals to ``digits``
        (default 15 for a coefficient too long for a line); and whether any decimal is inexact."""
        from ..core.latex import number_latex
        from ..core.results import round_significant
        approx = False
        pieces = []
        for i, (c, k) in enumerate(self.terms):
            c = sp.Rational(c)
            neg = c < 0
            a = -c if neg else c
            long = len(str(a.p)) + len(str(a.q)) > 40
            if digits is not None or long:
                n = digits or 15
                with mpmath.workdps(n + 20):
                    text = round_significant(mpmath.mpf(int(a.p)) / int(a.q), n)
                approx = approx or sp.Rational(text) != a
                coef = number_latex(text)
                power = "" if k == 0 else (r"\rho" if k == 1 else r"\rho^{%d}" % k)
                body = coef if not power else (power if coef == "1" else rf"{coef} \, {power}")
            else:
                body = sp.latex(a * RHO ** k)
            sign = "- " if neg else ("+ " if i else "")
            pieces.append(sign + body)
        if self.remainder_exponent is not None:
            e = int(self.remainder_exponent)
            pieces.append(r"+ O\bigl(\rho^{%d}\bigr)" % e)
        if not pieces:
            pieces = ["0"]
        return pieces, approx

    def to_latex(self, digits: int | None = None, columns=None, *, width: float | None = None) -> str:
        r"""The expansion as a displayed equation, ``B(\rho) = a_1 \rho^{k_1} + \dots + O(\rho^{k})``,
        broken over lines at ``+``/``-`` signs when it is wider than ``width`` (a complete ``equation*`` or
        ``multline*`` environment, :func:`symloss.core.latex.math_block`).

        Coefficients are exact rationals; with ``digits`` (or for a coefficient too long for a line)
        they are printed as decimals correctly rounded to ``digits`` (default 15) significant digits,
        and the equation is then written with :math:`\approx`.

        Parameters
        ----------
        digits : int, optional
            Significant digits of the coefficients, ``1 <= digits <= 100000`` (default: exact).
        columns : None
            A series has no columns; anything but ``None`` is refused.
        width : float, optional
            Line width in points (default :data:`symloss.core.latex.DEFAULT_WIDTH_PT`).

        Returns
        -------
        str
            Text-mode LaTeX (``amsmath``).

        Raises
        ------
        ValueError
            If ``digits`` is out of range or ``columns`` is given.

        Examples
        --------
        >>> from symloss import PowerOfD, blocking_expansion
        >>> print(blocking_expansion(PowerOfD(2, 2), 0, n=2).to_latex())
        \begin{equation*}
        B(\rho) = \frac{\rho^{6}}{4} - \frac{\rho^{8}}{2} + O\bigl(\rho^{10}\bigr)
        \end{equation*}
        """
        from ..core.latex import DEFAULT_WIDTH_PT
        from ..core.results import _check_digits
        digits = _check_digits(digits)
        if columns is not None:
            raise ValueError(f"BlockingSeries.to_latex: a series has no columns (got columns={columns!r}); "
                             "use digits= and width=")
        from ..core.latex import _fill, estimate_width
        w = width or DEFAULT_WIDTH_PT
        with big_int_str():
            pieces, approx = self._latex_pieces(digits)
        lhs = r"B(\rho) \approx " if approx else r"B(\rho) = "
        lines = _fill(pieces, w, first_width=w - estimate_width(lhs))
        if len(lines) == 1:
            return "\\begin{equation*}\n" + lhs + lines[0] + "\n\\end{equation*}"
        return "\\begin{multline*}\n" + lhs + " \\\\\n".join(lines) + "\n\\end{multline*}"

    def _repr_latex_(self) -> str:
        with big_int_str():
            pieces, approx = self._latex_pieces(None)
        return r"$$B(\rho) " + (r"\approx " if approx else "= ") + " ".join(pieces) + "$$"

    def __repr__(self) -> str:
        with big_int_str():
            text = str(self.expr)
        if len(text) > 300:
            text = text[:300] + " ..."
        return f"BlockingSeries({self.policy}, C={self.C}, d={self.d}, at={self.at}: {text})"


@contextlib.contextmanager
def big_int_str():
    """Context: allow ``str`` of integers with more than 4300 digits (Python's default limit), which
    the exact coefficients of power-of-d at small load exceed for ``C >= 10`` or large ``d``.
    The previous limit is restored on exit.

    Yields
    ------
    None

    Examples
    --------
    >>> from symloss.meanfield.series import big_int_str
    >>> with big_int_str():
    ...     len(str(10 ** 5000))
    5001
    """
    get = getattr(sys, "get_int_max_str_digits", None)
    if get is None:  # pragma: no cover - Python < 3.11
        yield
        return
    old = get()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


def _rat_mpf(c):
    c = sp.Rational(c)
    return mpmath.mpf(int(c.p)) / int(c.q)


# ==================================================================================================
# public functions
# ==================================================================================================

def blocking_series(model, at=0, n: int = 3, *, max_seconds=None) -> sp.Expr:
    r"""Asymptotic expansion of the mean-field blocking of ``model`` in ``rho``.

    Parameters
    ----------
    model : MeanFieldModel
        A shipped policy (:class:`~symloss.RetrialOfD`, :class:`~symloss.RandomRouting`,
        :class:`~symloss.PowerOfD`, :class:`~symloss.JSQ`: hand-derived scalings, used when the
        accelerator's template is the definition) or any other definition (scaling read off
        certified fixed points near the expansion point, then verified exactly).
    at : 0 or sympy.oo
        Expansion point: ``0`` gives a series in increasing powers of ``rho``, ``sympy.oo``
        (also accepted: ``"oo"``, ``"inf"``, ``math.inf``) a series in powers of ``1/rho``.
    n : int
        Number of non-zero terms kept (1 to 64).
    max_seconds : float, optional
        Wall-clock budget: :class:`~symloss.core.validation.TimeLimitExceeded` is raised between the
        symbolic steps once it is spent (the expansion of a large model, e.g. ``PowerOfD(50, 10)``,
        takes minutes). ``None``: no limit.

    Returns
    -------
    sympy.Expr
        ``a_1 rho^k_1 + ... + a_n rho^k_n + O(rho^k_{n+1})`` with exact rational coefficients.
        The ``O`` term is the order of the first omitted non-zero term.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`~symloss.MeanFieldModel` or ``n`` is not an integer.
    ValueError
        If ``at`` is not 0 or infinity, ``n`` is out of range, or no power-law scaling of the state
        is found near the expansion point (user models).

    See Also
    --------
    blocking_expansion, symloss.MeanFieldModel.series

    Notes
    -----
    Small load (the leading terms of [1]_):

    .. math:: B_{ret}(d) = \left(\frac{\rho^C}{C!}\right)^d (1 + O(\rho)), \qquad
              B_{pod}(d) = c\,\rho^{d (d^C - 1)/(d - 1)} (1 + O(\rho^d)),
              \quad c = c_C^d,\ c_k = c_{k-1}^d / k,\ c_0 = 1.

    Large load: :math:`B = 1 - C/\rho + O(\rho^{-2})` for every policy. The coefficients come from
    the model's stationary equations by Newton-polygon scaling and an exact formal power series
    (see the module docstring); the expansion is exact to the stated order, not an estimate.

    References
    ----------
    .. [1] D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in Loss Systems: Mean-Field Analysis,
       Erlang Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026).

    Examples
    --------
    >>> from symloss import PowerOfD, RetrialOfD
    >>> from symloss.meanfield.series import blocking_series
    >>> blocking_series(PowerOfD(2, 2), 0, n=2)
    rho**6/4 - rho**8/2 + O(rho**10)
    >>> blocking_series(RetrialOfD(2, 3), 0, n=1)
    rho**6/8 + O(rho**7)
    >>> blocking_series(RetrialOfD(2, 2), "oo", n=3)
    rho**(-2) - 2/rho + 1 + O(rho**(-3), (rho, oo))
    """
    return blocking_expansion(model, at, n, max_seconds=max_seconds).expr


def blocking_expansion(model, at=0, n: int = 3, *, max_seconds=None) -> BlockingSeries:
    """Like :func:`blocking_series`, but returns the :class:`BlockingSeries` (terms, next term,
    truncation order) that the tests and the notebook use to check the expansion numerically.

    Parameters
    ----------
    model : MeanFieldModel
        The model (as for :func:`blocking_series`).
    at : 0 or sympy.oo
        Expansion point (``"oo"``, ``"inf"`` and ``math.inf`` are accepted for infinity).
    n : int
        Number of non-zero terms kept (1 to 64).
    max_seconds : float, optional
        Wall-clock budget (see :func:`blocking_series`).

    Returns
    -------
    BlockingSeries
        The exact terms, the first omitted term and the truncation order.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`~symloss.MeanFieldModel` or ``n`` is not an integer.
    ValueError
        If ``at`` or ``n`` is out of range, or no power-law scaling is found (user models).
    TimeLimitExceeded
        When ``max_seconds`` is spent.

    See Also
    --------
    blocking_series

    References
    ----------
    .. [1] D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in Loss Systems: Mean-Field Analysis,
       Erlang Bounds, and Power-of-d Comparison", arXiv:2611.06267 (2026).

    Examples
    --------
    >>> from symloss import PowerOfD, blocking_expansion
    >>> e = blocking_expansion(PowerOfD(2, 2), 0, n=2)
    >>> e.terms, e.next_term
    ([(1/4, 6), (-1/2, 8)], (3/4, 10))
    """
    where = _check_at(at)
    n = check_int(n, "n", min_value=1, max_value=_MAX_TERMS)
    deadline = Deadline(max_seconds, "blocking_expansion")
    policy = _policy(model)
    C, d = getattr(model, "C", None), getattr(model, "d", None)
    key = (policy, model._definition_key(), where, n)       # the definition itself, never (class, C, d)
    if key in _CACHE:
        return _CACHE[key]
    if policy == "jsq":
        res = _jsq(C, where, n)
    else:
        res = _expand(model, policy, where, n, deadline)
    _CACHE[key] = res
    return res


_CACHE: dict = {}


def _check_at(at) -> str:
    if isinstance(at, str):
        s = at.strip().lower()
        if s in ("0", "zero"):
            return "0"
        if s in ("oo", "inf", "infinity", "+inf", "+oo"):
            return "oo"
        raise ValueError(f"at must be 0 or sympy.oo (or 'oo'/'inf'), got {at!r}")
    if at is sp.oo:
        return "oo"
    if isinstance(at, bool):
        raise TypeError(f"at must be 0 or sympy.oo, got {at!r}")
    if isinstance(at, (numbers.Real, sp.Basic)):
        try:
            f = float(at)
        except (TypeError, ValueError):
            f = None
        if f == 0:
            return "0"
        if f == math.inf:
            return "oo"
    raise ValueError(f"at must be 0 or sympy.oo (or 'oo'/'inf'), got {at!r}")


def _policy(model) -> str:
    """The shipped policy whose hand-derived scaling applies (its accelerator's template is the
    definition), else ``"generic"`` (scaling found numerically and then verified exactly)."""
    from ..core.model import MeanFieldModel
    from .accelerators import JSQ_CLOSED_FORM, POWER, RETRIAL
    from .models import JSQ, PowerOfD, RandomRouting, RetrialOfD
    if not isinstance(model, MeanFieldModel):
        raise TypeError(f"model must be a MeanFieldModel, got {type(model).__name__}")
    if isinstance(model, RetrialOfD) and RETRIAL.applies(model)[0]:
        return "random" if isinstance(model, RandomRouting) else "retrial"
    if isinstance(model, PowerOfD) and POWER.applies(model)[0]:
        return "power"
    if isinstance(model, JSQ) and JSQ_CLOSED_FORM.applies(model)[0]:
        return "jsq"
    return "generic"


def _jsq(C, where, n):
    if where == "0":
        # B = max(0, 1 - C/rho) vanishes identically on (0, C]
        return BlockingSeries("jsq", C, 1, "0", [], None, None, 0,
                              "exact: B = max(0, 1 - C/rho) = 0 for rho <= C")
    terms = [(sp.Integer(1), 0), (sp.Integer(-C), -1)][:n]
    nxt = (sp.Integer(-C), -1) if n == 1 else None
    return BlockingSeries("jsq", C, 1, "oo", terms, nxt, -1 if n == 1 else None, 0,
                          "exact: B = 1 - C/rho for rho >= C")


# ==================================================================================================
# the Newton-polygon ansatz for each model
# ==================================================================================================

def _ansatz(model, policy, where):
    """Returns (equations, list of (var, base, sign, exponent)) for the scaling of section 1 of the
    module docstring. ``equations`` are SymPy expressions in the model variables and ``RHO``."""
    if policy == "generic":
        return _ansatz_generic(model, where)
    C, d = model.C, model.d
    V = list(model.variables)
    if policy in ("retrial", "random"):
        f = list(model.drift())
        total = sp.expand(sum(f))
        if total != 0:  # pragma: no cover - conservation of mass is a property of the model
            raise AssertionError("retrial drift does not conserve mass")
        cuts = [sp.expand(sum(f[:k])) for k in range(1, C + 1)]       # S_k = k x_k - Lambda x_{k-1}
        eqs = cuts + [sum(V) - 1]
        if where == "0":
            scal = [(V[k], 0, 1, k) for k in range(C + 1)]
        else:
            scal = [(V[k], 0, 1, C - k) for k in range(C)] + [(V[C], 1, -1, 1)]
    elif policy == "power":
        eqs = [sp.expand(e) for e in model.drift()]
        if where == "0":
            e = [0]
            for _k in range(1, C + 1):
                e.append(1 + d * e[-1])
            scal = [(V[k - 1], 0, 1, e[k]) for k in range(1, C + 1)]
        else:
            scal = [(V[k - 1], 1, -1, C - k + 1) for k in range(1, C + 1)]
    else:
        return _ansatz_generic(model, where)
    return eqs, scal


def _numeric_scaling(model, where):
    """Scaling ``(var, base, sign, exponent)`` of every state variable, read off certified fixed points
    at two loads near the expansion point: ``base`` (0 or 1) is the limit, ``exponent`` the slope of
    ``log|x - base|`` in ``log t`` rounded to a rational of small denominator. This is only a guess:
    :func:`_expand` then verifies exactly that it is a dominant balance (leading system solved
    exactly, scaled equations polynomial in ``t``, invertible Jacobian, exact series residual)."""
    from fractions import Fraction as _F

    scale = float(getattr(model, "C", None) or 1)
    if where == "0":
        loads = [_F(scale) * _F(1, 10 ** 3), _F(scale) * _F(1, 10 ** 4)]
    else:
        loads = [_F(scale) * 10 ** 3, _F(scale) * 10 ** 4]
    fps = [model.fixed_point(r, dps=30) for r in loads]
    out = []
    with mpmath.workdps(40):
        lt = [mpmath.log(mpmath.mpf(r.numerator) / r.denominator) * (1 if where == "0" else -1) for r in loads]
        for k, var in enumerate(model.variables):
            xs = [fp.x[k] for fp in fps]
            base = 1 if abs(xs[1] - 1) < mpmath.mpf("0.5") else 0
            devs = [x - base for x in xs]
            if any(dv == 0 for dv in devs) or (devs[0] > 0) != (devs[1] > 0):
                raise ValueError(f"no power-law scaling of {var} near rho = {'0' if where == '0' else 'oo'}")
            e = (mpmath.log(abs(devs[1])) - mpmath.log(abs(devs[0]))) / (lt[1] - lt[0])
            q = round(float(e))
            if abs(float(e) - q) > 0.05 or q <= 0:
                raise ValueError(f"the scaling exponent of {var} near rho = {'0' if where == '0' else 'oo'} "
                                 f"({mpmath.nstr(e, 6)}) is not a positive integer: no power series in "
                                 f"{'rho' if where == '0' else '1/rho'}")
            out.append((var, base, 1 if devs[1] > 0 else -1, int(q)))
    return out


def _ansatz_generic(model, where):
    """Equations and scaling for any model: the square stationary system (drift rows, one per
    invariant replaced by the invariant) and the numerically detected scaling. Where the drift
    conserves the total mass, the cut equations (partial sums of the drift rows, as for retrial) are
    tried when the plain rows do not give a triangular leading system."""
    scal = _numeric_scaling(model, where)
    rows, _ = model._square_system
    return [sp.expand(e) for e in rows], scal


def _cut_equations(model):
    f = list(model.drift())
    if sp.expand(sum(f)) != 0 or len(model._invariants) != 1:
        return None
    c, v = model._invariants[0]
    V = list(model.variables)
    cuts = [sp.expand(sum(f[:k])) for k in range(1, len(V))]
    return cuts + [sp.expand(sum(ci * x for ci, x in zip(c, V)) - v)]


def _laurent_terms(expr, t):
    """Terms of an expanded Laurent polynomial in ``t`` as a dict exponent -> coefficient expr."""
    out: dict = {}
    for term in sp.Add.make_args(sp.expand(expr)):
        c, e = term.as_coeff_exponent(t)
        if c.has(t):  # pragma: no cover
            raise ValueError("not a Laurent polynomial in t")
        e = int(e)
        out[e] = out.get(e, 0) + c
    return {e: c for e, c in out.items() if c != 0}


def _substitute(expr, scal, cs, vs, where):
    sub = {RHO: _T if where == "0" else 1 / _T}
    for (var, base, sign, e), c, v in zip(scal, cs, vs):
        sub[var] = base + sign * _T ** e * c * (1 + v)
    return sp.expand(expr.xreplace(sub))


def _solve_leading(lead_eqs, cs, deadline):
    """Solve the triangular leading system: repeatedly pick an equation linear in exactly one
    unknown coefficient (the others being known)."""
    known: dict = {}
    pivots: dict = {}
    eqs = list(lead_eqs)
    while len(known) < len(cs):
        progress = False
        for i, e in enumerate(eqs):
            if e is None:
                continue
            deadline.check("leading system")
            e2 = sp.expand(e.xreplace(known))
            free = [c for c in cs if c not in known and e2.has(c)]
            if not free:
                if e2 != 0:
                    raise ValueError("inconsistent leading system (wrong dominant balance)")
                eqs[i] = None
                continue
            if len(free) == 1:
                c = free[0]
                P = sp.Poly(e2, c)
                if P.degree() != 1:
                    continue
                val = sp.Rational(-P.nth(0) / P.nth(1))
                if val == 0:
                    raise ValueError("leading coefficient 0: wrong dominant balance")
                known[c] = val
                pivots[i] = c
                eqs[i] = None
                progress = True
        if not progress:
            raise ValueError("leading system of the scaled stationary equations is not triangular")
    for e in eqs:
        if e is not None and sp.expand(e.xreplace(known)) != 0:
            raise ValueError("leading system inconsistent")
    return [known[c] for c in cs], pivots


def _to_fmpq(x) -> fmpq:
    x = sp.Rational(x)
    return fmpq(int(x.p), int(x.q))


class _SeriesPoly:
    """A polynomial in the unknown series ``v`` and in ``t`` (terms with t-degree >= M dropped),
    evaluated on truncated power series (fmpq_poly) modulo t^M. Coefficients may contain the
    leading-coefficient symbols; ``cmap`` gives their values, substituted only in the kept terms
    (for power-of-d at small load the values have ~d^C digits while the kept ratios are small)."""

    def __init__(self, expr, vs, M, cmap=None):
        self.terms = []
        for e, coeff in _laurent_terms(expr, _T).items():
            if e < 0:
                raise ValueError("negative power of t after scaling")
            if e >= M:
                continue
            if cmap:
                coeff = sp.expand(coeff.xreplace(cmap))
            P = sp.Poly(coeff, *vs)
            for mon, c in P.terms():
                self.terms.append((e, mon, _to_fmpq(c)))

    def __call__(self, v, M, cache):
        acc = fmpq_poly([])
        for e, mon, c in self.terms:
            p = fmpq_poly([c])
            for j, a in enumerate(mon):
                if a:
                    key = (j, a)
                    if key not in cache:
                        cache[key] = v[j].pow_trunc(a, M) if a > 1 else v[j]
                    p = p.mul_low(cache[key], M)
            if e:
                p = p.left_shift(e).truncate(M)
            acc += p
        return acc.truncate(M)


def _expand(model, policy, where, n, deadline):
    if policy == "generic":
        eqs, scal = _ansatz(model, policy, where)
        try:
            return _expand_with(model, policy, where, n, eqs, scal, deadline)
        except TimeLimitExceeded:
            raise
        except ValueError:
            cuts = _cut_equations(model)
            if cuts is None:
                raise
            return _expand_with(model, policy, where, n, cuts, scal, deadline)
    eqs, scal = _ansatz(model, policy, where)
    return _expand_with(model, policy, where, n, eqs, scal, deadline)


def _expand_with(model, policy, where, n, eqs, scal, deadline):
    C, d = getattr(model, "C", None), getattr(model, "d", 1)
    m = len(scal)
    cs = list(sp.symbols(f"c0:{m}"))
    vs = list(sp.symbols(f"v0:{m}"))
    zero_v = [sp.Integer(0)] * m
    # 1. dominant balance: lowest power of t of each equation with symbolic leading coefficients
    scaled_lead, shifts = [], []
    for eq in eqs:
        deadline.check("dominant balance")
        terms = _laurent_terms(_substitute(eq, scal, cs, zero_v, where), _T)
        if not terms:
            raise ValueError("an equation vanishes identically under the scaling")
        low = min(terms)
        shifts.append(low)
        scaled_lead.append(terms[low])
    cvals, pivots = _solve_leading(scaled_lead, cs, deadline)
    cmap = dict(zip(cs, cvals))
    # 2. scaled system in v, kept symbolic in the c_k and divided by the pivot coefficient of each
    #    equation, so that the (possibly enormous) values c_k enter only through small ratios
    G_exprs = []
    for i, (eq, low) in enumerate(zip(eqs, shifts)):
        deadline.check("scaled system")
        g = sp.expand(_substitute(eq, scal, cs, vs, where) * _T ** (-low))
        if i in pivots:
            g = sp.expand(g / pivots[i])
        if any(e < 0 for e in _laurent_terms(g, _T)):
            raise ValueError("scaled equations are not polynomial in t (wrong dominant balance)")
        G_exprs.append(g)
    # Jacobian at (v, t) = (0, 0) and G(0, 0) = 0
    at0 = [sp.expand(_laurent_terms(g, _T).get(0, sp.Integer(0)).xreplace(cmap)) for g in G_exprs]
    if any(a.xreplace({v: 0 for v in vs}) != 0 for a in at0):
        raise ValueError("leading coefficients do not solve the scaled system")
    deadline.check("Jacobian")
    J0 = sp.Matrix([[sp.diff(a, v).xreplace({w: 0 for w in vs}) for v in vs] for a in at0])
    if J0.det() == 0:
        raise ValueError("singular Jacobian of the scaled system: the expansion is not a regular power series")
    J0inv = J0.inv()
    Jinv = [[_to_fmpq(J0inv[i, j]) for j in range(m)] for i in range(m)]
    # blocking expression: B = K t^low_B * (polynomial in v, t), K the leading constant
    B_expr = _substitute(model._blocking, scal, cs, vs, where)
    B_terms = _laurent_terms(B_expr, _T)
    low_B = min(B_terms)
    B_scaled = sp.expand(B_expr * _T ** (-low_B))
    K = sp.expand(B_terms[low_B].xreplace({v: 0 for v in vs}))
    if K != 0 and not K.is_Add:
        B_scaled = sp.expand(B_scaled / K)
        Kval = sp.Rational(K.xreplace(cmap))
    else:
        Kval = sp.Integer(1)
    sign_t = 1 if where == "0" else -1   # rho exponent = sign_t * t exponent

    M = max(8, 2 * (n + 1) * (d if policy == "power" and where == "0" else 1) + 2)
    while True:
        deadline.check("power series")
        v = _solve_series(G_exprs, vs, Jinv, M, cmap, deadline)
        Bs = _SeriesPoly(B_scaled, vs, M, cmap)(v, M, {})
        coeffs = Bs.coeffs()
        nz = [(j, coeffs[j]) for j in range(len(coeffs)) if coeffs[j] != 0]
        if len(nz) >= n + 1 or M >= _MAX_ORDER:
            break
        M *= 2
    kept = nz[:n]
    terms = [(Kval * sp.Rational(int(c.p), int(c.q)), sign_t * (low_B + j)) for j, c in kept]
    if len(nz) > n:
        j, c = nz[n]
        nxt = (Kval * sp.Rational(int(c.p), int(c.q)), sign_t * (low_B + j))
        rem = nxt[1]
    else:
        nxt = None
        rem = sign_t * (low_B + M)
    method = ("Newton-polygon scaling X_k = base + sign t^e_k c_k (1 + v_k) of the stationary equations "
              f"(t = {'rho' if where == '0' else '1/rho'}), exact triangular leading system, "
              f"formal power series mod t^{M} with exact residual check")
    exps = {str(var): (sign_t * e if base == 0 else f"1 - x with x ~ rho^{sign_t * e}") for var, base, _s, e in scal}
    return BlockingSeries(policy if policy != "generic" else model.name, C, d, where, terms, nxt, rem, M,
                          method, exps)


def _solve_series(G_exprs, vs, Jinv, M, cmap, deadline):
    m = len(vs)
    G = [_SeriesPoly(g, vs, M, cmap) for g in G_exprs]
    v = [fmpq_poly([]) for _ in range(m)]
    for _it in range(M + 3):
        deadline.check("power series iteration")
        cache: dict = {}
        r = [g(v, M, cache) for g in G]
        if all(x.is_zero() for x in r):
            return v
        for i in range(m):
            delta = fmpq_poly([])
            for j in range(m):
                if Jinv[i][j] != 0 and not r[j].is_zero():
                    delta += r[j] * Jinv[i][j]
            v[i] = (v[i] - delta).truncate(M)
    raise ArithmeticError("formal power series iteration did not converge")  # pragma: no cover
