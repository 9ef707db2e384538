"""Exact finite-N blocking as a rational function of rho, and the certified finite-N threshold (issue 25).

Independent references (none computed by the code under test):
* C = 1: the number of busy servers is a birth-death chain; its stationary law is the product of the
  rate ratios, written here by hand in SymPy (a symbolic rational function of rho) and in Fractions;
* a tiny chain (C = 2, N = 2, six states) whose balance equations are solved here by Fraction Gaussian
  elimination written in this file, at rational loads;
* the float sparse-LU solver ``exact_finite_n`` at a few loads, and its exact rational path
  (``method="exact"``, Dixon) for sampling without replacement;
* a Sturm sequence (another root-counting theorem) against the Descartes counts.
"""
from __future__ import annotations

import copy
from fractions import Fraction

import pytest
import sympy as sp

from symloss import RHO, PowerOfD, RandomRouting, RetrialOfD, define_model, exact_finite_n
from symloss.finite_n.rational import (
    RationalCertificateError,
    blocking_rational_function,
    certified_finite_n_threshold,
    chain_blocking_exact,
    count_positive_roots,
    recheck_blocking_rational_function,
    recheck_threshold_certificate,
    squarefree_part,
    sturm_count,
    sturm_sequence,
)

rho = sp.Symbol("rho", positive=True)


def _as_sympy(f):
    P = sum(int(c) * rho ** k for k, c in enumerate(f.P.coeffs()))
    Q = sum(int(c) * rho ** k for k, c in enumerate(f.Q.coeffs()))
    return P / Q


def _birth_death_blocking(N, up, down, b):
    """B_N of a birth-death chain on n = 0..N (rates up(n), down(n) as SymPy in rho), loss b(n)."""
    w = [sp.Integer(1)]
    for n in range(N):
        w.append(w[-1] * up(n) / down(n + 1))
    Z = sum(w)
    return sp.cancel(sum(wi * b(n) for n, wi in enumerate(w)) / Z)


@pytest.mark.parametrize("N,d", [(2, 2), (3, 2), (4, 3)])
def test_c1_retrial_is_the_hand_birth_death_chain(N, d):
    # retrial-of-d, C = 1: an arrival is accepted unless d samples find busy servers
    want = _birth_death_blocking(N, lambda n: N * rho * (1 - sp.Rational(n, N) ** d), lambda n: n,
                                 lambda n: sp.Rational(n, N) ** d)
    f = blocking_rational_function(RetrialOfD(1, d), N)
    assert sp.cancel(_as_sympy(f) - want) == 0
    assert f.degree_bound == N          # M - 1 = N states minus one, rates of degree 1
    assert f.P.gcd(f.Q).degree() == 0 and f.Q.leading_coefficient() > 0


def _gauss_fraction(A, b):
    """Solve A x = b over Fractions (partial pivoting on non-zero)."""
    n = len(A)
    M = [row[:] + [b[i]] for i, row in enumerate(A)]
    for c in range(n):
        p = next(r for r in range(c, n) if M[r][c] != 0)
        M[c], M[p] = M[p], M[c]
        for r in range(n):
            if r != c and M[r][c] != 0:
                f = M[r][c] / M[c][c]
                M[r] = [x - f * y for x, y in zip(M[r], M[c])]
    return [M[i][n] / M[i][i] for i in range(n)]


def _hand_c2_n2_power_of_2(r):
    """Power-of-2, C = 2, N = 2, written by hand on the occupancies (n0, n1, n2): an arrival (rate 2 r)
    samples two servers with replacement and joins the less loaded; lost if both are full."""
    states = [(n0, n1, 2 - n0 - n1) for n0 in range(3) for n1 in range(3 - n0)]
    idx = {s: i for i, s in enumerate(states)}
    M = len(states)
    G = [[Fraction(0)] * M for _ in range(M)]
    for s in states:
        n0, n1, n2 = s
        x0, x1, x2 = Fraction(n0, 2), Fraction(n1, 2), Fraction(n2, 2)
        # least loaded of two samples: idle w.p. 1 - (1 - x0)^2, one job w.p. (x1 + x2)^2 - x2^2
        moves = [((n0 - 1, n1 + 1, n2), 2 * r * (1 - (1 - x0) ** 2)),
                 ((n0, n1 - 1, n2 + 1), 2 * r * ((x1 + x2) ** 2 - x2 ** 2)),
                 ((n0 + 1, n1 - 1, n2), Fraction(n1)), ((n0, n1 + 1, n2 - 1), Fraction(2 * n2))]
        for t, q in moves:
            if q:
                G[idx[s]][idx[t]] += q
                G[idx[s]][idx[s]] -= q
    A = [[G[i][t] for i in range(M)] for t in range(M)]       # balance: sum_i pi_i G[i][t] = 0
    A[-1] = [Fraction(1)] * M
    pi = _gauss_fraction(A, [Fraction(0)] * (M - 1) + [Fraction(1)])
    return sum(p * Fraction(s[2], 2) ** 2 for p, s in zip(pi, states))


def test_c2_n2_power_of_2_against_hand_gaussian_elimination():
    f = blocking_rational_function(PowerOfD(2, 2), 2)
    for r in (Fraction(1, 3), Fraction(7, 5), Fraction(11, 2)):
        assert f(r) == _hand_c2_n2_power_of_2(r)


@pytest.mark.parametrize("model", [RetrialOfD(2, 4), PowerOfD(2, 3), RandomRouting(2)])
def test_against_float_sparse_lu(model):
    f = blocking_rational_function(model, 5)
    for r in (0.3, 1.0, 2.5):
        want = exact_finite_n(model, 5, r).blocking
        got = f(Fraction(r))
        assert abs(float(got) - want) <= 1e-12 * want


@pytest.mark.parametrize("model", [RetrialOfD(2, 3), PowerOfD(2, 3)])
def test_without_replacement_against_the_exact_dixon_path(model):
    f = blocking_rational_function(model, 4, "without_replacement")
    for r in (Fraction(2, 7), Fraction(5, 3)):
        assert f(r) == exact_finite_n(model, 4, r, sampling="without_replacement", method="exact").blocking_exact


def test_random_routing_is_erlang_b_for_every_N():
    # every server is an M/M/2/2 station: B = E(2, rho) = rho^2 / (2 + 2 rho + rho^2)
    f = blocking_rational_function(RandomRouting(2), 3)
    assert [int(c) for c in f.P.coeffs()] == [0, 0, 1] and [int(c) for c in f.Q.coeffs()] == [2, 2, 1]


def _c1_tail_model(mu):
    u = sp.Symbol("u1", nonnegative=True)
    return define_model(f"C=1 power-of-2, service {mu}", (u,),
                        [({u: 1}, RHO * (1 - u ** 2)), ({u: -1}, mu * u)], blocking=u ** 2,
                        state_kind="tail", C=1)


def test_mutation_the_rational_function_follows_the_definition():
    N = 3
    for mu in (1, 2):
        want = _birth_death_blocking(N, lambda n: N * rho * (1 - sp.Rational(n, N) ** 2), lambda n: mu * n,
                                     lambda n: sp.Rational(n, N) ** 2)
        assert sp.cancel(_as_sympy(blocking_rational_function(_c1_tail_model(mu), N)) - want) == 0
    assert _as_sympy(blocking_rational_function(_c1_tail_model(1), N)) != \
        _as_sympy(blocking_rational_function(_c1_tail_model(2), N))


def test_bad_input():
    with pytest.raises(TypeError, match="model"):
        blocking_rational_function("retrial", 3)
    with pytest.raises(ValueError, match="N"):
        blocking_rational_function(RetrialOfD(2, 2), 0)
    with pytest.raises(ValueError, match="sampling"):
        blocking_rational_function(RetrialOfD(2, 2), 3, "sometimes")
    with pytest.raises(ValueError, match="max_states"):
        blocking_rational_function(RetrialOfD(2, 2), 30, max_states=100)
    with pytest.raises(ValueError, match="digits"):
        certified_finite_n_threshold(RetrialOfD(2, 4), PowerOfD(2, 3), 3, digits=0)
    with pytest.raises(ValueError, match="identical"):
        certified_finite_n_threshold(RandomRouting(2), RandomRouting(2), 3)


# --------------------------------------------------------------------------------------------------
# the threshold and its certificate
# --------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def thr5():
    return certified_finite_n_threshold(RetrialOfD(2, 4), PowerOfD(2, 3), 5, digits=12)


def test_threshold_structure_and_float_sign_check(thr5):
    assert thr5.status == "PROVED" and thr5.n_roots == 1 and thr5.n_crossings == 1
    assert (thr5.sign_below, thr5.sign_above) == (1, -1)
    lo, hi = thr5.crossing
    assert hi - lo <= Fraction(1, 10 ** 12) * lo
    # the float solver sees retrial worse just below, better just above
    a, b = RetrialOfD(2, 4), PowerOfD(2, 3)
    D = lambda r: exact_finite_n(a, 5, r).blocking - exact_finite_n(b, 5, r).blocking  # noqa: E731
    assert D(float(lo) * 0.999) > 0 > D(float(hi) * 1.001)


def test_sturm_and_descartes_agree(thr5):
    aP, aQ, bP, bQ = thr5.a.P, thr5.a.Q, thr5.b.P, thr5.b.Q
    from flint import fmpq
    R = aP * bQ - bP * aQ
    assert count_positive_roots(R) == 1
    cs = R.coeffs()
    m = next(i for i, c in enumerate(cs) if c != 0)
    from flint import fmpz_poly
    sq = squarefree_part(fmpz_poly(cs[m:]))
    assert sturm_count(sturm_sequence(sq), fmpq(0), "inf") == 1


def test_threshold_certificate_rechecks(thr5):
    out = recheck_threshold_certificate(thr5.certificate())
    assert out["n_roots"] == 1 and out["n_crossings"] == 1


def _tampered(cert, edit):
    c = copy.deepcopy(cert)
    edit(c)
    return c


@pytest.mark.parametrize("edit", [
    lambda c: c["roots"][0].update(lo=c["roots"][0]["hi"], hi=str(Fraction(c["roots"][0]["hi"]) * (1 + Fraction(1, 10 ** 13))),
                                   sign_points=[c["roots"][0]["hi"], str(Fraction(c["roots"][0]["hi"]) * (1 + Fraction(1, 10 ** 13)))]),  # moved interval
    lambda c: c["a"].__setitem__("Q", c["b"]["Q"]),                                # another denominator
    lambda c: c["tiles"][0].__setitem__(2, 1 - c["tiles"][0][2]),                  # a Descartes count
    lambda c: c["roots"][0].__setitem__("lo", c["roots"][0]["hi"]),                # the root interval
    lambda c: c["roots"][0].__setitem__("crossing", False),                        # crossing flag
    lambda c: c.__setitem__("sign_below", -1),                                     # sign below
    lambda c: c.__setitem__("n_roots", 2),                                         # root count
    lambda c: c.__setitem__("root_bound", "1/1000"),                               # root bound
    lambda c: c.__setitem__("digits", 40),                                         # claimed width
    lambda c: c["tiles"].pop(),                                                    # the cover
])
def test_tampered_threshold_certificate_is_rejected(thr5, edit):
    # (a changed coefficient of P alone can leave a valid root structure of another function: that is
    # caught by recheck_blocking_rational_function, see test_blocking_recheck_proves_and_rejects_tampering)
    with pytest.raises(RationalCertificateError):
        recheck_threshold_certificate(_tampered(thr5.certificate(), edit))


def test_blocking_recheck_proves_and_rejects_tampering():
    model = RetrialOfD(2, 2)
    f = blocking_rational_function(model, 3)
    res = recheck_blocking_rational_function(model, f.certificate(), points="proof")
    assert res["proved"] and res["points"] == max(f.P.degree(), f.Q.degree()) + f.degree_bound + 1
    bad = _tampered(f.certificate(), lambda c: c["P"].__setitem__(2, str(int(c["P"][2]) - 1)))
    with pytest.raises(RationalCertificateError, match="differs from the exact chain"):
        recheck_blocking_rational_function(model, bad, points=2)
    with pytest.raises(RationalCertificateError, match="degree_bound"):
        recheck_blocking_rational_function(model, _tampered(f.certificate(),
                                                             lambda c: c.__setitem__("degree_bound", 3)))
    # another model's definition does not match the stored function
    with pytest.raises(RationalCertificateError):
        recheck_blocking_rational_function(PowerOfD(2, 2), f.certificate(), points=2)


def test_recheck_solver_is_the_exact_chain():
    for model in (RetrialOfD(2, 3), PowerOfD(2, 2)):
        v = chain_blocking_exact(model, 3, "5/2")
        assert Fraction(int(v.p), int(v.q)) == exact_finite_n(model, 3, Fraction(5, 2), method="exact").blocking_exact


def test_claim_recheck_refuses_another_case_before_work():
    from proofs_check.claims.seed000_simulation import _proved_recheck
    from proofs_check.core import CertificateError
    with pytest.raises(CertificateError, match="different case"):
        _proved_recheck({"C": 2, "d": 3, "dt": 4, "N": 12, "certificate": {}})
