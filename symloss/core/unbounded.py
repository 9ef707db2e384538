r"""Unbounded queues as user models: a tail model with no buffer limit, its certified stationary values
and a rigorous bound on the truncation error.

A supermarket-type model of ``N`` single-server queues is defined once, by the rates of its level
``k`` written in the neighbouring tails (:func:`define_unbounded_model`): ``u_k`` is the fraction of
queues holding at least ``k`` jobs, ``u_0 = 1``, and

.. math::

    \frac{du_k}{dt} = \underbrace{\lambda\,(G(u_{k-1}) - G(u_k))}_{\text{arrival}(a=u_{k-1},\,b=u_k)}
                    - \underbrace{\mu\,(u_k - u_{k+1})}_{\text{departure}(b=u_k,\,c=u_{k+1})},
    \qquad k \ge 1,

with :math:`\lambda` the load :data:`~symloss.core.definition.RHO` and ``G(0) = 0``
(power-of-``d``: :math:`G(x) = x^d`; random routing: :math:`G(x) = x`; a mixture:
:math:`p x + (1 - p) x^d`). :meth:`UnboundedTailModel.truncated` turns the same rates into an
ordinary :func:`~symloss.core.model.define_model` tail model with buffer ``K`` (``u_{K+1} = 0``).

Why the values are proved
-------------------------
*The fixed point is an orbit.* Summing the drift over the levels ``j = k, ..., J`` telescopes:
:math:`\sum_{j=k}^{J} \dot u_j = \lambda G(u_{k-1}) - \lambda G(u_J) - \mu u_k + \mu u_{J+1}`. At a
fixed point every term vanishes, and if :math:`u_J \to 0` (and ``G`` is continuous with ``G(0) = 0``)
letting :math:`J \to \infty` gives :math:`u_k = \varphi(u_{k-1})`, :math:`\varphi(x) = (\lambda/\mu)
G(x)`. So **every** fixed point with :math:`u_k \to 0` is the orbit of :math:`\varphi` from
``u_0 = 1``: it is unique, and it exists (as a state with a finite mean queue length) exactly when
that orbit is summable.

*The tail bound.* If ``G`` is a polynomial with nonnegative coefficients and ``G(0) = 0``, then
:math:`\varphi(x)/x = (\lambda/\mu) \sum_j g_j x^{j-1}` is nondecreasing on ``[0, 1]``. With
:math:`r = \varphi(u_K)/u_K < 1` the orbit decreases after ``K`` and, for every ``k >= K``,
:math:`u_{k+1} = (\varphi(u_k)/u_k)\,u_k \le r\,u_k`; hence

.. math::

    0 \le \sum_{k > K} u_k \le \frac{u_{K+1}}{1 - r}.

Since :math:`\varphi(x)/x \le \varphi(1)`, ``r < 1`` holds at every ``K`` once the load
:math:`\varphi(1) = \lambda G(1)/\mu < 1`; for :math:`\varphi(1) \ge 1` the orbit does not tend to 0
(``u_1 >= 1``) and there is no stationary state with finite queues.

*The arithmetic.* The orbit is computed in python-flint ``arb`` balls (each ball encloses the exact
``u_k``; arb keeps the exponents of doubly exponentially small tails). ``K`` is the first level at
which the bound is below :math:`10^{-(dps+1)}` relative to the partial sum, and the returned balls of
the mean queue length :math:`L = \sum_k u_k` (and of the mean sojourn time :math:`L / (\lambda G(1))`,
Little's law) include the bound. The delay probability (an arriving job joins a busy queue) is
:math:`G(u_1)/G(1)`; there is no blocking (no buffer).

*What is checked before any work* (:class:`~symloss.core.definition.ModelDefinitionError`, naming the
rate and the condition): ``arrival`` is in ``a``, ``b``, ``RHO`` (and parameters) only;
``arrival(a, b) - (arrival(a, 0) - arrival(b, 0)) == 0`` exactly (SymPy); ``arrival(x, 0) / RHO``
is a polynomial ``G(x)`` free of ``RHO`` with nonnegative rational coefficients, not identically 0;
``departure`` is in ``b``, ``c`` only and equals ``mu * (b - c)`` with a rational constant
``mu > 0``. :meth:`UnboundedTailModel.certified_values` refuses a load with
:math:`\lambda G(1)/\mu \ge 1` (``ValueError``) before the orbit is computed.

The certificate (plain JSON data) stores the balls of ``u_1, ..., u_{K+1}`` as exact dyadic numbers,
the ratio ``r``, the bound and the brackets of the returned values; :func:`verify_unbounded` re-checks
it against the model's own ``G`` and ``mu`` (no search: the stored ``K`` and precision): every ball is
the ball image :math:`\varphi` of the stored ball before it (so, by induction from the exact
``u_0 = 1``, it encloses ``u_k``), ``r < 1``, the bound, and every bracket. Any edited number is
rejected.
"""
from __future__ import annotations

import hashlib
import json
from fractions import Fraction

import sympy as sp
from flint import arb

from .boxes import exact_dyadic
from .definition import RHO, ModelDefinitionError
from .docstrings import fill_doc
from .model import define_model
from .precision import PrecisionError, arb_relative_accuracy_ok, check_dps, dps_to_prec, flint_prec
from .real_numbers import real
from .validation import check_choice, check_int
from .unbounded_orbit import (  # noqa: F401  (MAX_LEVELS, UnboundedValues: public here too)
    KIND,
    MAX_LEVELS,
    UnboundedValues,
    _ball_str,
    _bracket,
    _orbit,
    _phi,
    _phi_parts,
    _q_parse,
    _q_show,
    _q_str,
    _ratio,
    _result,
    _values,
)

__all__ = ["UnboundedTailModel", "define_unbounded_model", "verify_unbounded"]

#: the measures :meth:`UnboundedTailModel.truncated` can put in the ``blocking`` slot of the truncated model
MEASURES = ("blocking", "mean_queue_length", "delay_probability")

_KIND = KIND
_X = sp.Symbol("x")

#: the largest buffer of :meth:`UnboundedTailModel.truncated` (the capacity range of the shipped policies)
MAX_BUFFER = 10_000

#: the doctest set-ups this module's examples share (filled by :func:`~symloss.core.docstrings.fill_doc`)
_DOCS = {
    "example_setup": """\
>>> import sympy as sp
>>> from symloss import RHO, define_unbounded_model, verify_unbounded
>>> a, b, c = sp.symbols("a b c")""",
    "example_jsq2": """\
>>> import sympy as sp
>>> from symloss import RHO, define_unbounded_model, verify_unbounded
>>> a, b, c = sp.symbols("a b c")
>>> m = define_unbounded_model("JSQ(2)", RHO * (a**2 - b**2), b - c, a=a, b=b, c=c)""",
}


# --------------------------------------------------------------------------------------------------
# the definition and its structural checks
# --------------------------------------------------------------------------------------------------

def _exact(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, Fraction, sp.Rational)):
        raise TypeError(f"{what} must be exact (int, Fraction, sympy Rational), got {v!r}")
    return sp.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else sp.Rational(v)


def _structure(arrival, departure, a, b, c, parameters):
    """``(G coefficients as Fractions, lowest degree first; mu as a Fraction)`` of a definition, or a
    :class:`ModelDefinitionError` naming the rate and the condition that fails."""
    subs = {p: _exact(v, f"parameters[{p}]") for p, v in parameters.items()}
    arr = sp.sympify(arrival).subs(subs)
    dep = sp.sympify(departure).subs(subs)
    extra = arr.free_symbols - {a, b, RHO}
    if c in extra:
        raise ModelDefinitionError(f"arrival = {arrival} depends on c = u_(k+1): an arrival at level k may only "
                                   "depend on u_(k-1) (a) and u_k (b)")
    if extra:
        raise ModelDefinitionError(f"arrival = {arrival} uses the symbols {sorted(map(str, extra))}, which are not "
                                   "a, b, RHO (give other symbols a value with parameters=)")
    extra = dep.free_symbols - {b, c}
    if extra:
        raise ModelDefinitionError(f"departure = {departure} uses {sorted(map(str, extra))}: a single-server "
                                   "departure at level k depends only on u_k (b) and u_(k+1) (c)")
    F = sp.expand(arr.subs(b, 0).subs(a, _X))
    if sp.expand(arr - (F.subs(_X, a) - F.subs(_X, b))) != 0:
        raise ModelDefinitionError(f"arrival = {arrival} depends on u_(k-1) and u_k jointly: not of the form "
                                   "G(u_(k-1)) - G(u_k) (times RHO), so the drift does not telescope")
    G = sp.expand(sp.cancel(F / RHO))
    if RHO in G.free_symbols:
        raise ModelDefinitionError(f"arrival = {arrival}: arrival(x, 0) / RHO = {G} depends on RHO; the arrival "
                                   "must be RHO * (G(u_(k-1)) - G(u_k)) with G free of the load")
    if G == 0:
        raise ModelDefinitionError(f"arrival = {arrival} is identically 0: G(x) = arrival(x, 0) / RHO must not vanish")
    try:
        poly = sp.Poly(G, _X)
    except sp.PolynomialError:
        poly = None
    if poly is None or not all(co.is_Rational for co in poly.all_coeffs()):
        raise ModelDefinitionError(f"arrival = {arrival}: G(x) = {G} is not a polynomial with rational "
                                   "coefficients, so the tail bound (phi(x)/x nondecreasing) is not available")
    coeffs = [Fraction(int(co.p), int(co.q)) for co in reversed(poly.all_coeffs())]
    if any(co < 0 for co in coeffs):
        raise ModelDefinitionError(f"arrival = {arrival}: G(x) = {G} has a negative coefficient, so phi(x)/x "
                                   "need not be nondecreasing and the tail bound does not apply")
    mu = sp.expand(sp.diff(dep, b))
    if not (mu.is_Rational and mu > 0) or sp.expand(dep - mu * (b - c)) != 0:
        raise ModelDefinitionError(f"departure = {departure} is not mu * (b - c) = mu * (u_k - u_(k+1)) with a "
                                   "rational constant mu > 0 (one server per queue at rate mu)")
    return tuple(coeffs), Fraction(int(mu.p), int(mu.q))


def _exact_fraction(x, name) -> Fraction:
    """The exact value of a load as a Fraction (a float is its binary value)."""
    v = real(x, name, lower=0, lower_open=True, allow_str=True)
    if isinstance(v, Fraction):
        return v
    if isinstance(v, (int, float)):
        return Fraction(v)
    man, exp = v.man_exp                                   # mpmath.mpf
    return Fraction(int(man)) * Fraction(2) ** int(exp)


@fill_doc(_DOCS)
class UnboundedTailModel:
    r"""A tail model of single-server queues with no buffer limit (:func:`define_unbounded_model`).

    Parameters
    ----------
    name : str
        A short name.
    arrival, departure : sympy.Expr
        The level-``k`` rates, in ``a = u_(k-1)``, ``b = u_k``, ``RHO`` and ``b``, ``c = u_(k+1)``.
    a, b, c : sympy.Symbol
        The symbols of the neighbouring tails.
    parameters : dict
        Exact values of other symbols in the rates.

    Attributes
    ----------
    G : tuple of fractions.Fraction
        The coefficients of :math:`G(x) = \sum_j g_j x^j` (``g_0 = 0`` first).
    mu : fractions.Fraction
        The service rate.
    """

    def __init__(self, name, arrival, departure, a, b, c, parameters):
        self.name = name
        self.arrival = sp.sympify(arrival)
        self.departure = sp.sympify(departure)
        self.a, self.b, self.c = a, b, c
        self.parameters = dict(parameters)
        self.G, self.mu = _structure(self.arrival, self.departure, a, b, c, self.parameters)
        self._truncations = {}

    def __repr__(self) -> str:
        return f"define_unbounded_model({self.name!r}, arrival={self.arrival}, departure={self.departure})"

    def fingerprint(self) -> str:
        """A hash of the checked definition (``G`` and ``mu``): equal for equal dynamics however the
        rates are written.

        Returns
        -------
        str
            A sha256 hex digest.

        Examples
        --------
        {{example_setup}}
        >>> m1 = define_unbounded_model("sq", RHO * (a**2 - b**2), b - c, a=a, b=b, c=c)
        >>> m2 = define_unbounded_model("again", RHO * (a - b) * (a + b), -c + b, a=a, b=b, c=c)
        >>> m1.fingerprint() == m2.fingerprint()
        True
        """
        text = json.dumps({"kind": _KIND, "G": [_q_str(g) for g in self.G], "mu": _q_str(self.mu)})
        return hashlib.sha256(text.encode()).hexdigest()

    def load(self, rho) -> Fraction:
        r"""The load :math:`\varphi(1) = \lambda G(1) / \mu` at ``rho`` (exact); a stationary state with
        finite queues exists iff it is ``< 1``.

        Parameters
        ----------
        rho : int, float, fractions.Fraction or str
            The arrival rate per queue :math:`\lambda` (``RHO`` in the rates), ``> 0``.

        Returns
        -------
        fractions.Fraction

        Examples
        --------
        {{example_setup}}
        >>> define_unbounded_model("m", RHO * (a - b), 2 * (b - c), a=a, b=b, c=c).load("0.9")
        Fraction(9, 20)
        """
        return _exact_fraction(rho, "rho") * sum(self.G) / self.mu

    # ----------------------------------------------------------------------------------------------
    def truncated(self, K: int, measure: str = "blocking"):
        """The same rates with a buffer of ``K`` jobs (``u_(K+1) = 0``): a
        :func:`~symloss.core.model.define_model` tail model (``state_kind="tail"``, ``C = K``).

        Parameters
        ----------
        K : int
            The buffer, ``1 <= K <= MAX_BUFFER`` (10000, the capacity range of the shipped policies).
        measure : {"blocking", "mean_queue_length", "delay_probability"}
            The expression in the model's ``blocking`` slot (what ``fixed_point(...).blocking`` and
            the refined mean field report): the loss probability ``G(u_K) / G(1)`` of the buffer, the
            mean queue length ``u_1 + ... + u_K``, or the delay probability ``G(u_1) / G(1)``.

        Returns
        -------
        MeanFieldModel
            Its identity (fingerprint, caches) comes from its definition, as for any user model.

        Raises
        ------
        TypeError, ValueError
            If ``K`` is not an integer in ``[1, MAX_BUFFER]`` or ``measure`` is unknown.

        Examples
        --------
        {{example_jsq2}}
        >>> t = m.truncated(3)
        >>> t.C, len(t.transitions())
        (3, 6)
        """
        K = check_int(K, "K", min_value=1, max_value=MAX_BUFFER)
        check_choice(measure, "measure", MEASURES)
        key = (K, measure)
        if key not in self._truncations:
            u = sp.symbols(f"u1:{K + 1}", nonnegative=True)
            U = (sp.Integer(1),) + u + (sp.Integer(0),)
            a, b, c = self.a, self.b, self.c
            trs = []
            for k in range(1, K + 1):
                trs.append(({u[k - 1]: 1}, self.arrival.subs({a: U[k - 1], b: U[k]}, simultaneous=True)))
                trs.append(({u[k - 1]: -1}, self.departure.subs({b: U[k], c: U[k + 1]}, simultaneous=True)))
            offered = self.arrival.subs({a: 1, b: 0}, simultaneous=True)
            h = {"blocking": self.arrival.subs({a: u[-1], b: 0}, simultaneous=True) / offered,
                 "mean_queue_length": sum(u),
                 "delay_probability": self.arrival.subs({a: u[0], b: 0}, simultaneous=True) / offered}[measure]
            self._truncations[key] = define_model(f"{self.name} (buffer {K})", u, trs, blocking=sp.cancel(h),
                                                  parameters=self.parameters or None, state_kind="tail", C=K)
        return self._truncations[key]

    # ----------------------------------------------------------------------------------------------
    def certified_values(self, rho, *, dps: int = 30) -> UnboundedValues:
        r"""The stationary tails, mean queue length, delay probability and mean sojourn time at
        ``rho``, proved to ``dps`` digits, with the truncation chosen and its error bounded (module
        docstring).

        Parameters
        ----------
        rho : int, float, fractions.Fraction or str
            The arrival rate per queue (``RHO`` in the rates), exact (a float is its binary value).
        dps : int
            Significant digits of the returned balls.

        Returns
        -------
        UnboundedValues
            Balls (python-flint ``arb``) that contain the exact values, status ``"PROVED"``, and the
            certificate for :func:`verify_unbounded`.

        Raises
        ------
        TypeError, ValueError
            If ``rho`` or ``dps`` is invalid, or the load :math:`\lambda G(1)/\mu \ge 1` (no
            stationary state with finite queues), before the orbit is computed.
        PrecisionError
            If more than ``MAX_LEVELS`` levels are needed, or the digits are not reached.

        Examples
        --------
        {{example_jsq2}}
        >>> v = m.certified_values("0.9", dps=20)
        >>> v.status, v.K, v.mean_queue_length.str(20, radius=False)
        ('PROVED', 8, '2.3526516395914879884')
        """
        rho_q = _exact_fraction(rho, "rho")
        dps = check_dps(dps)
        load = rho_q * sum(self.G) / self.mu
        if load >= 1:
            raise ValueError(f"{self.name}: the load rho * G(1) / mu = {_q_show(load)} (rho = {_q_show(rho_q)}) must be "
                             "< 1: otherwise u_1 >= 1 and the orbit u_k = phi(u_(k-1)) does not tend to 0 (no "
                             "stationary state with finite queues)")
        prec = dps_to_prec(dps) + 32
        last = ""
        for _ in range(6):
            with flint_prec(prec):
                tails, r, bound, K = _orbit(self, rho_q, dps)
                vals = _values(self, rho_q, tails, bound, K)
                if all(arb_relative_accuracy_ok(v, dps) for v in vals):
                    return _result(self, rho_q, load, dps, prec, tails, r, bound, K, vals)
            last = f"{prec} bits"
            prec *= 2
        raise PrecisionError(f"{self.name}: values at rho = {_q_show(rho_q)} not certified to {dps} digits ({last})")


@fill_doc(_DOCS)
def define_unbounded_model(name: str, arrival, departure, *, a, b, c, parameters: dict | None = None):
    r"""Define a tail model of single-server queues with no buffer limit, once, by its level-``k``
    rates (module docstring).

    Parameters
    ----------
    name : str
        A short name.
    arrival : sympy.Expr
        The rate at which ``u_k`` increases, in ``a = u_(k-1)``, ``b = u_k``, ``RHO`` (and
        parameters); it must be ``RHO * (G(a) - G(b))`` with ``G`` a polynomial with nonnegative
        rational coefficients and ``G(0) = 0`` (``RHO * (a**2 - b**2)`` for power-of-2).
    departure : sympy.Expr
        The rate at which ``u_k`` decreases, in ``b = u_k``, ``c = u_(k+1)``: ``mu * (b - c)``.
    a, b, c : sympy.Symbol
        The symbols used for ``u_(k-1)``, ``u_k``, ``u_(k+1)``.
    parameters : dict, optional
        Exact values of other symbols in the rates (int, Fraction, SymPy Rational).

    Returns
    -------
    UnboundedTailModel

    Raises
    ------
    TypeError
        If ``name`` is not a non-empty string, ``a``, ``b``, ``c`` are not distinct SymPy symbols, or a
        parameter value is not exact.
    ModelDefinitionError
        If a rate is not of the form above (the message names the rate and the condition), before
        any work.

    Examples
    --------
    {{example_jsq2}}
    >>> m.G, m.mu
    ((Fraction(0, 1), Fraction(0, 1), Fraction(1, 1)), Fraction(1, 1))
    >>> define_unbounded_model("bad", RHO * a * (a - b), b - c, a=a, b=b, c=c)   # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    symloss.core.definition.ModelDefinitionError: arrival = a*rho*(a - b) depends on u_(k-1) and u_k jointly: ...
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty string, got {name!r}")
    for s, n in ((a, "a"), (b, "b"), (c, "c")):
        if not isinstance(s, sp.Symbol):
            raise TypeError(f"{n} must be a sympy Symbol, got {s!r}")
    if len({a, b, c}) != 3:
        raise TypeError(f"a, b, c must be distinct symbols, got {a}, {b}, {c}")
    if RHO in (a, b, c):
        raise TypeError("a, b, c must not be the load symbol RHO")
    parameters = dict(parameters or {})
    for p in parameters:
        if not isinstance(p, sp.Symbol) or p in (a, b, c, RHO):
            raise TypeError(f"parameters keys must be sympy Symbols other than a, b, c, RHO, got {p!r}")
    return UnboundedTailModel(name, arrival, departure, a, b, c, parameters)


@fill_doc(_DOCS)
def verify_unbounded(certificate: dict, model: UnboundedTailModel) -> bool:
    r"""Re-check a :meth:`UnboundedTailModel.certified_values` certificate from its stored data and the
    model's own ``G`` and ``mu`` (no search: the stored truncation ``K`` and precision).

    Checks: the fingerprint; the load ``< 1``; each stored ball of ``u_k`` is exactly the ball image
    :math:`\varphi(u_{k-1})` of the stored ball before it (from the exact ``u_0 = 1``), so it encloses
    ``u_k``; the stored ratio is :math:`\varphi(u_K)/u_K` and is ``< 1``; the stored bound is
    :math:`u_{K+1}/(1 - r)` rounded up and below :math:`10^{-(dps+1)}` times the partial sum; the
    stored brackets are those of the values computed from the stored balls.

    Parameters
    ----------
    certificate : dict
        The ``certificate`` of an :class:`~symloss.core.unbounded_orbit.UnboundedValues` (JSON data).
    model : UnboundedTailModel
        The model it claims to be about.

    Returns
    -------
    bool
        ``True``.

    Raises
    ------
    ValueError
        On any mismatch (another definition, an edited number, a bound that does not hold).

    Examples
    --------
    {{example_jsq2}}
    >>> cert = m.certified_values("0.9", dps=20).certificate
    >>> verify_unbounded(cert, m)
    True
    >>> man, exp = cert["tails"][2][0].split("*2^")
    >>> cert["tails"][2][0] = f"{int(man) + 1}*2^{exp}"          # one unit in the last place of u_3
    >>> verify_unbounded(cert, m)   # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ... u_3 ...
    """
    if not isinstance(certificate, dict) or certificate.get("kind") != _KIND:
        raise ValueError(f"not an {_KIND} certificate")
    if not isinstance(model, UnboundedTailModel):
        raise ValueError(f"model must be an UnboundedTailModel, got {type(model).__name__}")
    if certificate.get("fingerprint") != model.fingerprint():
        raise ValueError("the certificate was made from another model definition (fingerprint differs)")
    if certificate.get("G") != [_q_str(g) for g in model.G] or certificate.get("mu") != _q_str(model.mu):
        raise ValueError("the stored G or mu is not the model's")
    rho_q = _q_parse(certificate.get("rho"))
    if rho_q <= 0 or rho_q * sum(model.G) / model.mu >= 1:
        raise ValueError("the stored load is not in (0, 1)")
    try:
        prec, K, dps = (int(certificate[k]) for k in ("prec", "K", "dps"))
        tails_s = certificate["tails"]
    except (KeyError, TypeError, ValueError):
        raise ValueError("the certificate lacks prec, K, dps or tails") from None
    if not (16 <= prec <= 1 << 20) or not 1 <= K <= MAX_LEVELS or not 1 <= dps <= 10 ** 5:
        raise ValueError("stored prec, K or dps out of range")
    if not isinstance(tails_s, list) or len(tails_s) != K + 1:
        raise ValueError(f"the certificate must store K + 1 = {K + 1} tails")

    with flint_prec(prec):
        lam_mu, coeffs = _phi_parts(model, rho_q)
        prev = arb(1)
        tails = []
        for k, pair in enumerate(tails_s, start=1):
            image = _phi(lam_mu, coeffs, prev)
            if _ball_str(image) != list(pair):
                raise ValueError(f"the stored ball of u_{k} is not the ball image phi(u_{k - 1}) of the one before it")
            tails.append(image)
            prev = image
        r = _ratio(lam_mu, coeffs, tails[K - 1])
        if _ball_str(r) != certificate.get("ratio") or not r < 1:
            raise ValueError("the stored ratio r = phi(u_K)/u_K is not the recomputed one, or not < 1")
        bound = arb(tails[K].upper()) / (1 - arb(r.upper()))
        bound = arb(bound.upper())
        if exact_dyadic(bound) != certificate.get("tail_bound"):
            raise ValueError("the stored tail bound is not u_(K+1) / (1 - r) rounded up")
        partial = arb(0)
        for t in tails[:K]:
            partial += t
        ref = partial if partial < 1 else arb(1)
        if not bound < arb(10) ** (-(dps + 1)) * arb(ref.lower()):
            raise ValueError(f"the tail bound does not reach 10^-{dps + 1} relative to the partial sum")
        vals = _values(model, rho_q, tails, bound, K)
        for name, v in zip(("mean_queue_length", "delay_probability", "mean_sojourn_time"), vals):
            if _bracket(v) != certificate.get(name):
                raise ValueError(f"the stored {name} bracket is not the one the stored balls give")
            if not arb_relative_accuracy_ok(v, dps):
                raise ValueError(f"the {name} bracket does not determine {dps} digits")
    return True

