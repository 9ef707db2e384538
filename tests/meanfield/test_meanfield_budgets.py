"""Budgets and large-C paths of the mean-field layer (issue 17): the sparse nullspace of the jumps, the
verification of accelerator answers on the definition's sparse drift, the degree budgets of the
eliminants, the time budget of the expansions, the scan at C = 1000, and comparisons of models that
coincide."""
import random
import time
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from symloss import (
    PowerOfD,
    RandomRouting,
    RetrialOfD,
    blocking_series,
    certified_comparison,
    certified_threshold,
    crossing_loads,
)
from symloss.core.certify import DefinitionMismatchWarning, solve
from symloss.core.model import RHO, _sparse_nullspace
from symloss.core.validation import BudgetError, TimeLimitExceeded
from symloss.meanfield import compare
from symloss.meanfield.accelerators import POWER, RETRIAL

# --------------------------------------------------------------------------------------------------
# the nullspace of the jumps (conserved linear forms)
# --------------------------------------------------------------------------------------------------

_rows = st.integers(1, 7).flatmap(lambda n: st.tuples(st.just(n), st.lists(
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(-3, 3)), min_size=1, max_size=n), max_size=9)))


def _reduced_basis_sympy(rows, n):
    """The reduced nullspace basis (1 at its free column, 0 at the other free columns), from SymPy's rref."""
    if not rows:
        return [[Fraction(int(i == j)) for i in range(n)] for j in range(n)]
    M = sp.zeros(len(rows), n)
    for a, r in enumerate(rows):
        for i, v in r:
            M[a, i] = v
    R, piv = M.rref()
    free = [j for j in range(n) if j not in piv]
    out = []
    for f in free:
        vec = [Fraction(0)] * n
        vec[f] = Fraction(1)
        for k, pc in enumerate(piv):
            q = sp.Rational(-R[k, f])
            vec[pc] = Fraction(int(q.p), int(q.q))
        out.append(vec)
    return out


@settings(max_examples=200, deadline=None)
@given(_rows, st.randoms(use_true_random=False))
def test_sparse_nullspace_is_the_reduced_basis(data, rnd):
    n, raw = data
    rows = []
    for r in raw:
        d: dict = {}
        for i, v in r:
            d[i] = v
        r2 = tuple(sorted((i, v) for i, v in d.items() if v))
        if r2:
            rows.append(r2)
    ref = _reduced_basis_sympy(rows, n)
    assert _sparse_nullspace(rows, n) == ref
    shuffled = list(rows)
    rnd.shuffle(shuffled)
    assert _sparse_nullspace(shuffled, n) == ref          # independent of the order of the jumps


@pytest.mark.timeout(60)
def test_sparse_nullspace_chain_is_not_quadratic():
    # the jumps of retrial-of-d at C = 10^5 (e_{k+1} - e_k, both directions): one conserved form, the
    # sum; the earlier Gauss-Jordan pass was quadratic (30 s at 3 10^4, hours at 10^5)
    n = 100_001
    rows = [((k, -1), (k + 1, 1)) for k in range(n - 1)] + [((k, 1), (k + 1, -1)) for k in range(n - 1)]
    random.Random(1).shuffle(rows)
    basis = _sparse_nullspace(rows, n)
    assert len(basis) == 1 and all(c == 1 for c in basis[0])


# --------------------------------------------------------------------------------------------------
# verification of accelerator answers on the definition's own sparse drift (mutation test)
# --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("model, acc", [(PowerOfD(3, 2), POWER), (RetrialOfD(3, 2), RETRIAL)])
def test_verify_rejects_a_perturbed_state(model, acc):
    res = acc.solve(model, mpmath.mpf(1), 30)
    assert acc.verify(model, res, 30)[0]
    x = list(res.extra["_x_work"])
    x[0] = x[0] * (1 + mpmath.mpf(10) ** -20) if not hasattr(x[0], "mid") else x[0] * (1 + sp.Rational(1, 10 ** 20))
    res.extra["_x_work"] = x
    ok, why = acc.verify(model, res, 30)
    assert not ok and "row" in why


def test_wrong_accelerator_answer_falls_back_to_the_definition(monkeypatch):
    # an accelerator whose answer does not satisfy the definition's equations is not returned: the
    # dispatcher warns and solves the definition with the generic certified solver
    m = PowerOfD(2, 2)
    good = solve(m, 1, dps=30).blocking
    orig = POWER.solve

    def broken(model, rho, dps, residual=True):
        res = orig(model, rho, dps, residual=residual)
        x = list(res.extra["_x_work"])
        x[-1] = x[-1] * 2
        res.extra["_x_work"] = x
        return res
    monkeypatch.setattr(POWER, "solve", broken)
    with pytest.warns(DefinitionMismatchWarning, match="own stationary equations"):
        res = solve(m, 1, dps=30)
    assert abs(res.blocking - good) < mpmath.mpf(10) ** -28 * good
    assert res.method.startswith("generic")


# --------------------------------------------------------------------------------------------------
# degree budgets of the eliminants (refused before the elimination starts)
# --------------------------------------------------------------------------------------------------

@pytest.mark.timeout(30)
@pytest.mark.parametrize("call, degree", [
    (lambda: PowerOfD(6, 2).eliminant(), "64"),
    (lambda: PowerOfD(6, 2).quartic(), "64"),
    (lambda: PowerOfD(50, 10).eliminant(), r"about 10\^50"),
    (lambda: RetrialOfD(60, 2).eliminant(), "61"),
    (lambda: RetrialOfD(50, 10).cubic_in_a(), "451"),
    (lambda: RetrialOfD(2, 2).eliminant(max_degree=2), "3"),
])
def test_eliminant_degree_budget(call, degree):
    t = time.perf_counter()
    with pytest.raises(BudgetError, match=rf"predicted degree {degree}\b.*max_degree"):
        call()
    assert time.perf_counter() - t < 10


def test_eliminant_budget_is_a_value_error_and_the_limit_can_be_raised():
    assert issubclass(BudgetError, ValueError)
    assert PowerOfD(2, 2).eliminant(max_degree=4) == PowerOfD(2, 2).eliminant()
    with pytest.raises(ValueError, match="max_degree"):
        PowerOfD(2, 2).eliminant(max_degree=0)


def test_generic_eliminant_bezout_budget():
    # an edited retrial-of-2 (the generic elimination path: the reduction does not apply)
    class Edited(RetrialOfD):
        def transitions(self):
            trs = super().transitions()
            jump, rate = trs[0]
            return [(jump, 2 * rate)] + trs[1:]
    m = Edited(2, 2)
    with pytest.raises(BudgetError, match="Bezout"):
        m.eliminant(max_degree=2)
    with pytest.warns(DefinitionMismatchWarning):
        P = m.eliminant()
        B = m.blocking(sp.Rational(3, 2), dps=40)
    Bs = [s_ for s_ in P.gens if str(s_) == "B"][0]
    f = sp.lambdify(Bs, P.as_expr().subs(RHO, sp.Rational(3, 2)), "mpmath")
    with mpmath.workdps(50):
        assert abs(f(B)) < mpmath.mpf(10) ** -30


def test_crossing_by_elimination_names_the_budget():
    with pytest.raises(BudgetError, match="method='eliminant'.*max_degree"):
        crossing_loads(6, 2, 3, method="eliminant")


# --------------------------------------------------------------------------------------------------
# time budget of the expansions
# --------------------------------------------------------------------------------------------------

@pytest.mark.timeout(60)
def test_series_max_seconds():
    t = time.perf_counter()
    with pytest.raises(TimeLimitExceeded, match="max_seconds=0.5"):
        blocking_series(PowerOfD(50, 10), 0, 3, max_seconds=0.5)
    assert time.perf_counter() - t < 15
    with pytest.raises(ValueError, match="max_seconds"):
        blocking_series(PowerOfD(2, 2), 0, 2, max_seconds=-1)
    assert str(blocking_series(PowerOfD(2, 2), 0, 2, max_seconds=30)) == "rho**6/4 - rho**8/2 + O(rho**10)"


# --------------------------------------------------------------------------------------------------
# the scan: asinh keeps the refinement finite where log B reaches -1e302
# --------------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_scan_at_C1000_is_not_refined_to_death():
    cells, n_eval, _ = compare._scan(RetrialOfD(1000, 3), PowerOfD(1000, 2), 0.01, 50000)
    assert len(cells) == 1 and 6.9 < cells[0][0] < 6.95          # log(1040.58)
    assert n_eval < 3000, n_eval                                  # was 21 910


def test_scan_unchanged_where_it_was_right():
    # the crossings of the paper's small cases (also pinned by the certified claims)
    for C, d, dt in ((3, 2, 3), (5, 2, 3), (4, 3, 4)):
        r = crossing_loads(C, d, dt, dps=20)
        c = certified_threshold(C, d, dt, dps=20)
        assert len(r.crossings) == c.count
        with mpmath.workdps(40):
            for x, cr in zip(r.crossings, c.crossings):
                tol = mpmath.mpf(10) ** -18
                assert mpmath.mpf(cr.rho_lo) - tol <= x <= mpmath.mpf(cr.rho_hi) + tol, (x, cr)


# --------------------------------------------------------------------------------------------------
# comparisons of models that coincide
# --------------------------------------------------------------------------------------------------

def test_certified_comparison_of_identical_definitions():
    with pytest.raises(ValueError, match="coincide"):
        certified_comparison(PowerOfD(2, 2), PowerOfD(2, 2))
    with pytest.raises(ValueError, match="coincide"):
        certified_comparison(RandomRouting(3), RandomRouting(3))


def test_certified_threshold_at_C1_same_d():
    # at C = 1 retrial-of-d and power-of-d are the same system (was: a bare ArithmeticError)
    for d in (2, 3):
        with pytest.raises(ValueError, match="coincide: at C = 1"):
            certified_threshold(1, d, d)


@pytest.mark.timeout(60)
def test_generic_comparison_of_coinciding_models_in_other_coordinates():
    with pytest.raises(ValueError, match="appear to coincide"):
        certified_comparison(RetrialOfD(1, 3), PowerOfD(1, 3), method="generic")


def test_same_d_is_a_certified_dominance_not_an_error():
    # certified_threshold(2, 2, 2) compares two different policies (retrial-of-2 vs power-of-2):
    # retrial blocks more at every load, no threshold
    r = certified_threshold(2, 2, 2)
    assert r.count == 0 and r.pieces == [{"rho": ["0", "oo"], "sign": 1}] and r.threshold is None
