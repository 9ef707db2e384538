r"""The result type of the blocking expansions of :mod:`symloss.core.series`: :class:`BlockingSeries`
(exact terms, first omitted term, truncation order; evaluation, LaTeX, plain data) and
:func:`big_int_str` (``str`` of integers beyond Python's 4300-digit limit). Re-exported by
:mod:`symloss.core.series` and :mod:`symloss.meanfield.series`.
"""
from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, field
from typing import Any

import mpmath
import sympy as sp

from .definition import RHO
from .latex import DEFAULT_WIDTH_PT, _fill, estimate_width, number_latex
from .precision import DEFAULT_DPS, check_dps, rounded, to_mpf
from .results import ResultMixin, _check_digits, round_significant
from .validation import check_int, check_real

__all__ = ["BlockingSeries", "big_int_str"]


# ==================================================================================================
# result
# ==================================================================================================

@dataclass
class BlockingSeries(ResultMixin):
    r"""An asymptotic expansion of the mean-field blocking.

    :math:`B(\rho) = \sum_{i=1}^{n} a_i \rho^{k_i} + O(\rho^{k_{n+1}})` with exact rational
    :math:`a_i`; at infinity the exponents :math:`k_i` are :math:`\le 0` and decrease.

    Parameters
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
            Line width in points (default ``symloss.core.latex.DEFAULT_WIDTH_PT``).

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
        digits = _check_digits(digits)
        if columns is not None:
            raise ValueError(f"BlockingSeries.to_latex: a series has no columns (got columns={columns!r}); "
                             "use digits= and width=")
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
    >>> from symloss.core.series import big_int_str
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
