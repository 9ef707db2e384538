"""One definition of the two-queue model drives every solver (issue 12, two-queue part).

* the rule table, its scalar evaluator and its vectorised evaluator agree with an independent,
  hand-written statement of the seed model;
* the lumped kernels generated from ``transitions`` are the ones the numba stencil implements;
* mutation tests: a model whose definition is edited (a rate of a rule, an extra rule, an overridden
  ``transitions``) gets, from every solver, either the stationary law of the *edited* chain (checked
  against an independent solve of the edited generator) or an error; never the seed model's numbers.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy
from flint import fmpq, fmpq_mat

from symloss import TwoQueueJSQ
from symloss.twoqueue import definition as D
from symloss.twoqueue.kernels import StructureError, level_kernels


def _seed_transitions(N, m, n):
    """The seed model written out by hand (independent of the rule table)."""
    out = []
    if m < n:
        out.append((m + 1, n, Fraction(1), 0))
    elif n < m:
        out.append((m, n + 1, Fraction(1), 0))
    elif m < N:
        out += [(m + 1, n, Fraction(1, 2), 0), (m, n + 1, Fraction(1, 2), 0)]
    if m > 0:
        out.append((m - 1, n, Fraction(0), m))
    if n > 0:
        out.append((m, n - 1, Fraction(0), n))
    return out


def _full_exact(model, rho):
    """Stationary law of the FULL (m, n) chain of ``model.transitions`` by a dense fmpq solve."""
    N = model.N
    S = (N + 1) ** 2
    idx = lambda i, j: i * (N + 1) + j  # noqa: E731
    A = fmpq_mat(S, S)
    for i in range(N + 1):
        for j in range(N + 1):
            for (i2, j2, c, k) in model.transitions(i, j):
                r = fmpq(c.numerator, c.denominator) * rho + fmpq(Fraction(k).numerator, Fraction(k).denominator)
                A[idx(i2, j2), idx(i, j)] += r
                A[idx(i, j), idx(i, j)] -= r
    for j in range(S):
        A[S - 1, j] = 1
    b = fmpq_mat(S, 1)
    b[S - 1, 0] = 1
    x = A.solve(b)
    return [[x[idx(i, j), 0] for j in range(N + 1)] for i in range(N + 1)]


def _f(x):
    return float(x.p) / float(x.q) if isinstance(x, fmpq) else float(x)


# ---- the definition -------------------------------------------------------------------------------

def test_rules_evaluate_to_the_seed_model():
    for N in range(1, 13):
        for m in range(N + 1):
            for n in range(N + 1):
                got = sorted(D.transitions(N, m, n))
                assert got == sorted(_seed_transitions(N, m, n)), (N, m, n)
    # vectorised evaluator: same rates on a grid
    N = 9
    mm, nn = np.meshgrid(np.arange(N + 1), np.arange(N + 1), indexing="ij")
    arrs = D.rule_arrays(D.RULES, N, mm, nn)
    for m in range(N + 1):
        for n in range(N + 1):
            vec = sorted((m + dm, n + dn, c1[m, n], c0[m, n]) for dm, dn, act, c1, c0 in arrs if act[m, n])
            ref = sorted((a, b, float(c), float(k)) for a, b, c, k in _seed_transitions(N, m, n))
            assert vec == ref


def test_rule_validation():
    with pytest.raises(ValueError, match="jump"):
        D.Rule((0, 0), D.rho, True)
    with pytest.raises(ValueError, match="affine in rho"):
        D.Rule((1, 0), D.rho ** 2, True)
    with pytest.raises(ValueError, match="may only use"):
        D.Rule((1, 0), sympy.Symbol("x"), True)
    with pytest.raises(TypeError, match="Rule"):
        D.compile_rules([("not", "a", "rule")])
    bad = (D.Rule((1, 0), D.rho, True),)            # leaves the state space at m = N
    with pytest.raises(ValueError, match="leaves the state space"):
        D.transitions(2, 2, 0, bad)
    assert D.rules_equal(D.RULES, D.RULES)
    assert not D.rules_equal(D.RULES, D.RULES[:-1])
    assert r"\rho" in D.rules_latex()


def test_generated_lumped_kernels_are_the_stencil():
    """The numba stencil's weights (closed form in K, d) equal the kernels generated from transitions."""
    for N in (1, 2, 5, 8, 13):
        k = level_kernels(N, lambda i, j, N=N: D.transitions(N, i, j))
        assert k.symmetric and k.adjacent and k.aggregated and k.irreducible and k.lumped
        for K in range(2 * N + 1):
            assert k.up_total[K] == ((Fraction(1) if K < 2 * N else Fraction(0)), Fraction(0))
            assert k.down_total[K] == (Fraction(0), Fraction(K))
            if K > 0:   # arrivals from level K-1: class e -> e-1 (0 -> 1), rate rho
                for (i, j), (c1, c0) in k.U[K].items():
                    e = (K - 1) % 2 + 2 * j
                    d = K % 2 + 2 * i
                    assert (c1, c0) == (Fraction(1), Fraction(0)) and d == (e - 1 if e else 1)
            if K < 2 * N:  # departures from level K+1: e -> e-1 at rate (K+1+e)/2, e -> e+1 at (K+1-e)/2
                for (i, j), (c1, c0) in k.D[K].items():
                    e = (K + 1) % 2 + 2 * j
                    d = K % 2 + 2 * i
                    want = (K + 1) if e == 0 else ((K + 1 + e) // 2 if d == e - 1 else (K + 1 - e) // 2)
                    assert c1 == 0 and c0 == want, (N, K, e, d)
            assert not k.I[K]


def test_balance_residual_detects_a_wrong_answer():
    model = TwoQueueJSQ(12, 9.0)
    res = model.stationary_distribution()
    assert model.residual(res.p) < 1e-12
    bad = res.p.copy()
    bad[3, 4] *= 1.001
    assert model.residual(bad) > 1e-4


# ---- mutation tests ---------------------------------------------------------------------------------

def _edited(**changes):
    """A subclass of TwoQueueJSQ whose rule table differs from the seed model's."""
    rules = list(D.RULES)
    for i, r in changes.get("replace", {}).items():
        rules[i] = r
    rules += changes.get("add", [])
    return type("Edited", (TwoQueueJSQ,), {"rules": tuple(rules)})


TIE_1_3 = _edited(replace={2: D.Rule((1, 0), D.rho / 3, sympy.Eq(D.m, D.n) & (D.m < D.N)),
                           3: D.Rule((0, 1), 2 * D.rho / 3, sympy.Eq(D.m, D.n) & (D.m < D.N))})
FAST_SERVICE = _edited(replace={4: D.Rule((-1, 0), 2 * D.m, D.m > 0), 5: D.Rule((0, -1), 2 * D.n, D.n > 0)})
TIE_LOSS = _edited(replace={2: D.Rule((1, 0), D.rho / 4, sympy.Eq(D.m, D.n) & (D.m < D.N)),
                            3: D.Rule((0, 1), D.rho / 4, sympy.Eq(D.m, D.n) & (D.m < D.N))})
BATCH = _edited(add=[D.Rule((1, 1), sympy.Rational(1, 3), (D.m < D.N) & (D.n < D.N))])


class OpaqueFaster(TwoQueueJSQ):
    """Overrides transitions (no rule table): every arrival rate doubled."""
    def transitions(self, m, n):
        return [(a, b, 2 * c, k) for (a, b, c, k) in super().transitions(m, n)]


EDITS = [("tie 1/3-2/3", TIE_1_3), ("service rate 2", FAST_SERVICE), ("tie arrivals half lost", TIE_LOSS),
         ("batch arrivals (m+n jumps by 2)", BATCH), ("opaque transitions, rho doubled", OpaqueFaster)]


@pytest.mark.parametrize("name,cls", EDITS)
def test_mutation_every_solver_follows_or_raises(name, cls):
    N, rho = 5, Fraction(7, 2)
    model = cls(N, rho)
    seed = TwoQueueJSQ(N, rho).stationary_distribution("exact")
    ref = _full_exact(model, fmpq(7, 2))                  # independent solve of the edited chain
    ref_f = np.array([[_f(x) for x in row] for row in ref])
    seed_f = np.array([[_f(x) for x in row] for row in seed.p])
    assert np.max(np.abs(ref_f - seed_f)) > 1e-3           # the edit changes the law
    kern = model.kernels()
    outcomes = {}
    # exact
    if kern.adjacent:
        ex = model.stationary_distribution("exact")
        assert ex.p == ref
        outcomes["exact"] = "follows"
    else:
        with pytest.raises(StructureError, match="adjacent"):
            model.stationary_distribution("exact")
        outcomes["exact"] = "raises"
    # mp
    fm = cls(N, float(rho))
    if kern.adjacent:
        mp = fm.stationary_distribution("mp", dps=30)
        for i in range(N + 1):
            for j in range(N + 1):
                assert abs(float(mp.p[i][j]) / ref_f[i, j] - 1) < 1e-13
        outcomes["mp"] = "follows"
    else:
        with pytest.raises(StructureError):
            fm.stationary_distribution("mp")
        outcomes["mp"] = "raises"
    # symbolic
    if kern.adjacent:
        sy = cls(N, 1).stationary_distribution("symbolic")
        r = sympy.Symbol("rho", positive=True)
        for i, j in ((0, 0), (1, 2), (2, 1), (N, N), (N, 0)):
            v = sy.p[i][j].subs(r, sympy.Rational(7, 2))
            assert v == sympy.Rational(int(ref[i][j].p), int(ref[i][j].q))
        outcomes["symbolic"] = "follows"
    else:
        with pytest.raises(StructureError):
            cls(N, 1).stationary_distribution("symbolic")
        outcomes["symbolic"] = "raises"
    # float: follows in every case here (generated kernels, or the sparse LU for small N)
    with pytest.warns(RuntimeWarning) if not (kern.adjacent and kern.aggregated) else _nullcontext():
        fl = fm.stationary_distribution("float")
    gen = fm.generic_solve()                                # independent generic sparse solve
    assert np.max(np.abs(fl.p / ref_f - 1)) < 1e-11
    assert np.max(np.abs(fl.p - gen)) < 1e-12
    assert not np.allclose(fl.p, seed_f, rtol=1e-6, atol=0)
    outcomes["float"] = "follows"
    assert set(outcomes) == {"exact", "mp", "symbolic", "float"}


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def test_mutation_large_float_and_structure_errors():
    # a symmetric edit at a size beyond the exact methods: the generated lumped kernels follow
    N, rho = 60, 50.0
    fl = FAST_SERVICE(N, rho).stationary_distribution()
    gen = FAST_SERVICE(N, rho).generic_solve()
    big = gen > 1e-8
    assert np.max(np.abs(fl.p[big] / gen[big] - 1)) < 1e-9
    # same law as the seed model at half the load (time rescaling): an independent check
    half = TwoQueueJSQ(N, rho / 2).stationary_distribution()
    assert np.max(np.abs(fl.p / np.where(half.p > 0, half.p, 1) - 1)[half.p > 1e-250]) < 1e-11
    # an asymmetric edit beyond the generated-kernel limit raises instead of using the stencil
    with pytest.raises(StructureError, match="N <= 1000"):
        TIE_1_3(1001, 1000.0).stationary_distribution()
    # not level-adjacent and too large for the sparse LU: raises
    with pytest.raises(StructureError, match="adjacent"):
        BATCH(400, 300.0).stationary_distribution()


def test_stencil_is_verified_on_the_definition(monkeypatch):
    """If the stencil were wrongly selected for an edited model, its answer fails the residual check
    on the model's own equations and is not returned."""
    from symloss.core.precision import PrecisionError
    from symloss.twoqueue import _kernels
    model = TIE_LOSS(10, 8.0)
    monkeypatch.setattr(_kernels, "STENCIL_RULES", model.rules)
    assert model._stencil_applies()
    with pytest.raises(PrecisionError, match="residual"):
        model.stationary_distribution("float")
