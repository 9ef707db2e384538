r"""The shipped mean-field policies of load balancing between N loss stations of capacity C
(Cuesta, Jonckheere, Prabhu and Brun 2026), each written **once**, as a
:class:`~symloss.MeanFieldModel`: state variables, transitions (jump, rate per server; service rate
``mu = 1``), blocking expression and invariants. Nothing numerical is written here: solvers, closed
forms and evaluators are derived from these definitions (:mod:`symloss.core.model`,
:mod:`symloss.core.certify`) or are accelerators checked against them
(:mod:`symloss.meanfield.accelerators`).

* :class:`RandomRouting` (``d = 1``): each server is an M/M/C/C station with load ``rho``.
* :class:`RetrialOfD`: a job tries up to ``d`` uniformly chosen servers; with ``p = x_C`` the
  fraction of full servers, a non-full server receives Poisson input of rate
  :math:`\Lambda = \rho (1 - p^d)/(1 - p) = \rho (1 + p + \dots + p^{d-1})`, so

  .. math:: p = E\left(C, \rho \frac{1 - p^d}{1 - p}\right), \qquad B_{ret}(d) = p^d.

* :class:`PowerOfD` (JSQ(d), ``d`` samples with replacement): tails ``u_k``,

  .. math:: \dot u_k = \rho (u_{k-1}^d - u_k^d) - k (u_k - u_{k+1}), \qquad B_{pod}(d) = u_C^d.

* :class:`JSQ` (join the shortest queue): fluid blocking :math:`\max(0, 1 - C/\rho)`.

Finite-N rates (:meth:`~symloss.MeanFieldModel.finite_n_transitions`) are given for sampling
*without* replacement; with replacement the count chain is the mean-field rates times ``N``.

Source: D. Cuesta, M. Jonckheere, B. Prabhu, O. Brun, "Retrials in loss systems: mean-field
analysis, Erlang bounds, and power-of-d comparison", arXiv:2611.06267 (2026).

Imports: the eliminant methods import :mod:`symloss.meanfield.elimination` when called, because that
module imports the accelerators, which import these classes (a module-level import would be a cycle).

Length: this module is longer than the house limit of ~600 lines on purpose: it is the four shipped
definitions and their documentation (each class's docstring states its model), and the API reference
documents the classes at this path (``symloss.meanfield.models.RetrialOfD``); solvers and fast paths
already live elsewhere (:mod:`symloss.meanfield.accelerators`, :mod:`symloss.meanfield.elimination`).

Size: the shipped policies, each written once with its documentation, meant to be read side by side; no
solver code is here.
"""
from __future__ import annotations

import sympy as sp

from ..core.certify import FixedPointResult, OdeResult, integrate_ode_checks
from ..core.docstrings import fill_doc
from ..core.model import BSYM, RHO, MeanFieldModel
from ..core.validation import check_int
from ._docfragments import MEANFIELD_DOCS
from .accel_jsq import JSQ_CLOSED_FORM

__all__ = ["RandomRouting", "RetrialOfD", "PowerOfD", "JSQ", "FixedPointResult", "OdeResult", "RHO", "BSYM"]

#: largest capacity of the shipped policies: the definition (2C SymPy transitions) is derived and checked
#: before any solve, linear in C; measured at C = 10^4 on 2 cores: 6-12 s for d <= 8, 49 s for
#: RetrialOfD(C, 64) at light load (C = 10^5 took 74 s to derive and 135 s to solve, see
#: docs/accuracy_and_limits.md)
_MAX_C = 10_000
#: largest capacity of JSQ: its Heaviside rates cost SymPy about 4 ms per level to build and check
#: (JSQ(1000).blocking: 4.1 s first call, JSQ(10^4): 60 s, measured)
_MAX_C_JSQ = 1_000
_MAX_D = 64


def _unit(n, *entries):
    """A sparse integer column of length ``n`` with the given ``(index, value)`` entries."""
    return sp.SparseMatrix(n, 1, {(i, 0): v for i, v in entries})


def _all_drawn_from(count, N, d):
    r"""Probability that ``d`` servers drawn without replacement among ``N`` all lie in a set of
    ``count`` servers: :math:`\prod_{i<d} (\mathrm{count} - i)/(N - i)` (SymPy)."""
    out = sp.Integer(1)
    for i in range(d):
        out *= (count - i) / sp.Integer(N - i)
    return out


class _Shipped(MeanFieldModel):
    """Common constructor checks of the shipped policies (capacity ``C``, parameter ``d``)."""

    def __init__(self, C, d=1):
        self.C = check_int(C, "C", min_value=1, max_value=_MAX_C)
        self.d = check_int(d, "d", min_value=1, max_value=_MAX_D)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(C={self.C}, d={self.d})" if self.d != 1 else f"{type(self).__name__}(C={self.C})"


def _all_d_full(self):
    """The blocking :math:`x_C^d` (retrial-of-d), :math:`u_C^d` (power-of-d): all ``d`` servers tried
    or sampled are full (``blocking_expr`` of :class:`RetrialOfD` and :class:`PowerOfD`).

    Returns
    -------
    sympy.Expr
        The last state variable (the fraction of full servers) to the power ``d``: in the mean-field
        limit the ``d`` servers are independent, each full with probability ``x_C`` (``u_C``).

    Examples
    --------
    >>> from symloss import PowerOfD, RetrialOfD
    >>> RetrialOfD(2, 3).blocking_expr()
    x2**3
    >>> PowerOfD(3, 2).blocking_expr()
    u3**2
    """
    return self.variables[-1] ** self.d


@fill_doc(MEANFIELD_DOCS)
def _finite_n_all_full(self, N, sampling="with_replacement"):
    r"""Probability that an arrival is lost in a count state: all ``d`` servers drawn are full
    (``finite_n_blocking_expr`` of :class:`RetrialOfD` and :class:`PowerOfD`).

    Parameters
    ----------
    {{params_N_sampling}}

    Returns
    -------
    sympy.Expr or None
        :math:`\prod_{i<d} (n_C - i)/(N - i)` without replacement, in the last count symbol (the
        number of full servers: ``n_C`` of the occupancy state, ``U_C`` of the tail state); ``None``
        with replacement (:meth:`blocking_expr` at the fractions ``n / N``).

    Examples
    --------
    >>> from symloss import PowerOfD, RetrialOfD
    >>> RetrialOfD(2, 2).finite_n_blocking_expr(4, "without_replacement")
    n2*(n2/3 - 1/3)/4
    >>> PowerOfD(2, 2).finite_n_blocking_expr(4, "without_replacement")
    U2*(U2/3 - 1/3)/4
    """
    if sampling == "with_replacement":
        return None
    return _all_drawn_from(self.count_symbols()[-1], N, self.d)


# ==================================================================================================
# random routing and retrial-of-d (state: x_k = fraction of servers with k jobs)
# ==================================================================================================

@fill_doc(MEANFIELD_DOCS)
class RetrialOfD(_Shipped):
    r"""Retrial-of-d: an arrival tries up to ``d`` uniformly chosen servers in turn and is lost
    when all ``d`` are full.

    State: the occupancy fractions ``x_0, ..., x_C`` (``x_k`` = fraction of servers holding ``k``
    jobs, invariant :math:`\sum_k x_k = 1`). With ``p = x_C``, a non-full server receives Poisson
    input of rate :math:`\rho (1 + p + \dots + p^{d-1})`, so its occupancy is truncated Poisson
    and

    .. math:: p = E\left(C, \rho \frac{1-p^d}{1-p}\right), \qquad B_{ret}(d) = p^d,

    with ``E`` the Erlang-B function (equation of the fixed point in [1]_).

    Parameters
    ----------
    C : int
        Capacity of a server (jobs it holds), ``1 <= C <= 10000``.
    d : int
        Number of servers tried, ``1 <= d <= 64`` (``d = 1`` is random routing).

    {{raises_C_d}}

    See Also
    --------
    PowerOfD, RandomRouting, symloss.crossing_loads, symloss.threshold_load

    Notes
    -----
    The numerics (:meth:`~symloss.MeanFieldModel.fixed_point`, :meth:`~symloss.MeanFieldModel.blocking`)
    use the Erlang-B reduction above (an accelerator, :mod:`symloss.meanfield.accelerators`) only
    after checking that this definition is the template system it solves, and verify its answer on
    the definition's own equations; a subclass that edits a rate is solved by the generic certified
    solver.

    {{references_retrial}}

    Examples
    --------
    >>> import mpmath
    >>> from symloss import RetrialOfD
    >>> mpmath.nstr(RetrialOfD(2, 2).blocking(1, dps=20), 20)     # (2^(1/3) - 1)^2
    '0.067558952178453145217'
    """
    name = "retrial"
    state_kind = "occupancy"

    def __init__(self, C, d):
        super().__init__(C, d)
        self.variables = tuple(sp.Symbol(f"x{k}", nonnegative=True) for k in range(self.C + 1))

    def arrival_rate_expr(self):
        r"""Arrival rate per non-full server, :math:`\rho (1 + p + \dots + p^{d-1})`, ``p = x_C``.

        Returns
        -------
        sympy.Expr
            The rate, in :data:`~symloss.core.model.RHO` and the last state variable.

        Examples
        --------
        >>> from symloss import RetrialOfD
        >>> RetrialOfD(2, 3).arrival_rate_expr()
        rho*(x2**2 + x2 + 1)
        """
        p = self.variables[-1]
        return RHO * sp.Add(*[p ** j for j in range(self.d)])

    def transitions(self):
        r"""Arrivals ``x_k -> x_{k+1}`` at rate :math:`\rho (1 + p + \dots + p^{d-1}) x_k` and
        departures ``x_k -> x_{k-1}`` at rate ``k x_k`` (the definition).

        Returns
        -------
        list of (sympy.SparseMatrix, sympy.Expr)
            ``2 C`` pairs ``(jump, rate)``: the ``C`` arrivals (from levels ``0..C-1``), then the ``C``
            departures.

        Examples
        --------
        >>> from symloss import RetrialOfD
        >>> [rate for _jump, rate in RetrialOfD(1, 2).transitions()]
        [rho*x0*x1 + rho*x0, x1]
        """
        n = self.C + 1
        lam_terms = sp.Add.make_args(sp.expand(self.arrival_rate_expr()))
        x = self.variables
        # the rate lam * x_k, written expanded (one monomial per term of lam)
        out = [(_unit(n, (k, -1), (k + 1, 1)), sp.Add(*[t * x[k] for t in lam_terms])) for k in range(self.C)]
        out += [(_unit(n, (k, -1), (k - 1, 1)), k * x[k]) for k in range(1, self.C + 1)]
        return out

    blocking_expr = _all_d_full

    def invariants(self):
        """The fractions sum to one.

        Returns
        -------
        list of sympy.Eq
            The one invariant ``x_0 + ... + x_C = 1``.

        Examples
        --------
        >>> from symloss import RetrialOfD
        >>> RetrialOfD(2, 2).invariants()
        [Eq(x0 + x1 + x2, 1)]
        """
        return [sp.Eq(sp.Add(*self.variables), 1)]

    def count_symbols(self):
        """The count state ``n0, ..., nC`` (number of servers holding ``k`` jobs).

        Returns
        -------
        tuple of sympy.Symbol
            ``C + 1`` non-negative integer symbols, ``n_k`` counting the servers at level ``k``.

        Examples
        --------
        >>> from symloss import RetrialOfD
        >>> RetrialOfD(2, 2).count_symbols()
        (n0, n1, n2)
        """
        return tuple(sp.Symbol(f"n{k}", nonnegative=True, integer=True) for k in range(self.C + 1))

    def finite_n_transitions(self, N, sampling="with_replacement"):
        r"""Finite-N transitions of the count chain.

        Without replacement the ``d`` attempts go to distinct servers: an arrival joins a given
        level-``k`` server with probability
        :math:`\sum_{j<d} \frac{1}{N-j}\prod_{i<j}\frac{n_C-i}{N-i}`.

        {{finite_n_transitions_sections}}

        Examples
        --------
        >>> from symloss import RetrialOfD
        >>> [rate for _j, rate in RetrialOfD(1, 2).finite_n_transitions(3, "without_replacement")]
        [3*n0*rho*(n1/6 + 1/3), n1]
        """
        if sampling == "with_replacement":
            return None
        n = self.count_symbols()
        nC = n[-1]
        geo, allfull = sp.Integer(0), sp.Integer(1)
        for j in range(self.d):
            geo += allfull / (N - j)
            allfull = allfull * (nC - j) / (N - j)
        m = self.C + 1
        out = [(_unit(m, (k, -1), (k + 1, 1)), N * RHO * n[k] * geo) for k in range(self.C)]
        out += [(_unit(m, (k, -1), (k - 1, 1)), k * n[k]) for k in range(1, self.C + 1)]
        return out

    finite_n_blocking_expr = _finite_n_all_full

    def eliminant(self, *, max_degree: int | None = None) -> sp.Poly:
        r"""Polynomial :math:`P(\rho, B)` vanishing at the mean-field blocking (small ``C``, ``d``).

        For the shipped definition: from ``p = E(C, a)`` (``p S_C(a) = a^C/C!``),
        ``rho (1 - p^d) = a (1 - p)`` and ``B = p^d``, ``a`` and ``p`` are eliminated with
        resultants (this reduction is checked to be the model's own stationary system first); for an
        edited definition the generic elimination of :meth:`MeanFieldModel.eliminant
        <symloss.MeanFieldModel.eliminant>` is used. The factor that vanishes at the certified
        blocking is returned.

        Parameters
        ----------
        max_degree : int
            Refuse, before any work, when the predicted degree ``C (d - 1) + 1`` exceeds it (default
            :data:`~symloss.meanfield.elimination.MAX_ELIMINANT_DEGREE`, 48; for an edited definition the
            work index of :func:`~symloss.meanfield.elimination.generic_eliminant`, default 100).

        Returns
        -------
        sympy.Poly
            Irreducible over the integers, in :data:`~symloss.core.model.RHO` and ``B``.

        {{raises_retrial_eliminant}}

        Examples
        --------
        >>> from symloss import RetrialOfD
        >>> RetrialOfD(2, 2).eliminant()
        Poly(rho**4*B**3 - 3*rho**4*B**2 + 3*rho**4*B - rho**4 + 8*rho*B + 4*B, rho, B, domain='ZZ')
        """
        from .elimination import retrial_eliminant
        return retrial_eliminant(self, max_degree=max_degree)

    def cubic_in_a(self, *, max_degree: int | None = None):
        """The polynomial relation between ``rho`` and the load ``a`` offered to a non-full server
        (``p`` eliminated).

        Parameters
        ----------
        max_degree : int
            Refuse, before any work, when the degree ``C (d - 1) + 1`` in ``a`` exceeds it (default
            :data:`~symloss.meanfield.elimination.MAX_RELATION_DEGREE`, 128).

        Returns
        -------
        sympy.Poly
            A polynomial in ``a`` with coefficients in ``rho``.

        {{raises_relation_in_a}}

        Examples
        --------
        >>> from symloss import RetrialOfD
        >>> RetrialOfD(2, 2).cubic_in_a()
        Poly(a**3 + (2 - 2*rho)*a**2 + (2 - 2*rho)*a - 2*rho, a, domain='ZZ[rho]')
        """
        from .elimination import retrial_relation_in_a
        return retrial_relation_in_a(self, max_degree=max_degree)


@fill_doc(MEANFIELD_DOCS)
class RandomRouting(RetrialOfD):
    """Random routing (``d = 1``): every server is an M/M/C/C station with load ``rho``;
    blocking ``E(C, rho)`` (the Erlang-B function).

    Parameters
    ----------
    C : int
        Capacity of a server, ``1 <= C <= 10000``.

    {{raises_C}}

    See Also
    --------
    RetrialOfD : Random routing is its case ``d = 1``.
    symloss.erlang_b : The blocking ``E(C, rho)`` of each server.

    {{references_retrial}}

    Examples
    --------
    >>> import mpmath
    >>> from symloss import RandomRouting, erlang_b
    >>> mpmath.nstr(RandomRouting(3).blocking(2, dps=15), 15)     # E(3, 2) = 4/19
    '0.210526315789474'
    >>> mpmath.nstr(erlang_b(3, 2, dps=15), 15)
    '0.210526315789474'
    """
    name = "random"

    def __init__(self, C):
        super().__init__(C, 1)

    def __repr__(self):
        return f"RandomRouting(C={self.C})"


# ==================================================================================================
# power-of-d and JSQ (state: u_k = fraction of servers with at least k jobs, k = 1..C)
# ==================================================================================================

class _TailStateModel(_Shipped):
    """State ``u_1..u_C``: the fraction of servers holding at least ``k`` jobs (``u_0 = 1``,
    ``u_{C+1} = 0``)."""
    state_kind = "tail"

    def __init__(self, C, d=1):
        super().__init__(C, d)
        self.variables = tuple(sp.Symbol(f"u{k}", nonnegative=True) for k in range(1, self.C + 1))

    def _u(self, k):
        if k == 0:
            return sp.Integer(1)
        if k == self.C + 1:
            return sp.Integer(0)
        return self.variables[k - 1]

    def count_symbols(self):
        """The count state ``U1, ..., UC`` (number of servers holding at least ``k`` jobs).

        Returns
        -------
        tuple of sympy.Symbol
            ``C`` non-negative integer symbols, ``U_k`` counting the servers at level ``k`` or above.

        Examples
        --------
        >>> from symloss import PowerOfD
        >>> PowerOfD(2, 2).count_symbols()
        (U1, U2)
        """
        return tuple(sp.Symbol(f"U{k}", nonnegative=True, integer=True) for k in range(1, self.C + 1))


@fill_doc(MEANFIELD_DOCS)
class PowerOfD(_TailStateModel):
    r"""Power-of-d: an arrival samples ``d`` servers (with replacement) and joins the least
    occupied; it is lost when all ``d`` are full.

    State: the tails ``u_1, ..., u_C`` (``u_k`` = fraction of servers holding at least ``k`` jobs,
    ``u_0 = 1``, ``u_{C+1} = 0``; no invariant). The fixed point solves

    .. math:: \rho (u_{k-1}^d - u_k^d) = k (u_k - u_{k+1}), \quad k = 1, \dots, C,
              \qquad B_{pod}(d) = u_C^d.

    Parameters
    ----------
    C : int
        Capacity of a server, ``1 <= C <= 10000``.
    d : int
        Number of servers sampled, ``1 <= d <= 64``.

    {{raises_C_d}}

    See Also
    --------
    RetrialOfD, JSQ, symloss.threshold_load

    Notes
    -----
    The shooting method on :math:`\log u_C` (:mod:`symloss.meanfield.accelerators`) is used after
    checking that this definition is its template system; its answer is verified on the
    definition's own equations.

    References
    ----------
    {{ref_retrial}}
    .. [2] M. Mitzenmacher, "The power of two choices in randomized load balancing", PhD thesis,
       University of California, Berkeley (1996).

    Examples
    --------
    >>> import mpmath
    >>> from symloss import PowerOfD
    >>> model = PowerOfD(2, 2)
    >>> model.variables                  # the tails u_1, u_2
    (u1, u2)
    >>> mpmath.nstr(model.blocking(1, dps=20), 20)
    '0.053034671871595439739'
    """
    name = "power"

    def __init__(self, C, d):
        super().__init__(C, d)

    def transitions(self):
        r"""Arrivals ``u_k += 1`` at rate :math:`\rho (u_{k-1}^d - u_k^d)` and departures
        ``u_k -= 1`` at rate :math:`k (u_k - u_{k+1})` (the definition).

        Returns
        -------
        list of (sympy.SparseMatrix, sympy.Expr)
            ``2 C`` pairs ``(jump, rate)``, level by level: the arrival to level ``k``, then the departure
            from it.

        Examples
        --------
        >>> from symloss import PowerOfD
        >>> [rate for _jump, rate in PowerOfD(2, 2).transitions()]
        [-rho*u1**2 + rho, u1 - u2, rho*u1**2 - rho*u2**2, 2*u2]
        """
        n, d = self.C, self.d
        out = []
        for k in range(1, self.C + 1):
            out.append((_unit(n, (k - 1, 1)), RHO * self._u(k - 1) ** d - RHO * self._u(k) ** d))
            out.append((_unit(n, (k - 1, -1)), k * self._u(k) - k * self._u(k + 1)))
        return out

    blocking_expr = _all_d_full

    def finite_n_transitions(self, N, sampling="with_replacement"):
        r"""Finite-N transitions of the count chain.

        Without replacement the ``d`` samples are distinct servers: the least occupied of them
        holds at least ``k`` jobs with probability :math:`P_k = \prod_{i<d} (U_k - i)/(N - i)`.

        {{finite_n_transitions_sections}}

        Examples
        --------
        >>> from symloss import PowerOfD
        >>> [rate for _j, rate in PowerOfD(1, 2).finite_n_transitions(3, "without_replacement")]
        [3*rho*(-U1*(U1/2 - 1/2)/3 + 1), U1]
        """
        if sampling == "with_replacement":
            return None
        U = (sp.Integer(N),) + self.count_symbols() + (sp.Integer(0),)

        def P(k):
            return _all_drawn_from(U[k], N, self.d)
        out = []
        for k in range(1, self.C + 1):
            out.append((_unit(self.C, (k - 1, 1)), N * RHO * (P(k - 1) - P(k))))
            out.append((_unit(self.C, (k - 1, -1)), k * (U[k] - U[k + 1])))
        return out

    finite_n_blocking_expr = _finite_n_all_full

    def quartic(self, *, max_degree: int | None = None) -> sp.Poly:
        """Polynomial in ``s = u_C`` and ``rho`` from eliminating ``u_1, ..., u_{C-1}`` downwards
        (by resultants of the model's own stationary equations).

        {{params_max_degree_bezout}}

        Returns
        -------
        sympy.Poly
            In ``s`` and ``rho``; for ``C = 2, d = 2`` at ``rho = 1`` it is
            ``s^4 + 2 s^3 - 2 s^2 - 4 s + 1``.

        {{raises_power_elimination}}

        Examples
        --------
        >>> from symloss import PowerOfD
        >>> PowerOfD(2, 2).quartic()
        Poly(s**4*rho**4 + 2*s**3*rho**3 - 2*s**2*rho**4 - 2*s*rho**3 - 2*s*rho + rho**4, s, rho, domain='ZZ')
        """
        from .elimination import power_polynomial_in_s
        return power_polynomial_in_s(self, max_degree=max_degree)

    def eliminant(self, *, max_degree: int | None = None) -> sp.Poly:
        r"""Polynomial :math:`P(\rho, B)` vanishing at the power-of-d blocking (small C, d): the
        polynomial in ``s = u_C`` (eliminated from the model's own stationary equations) combined
        with ``B = s^d`` by a resultant, reduced to its physical factor.

        {{params_max_degree_bezout}}

        Returns
        -------
        sympy.Poly
            In :data:`~symloss.core.model.RHO` and ``B``.

        {{raises_power_eliminant}}

        Examples
        --------
        >>> from symloss import PowerOfD
        >>> PowerOfD(1, 2).eliminant()
        Poly(rho**2*B**2 - 2*rho**2*B + rho**2 - B, rho, B, domain='ZZ')
        """
        from .elimination import power_eliminant
        return power_eliminant(self, max_degree=max_degree)


@fill_doc(MEANFIELD_DOCS)
class JSQ(_TailStateModel):
    r"""Join the shortest queue among all servers: the fluid lower bound
    :math:`B = \max(0, 1 - C/\rho)` (servers are filled level by level).

    State: the tails ``u_1, ..., u_C``; the rates are discontinuous (Heaviside indicators), so the
    generic solver does not apply and the closed form is used (an accelerator checked against this
    definition).

    Parameters
    ----------
    C : int
        Capacity of a server, ``1 <= C <= 1000`` (the Heaviside definition is slow to derive beyond).

    {{raises_C}}

    See Also
    --------
    PowerOfD : JSQ among ``d`` sampled servers.
    symloss.TwoQueueJSQ : JSQ between two M/M/N/N queues (Yao and Knessl), exact at finite size.

    {{references_retrial}}

    Examples
    --------
    >>> import mpmath
    >>> from symloss import JSQ
    >>> [mpmath.nstr(JSQ(2).blocking(rho, dps=15), 15) for rho in (1, 4)]     # no loss below rho = C
    ['0.0', '0.5']
    """
    name = "jsq"
    #: JSQ inspects every server: its finite-N chain does not depend on a sampling convention
    samples_servers = False

    def __init__(self, C):
        check_int(C, "C", min_value=1, max_value=_MAX_C_JSQ)
        super().__init__(C, 1)

    def transitions(self):
        """Arrivals join the lowest level that is not full (fluid JSQ): the arrival flux to level
        ``k`` is ``rho`` while every lower level is full (``u_{k-1} = 1``) and level ``k`` is not
        (``u_k < 1``), written with Heaviside indicators.

        Returns
        -------
        list of (sympy.SparseMatrix, sympy.Expr)
            ``2 C`` pairs ``(jump, rate)``, level by level as for :class:`PowerOfD`; the arrival
            rates are switched by the Heaviside indicators.

        Examples
        --------
        >>> from symloss import JSQ
        >>> JSQ(2).transitions()[0][1]
        rho*(1 - Heaviside(u1 - 1, 1))
        """
        n = self.C
        out = []
        H = sp.Heaviside
        for k in range(1, self.C + 1):
            lower_full = sp.Integer(1) if k == 1 else H(self._u(k - 1) - 1, 1)
            out.append((_unit(n, (k - 1, 1)), RHO * lower_full * (1 - H(self._u(k) - 1, 1))))
            out.append((_unit(n, (k - 1, -1)), k * (self._u(k) - self._u(k + 1))))
        return out

    def blocking_expr(self):
        r"""The fluid blocking :math:`\max(0, 1 - C/\rho)`.

        Returns
        -------
        sympy.Expr
            A ``Max`` in :data:`~symloss.core.model.RHO` alone (no state variable: the fluid limit
            fills the levels in turn).

        Examples
        --------
        >>> from symloss import JSQ
        >>> JSQ(2).blocking_expr()
        Max(0, 1 - 2/rho)
        """
        return sp.Max(0, 1 - self.C / RHO)

    def polynomial_system(self):
        """The blocking equation on the branch ``rho >= C``: ``rho B - rho + C = 0``.

        Returns
        -------
        list of sympy.Expr
            One polynomial in :data:`~symloss.core.model.RHO` and :data:`~symloss.core.model.BSYM`
            (no state variable: JSQ's blocking is in closed form).

        Examples
        --------
        >>> from symloss import JSQ
        >>> JSQ(2).polynomial_system()
        [B*rho - rho + 2]
        """
        return [sp.expand(RHO * BSYM - RHO + self.C)]   # on the branch rho >= C

    def eliminant(self, *, max_degree: int | None = None):
        """``rho B - rho + C`` (the blocking on the branch ``rho >= C``).

        Parameters
        ----------
        max_degree : int
            Accepted for the common signature; the closed form has degree 1.

        Returns
        -------
        sympy.Poly
            Degree one in ``rho`` and ``B``; it has no root in ``[0, 1)`` for ``rho < C``, where the
            blocking is 0.

        Examples
        --------
        >>> from symloss import JSQ
        >>> JSQ(2).eliminant()
        Poly(rho*B - rho + 2, rho, B, domain='ZZ')
        """
        return sp.Poly(RHO * BSYM - RHO + self.C, RHO, BSYM)

    def ode(self, rho, x0, t, *, rtol: float = 1e-10, atol: float = 1e-13, **kw):
        """Fluid JSQ trajectories: the Filippov solution of the discontinuous drift of
        :meth:`transitions` (see :meth:`JSQAccelerator.fluid_rhs
        <symloss.meanfield.accelerators.JSQAccelerator.fluid_rhs>`), integrated by scipy's RK45
        (the right-hand side is continuous on trajectories).

        Parameters
        ----------
        rho : float
            Load per server, ``> 0``.
        x0 : array_like
            Initial tails ``u_1, ..., u_C`` in ``[0, 1]``.
        t : array_like
            Increasing output times, ``>= 0``.
        rtol, atol : float
            Tolerances of the integrator.
        **kw
            ``method=`` (a ``solve_ivp`` method, default ``"RK45"``).

        Returns
        -------
        OdeResult
            The trajectory at the times ``t`` and the blocking of each state.

        Raises
        ------
        ValueError
            If ``rho``, ``x0`` or ``t`` is out of range.
        RuntimeError
            If the integration fails.

        Examples
        --------
        >>> from symloss import JSQ
        >>> JSQ(2).ode(4, [0, 0], [0, 1, 10]).blocking.tolist()
        [0.0, 0.5, 0.5]
        """
        import numpy as np
        from scipy.integrate import solve_ivp

        if not JSQ_CLOSED_FORM.applies(self)[0]:
            return super().ode(rho, x0, t, rtol=rtol, atol=atol, **kw)
        rho_f, x0, t = integrate_ode_checks(self, rho, x0, t)
        sol = solve_ivp(lambda _t, y: JSQ_CLOSED_FORM.fluid_rhs(self.C, rho_f, y), (0.0 if t[0] > 0 else t[0], t[-1]),
                        x0, method=kw.pop("method", "RK45"), t_eval=t, rtol=rtol, atol=atol)
        if not sol.success:
            raise RuntimeError(f"ODE integration failed: {sol.message}")
        X = np.clip(sol.y.T, 0.0, 1.0)
        # blocking of the fluid state: the arrival flux that finds every level full
        B = np.array([max(0.0, 1.0 - (self.C * row[-1] + sum(k * (row[k - 1] - row[k]) for k in range(1, self.C))) / rho_f)
                      if row[-1] >= 1 - 1e-9 else 0.0 for row in X])
        return OdeResult(sol.t, X, B, tuple(self.variables), True, sol.message)
