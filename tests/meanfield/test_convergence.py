"""Tests of the certified global convergence (symloss.core.convergence) and of its claims
(proofs_check.claims.seed000_convergence).

Independent references: the tail drifts and Jacobian column sums written by hand from MATH.md section 6
(retrial: rho r(s)(u_{k-1} - u_k) - k(u_k - u_{k+1}), column sums -1 and -1 - rho d s^(d-1); power-of-d:
rho(u_{k-1}^d - u_k^d) - k(u_k - u_{k+1})) and compared in SymPy; numerical trajectories of the hand-written
power-of-d ODE and of the model's own ODE (scipy) from the least and the greatest element of D, checked
against the contraction rate 1 of the certificate and the certified fixed point; witnesses are evaluated
again with the SymPy Jacobian of the definition; user models whose conditions hold or fail by
construction (closed forms of the entries given in each test).
"""
from __future__ import annotations

import copy
import json
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from symloss import JSQ, RHO, PowerOfD, RandomRouting, RetrialOfD, define_model
from symloss.core.convergence import (THEOREM, GlobalConvergenceCertificateError, GlobalConvergenceResult,
                                           _TailSystem, certify_global_convergence, verify_global_convergence)


def _sym(p, C):
    """A flint polynomial of the tail system as a SymPy expression in u1..uC, rho."""
    names = {f"u{k}": sp.Symbol(f"u{k}") for k in range(C + 1)}
    names["rho"] = RHO
    return sp.expand(sp.sympify(str(p).replace("^", "**"), locals=names))


def _tails(C):
    return [sp.Integer(1)] + [sp.Symbol(f"u{k}") for k in range(1, C + 1)] + [sp.Integer(0)]


# --------------------------------------------------------------------------------------------------
# the shipped policies: the tail drift is MATH.md's, every load is certified, the re-check accepts
# --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("C,d", [(1, 1), (2, 2), (3, 3), (4, 2), (5, 4)])
def test_tail_drift_and_column_sums_are_math_md(C, d):
    u = _tails(C)
    s = u[C]
    r = sum(s ** j for j in range(d))
    for model, g in ((RetrialOfD(C, d), lambda k: RHO * r * (u[k - 1] - u[k]) - k * (u[k] - u[k + 1])),
                     (PowerOfD(C, d), lambda k: RHO * (u[k - 1] ** d - u[k] ** d) - k * (u[k] - u[k + 1]))):
        ts = _TailSystem(model)
        for k in range(1, C + 1):
            assert sp.expand(_sym(ts.g[k - 1], C) - g(k)) == 0, (model, k)
        cols = [_sym(p, C) for _k, p in ts.columns()]
        want = [sp.Integer(1)] * (C - 1) + [sp.expand(1 + RHO * d * s ** (d - 1))]
        assert [sp.expand(a - b) for a, b in zip(cols, want)] == [0] * C, model


@pytest.mark.parametrize("model", [RandomRouting(3), RetrialOfD(2, 2), RetrialOfD(4, 3), RetrialOfD(6, 6),
                                   PowerOfD(1, 3), PowerOfD(2, 2), PowerOfD(4, 3), PowerOfD(6, 6)], ids=repr)
def test_shipped_policies_are_proved_for_every_load(model):
    res = certify_global_convergence(model)
    assert isinstance(res, GlobalConvergenceResult)
    assert res.status == "PROVED" and res.proved and res.failed_condition is None
    assert [c.status for c in res.conditions] == ["holds"] * 3 and res.load == "every rho > 0"
    assert res.theorem == THEOREM and "Kamke" in THEOREM and "Coppel" in THEOREM
    data = json.loads(json.dumps(res.to_dict()))          # plain data
    assert data["certificate"]["conditions"]["a"]["items"] or model.C == 1
    assert verify_global_convergence(model, data["certificate"]) == "PROVED"
    assert "PROVED" in repr(res) and repr(model) in repr(res)
    # the retrial entry d g_1 / d u_C = rho r'(u_C)(1 - u_1) needs the order (a gap), power-of-d needs none
    if isinstance(model, RetrialOfD) and model.d >= 2 and model.C >= 2:
        item = next(i for i in data["certificate"]["conditions"]["a"]["items"] if i["entry"] == [1, model.C])
        assert item["gaps"] == [0]
    if isinstance(model, PowerOfD):
        assert all(i["gaps"] == [] for i in data["certificate"]["conditions"]["a"]["items"])


def _power_rhs(C, d, rho):
    def f(_t, u):
        U = np.concatenate(([1.0], u, [0.0]))
        return np.array([rho * (U[k - 1] ** d - U[k] ** d) - k * (U[k] - U[k + 1]) for k in range(1, C + 1)])
    return f


def test_contraction_rate_along_trajectories_power():
    """Hand-written power-of-d ODE (MATH.md section 2): from the least and the greatest element of D the
    l1 distance decays at least like exp(-t) (condition (c): column sums <= -1), both are monotone in time
    (Kamke) and reach the same equilibrium."""
    from scipy.integrate import solve_ivp
    C, d, rho = 4, 2, 1.7
    model = PowerOfD(C, d)
    assert certify_global_convergence(model, rho=Fraction(17, 10)).proved
    ts = np.linspace(0, 12, 25)
    lo = solve_ivp(_power_rhs(C, d, rho), (0, 12), np.zeros(C), t_eval=ts, rtol=1e-11, atol=1e-13).y.T
    hi = solve_ivp(_power_rhs(C, d, rho), (0, 12), np.ones(C), t_eval=ts, rtol=1e-11, atol=1e-13).y.T
    dist = np.abs(hi - lo).sum(axis=1)
    assert np.all(dist <= dist[0] * np.exp(-ts) * (1 + 1e-7) + 1e-12)
    assert np.all(np.diff(lo, axis=0) >= -1e-12) and np.all(np.diff(hi, axis=0) <= 1e-12)   # monotone in time
    assert dist[-1] < 1e-4 and np.abs(_power_rhs(C, d, rho)(0, lo[-1])).max() < 1e-4     # both reach one equilibrium


def test_contraction_rate_along_trajectories_retrial_model_ode():
    """The model's own ODE (occupancies), from the empty and the full system, in tails."""
    C, d, rho = 3, 2, 2.5
    model = RetrialOfD(C, d)
    assert certify_global_convergence(model).proved
    ts = np.linspace(0, 10, 21)
    empty = np.array([1.0] + [0.0] * C)
    full = np.array([0.0] * C + [1.0])
    a = model.ode(rho, empty, ts).x
    b = model.ode(rho, full, ts).x
    tails = lambda X: np.cumsum(X[:, ::-1], axis=1)[:, ::-1][:, 1:]     # u_k = x_k + ... + x_C
    dist = np.abs(tails(a) - tails(b)).sum(axis=1)
    assert abs(dist[0] - C) < 1e-12
    assert np.all(dist <= dist[0] * np.exp(-ts) * (1 + 1e-6) + 1e-10)


# --------------------------------------------------------------------------------------------------
# user models: conditions that hold or fail by construction
# --------------------------------------------------------------------------------------------------

def _tail_model(name, g_rates, C, **kw):
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    trs = [({u[k]: 1}, up) for k, (up, _down) in enumerate(g_rates(u))] + \
          [({u[k]: -1}, down) for k, (_up, down) in enumerate(g_rates(u))]
    return define_model(name, u, trs, blocking=u[-1], state_kind="tail", C=C, **kw)


def _interval_model():
    """C = 2 tails: g_1 = rho (1 - u1) - (u1 - u2) + (rho - 2) u2, g_2 = rho (u1 - u2) - 2 u2. The entry
    d g_1/d u_2 = rho - 1 (>= 0 iff rho >= 1); on the face u1 = 1, -g_1 = 1 - (rho - 1) u2 (>= 0 for all u2
    iff rho <= 2); the other entry is rho, the other faces give rho and rho u1; column sums -1 and -3."""
    return _tail_model("interval", lambda u: [(RHO * (1 - u[0]) + (RHO - 2) * u[1], u[0] - u[1]),
                                              (RHO * (u[0] - u[1]), 2 * u[1])], 2)


def test_load_interval_and_point():
    m = _interval_model()
    res = certify_global_convergence(m)
    assert res.status == "FAILED" and res.failed_condition == "a"
    w = res.certificate["conditions"]["a"]["witness"]
    assert w["item"] == [1, 2] and Fraction(w["rho"]) < 1
    assert Fraction(w["value"]) == Fraction(w["rho"]) - 1                 # the closed form rho - 1
    J = m.jacobian()
    u = dict(zip(m.variables, map(Fraction, w["u"])))
    assert sp.Rational(J[0, 1].subs(u).subs(RHO, sp.Rational(w["rho"]))) == sp.Rational(w["value"])
    assert "(a)" in res.reason and "fails" in res.reason
    for kw in ({"rho_lo": 1, "rho_hi": 2}, {"rho": Fraction(3, 2)}, {"rho": 1}, {"rho": 2}):
        r = certify_global_convergence(m, **kw)
        assert r.status == "PROVED", (kw, r)
        assert verify_global_convergence(m, r.certificate) == "PROVED"
    assert certify_global_convergence(m, rho_lo=1, rho_hi=2).load == "rho in [1, 2]"
    r = certify_global_convergence(m, rho_lo=1, rho_hi=3)
    assert r.status == "FAILED" and r.failed_condition == "b"
    wb = r.certificate["conditions"]["b"]["witness"]
    assert wb["item"] == 0 and Fraction(wb["value"]) == 1 - (Fraction(wb["rho"]) - 1) * Fraction(wb["u"][1])
    assert verify_global_convergence(m, r.certificate) == "FAILED"
    r = certify_global_convergence(m, rho=0.5)                            # a float: its exact value 1/2
    assert r.status == "FAILED" and r.certificate["load"] == {"kind": "point", "rho": "1/2"}
    r = certify_global_convergence(m, rho_lo=1)                           # [1, oo): the face fails at large rho
    assert r.status == "FAILED" and r.failed_condition == "b"


def test_user_model_not_cooperative_names_condition_a():
    """A negative off-diagonal term: g_1 = rho (1 - u1) - (u1 - u2) - 2 u2 has d g_1/d u_2 = 1 - 2 = -1."""
    m = _tail_model("not cooperative", lambda u: [(RHO * (1 - u[0]), u[0] - u[1] + 2 * u[1]),
                                                  (RHO * (u[0] - u[1]), 2 * u[1])], 2)
    res = certify_global_convergence(m)
    assert res.status == "FAILED" and res.failed_condition == "a"
    assert res.conditions[0].status == "fails" and "-1 < 0" in res.conditions[0].detail
    assert verify_global_convergence(m, res.certificate) == "FAILED"


def test_column_sum_not_certified_is_undecided():
    """C = 1: g = rho (1 - u) - u + 3 u (1 - u); -g' = rho + 6 u - 2 is negative at small rho and u = 0, so
    (c) is not certified (uniqueness itself holds here: g(0) > 0 > g(1), concave) -> UNDECIDED, not FAILED."""
    u, = sp.symbols("u1", nonnegative=True),
    m = define_model("c fails", (u,), [({u: 1}, RHO * (1 - u) + 3 * u * (1 - u)), ({u: -1}, u)], blocking=u,
                     state_kind="tail", C=1)
    res = certify_global_convergence(m)
    assert res.status == "UNDECIDED" and res.failed_condition == "c"
    assert [c.status for c in res.conditions] == ["holds", "holds", "not certified"]
    assert verify_global_convergence(m, res.certificate) == "UNDECIDED"
    assert certify_global_convergence(m, rho=3).proved                 # -g' = 1 + 6 u at rho = 3


def test_laurent_in_rho():
    """g = rho (1 - u) - u / rho: every row times rho > 0 (shift 1); -g' = rho + 1/rho > 0."""
    u, = sp.symbols("u1", nonnegative=True),
    m = define_model("laurent", (u,), [({u: 1}, RHO * (1 - u)), ({u: -1}, u / RHO)], blocking=u,
                     state_kind="tail", C=1)
    res = certify_global_convergence(m)
    assert res.proved and res.certificate["rho_shift"] == 1
    assert res.certificate["conditions"]["c"]["items"][0]["margin"] == "rho^2 + 1"
    assert verify_global_convergence(m, res.certificate) == "PROVED"


def test_occupancy_user_model_matches_the_shipped_one():
    """Random routing to M/M/2/2 stations written by the user in occupancies: the same tail polynomials
    as RandomRouting(2)."""
    x = sp.symbols("x0:3", nonnegative=True)
    trs = [({x[k]: -1, x[k + 1]: 1}, RHO * x[k]) for k in range(2)] + \
          [({x[k]: -1, x[k - 1]: 1}, k * x[k]) for k in range(1, 3)]
    m = define_model("mine", x, trs, blocking=x[2], invariants=[sp.Eq(sum(x), 1)], state_kind="occupancy", C=2)
    a, b = certify_global_convergence(m), certify_global_convergence(RandomRouting(2))
    assert a.proved and a.certificate["conditions"] == b.certificate["conditions"]


def test_methods_that_do_not_apply_say_why():
    x = sp.symbols("x0 x1", nonnegative=True)
    custom = define_model("custom", x, [({x[0]: -1, x[1]: 1}, RHO * x[0]), ({x[0]: 1, x[1]: -1}, x[1])],
                          blocking=x[1], invariants=[sp.Eq(x[0] + x[1], 1)])
    res = certify_global_convergence(custom)
    assert res.status == "UNDECIDED" and res.failed_condition == "order" and "no order structure" in res.reason
    assert res.conditions == () and verify_global_convergence(custom, res.certificate) == "UNDECIDED"
    res = certify_global_convergence(JSQ(2))
    assert res.status == "UNDECIDED" and res.failed_condition == "polynomial" and "Heaviside" in res.reason
    no_inv = define_model("no invariant", x, [({x[0]: -1, x[1]: 1}, RHO * x[0]), ({x[0]: 1, x[1]: -1}, x[1])],
                          blocking=x[1], state_kind="occupancy", C=1)
    res = certify_global_convergence(no_inv)
    assert res.status == "UNDECIDED" and res.failed_condition == "order" and "x_0 + ... + x_C = 1" in res.reason


def test_bad_input():
    m = PowerOfD(2, 2)
    with pytest.raises(ValueError, match="rho"):
        certify_global_convergence(m, 0)
    with pytest.raises(ValueError, match="rho_lo"):
        certify_global_convergence(m, rho_lo=-1)
    with pytest.raises(ValueError, match="rho_hi"):
        certify_global_convergence(m, rho_lo=2, rho_hi=1)
    with pytest.raises(ValueError, match="rho_lo must be given"):
        certify_global_convergence(m, rho_hi=1)
    with pytest.raises(ValueError, match="not both"):
        certify_global_convergence(m, 1, rho_lo=1)
    with pytest.raises(TypeError, match="rho"):
        certify_global_convergence(m, "1")
    with pytest.raises(ValueError, match="rho"):
        certify_global_convergence(m, math.inf)
    with pytest.raises(TypeError, match="MeanFieldModel"):
        certify_global_convergence("PowerOfD(2, 2)")


# --------------------------------------------------------------------------------------------------
# mutation: an edited rate of PowerOfD is followed
# --------------------------------------------------------------------------------------------------

class _Departures(PowerOfD):
    """Departures at rate k (u_k + u_{k+1}): d g_k / d u_{k+1} = -k < 0."""

    def transitions(self):
        out = super().transitions()
        u = list(self.variables) + [0]
        return [(j, r) if i % 2 == 0 else (j, (i // 2 + 1) * (u[i // 2] + u[i // 2 + 1]))
                for i, (j, r) in enumerate(out)]


class _FasterArrivals(PowerOfD):
    """Arrivals 3/2 as fast: still cooperative and contracting."""

    def transitions(self):
        return [(j, r * sp.Rational(3, 2)) if i % 2 == 0 else (j, r) for i, (j, r) in enumerate(super().transitions())]


def test_mutation_of_power_of_d():
    base = certify_global_convergence(PowerOfD(3, 2))
    bad = certify_global_convergence(_Departures(3, 2))
    assert bad.status == "FAILED" and bad.failed_condition == "a"
    w = bad.certificate["conditions"]["a"]["witness"]
    assert Fraction(w["value"]) == -w["item"][0]                      # the entry -k, closed form
    edited = certify_global_convergence(_FasterArrivals(3, 2))
    assert edited.proved
    polys = lambda r: [i["poly"] for i in r.certificate["conditions"]["a"]["items"]]
    assert polys(edited) != polys(base)                                  # the certificate follows the edit
    assert "3*u1*rho" in polys(edited)                                   # d g_2/d u_1 = (3/2) rho 2 u_1
    with pytest.raises(GlobalConvergenceCertificateError):              # another definition is refused
        verify_global_convergence(_FasterArrivals(3, 2), base.certificate)


# --------------------------------------------------------------------------------------------------
# tampering with the certificate
# --------------------------------------------------------------------------------------------------

def _edits(cert):
    def at(path, value):
        c = copy.deepcopy(cert)
        node = c
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
        return c
    a = cert["conditions"]["a"]["items"]
    ia = next(i for i, it in enumerate(a) if it["gaps"])
    yield "gaps dropped", at(("conditions", "a", "items", ia, "gaps"), [])
    yield "gaps not free", at(("conditions", "a", "items", ia, "gaps"), [99])
    yield "poly edited", at(("conditions", "a", "items", ia, "poly"), a[ia]["poly"] + " + 1")
    yield "entry relabelled", at(("conditions", "a", "items", ia, "entry"), [9, 9])
    yield "face gaps", at(("conditions", "b", "items", 1, "gaps"), [])
    yield "margin", at(("conditions", "c", "items", 0, "margin"), "2")
    yield "status", at(("status",), "FAILED")
    yield "condition status", at(("conditions", "c", "status"), "not certified")
    yield "fake witness", at(("conditions", "a", "witness"),
                             {"item": [1, 2], "u": ["1", "0", "0"], "rho": "1", "value": "-1"})
    yield "load", at(("load",), {"kind": "interval", "lo": "2", "hi": "1"})
    yield "fingerprint", at(("fingerprint",), "0" * 64)
    yield "theorem", at(("theorem",), "trust me")
    yield "extra field", at(("extra",), 1)
    c = copy.deepcopy(cert)
    del c["conditions"]["b"]["items"][0]
    yield "face removed", c


def test_tampered_certificates_are_rejected():
    m = RetrialOfD(3, 3)
    cert = json.loads(json.dumps(certify_global_convergence(m).certificate))
    assert verify_global_convergence(m, copy.deepcopy(cert)) == "PROVED"
    for name, bad in _edits(cert):
        with pytest.raises(GlobalConvergenceCertificateError):
            verify_global_convergence(m, bad)
            pytest.fail(name)
    with pytest.raises(GlobalConvergenceCertificateError):
        verify_global_convergence(RetrialOfD(3, 2), cert)


def test_load_relabelled_is_rejected():
    """A certificate made at rho = 3/2 does not pass as one for every load (the entry rho - 1 is negative
    below 1); one for every load does specialise to a point (the claims require the load 'every')."""
    m = _interval_model()
    cert = certify_global_convergence(m, rho=Fraction(3, 2)).certificate
    cert["load"] = {"kind": "every"}
    with pytest.raises(GlobalConvergenceCertificateError):
        verify_global_convergence(m, cert)
    cert = certify_global_convergence(PowerOfD(2, 2)).certificate
    cert["load"] = {"kind": "point", "rho": "5"}
    assert verify_global_convergence(PowerOfD(2, 2), cert) == "PROVED"


def test_tampered_witness_is_rejected():
    m = _interval_model()
    cert = certify_global_convergence(m).certificate
    assert verify_global_convergence(m, copy.deepcopy(cert)) == "FAILED"
    for field, value in (("value", "-7"), ("rho", "2"), ("u", ["1/2", "3/4"])):
        c = copy.deepcopy(cert)
        c["conditions"]["a"]["witness"][field] = value
        with pytest.raises(GlobalConvergenceCertificateError):
            verify_global_convergence(m, c)


# --------------------------------------------------------------------------------------------------
# the claims
# --------------------------------------------------------------------------------------------------

def test_claims_registered_and_rechecked_and_tampering_rejected():
    from proofs_check.core import all_claims, recheck_records, run_claims, select
    ids = {c.id for c in all_claims() if c.id.startswith("seed000.global_convergence.")}
    assert ids == {f"seed000.global_convergence.{k}.C{C}_d{d}" for k in ("retrial", "power")
                   for C in range(1, 21) for d in range(1, 7)}
    results = run_claims(select(["seed000.global_convergence.*.C[23]_d[13]"]))
    assert len(results) == 8 and all(r.status.value == "PROVED" and r.as_expected for r in results)
    records = json.loads(json.dumps([r.to_dict() for r in results]))
    assert all(ok for _i, ok, _m in recheck_records(records)), recheck_records(records)
    rec = next(r for r in records if r["id"] == "seed000.global_convergence.retrial.C3_d3")

    def rejected(r):
        (_cid, ok, _msg), = recheck_records([r])
        return not ok
    edits = {
        "status": lambda r: (r.update(status="REFUTED"), r["certificate"].update(status="REFUTED")),
        "summary": lambda r: r["certificate"].update(summary="proved by hand"),
        "stamp": lambda r: r["certificate"]["data"]["stamp"]["models"][0].update(fingerprint="f" * 64),
        "parameters": lambda r: r["certificate"]["data"].update(C=2),
        "gaps": lambda r: next(i for i in r["certificate"]["data"]["certificate"]["conditions"]["a"]["items"]
                               if i["gaps"]).update(gaps=[]),
        "poly": lambda r: r["certificate"]["data"]["certificate"]["conditions"]["c"]["items"][2].update(poly="1"),
        "added field": lambda r: r["certificate"]["data"]["certificate"]["conditions"]["a"].update(note="x"),
        "statement": lambda r: r.update(statement=r["statement"].replace("unique", "")),
        "load": lambda r: r["certificate"]["data"]["certificate"].update(load={"kind": "point", "rho": "1"}),
    }
    for name, fn in edits.items():
        r = copy.deepcopy(rec)
        fn(r)
        assert rejected(r), name


def test_docstring_examples():
    import doctest

    import symloss.core.convergence as mod
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted >= 3 and res.failed == 0
