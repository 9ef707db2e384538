r"""The stationary law of :class:`~symloss.twoqueue.jsq.TwoQueueJSQ` as a result object.

:class:`TwoQueueDistribution` is what every exact solver returns (float, mp, exact, symbolic); it is
re-exported (and documented) by :mod:`symloss.twoqueue.jsq`.
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np
import sympy

from ..core.docstrings import fill_doc
from ..core.latex import number_latex
from ..core.precision import DEFAULT_DPS
from ..core.results import ResultMixin, _check_digits, round_significant
from ..core.validation import check_choice, check_int
from ._docfragments import TWOQUEUE_DOCS
from ._public import public_home

__all__ = ["TwoQueueDistribution"]


def _zero_like(x):
    if isinstance(x, float):
        return 0.0
    return x * 0


def _conditioning(N: int, n, total, of: str):
    """The checked arguments of ``conditional(n=None, *, total=None, of="queue")`` with ``N`` servers per queue.

    Returns ``(n, None)`` or ``(None, total)``; raises :class:`ValueError` (naming the argument) unless
    exactly one of ``n`` (in ``0..N``) and ``total`` (in ``0..2N``) is given, ``of`` is ``"queue"`` or
    ``"min"``, and ``of="min"`` comes with ``total``.
    """
    check_choice(of, "of", ("queue", "min"))
    if (n is None) == (total is None):
        raise ValueError("conditional: give exactly one of n (the other queue's occupancy) or total")
    if n is not None:
        n = check_int(n, "n", min_value=0, max_value=N)
        if of != "queue":
            raise ValueError("conditional: of='min' is only defined with total=")
        return n, None
    return None, check_int(total, "total", min_value=0, max_value=2 * N)


@public_home("symloss.twoqueue.jsq")
@fill_doc(TWOQUEUE_DOCS)
@dataclass
@fill_doc(TWOQUEUE_DOCS)
class TwoQueueDistribution(ResultMixin):
    r"""Stationary distribution of :class:`TwoQueueJSQ` computed by one method.

    Parameters
    ----------
    N, rho, method, dps : int, real, str, int or None
        The model and how it was solved (``dps`` only for ``"mp"``).
    p : numpy.ndarray or list of list
        The joint distribution, ``p[m][n]`` = P(first queue has m busy servers, second has n).
        ``numpy.ndarray`` (float), nested lists of ``mpmath.mpf`` (mp), ``flint.fmpq`` (exact) or
        SymPy expressions in :math:`\rho` (symbolic).
    level : sequence
        :math:`\pi_K = P(m + n = K)`, ``K = 0..2N`` (exact truncated Poisson).
    conditional_levels : list
        ``c_K(d) = P(|m-n| = d | m+n = K)`` for ``d = K mod 2, K mod 2 + 2, ...`` (list of vectors).
    residual : float
        Max relative residual of the balance equations (float and mp; 0 for exact/symbolic).
    error : float
        Estimated relative error of the conditional probabilities: float, from the iteration's
        contraction rate; mp, the largest relative difference between the two working precisions;
        0 for exact/symbolic.
    iterations, seconds : int, float
        Work done.
    log_p : numpy.ndarray or None
        ``log p`` where ``p`` underflows float64 (float method).

    Examples
    --------
    >>> from symloss import TwoQueueJSQ
    >>> res = TwoQueueJSQ(2, 1).stationary_distribution("exact")
    >>> res.total()                              # truncated Poisson: the M/M/4/4 law
    [24/65, 24/65, 12/65, 4/65, 1/65]
    >>> res.marginal_min(), res.mean_imbalance()
    ([148/195, 44/195, 1/65], 92/195)
    """
    N: int
    rho: Any
    method: str
    p: Any
    level: Any
    conditional_levels: Any
    residual: float = 0.0
    error: float = 0.0
    iterations: int = 0
    seconds: float = 0.0
    dps: int | None = None
    log_p: Any = field(default=None, repr=False)

    # -- helpers ---------------------------------------------------------------------------------
    @property
    def _is_float(self) -> bool:
        return self.method in ("float", "asymptotic")

    def _zero(self):
        return 0.0 if self._is_float else _zero_like(self.p[0][0])

    def _vec(self, values):
        if self._is_float:
            return np.asarray(values, dtype=float)
        return list(values)

    def _ctx(self):
        """mpmath working precision for summaries of an ``"mp"`` result (no-op otherwise)."""
        if self.method == "mp":
            return mpmath.workdps((self.dps or DEFAULT_DPS) + 10)
        return contextlib.nullcontext()

    def _diagonal_plus_twice(self, part):
        """``p(k, k) + 2 sum_n p(k, n)`` over the columns ``part(k)`` (a slice), ``k = 0..N``: the law of
        the less (columns above ``k``) or more (columns below) occupied queue, by symmetry."""
        with self._ctx():
            N = self.N
            if self._is_float:
                return np.array([self.p[k, k] + 2.0 * self.p[k, part(k)].sum() for k in range(N + 1)])
            return [self.p[k][k] + 2 * _sum(self.p[k][part(k)], self._zero()) for k in range(N + 1)]

    # -- public summaries ------------------------------------------------------------------------
    def blocking(self):
        r"""Blocking probability :math:`p(N, N)` (equals :math:`E(2N, \rho)` exactly).

        Returns
        -------
        float, mpmath.mpf, flint.fmpq or sympy.Expr
            In the number type of the method.
        """
        return self.p[self.N][self.N]

    def total(self):
        r"""Distribution of :math:`K = m + n`, ``K = 0..2N`` (truncated Poisson).

        Returns
        -------
        numpy.ndarray or list
            ``2N + 1`` probabilities (a list in the number type of the exact methods).
        """
        return self._vec(self.level)

    def marginal(self):
        r"""Distribution of the number of busy servers in one queue, :math:`P(m = k)`, ``k = 0..N``.

        {{returns_law_N1}}
        """
        with self._ctx():
            if self._is_float:
                return self.p.sum(axis=1)
            return [_sum(row, self._zero()) for row in self.p]

    def marginal_min(self):
        r"""Distribution of the less occupied queue, :math:`P(\min(m, n) = k)`, ``k = 0..N``.

        {{returns_law_N1}}
        """
        return self._diagonal_plus_twice(lambda k: slice(k + 1, None))

    def marginal_max(self):
        r"""Distribution of the more occupied queue, :math:`P(\max(m, n) = k)`, ``k = 0..N``.

        {{returns_law_N1}}
        """
        return self._diagonal_plus_twice(lambda k: slice(0, k))

    def imbalance(self):
        r"""Distribution of :math:`|m - n|`: index ``i`` holds :math:`P(|m - n| = i)`, ``i = 0..N``.

        {{returns_law_N1}}
        """
        with self._ctx():
            N = self.N
            if self._is_float:
                return np.array([np.trace(self.p, offset=0)] +
                                [2.0 * np.trace(self.p, offset=i) for i in range(1, N + 1)])
            out = []
            for i in range(N + 1):
                s = _sum((self.p[m][m + i] for m in range(N + 1 - i)), self._zero())
                out.append(s if i == 0 else 2 * s)
            return out

    def conditional(self, n=None, *, total=None, of: str = "queue"):
        r"""Conditional distributions.

        ``conditional(n=j)``: :math:`P(m = k \mid n = j)`, ``k = 0..N`` (one queue given the other).
        ``conditional(total=K)``: :math:`P(m = k \mid m + n = K)`, ``k = 0..N`` (one queue given the
        total). With ``of="min"`` (only with ``total``): :math:`P(\min(m,n) = k \mid m + n = K)`.

        Parameters
        ----------
        n : int, optional
            The other queue's occupancy, ``0 <= n <= N``.
        total : int, optional
            The total ``m + n``, ``0 <= total <= 2N``.
        of : {"queue", "min"}
            The conditioned quantity (``"min"`` only with ``total``).

        {{returns_law_N1}}

        Raises
        ------
        {{raises_conditioning}}
        ZeroDivisionError
            If the conditioning event underflows (use ``method="mp"``).

        Examples
        --------
        >>> from symloss import TwoQueueJSQ
        >>> res = TwoQueueJSQ(2, 1).stationary_distribution("exact")
        >>> res.conditional(total=2, of="min")       # P(min = k | m + n = 2)
        [1/9, 8/9, 0]
        """
        with self._ctx():
            return self._conditional(n, total=total, of=of)

    def _conditional(self, n=None, *, total=None, of: str = "queue"):
        """Implementation of :meth:`conditional`."""
        N = self.N
        n, K = _conditioning(N, n, total, of)
        if n is not None:
            col = [self.p[k][n] for k in range(N + 1)]
            s = _sum(col, self._zero())
            if s == 0:
                raise ZeroDivisionError(f"P(n = {n}) is zero at this precision (underflow); use method='mp'")
            return self._vec([v / s for v in col])
        col = [self.p[k][K - k] if 0 <= K - k <= N else self._zero() for k in range(N + 1)]
        s = _sum(col, self._zero())
        if s == 0:
            raise ZeroDivisionError(f"P(m + n = {K}) underflows; use method='mp'")
        if of == "queue":
            return self._vec([v / s for v in col])
        out = [self._zero()] * (N + 1)
        for k in range(N + 1):
            if 0 <= K - k <= N and k <= K - k:
                out[k] = col[k] / s if k == K - k else 2 * col[k] / s
        return self._vec(out)

    def mean_imbalance(self):
        r""":math:`E|m - n|`.

        Returns
        -------
        float, mpmath.mpf, flint.fmpq or sympy.Expr
        """
        with self._ctx():
            im = self.imbalance()
            return _sum((i * v for i, v in enumerate(im)), self._zero())

    def to_latex(self, digits: int | None = None, columns=None, *, max_terms: int = 200) -> str:
        r"""The law for a paper: an ``aligned`` block (for a display math environment) of
        :math:`B = p(N,N)`, :math:`P(m = n)`, :math:`E|m - n|` and / or the entries :math:`p(m, n)`,
        ``m <= n`` (followed by ``\quad p(n,m) = p(m,n)``).

        Symbolic results print rational functions of :math:`\rho`, exact results fractions; numerical
        results print the digits their method supports (``mp``: ``dps``; float: those of the error
        estimate, at most 15), or ``digits`` when that is fewer.

        Parameters
        ----------
        digits : int, optional
            Significant digits of numerical results, ``1 <= digits <= 100000`` (never more than the
            method supports).
        columns : sequence of str, optional
            Among ``"blocking"``, ``"balanced"``, ``"mean_imbalance"``, ``"law"``; default
            ``("blocking", "law")`` for ``N <= 3``, else the three summaries.
        max_terms : int
            At most this many entries :math:`p(m, n)` are printed (``>= 1``).

        Returns
        -------
        str
            Math-mode LaTeX: an ``aligned`` block.

        Raises
        ------
        ValueError
            For a bad ``digits``, ``max_terms`` or a name of ``columns`` that is not a quantity.
        """
        quantities = ("blocking", "balanced", "mean_imbalance", "law")
        digits = _check_digits(digits)
        max_terms = check_int(max_terms, "max_terms", min_value=1)
        if self.method in ("exact", "symbolic"):
            supported = None
        elif self.method == "mp":
            supported = int(self.dps or DEFAULT_DPS)
        else:   # float: the digits of the error estimate (relative), at most 15
            err = max(float(self.error or 0.0), float(self.residual or 0.0), 2.0 ** -52)
            supported = max(1, min(15, int(math.floor(-math.log10(err)))))
        n_digits = supported if digits is None or supported is None else min(digits, supported)

        def value(v) -> str:
            if self.method == "symbolic":
                return sympy.latex(sympy.factor(v))
            if self.method == "exact":
                return sympy.latex(sympy.Rational(int(v.p), int(v.q)))
            return "0" if v == 0 else number_latex(round_significant(v, n_digits))

        if columns is None:
            columns = ("blocking", "law") if self.N <= 3 else ("blocking", "balanced", "mean_imbalance")
        cols = [columns] if isinstance(columns, str) else list(columns)
        for c in cols:
            if c not in quantities:
                raise ValueError(f"TwoQueueDistribution.to_latex: columns has {c!r}, which is not a quantity; "
                                 f"valid: {', '.join(quantities)}")
        lines = []
        with self._ctx():
            for c in cols:
                if c == "blocking":
                    lines.append(f"B = p({self.N},{self.N}) &= {value(self.blocking())}")
                elif c == "balanced":
                    lines.append(f"P(m = n) &= {value(self.imbalance()[0])}")
                elif c == "mean_imbalance":
                    lines.append(rf"E\lvert m - n\rvert &= {value(self.mean_imbalance())}")
                else:
                    k = 0
                    for m in range(self.N + 1):
                        for n in range(m, self.N + 1):
                            if k < max_terms:
                                lines.append(f"p({m},{n}) &= {value(self.p[m][n])}")
                            k += 1
        note = r"\quad p(n,m) = p(m,n)" if "law" in cols else ""
        return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}" + note

    def _repr_latex_(self):
        return "$$" + self.to_latex() + "$$"

    def to_dict(self) -> dict:
        """Plain data: floats (or strings for exact/symbolic) for the summaries and the joint law.

        Returns
        -------
        dict
        """
        def conv(v):
            if self.method in ("exact", "symbolic"):
                return str(v)
            return float(v)
        return {
            "N": self.N, "rho": str(self.rho), "method": self.method, "dps": self.dps,
            "blocking": conv(self.blocking()), "residual": float(self.residual), "error": float(self.error),
            "iterations": self.iterations, "seconds": self.seconds,
            "imbalance": [conv(v) for v in self.imbalance()],
            "p": [[conv(v) for v in row] for row in self.p],
        }


def _sum(it, zero):
    s = zero
    for v in it:
        s = s + v
    return s

