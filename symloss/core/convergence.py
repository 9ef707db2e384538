r"""Certified global convergence of a mean-field ODE, for every load, from the model's own definition.

A certificate kind any :class:`~symloss.MeanFieldModel` with an order structure can ask for
(``state_kind`` ``"tail"`` or ``"occupancy"``): :func:`certify_global_convergence` proves, with exact
rational polynomial arithmetic (python-flint ``fmpq_mpoly``) and for symbolic :math:`\rho > 0` (or one
rational load, or a load interval), that every solution of the fluid ODE in the state space converges
to one equilibrium; :func:`verify_global_convergence` re-checks a stored certificate.

Coordinates and domain
----------------------
The state is written in tails :math:`u_1, \dots, u_C` (fraction of servers holding at least ``k``
jobs): for an occupancy state :math:`u_k = x_k + \dots + x_C` (so :math:`x_0 = 1 - u_1` by the
invariant :math:`\sum_k x_k = 1`, which the definition must declare, and :math:`x_k = u_k - u_{k+1}`),
the identity for a tail state. The tail drift is :math:`g_k = \sum_{j \ge k} f_j` (occupancy) or the
drift itself (tail). The state space is the ordered set

.. math:: D = \{1 = u_0 \ge u_1 \ge \dots \ge u_C \ge u_{C+1} = 0\},

a simplex in the gaps :math:`t_k = u_k - u_{k+1} \ge 0`, :math:`\sum_{k=0}^C t_k = 1` (for an
occupancy state :math:`t_k = x_k`).

The three conditions (each a sign statement about polynomials in :math:`(u, \rho)` on
:math:`D \times (0, \infty)`):

(a) *cooperative*: every off-diagonal entry :math:`\partial g_i / \partial u_j` is :math:`\ge 0` on
    :math:`D`;
(b) *D forward invariant*: on each face :math:`t_k = 0` of :math:`D` the drift of the gap,
    :math:`\dot t_k` (:math:`-g_1`, :math:`g_k - g_{k+1}`, :math:`g_C`), is :math:`\ge 0` (Nagumo's
    tangency condition for a closed convex polyhedron and a locally Lipschitz field);
(c) *unique equilibrium*: every column sum of the Jacobian is negative,
    :math:`-\sum_i \partial g_i / \partial u_k \ge m_k(\rho) > 0` on :math:`D` (with (a) this is the
    :math:`\ell^1` logarithmic norm of the Jacobian, so the flow contracts the :math:`\ell^1` distance of
    tails, i.e. the Wasserstein-1 distance of the occupancy distributions).

How a sign is certified: a polynomial ``P(u, rho) >= 0`` on ``D`` is homogenised in ``u`` with
``u_0 = 1``, restricted to the face (``u_{k+1} -> u_k``, ``u_C -> 0``), and a set ``S`` of levels is
written in gaps, ``u_j = t_j + u_{j'}`` (``j'`` the next level not in the face's equation, ``t_j >= 0``
on ``D``, applied recursively for consecutive levels of ``S``); when every coefficient of the result is
``>= 0`` in the non-negative variables ``u``, ``t`` and ``rho``, ``P >= 0`` on ``D`` for every load.
The certificate stores each polynomial and its set ``S``; the re-check recomputes the polynomials from
the definition and expands again (no search). For (c) the part of degree 0 in ``u``, ``m_k(rho)``, must
be positive on the loads and the rest non-negative on ``D``. A single load ``rho`` is substituted
exactly; an interval ``[lo, hi]`` is written ``rho = (lo + hi y)/(1 + y)`` (``rho = lo + y`` without
``hi``), ``y >= 0``, and the denominators cleared by positive factors.

When a sign fails to certify, the function looks for an exact rational point of ``D`` (and a load)
where the polynomial is negative: then the condition *fails* (status ``FAILED``, the witness is part of
the certificate); otherwise it is *not certified* (status ``UNDECIDED``). A failure of (c) (a column
sum that can be positive) does not refute uniqueness, so (c) is only ever certified or not.

The theorem (``THEOREM``): with (a), (b), (c) the fluid ODE on ``D`` contracts the weighted
:math:`\ell^1` distance at rate :math:`m(\rho) = \min_k m_k(\rho)`; ``D`` is compact, convex and forward
invariant, so it holds an equilibrium (Brouwer), which is unique and attracts every solution starting
in ``D`` exponentially fast. (With (a) and (b) the system is monotone on ``D``, which has a least and a
greatest element, and Kamke's comparison gives the same conclusion from uniqueness alone: H. L. Smith,
*Monotone Dynamical Systems*, AMS 1995, ch. 3.)

For the shipped policies (``/work/shared/MATH.md`` section 6) in tails: retrial-of-d,
:math:`g_k = \rho\,r(u_C)(u_{k-1} - u_k) - k(u_k - u_{k+1})` with :math:`r(s) = 1 + \dots + s^{d-1}`
(the entry :math:`\partial g_k / \partial u_C = \rho r'(u_C)(u_{k-1} - u_k)` is non-negative only by
the order), column sums :math:`-1` and :math:`-1 - \rho d u_C^{d-1}`; power-of-d,
:math:`g_k = \rho(u_{k-1}^d - u_k^d) - k(u_k - u_{k+1})`, the same column sums.

The pieces live in modules of their own, all re-exported here:
:mod:`~symloss.core.convergence_records` (theorem, result types, loads), :mod:`~symloss.core.tail_system`
(the tail polynomials and their sign check) and :mod:`~symloss.core.convergence_recheck`
(:func:`verify_global_convergence`); this module keeps the search, :func:`certify_global_convergence`.
"""
from __future__ import annotations

import random
from fractions import Fraction

from .convergence_recheck import (  # noqa: F401 - re-exported
    _check_gaps,
    _err,
    _recheck_condition,
    _verify_global_convergence,
    verify_global_convergence,
)
from .convergence_records import (  # noqa: F401 - re-exported
    _EVERY_RHO,
    _TITLES,
    METHOD,
    THEOREM,
    ConditionResult,
    GlobalConvergenceCertificateError,
    GlobalConvergenceResult,
    _fraction,
    _in_load,
    _load_spec,
    _load_text,
    _NotApplicable,
    _overall,
    _parse_load,
    _q,
    _rho_samples,
)
from .definition import is_model
from .tail_system import (  # noqa: F401 - re-exported
    _MAX_TERMS,
    _items,
    _margin,
    _margin_positive,
    _n_negative,
    _nonneg,
    _search_gaps,
    _TailSystem,
)

__all__ = ["certify_global_convergence", "verify_global_convergence", "GlobalConvergenceResult",
           "ConditionResult", "GlobalConvergenceCertificateError", "THEOREM", "METHOD"]

#: the docstring example of the re-check, which moved to its own module, still runs with this module's (doctest)
__test__ = {"verify_global_convergence": verify_global_convergence}

# ==================================================================================================
# certify
# ==================================================================================================

def _sample_points(C: int, face, n_random: int = 12) -> list:
    """Exact points of ``D`` (on the face ``t_face = 0``): vertices, the centre and pseudo-random points,
    as tails ``[u_1, ..., u_C]``."""
    rng = random.Random(20260 + C)
    gapsets = []
    for j in range(C + 1):
        t = [Fraction(0)] * (C + 1)
        t[j] = Fraction(1)
        gapsets.append(t)
    gapsets.append([Fraction(1)] * (C + 1))
    for _ in range(n_random):
        gapsets.append([Fraction(rng.randint(0, 9)) for _ in range(C + 1)])
    out = []
    for t in gapsets:
        if face is not None:
            t = list(t)
            t[face] = Fraction(0)
        s = sum(t)
        if s == 0:
            continue
        t = [x / s for x in t]
        u = [sum(t[k:]) for k in range(1, C + 1)]
        if u not in out:
            out.append(u)
    return out


def _find_witness(ts: _TailSystem, p, load: dict, face) -> dict | None:
    for r in _rho_samples(load):
        for u in _sample_points(ts.C, face):
            v = ts.evaluate(p, u, r)
            if v < 0:
                return {"u": [str(x) for x in u], "rho": str(r), "value": str(v)}
    return None


def _certify_item(ts, p, load, face=None, margin=False, full=True):
    """``(gaps or None, margin text or None)`` for one polynomial."""
    q = ts.load(p, load)
    mtext = None
    if margin:
        m, q = _margin(ts, q)
        mtext = str(m)
        if not _margin_positive(ts, m, load, p.degrees()[ts.R] if not p.is_zero() else 0):
            return None, mtext
    h, live = ts.on_face(ts.homogenize(q), face)
    return _search_gaps(ts, h, live, full=full), mtext


def _condition(ts, name, items, load):
    """Certify every polynomial of a condition; returns (data, ConditionResult). An item the greedy
    search does not certify is first evaluated at sample points (a negative value: no certificate can
    exist, the witness is kept for (a) and (b)), then tried with every level in gaps."""
    out, bad = [], []
    witness = None
    for label, p, face in items:
        gaps, mtext = _certify_item(ts, p, load, face, margin=(name == "c"), full=False)
        if gaps is None:
            w = _find_witness(ts, p, load, face)
            if w is None:
                gaps, mtext = _certify_item(ts, p, load, face, margin=(name == "c"), full=True)
            elif witness is None and name in ("a", "b"):
                witness = {"item": label, **w}
        rec = {("entry" if name == "a" else "face" if name == "b" else "column"): label, "poly": str(p), "gaps": gaps}
        if name == "c":
            rec["margin"] = mtext
        out.append(rec)
        if gaps is None:
            bad.append((label, p, face))
    what = {"a": "off-diagonal entries", "b": "faces", "c": "columns"}[name]
    if not bad:
        status, detail = "holds", f"{len(out)} {what} certified (non-negative coefficients in gap coordinates)"
    elif witness is not None:
        status = "fails"
        detail = (f"{'entry' if name == 'a' else 'face'} {witness['item']} is {witness['value']} < 0 at u = "
                  f"({', '.join(witness['u'])}), rho = {witness['rho']}")
    else:
        status = "not certified"
        detail = (f"{len(bad)} of {len(out)} {what} not certified (first: {bad[0][0]}: {bad[0][1]})"
                  + ("; a positive column sum does not refute uniqueness" if name == "c"
                     else "; no negative sample found"))
    data = {"status": status, "items": out, "witness": witness}
    return data, ConditionResult(name, _TITLES[name], status, detail)


def _reason(status, failed, load_text, conds_text) -> str:
    if status == "PROVED":
        return f"(a), (b), (c) certified for {load_text}: every solution in D converges to the unique equilibrium"
    if status == "FAILED":
        return f"condition {_TITLES[failed]} fails ({conds_text[failed]}): the certificate does not apply"
    return f"condition {_TITLES[failed]} not certified ({conds_text[failed]})"


def certify_global_convergence(model, rho=None, *, rho_lo=None, rho_hi=None) -> GlobalConvergenceResult:
    r"""Certify that the fluid ODE of ``model`` converges globally to a unique equilibrium.

    The three conditions of the module docstring — (a) cooperative on the ordered set ``D`` of tails,
    (b) ``D`` forward invariant, (c) every Jacobian column sum negative (:math:`\ell^1` contraction,
    hence a unique equilibrium) — are certified on the definition's own drift by exact polynomial
    sign certificates, for every load :math:`\rho > 0` (default), one load, or a load interval.

    Parameters
    ----------
    model : MeanFieldModel
        Any model; ``state_kind`` ``"tail"`` (variables ``u_1..u_C``) or ``"occupancy"`` (``x_0..x_C``
        with the invariant ``sum x_k = 1``) with a polynomial drift. Other models give ``UNDECIDED``
        with the reason (``failed_condition`` ``"order"`` or ``"polynomial"``).
    rho : real, optional
        One load (``> 0``, used exactly: a float is its binary value). Default: every load.
    rho_lo, rho_hi : real, optional
        A load interval ``[rho_lo, rho_hi]`` (``0 < rho_lo < rho_hi``; ``rho_hi=None``: ``[rho_lo, oo)``).

    Returns
    -------
    GlobalConvergenceResult
        ``PROVED``, ``FAILED`` (a condition fails at an exact rational point of ``D``: the witness is in
        the certificate) or ``UNDECIDED`` (a condition is not certified); ``certificate`` is the data
        :func:`verify_global_convergence` re-checks.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`~symloss.MeanFieldModel` or a load is not a real number.
    ValueError
        If a load is out of range, or both ``rho`` and an interval are given.
    ModelDefinitionError
        If the definition is inconsistent.

    See Also
    --------
    verify_global_convergence

    Notes
    -----
    The theorem used is ``THEOREM``; the mathematics is in ``MATH.md`` section 6 (monotone
    dynamical systems, H. L. Smith, *Monotone Dynamical Systems*, AMS 1995, ch. 3).

    Examples
    --------
    >>> from symloss import PowerOfD, RetrialOfD
    >>> from symloss.core.convergence import certify_global_convergence
    >>> certify_global_convergence(RetrialOfD(3, 2))
    GlobalConvergenceResult(PROVED, RetrialOfD(C=3, d=2), every rho > 0: (a) holds, (b) holds, (c) holds)
    >>> certify_global_convergence(PowerOfD(2, 2), rho_lo=1, rho_hi=2).status
    'PROVED'
    """
    if not is_model(model):
        raise TypeError(f"model must be a symloss MeanFieldModel, got {type(model).__name__}")
    load = _load_spec(rho, rho_lo, rho_hi)
    load_text = _load_text(load)
    fp = model.fingerprint()
    base = {"method": METHOD, "model": repr(model), "fingerprint": fp, "load": load}
    try:
        ts = _TailSystem(model)
    except _NotApplicable as exc:
        data = {**base, "status": "UNDECIDED", "failed_condition": exc.condition, "reason": exc.reason}
        return GlobalConvergenceResult("UNDECIDED", repr(model), fp, load_text, exc.condition, (), exc.reason,
                                       certificate=data)
    conds, results = {}, []
    for name in ("a", "b", "c"):
        conds[name], res = _condition(ts, name, _items(ts, name), load)
        results.append(res)
    status, failed = _overall(conds)
    data = {**base, "state_kind": ts.kind, "C": ts.C, "rho_shift": ts.rho_shift, "conditions": conds,
            "status": status, "failed_condition": failed, "theorem": THEOREM}
    reason = _reason(status, failed, load_text, {r.name: r.detail for r in results})
    return GlobalConvergenceResult(status, repr(model), fp, load_text, failed, tuple(results), reason, certificate=data)


