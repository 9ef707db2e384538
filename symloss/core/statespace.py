r"""The state space of a model (:class:`StateSpace`: the unit box, the declared invariants, the order of a
tail state, in free coordinates) and the uniqueness errors and limits. Re-exported by
:mod:`symloss.core.certify`.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import arb, fmpq

from ._docfragments import CORE_DOCS
from .docstrings import fill_doc

__all__ = ["UNIQUENESS_MAX_DIM", "UNIQUENESS_EVIDENCE_MAX_DIM", "NonUniqueFixedPointError",
           "NonUniqueFixedPointWarning", "StateSpace"]

# ==================================================================================================
# the state space; uniqueness of the fixed point on it
# ==================================================================================================

#: the largest dimension of the state space (variables minus invariants) on which uniqueness is
#: decided by exclusion in interval arithmetic
UNIQUENESS_MAX_DIM = 3
#: the largest dimension on which other fixed points are searched by multi-start (evidence)
UNIQUENESS_EVIDENCE_MAX_DIM = 12
_UNIQ_MAX_BOXES = 6000
_UNIQ_MIN_WIDTH = 2.0 ** -30
_UNIQ_PREC = 128


class NonUniqueFixedPointError(ValueError):
    """The model has more than one fixed point on its state space (at a load, or somewhere in a load
    range): a result that presumes a unique fixed point (a certified comparison) is refused."""


class NonUniqueFixedPointWarning(UserWarning):
    """The certified fixed point is one of several fixed points on the state space."""


@fill_doc(CORE_DOCS)
class StateSpace:
    r"""The state space of a model: :math:`x \in [0, 1]^n` (fractions of servers), the declared
    linear invariants :math:`c_k \cdot x = v_k`, and for ``state_kind="tail"`` the order
    :math:`u_1 \ge u_2 \ge \dots \ge u_C`. In *free coordinates* ``z`` (the variables not eliminated
    by an invariant; one variable per invariant, the one its square system replaces, is eliminated):
    :math:`x_E = b + A z` exactly.

    Parameters
    ----------
    model : MeanFieldModel
        The model.

    Raises
    ------
    ValueError
        If the invariants cannot be solved for the variables their rows replace.

    Examples
    --------
    >>> from symloss import RandomRouting
    >>> from symloss.core.certify import StateSpace
    >>> S = StateSpace(RandomRouting(2))
    >>> S.dim, S.describe()
    (2, 'x0, x1, x2 in [0, 1], x0 + x1 + x2 = 1')
    """

    def __init__(self, model):
        import sympy as sp
        V = list(model.variables)
        n = len(V)
        inv = model._invariants
        replaced = model._replaced_rows if inv else {}
        self.n = n
        self.variables = tuple(V)
        self.E = sorted(replaced)
        self.F = [i for i in range(n) if i not in replaced]
        self.dim = len(self.F)
        self.tail = getattr(model, "state_kind", "custom") == "tail"
        self.invariants = [([Fraction(int(sp.Rational(c).p), int(sp.Rational(c).q)) for c in cc],
                            Fraction(int(sp.Rational(v).p), int(sp.Rational(v).q))) for cc, v in inv]
        self.b, self.A = [], []
        if self.E:
            M = sp.Matrix([[inv[k][0][j] for j in self.E] for k in range(len(inv))])
            if M.det() == 0:
                raise ValueError("the invariants cannot be solved for the variables their rows replace")
            Minv = M.inv()
            vv = sp.Matrix([inv[k][1] for k in range(len(inv))])
            CF = sp.Matrix([[inv[k][0][i] for i in self.F] for k in range(len(inv))])
            bb, AA = Minv * vv, -Minv * CF
            self.b = [Fraction(int(sp.Rational(bb[j]).p), int(sp.Rational(bb[j]).q)) for j in range(len(self.E))]
            self.A = [[Fraction(int(sp.Rational(AA[j, i]).p), int(sp.Rational(AA[j, i]).q)) for i in range(self.dim)]
                      for j in range(len(self.E))]
        self._b_arb = [arb(fmpq(q.numerator, q.denominator)) for q in self.b]
        self._A_arb = [[arb(fmpq(q.numerator, q.denominator)) for q in row] for row in self.A]

    def describe(self) -> str:
        """A one-line description of the set.

        Returns
        -------
        str
        """
        parts = [", ".join(map(str, self.variables)) + " in [0, 1]"]
        for c, v in self.invariants:
            lhs = " + ".join((str(v_) if ci == 1 else f"{ci}*{v_}") for ci, v_ in zip(c, self.variables) if ci != 0)
            parts.append(f"{lhs} = {v}")
        if self.tail:
            parts.append(" >= ".join(map(str, self.variables)))
        return ", ".join(parts)

    # float ---------------------------------------------------------------------------------------
    def violation(self, x, tol: float = 0.0):
        """The first constraint ``x`` violates by more than ``tol``, as ``(index, text)``, or ``None``.

        Parameters
        ----------
        x : array_like
            A state (floats, order of the variables).
        tol : float
            Tolerance.

        Returns
        -------
        tuple or None
            ``(coordinate index or None, description)``.
        """
        x = np.asarray(x, dtype=float)
        if not np.all(np.isfinite(x)):
            i = int(np.argmax(~np.isfinite(x)))
            return i, f"{self.variables[i]} = {x[i]!r} is not finite"
        i = int(np.argmin(x))
        if x[i] < -tol:
            return i, f"{self.variables[i]} = {x[i]:.6g} < 0"
        i = int(np.argmax(x))
        if x[i] > 1 + tol:
            return i, f"{self.variables[i]} = {x[i]:.6g} > 1"
        for c, v in self.invariants:
            val = float(sum(float(ci) * x[j] for j, ci in enumerate(c) if ci != 0))
            if abs(val - float(v)) > tol * (1 + sum(abs(float(ci)) for ci in c)):
                lhs = " + ".join((str(v_) if ci == 1 else f"{ci}*{v_}") for ci, v_ in zip(c, self.variables) if ci != 0)
                return None, f"invariant {lhs} = {v} violated ({val:.12g})"
        if self.tail:
            for k in range(self.n - 1):
                if x[k + 1] > x[k] + tol:
                    return k + 1, (f"order {self.variables[k]} >= {self.variables[k + 1]} violated "
                                   f"({x[k]:.6g} < {x[k + 1]:.6g})")
        return None

    # balls ---------------------------------------------------------------------------------------
    def full(self, z):
        """The state (balls) of the free coordinates ``z`` (balls).

        Parameters
        ----------
        z : sequence of flint.arb
            Free coordinates.

        Returns
        -------
        list of flint.arb
        """
        x = [None] * self.n
        for k, i in enumerate(self.F):
            x[i] = z[k]
        for j, e in enumerate(self.E):
            acc = self._b_arb[j]
            for k in range(self.dim):
                a = self._A_arb[j][k]
                if a != 0:
                    acc = acc + a * z[k]
            x[e] = acc
        return x

    def dxdz(self):
        """``d x / d z``.

        Returns
        -------
        list of list of flint.arb
            One row per variable, one column per free coordinate.
        """
        out = [None] * self.n
        for k, i in enumerate(self.F):
            out[i] = [arb(1) if kk == k else arb(0) for kk in range(self.dim)]
        for j, e in enumerate(self.E):
            out[e] = list(self._A_arb[j])
        return out

    def outside(self, x) -> bool:
        """Whether the box ``x`` certainly misses the state space.

        {{parameters_box_x}}

        Returns
        -------
        bool
            ``True`` when a component lies wholly outside ``[0, 1]`` or, for a tail state, a
            component lies wholly below the next one; ``False`` means "maybe in the state space".
        """
        for v in x:
            if v < 0 or v > 1:
                return True
        if self.tail:
            for k in range(self.n - 1):
                if x[k] < x[k + 1]:
                    return True
        return False

    def inside(self, x) -> bool:
        """Whether every point of the box ``x`` (positive) that satisfies the invariants certainly
        lies in the state space (upper bounds tightened by the invariants with non-negative
        coefficients).

        {{parameters_box_x}}

        Returns
        -------
        bool
            ``True`` when it is proved; ``False`` means "not proved".
        """
        x = list(x)
        for c, v in self.invariants:
            if all(ci >= 0 for ci in c):
                lows = [arb(max(xj.lower(), arb(0))) if ci != 0 else arb(0) for ci, xj in zip(c, x)]
                for i, ci in enumerate(c):
                    if ci > 0:
                        rest = sum((arb(fmpq(cj.numerator, cj.denominator)) * lows[j] for j, cj in enumerate(c)
                                    if j != i and cj != 0), arb(0))
                        ub = (arb(fmpq(v.numerator, v.denominator)) - rest) / arb(fmpq(ci.numerator, ci.denominator))
                        if ub < x[i].upper():
                            x[i] = arb.union(arb(x[i].lower()), arb(ub.upper()))
        if not all(v >= 0 and v <= 1 for v in x):
            return False
        if self.tail:
            return all(x[k] >= x[k + 1] for k in range(self.n - 1))
        return True
