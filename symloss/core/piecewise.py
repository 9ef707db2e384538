r"""Piecewise-smooth mean-field models (JSQ, join-the-idle-queue, threshold policies): the pieces of a
definition and the certified fixed point on a face of the state space.

A rate written with ``Heaviside``, ``Min``, ``Max``, ``Abs``, ``sign`` or ``Piecewise`` (conditions
``<``, ``<=``, ``>``, ``>=`` combined with ``And``/``Or``/``Not``, and a default branch ``(e, True)``)
is smooth away from its **switching surfaces** :math:`s(x) = 0` (the argument of a ``Heaviside`` or
``sign``, the differences of the arguments of a ``Min``/``Max``, the argument of ``Abs``, the
``lhs - rhs`` of every condition). :func:`check_piecewise_smooth` checks that a rate is of that kind
(it names the transition otherwise) and :func:`switching_functions` lists the surfaces.

**What is certified.** The fluid limit of such a model is a Filippov system: on a surface the drift
is a convex combination of its limits from both sides. A *piecewise fixed point* is

* a **face** :math:`F`: some coordinates fixed at exact rational values (a bound ``0`` or ``1`` of
  the fractions, or the value where a surface :math:`x_j = c` lies);
* for each surface through the point (identically zero on the face), a weight
  :math:`\theta \in [0, 1]`: the drift there is :math:`\theta f^+ + (1 - \theta) f^-` (Filippov's
  convexification surface by surface, Utkin's equivalent control), ``theta`` fixed at ``0`` or ``1``
  or a free unknown;
* for every other surface, its strict sign (so the branch of every ``Heaviside``/``Min``/``Max``/
  ``Piecewise`` is decided);

such that the drift of that **piece** (a smooth expression) vanishes. Then :math:`0 \in F(x^*)`
(Filippov's set-valued drift): :math:`x^*` is an equilibrium of the fluid limit. Rows that vanish
identically on the face are proved exactly (SymPy); the remaining rows and the unknowns (the free
coordinates and the free weights) form a square system whose zero is proved by the Krawczyk test of
:mod:`symloss.core.krawczyk` (in python-flint ``arb``); on the Krawczyk box the sign of every other
surface is checked strictly, the free weights lie in ``[0, 1]`` and the state in the state space.
When the piece's system is linear in its unknowns the zero is also solved exactly (rationals), so a
blocking that is exactly ``0`` (JSQ below ``rho = C``) is returned exactly.

*Search* (not part of the proof): an LSODA integration of the drift with every jump replaced by a
narrow sigmoid (:func:`sliding_ode`) gives a float state; the candidate faces fix any subset of the
coordinates close to a bound or a surface value (most constrained first); for each face the free weights
are chosen so the system is square, and, when no such piece holds, weights are also fixed at an end of
``[0, 1]`` (a degenerate load where the face meets a surface, JIQ at ``rho = 1``: the drift rows that
vanish at that load only are then proved exactly); Newton solves the piece's system in floats; the
Krawczyk test decides. The search is a function of the definition, the load and the digits only: its
outcome is memoised for the same arguments, and no piece found at one load is tried first at another
(a model with several equilibria would otherwise return one or the other depending on the loads
computed before). **Uniqueness** on the whole state space is not proved: with
``uniqueness=True`` the result carries EVIDENCE (the projected ODE from the extreme states reaches the
same point), else NOT CHECKED. :func:`verify_piecewise_certificate` re-checks a stored certificate
from its data only (no search).

*Layout.* This module holds the grammar, the solver and the re-check of a certificate, and re-exports
every name of its parts: the switching surfaces, the reduction to a piece and :class:`PieceSystem` are in
``symloss.core.piecewise_pieces``, the proof of a piece and the certificate writer in
``symloss.core.piecewise_certify``, the float search in ``symloss.core.piecewise_search``.

References
----------
A. F. Filippov, *Differential Equations with Discontinuous Righthand Sides*, Kluwer 1988.
V. I. Utkin, *Sliding Modes in Control and Optimization*, Springer 1992.
R. Krawczyk, "Newton-Algorithmen zur Bestimmung von Nullstellen mit Fehlerschranken", Computing 4 (1969).
A. L. Stolyar, "Pull-based load distribution in large-scale heterogeneous service systems", Queueing
Systems 80 (2015) (join-the-idle-queue fluid limit).
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp
from flint import arb, fmpq

from .certified_results import DefinitionMismatchWarning, FixedPointResult, OdeResult
from .definition import RHO, ModelDefinitionError
from .krawczyk import _krawczyk
from .piecewise_certify import (
    _BallSystem, _certificate, _check_box, _exact_solution, _parse_dyadic, _rho_fraction)
from .piecewise_pieces import (
    NONSMOOTH_FUNCTIONS, PieceSystem, _atom_switches, _build_piece, _Mismatch, _parse_q, _q, switching_functions)
from .piecewise_search import (
    REGULARISATION, SEARCH_BUDGET, _integrate, _search, _settle)
from .precision import DEFAULT_DPS, PrecisionError, arb_to_mpf, check_dps, flint_prec, rounded, to_arb
from .printers import numpy_lambdify
from .registry import dispatch

__all__ = ["NONSMOOTH_FUNCTIONS", "is_nonsmooth", "check_piecewise_smooth", "switching_functions",
           "piecewise_fixed_point", "verify_piecewise_certificate", "sliding_ode", "PieceSystem",
           "is_piecewise_model", "verify_point", "solve"]

_REFUSED = (sp.floor, sp.ceiling, sp.frac, sp.DiracDelta, sp.Mod)
_ORDER_RELATIONS = (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)


# ==================================================================================================
# the grammar of a piecewise-smooth rate
# ==================================================================================================

def is_nonsmooth(expr) -> bool:
    """Whether ``expr`` contains a ``Heaviside``, ``Min``, ``Max``, ``Abs``, ``sign`` or ``Piecewise``.

    Parameters
    ----------
    expr : sympy.Expr
        An expression.

    Returns
    -------
    bool
        ``True`` when the solvers must treat ``expr`` as piecewise smooth (``False`` also for a
        value that is not a SymPy object).

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> is_nonsmooth(sp.Heaviside(x - 1, 1)), is_nonsmooth(x ** 2)
    (True, False)
    """
    return isinstance(expr, sp.Basic) and expr.has(*NONSMOOTH_FUNCTIONS)


def check_piecewise_smooth(expr, variables, where: str) -> None:
    """Raise unless ``expr`` is piecewise smooth in the state: its non-smooth functions are
    ``Heaviside``/``Min``/``Max``/``Abs``/``sign``/``Piecewise`` whose switching functions are smooth,
    every ``Piecewise`` has a default branch ``(e, True)`` and its conditions are order relations
    (``<``, ``<=``, ``>``, ``>=``, combined with ``And``/``Or``/``Not``).

    Parameters
    ----------
    expr : sympy.Expr
        A rate or blocking expression.
    variables : sequence of sympy.Symbol
        The state variables.
    where : str
        What ``expr`` is, for the message (``"transitions[3]"``).

    Returns
    -------
    None

    Raises
    ------
    ModelDefinitionError
        Naming ``where``, the offending sub-expression and what is accepted.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> check_piecewise_smooth(sp.Piecewise((1, x < 1), (0, True)), [x], "transitions[0]")
    >>> check_piecewise_smooth(sp.Piecewise((1, x < 1)), [x], "transitions[0]")
    Traceback (most recent call last):
    ...
    symloss.core.definition.ModelDefinitionError: transitions[0]: Piecewise((1, x < 1)) has no default branch (e, True); a rate must be defined on the whole state space (add (value, True) as the last branch)
    """
    if not isinstance(expr, sp.Basic):
        return
    for f in _REFUSED:
        for a in expr.atoms(f):
            raise ModelDefinitionError(
                f"{where}: {a} is not piecewise smooth in a way the solvers handle ({f.__name__}); write the "
                f"switch with Heaviside, Min, Max, Abs or Piecewise with order conditions (<, <=, >, >=)")
    V = set(variables)
    for atom in expr.atoms(*NONSMOOTH_FUNCTIONS):
        if isinstance(atom, sp.Piecewise):
            if atom.args[-1][1] is not sp.true:
                raise ModelDefinitionError(
                    f"{where}: {atom} has no default branch (e, True); a rate must be defined on the whole "
                    f"state space (add (value, True) as the last branch)")
            for _e, c in atom.args:
                if c is sp.true or c is sp.false:
                    continue
                for node in sp.preorder_traversal(c):
                    if isinstance(node, (sp.Eq, sp.Ne)):
                        raise ModelDefinitionError(
                            f"{where}: the condition {c} of {atom} uses {type(node).__name__} (a piece of "
                            f"measure zero); use order relations <, <=, >, >= only")
                    if isinstance(node, sp.core.relational.Relational) and not isinstance(node, _ORDER_RELATIONS):
                        raise ModelDefinitionError(f"{where}: the condition {c} of {atom} is not an order relation")
        if isinstance(atom, sp.Heaviside) and len(atom.args) > 1:
            h0 = atom.args[1]
            if not (h0.is_number and 0 <= h0 <= 1):
                raise ModelDefinitionError(f"{where}: {atom}: the value at 0 must be a number in [0, 1], got {h0}")
        for s in _atom_switches(atom):
            if is_nonsmooth(s) and (s.free_symbols & V):
                raise ModelDefinitionError(
                    f"{where}: the switching function {s} of {atom} is itself non-smooth in the state; nested "
                    f"switches are not supported (write the piece conditions explicitly with Piecewise)")


# ==================================================================================================
# the mean-field ODE (numerical)
# ==================================================================================================

def sliding_ode(model, rho, x0, t):
    """Trajectories of a piecewise-smooth model's mean-field ODE (numerical): the definition's drift
    with every jump replaced by a sigmoid of width ``REGULARISATION`` (the Sotomayor-Teixeira
    regularisation, whose solutions tend to Filippov's sliding solutions as the width tends to 0),
    integrated by scipy's LSODA. ``Min``/``Max``/``Abs`` are continuous and kept as they are.

    Parameters
    ----------
    model : MeanFieldModel
        A model with piecewise-smooth rates.
    rho : float
        The load, ``> 0``.
    x0 : array_like
        The initial state (in the order of ``model.variables``), in ``[0, 1]``.
    t : array_like
        Increasing output times, ``>= 0``.

    Returns
    -------
    OdeResult
        The states at ``t`` (within about ``10 * REGULARISATION`` of the Filippov trajectory) and the
        blocking of each.

    Raises
    ------
    ValueError
        If ``rho`` is not a finite number ``> 0``, ``x0`` not ``n`` numbers in ``[0, 1]`` or ``t``
        not increasing times ``>= 0``.
    RuntimeError
        If the integration fails.

    References
    ----------
    .. [1] J. Sotomayor, M. A. Teixeira, "Regularization of discontinuous vector fields", Proceedings
       of the International Conference on Differential Equations, Lisboa (1996).

    Examples
    --------
    >>> from symloss import JSQ
    >>> r = sliding_ode(JSQ(2), 1.5, [0, 0], [0, 30])
    >>> [round(float(v), 3) for v in r.x[-1]]
    [1.0, 0.5]
    """
    rho_f = float(rho)
    if not (math.isfinite(rho_f) and rho_f > 0):
        raise ValueError(f"rho must be a finite number > 0, got {rho!r}")
    x = np.asarray(x0, dtype=float).ravel()
    n = len(model.variables)
    if x.shape != (n,) or np.any(~np.isfinite(x)) or np.any(x < 0) or np.any(x > 1):
        raise ValueError(f"x0 must be {n} numbers in [0, 1], got {x0!r}")
    t = np.asarray(t, dtype=float).ravel()
    if t.size == 0 or np.any(t < 0) or np.any(np.diff(t) <= 0):
        raise ValueError(f"t must be increasing times >= 0, got {t!r}")
    X = _integrate(model, rho_f, x, t) if t[-1] > 0 else np.array([x] * len(t))
    if t[0] == 0:
        X[0] = x
    Bf = numpy_lambdify(list(model.variables) + [RHO], model._blocking)
    B = np.array([float(Bf(*row, rho_f)) for row in X])
    return OdeResult(t, X, B, tuple(model.variables), True,
                     f"regularised drift (switch width {REGULARISATION:g}), LSODA")


# ==================================================================================================
# the certified fixed point and the re-check of its certificate
# ==================================================================================================

def piecewise_fixed_point(model, rho, dps: int = DEFAULT_DPS, *, uniqueness: bool = False) -> FixedPointResult:
    """The certified fixed point of a piecewise-smooth model (a Filippov equilibrium, possibly on a
    face of the state space; see the module docstring).

    Parameters
    ----------
    model : MeanFieldModel
        A model whose rates contain ``Heaviside``/``Min``/``Max``/``Abs``/``sign``/``Piecewise``.
    rho : int, float, Fraction or mpmath.mpf
        The load, ``> 0`` (exact: a float is its binary value).
    dps : int
        Significant digits, ``5 <= dps <= 100000``.
    uniqueness : bool
        Also integrate the projected ODE from the extreme states (EVIDENCE of uniqueness).

    Returns
    -------
    FixedPointResult
        ``extra["certificate"]`` (re-checked by :func:`verify_piecewise_certificate`) and
        ``extra["parts"]``: ``{"zero": "PROVED", "active_piece": "PROVED", "uniqueness": ...}``.

    Raises
    ------
    TypeError, ValueError
        If ``rho``, ``dps`` or ``uniqueness`` is not valid.
    PrecisionError
        If no piece could be certified (the message says what was tried).

    Examples
    --------
    >>> import mpmath
    >>> from symloss import JSQ
    >>> r = piecewise_fixed_point(JSQ(3), 2.5, 20)
    >>> [mpmath.nstr(v, 5) for v in r.x], r.extra["parts"]["zero"]
    (['1.0', '1.0', '0.5'], 'PROVED')
    """
    rho = _rho_fraction(rho)
    dps = check_dps(dps)
    if not isinstance(uniqueness, bool):
        raise TypeError(f"uniqueness must be True or False, got {uniqueness!r}")
    tally: dict = {}
    out, xh = _search(model, rho, dps, tally=tally)
    if out is None:
        raise PrecisionError(
            f"{model!r} at rho = {rho}: no piece of the definition has a certified fixed point near the float "
            f"state {np.round(xh, 6).tolist()} ({tally.get('faces', 0)} faces at 0, 1 and the surfaces "
            f"x_j = c, {tally.get('attempts', 0)} choices of the weights of the surfaces through the point, "
            f"free or at the ends of [0, 1]; at most {SEARCH_BUDGET} per phase)")
    pc, cert = out
    return _result(model, rho, dps, pc, cert, uniqueness)


def _result(model, rho, dps, pc, cert, uniqueness):
    with flint_prec(cert["prec"]):
        xs = [arb_to_mpf(X) for X in cert["x"]]
        B = cert["B"]
        bracket = (arb_to_mpf(arb(B.lower())), arb_to_mpf(arb(B.upper())))
        Bm = arb_to_mpf(B)
    with mpmath.workdps(dps + 10):
        rm = mpmath.mpf(rho.numerator) / rho.denominator
    certificate = _certificate(model, rho, pc, cert)
    parts = {"zero": "PROVED", "active_piece": "PROVED", "uniqueness": "NOT CHECKED"}
    uniq = ("NOT CHECKED (piecewise-smooth model: uniqueness on the whole state space is not proved; "
            "fixed_point(rho, uniqueness=True) gives EVIDENCE from the projected ODE)")
    if uniqueness:
        parts["uniqueness"], uniq = _uniqueness_evidence(model, rho, xs)
    face_txt = ", ".join(f"{v} = {c}" for v, c in pc.face.items()) or "none"
    free_th = [k for k, v in pc.theta.items() if v == "free"]
    method = (f"piecewise-smooth certified solver: face ({face_txt}); {len(free_th)} sliding weight(s) on "
              f"{', '.join(f'{k} = 0' for k in free_th) or 'no surface'}; Krawczyk on the piece's "
              f"{len(pc.unknowns)}x{len(pc.unknowns)} system, branch signs certified on the box"
              + ("; solved exactly (linear piece)" if cert["exact"] is not None else "")
              + _degenerate_text(model, pc))
    extra = {"certificate": certificate, "parts": parts, "margin": cert["margin"],
             "face": {str(v): str(c) for v, c in pc.face.items()},
             "theta": [arb_to_mpf(t) for t in cert["theta"]]}
    return FixedPointResult(model.name, rounded(rm, dps), [rounded(v, dps) for v in xs], rounded(Bm, dps), bracket,
                            mpmath.mpf(0) if cert["exact"] is not None else
                            max((abs(arb_to_mpf(X.rad())) for X in cert["box"]), default=mpmath.mpf(0)),
                            method, dps, extra, uniq, 1 if parts["uniqueness"] == "PROVED" else None)


def _degenerate_text(model, pc) -> str:
    """The note of a degenerate load (drift rows that vanish at this load only), or ``""``."""
    if not pc.load_vanishing:
        return ""
    rows = ", ".join(f"d{model.variables[i]}/dt" for i in pc.load_vanishing)
    ends = [f"{k} = 0 (weight {_parse_q(v)})" for k, v in pc.theta.items() if v in ("0/1", "1/1")]
    return (f"; degenerate load: {rows} vanishes at this load only, the fixed point lies where the face meets "
            f"the switching surface {', '.join(ends) or 'through the point'} (a weight at an end of [0, 1]; "
            f"proved exactly)")


def _uniqueness_evidence(model, rho, xs):
    rho_f = float(rho)
    n = len(model.variables)
    starts = [np.zeros(n), np.ones(n)]
    if getattr(model, "state_kind", "custom") == "occupancy":
        starts = [np.eye(n)[0], np.eye(n)[-1]]
    x = np.array([float(v) for v in xs])
    far = []
    for s in starts:
        end, h = _settle(model, rho_f, s)
        if np.max(np.abs(end - x)) > max(1e-3, 100 * h):
            far.append((s.tolist(), np.round(end, 6).tolist()))
    if far:
        return "NOT UNIQUE (numerical)", (f"EVIDENCE AGAINST uniqueness: the projected ODE from {far[0][0]} settles "
                                          f"near {far[0][1]}, not at the certified point")
    return "EVIDENCE", (f"EVIDENCE: the projected ODE from the extreme states {[s.tolist() for s in starts]} settles at "
                        f"the certified point (numerical integration; uniqueness on the whole state space is not proved)")


def verify_piecewise_certificate(model, cert) -> tuple:
    """Re-check a certificate of :func:`piecewise_fixed_point` from its data only (no search): the
    fingerprint, the piece rebuilt from the stored face, weights and branch signs, the vanishing
    rows (exact), the Krawczyk test on the stored box, the strict signs, weights and state-space
    conditions on that box, and the stored exact solution when there is one.

    Parameters
    ----------
    model : MeanFieldModel
        The model the certificate claims to be for.
    cert : dict
        ``result.extra["certificate"]``.

    Returns
    -------
    tuple of (bool, str)
        Whether it holds, and why (the first failing check).

    Examples
    --------
    >>> from symloss import JSQ
    >>> r = piecewise_fixed_point(JSQ(2), 1.5, 20)
    >>> verify_piecewise_certificate(JSQ(2), r.extra["certificate"])[0]
    True
    """
    if not isinstance(cert, dict) or cert.get("kind") != "piecewise-krawczyk":
        return False, "not a piecewise-krawczyk certificate"
    if cert.get("fingerprint") != model.fingerprint():
        return False, "the certificate was made for another definition (fingerprint differs)"
    try:
        p, q = cert["rho"].split("/")
        rho = Fraction(int(p), int(q))
        Vn = {str(v): v for v in model.variables}
        face = {Vn[k]: _parse_q(v) for k, v in cert["face"].items()}
        pc, *_ = _build_piece(model, rho, face, dict(cert["theta"]), signs=dict(cert["signs"]))
    except (_Mismatch, KeyError, ValueError) as exc:
        return False, f"the stored piece does not rebuild: {exc}"
    if [str(z) for z in pc.unknowns] != list(cert["unknowns"]):
        return False, "the unknowns of the rebuilt piece differ from the stored ones"
    if pc.vanishing != list(cert["vanishing_rows"]) or pc.dropped != list(cert["dropped_rows"]):
        return False, "the rows that vanish on the face (or that an invariant implies) differ"
    if set(pc.signs) != set(cert["signs"]):
        return False, "the stored branch signs are not the ones the piece uses"
    if not pc.square:
        return False, "the piece's system is not square"
    prec = int(cert["prec"])
    with flint_prec(prec):
        R = arb(fmpq(rho.numerator, rho.denominator))
        box = [arb(_parse_dyadic(c), _parse_dyadic(r)) for c, r in cert["box"]]
        if len(box) != len(pc.unknowns):
            return False, "the box has the wrong dimension"
        if box:
            comp = _BallSystem(pc)
            m = [arb(X.mid()) for X in box]
            rad = [arb(X.rad()) for X in box]
            ok, _margin, _K, _Y = _krawczyk(comp, m, rad, R, None)
            if not ok:
                return False, "the Krawczyk test fails on the stored box"
        ex = None
        if cert.get("exact") is not None:
            ex = {z: _parse_q(cert["exact"][str(z)]) for z in pc.unknowns}
            sub = dict(ex)
            sub[RHO] = _q(rho)
            if any(sp.expand(r.xreplace(sub)) != 0 for r in pc.rows):
                return False, "the stored exact solution does not solve the piece's system"
            # the search's own test (_exact_solution): a linear piece with a non-singular matrix, whose
            # exact zero is then its only zero (whether or not the float-started box holds it to the bit)
            exact_again = _exact_solution(pc, rho)
            if exact_again is None or any(exact_again.get(z) != ex[z] for z in pc.unknowns):
                return False, "the stored exact solution is not the unique zero of the piece's linear system"
        ok, why = _check_box(model, pc, box, R, ex, rho)
        if not ok:
            return False, why
    return True, ("the piece rebuilds from the stored face, weights and signs; Krawczyk holds on the stored box; the "
                  "branch signs, weights and state-space conditions hold on it")


# ==================================================================================================
# model.fixed_point for a piecewise-smooth definition: accelerator (verified) or this solver
# ==================================================================================================

def is_piecewise_model(model) -> bool:
    """Whether the model's drift or blocking has a state-dependent switch (a piecewise-smooth model).

    Parameters
    ----------
    model : MeanFieldModel
        The model (its drift and blocking are read).

    Returns
    -------
    bool
        ``True`` when a switching surface of the drift or the blocking depends on the state.

    Examples
    --------
    >>> from symloss import JSQ, PowerOfD
    >>> is_piecewise_model(JSQ(2)), is_piecewise_model(PowerOfD(2, 2))
    (True, False)
    """
    V = list(model.variables)
    return bool(switching_functions(list(model._drift) + [model._blocking], V))


def verify_point(model, rho, x, dps: int) -> tuple:
    """Check a claimed fixed point (e.g. a closed form) on the definition's own piecewise equations:
    certify the piece's fixed point near ``x`` and compare.

    Parameters
    ----------
    model : MeanFieldModel
        A piecewise-smooth model.
    rho : int, float, Fraction or mpmath.mpf
        The exact load.
    x : sequence
        The claimed state (mpf or numbers), in the order of ``model.variables``.
    dps : int
        Digits the claim is made to.

    Returns
    -------
    tuple
        ``(ok, reason, result)``; ``result`` is the certified :class:`FixedPointResult` (or None).

    Examples
    --------
    >>> from symloss import JSQ
    >>> verify_point(JSQ(2), 1.5, [1, 0.5], 20)[0]
    True
    """
    ball = None
    if isinstance(rho, arb) and not rho.is_exact():
        ball = rho
        man, exp = rho.mid().man_exp()
        rq = Fraction(int(man)) * Fraction(2) ** int(exp)
    else:
        try:
            rq = _rho_fraction(rho)
        except (TypeError, ValueError) as exc:
            return False, f"the load is not valid ({exc})", None
    xf = [float(v) for v in x]
    out, _xh = _search(model, rq, dps, x_start=xf, R_ball=ball)
    if out is None:
        return False, "no piece of the definition has a certified fixed point at the claimed state", None
    pc, cert = out
    res = _result(model, rq, dps, pc, cert, False)
    tol = mpmath.mpf(10) ** (-dps)
    with mpmath.workdps(dps + 10):
        for v, X, got in zip(model.variables, cert["x"], x):
            g = mpmath.mpf(got) if not isinstance(got, mpmath.mpf) else got
            if X.rad() == 0 and cert["exact"] is not None:
                if arb_to_mpf(X) != g and abs(arb_to_mpf(X) - g) > tol * max(1, abs(g)):
                    return False, f"{v}: the certified value {arb_to_mpf(X)} differs from the claimed {g}", res
            elif not (X.contains(to_arb(g)) or abs(arb_to_mpf(X) - g) <= tol * max(1, abs(g))):
                return False, f"{v}: the claimed {g} is not in the certified ball {X}", res
    return True, ("the claimed state is the certified piecewise fixed point of the definition's own equations "
                  "(" + res.method + ")"), res


def solve(model, rho, *, dps: int = DEFAULT_DPS, uniqueness: bool = False):
    """``model.fixed_point`` / ``model.blocking`` for a piecewise-smooth definition: the accelerator
    registered for the model's class when it binds and its answer verifies, else
    :func:`piecewise_fixed_point`.

    Parameters
    ----------
    model : MeanFieldModel
        A piecewise-smooth model.
    rho : int, float, Fraction or mpmath.mpf
        The load, ``> 0``.
    dps : int
        Significant digits.
    uniqueness : bool
        Attach EVIDENCE of uniqueness (the regularised ODE from the extreme states).

    Returns
    -------
    FixedPointResult
        The certified state and blocking of the piece that holds the fixed point, with the method
        (accelerator or piecewise search) and, when asked, the uniqueness evidence.

    Raises
    ------
    TypeError, ValueError
        If an argument is not valid.
    PrecisionError
        If no piece could be certified.

    Examples
    --------
    >>> from symloss import JSQ
    >>> import mpmath
    >>> mpmath.nstr(solve(JSQ(2), 3, dps=15).blocking, 15)
    '0.333333333333333'
    """
    dps = check_dps(dps)
    if not isinstance(uniqueness, bool):
        raise TypeError(f"uniqueness must be True or False, got {uniqueness!r}")
    if not (isinstance(rho, arb) and not rho.is_exact()):
        _rho_fraction(rho)                 # bad input is refused here, before any fast path or search runs
    res, fp = dispatch("meanfield", model, lambda m, r, d: piecewise_fixed_point(m, r, d, uniqueness=uniqueness),
                       args=(rho, dps), verify_args=(dps,), warning=DefinitionMismatchWarning, stacklevel=4)
    res.extra.pop("_x_work", None)
    if fp is not None:
        if uniqueness:
            status, text = _uniqueness_evidence(model, _rho_fraction(rho), res.x)
            res.uniqueness = text
            res.extra.setdefault("parts", {})["uniqueness"] = status
        elif res.uniqueness == "NOT CHECKED" or not res.uniqueness:
            res.uniqueness = ("NOT CHECKED (piecewise-smooth model: fixed_point(rho, uniqueness=True) gives EVIDENCE "
                              "from the regularised ODE)")
    return res
