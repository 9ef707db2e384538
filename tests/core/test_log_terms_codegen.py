"""The generated straight-line evaluators of the terms form (``straight_line_log_terms``: the values of
``G_arb``, the values, Jacobian entries and load derivatives of ``GJ_arb``, the gradient of the log
blocking) give the balls of the term-by-term loops they replaced, bit for bit (midpoint and radius), on
shipped and user models, at several precisions, on points and on wide balls; a long row (more than 16 terms) goes through the
``sum(tuple)`` form; a rescaled copy of a compiled model gets its own evaluator (its terms), not that of
the model it was copied from."""
import random
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from flint import arb, ctx, fmpq

import symloss
from symloss.core.boxes import grad_log_blocking_arb
from symloss.core.printers import straight_line_log_terms
from symloss.meanfield.generic_rescaled import rescaled_compiled

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "finite_n"))
from finite_n_hybrid import hybrid_model as hybrid  # noqa: E402


def _key(b):
    return (b.mid().man_exp(), b.rad().man_exp())


def _values_loop(tab, z):
    """The row values term by term (the loop the generated evaluator replaced)."""
    vals = [arb(0)] * tab.n_rows
    for t, mo in enumerate(tab._monomials(z)):
        i = int(tab.row[t])
        vals[i] = vals[i] + tab.coef_arb[t] * mo
    return vals


def _grad_log_blocking_loop(comp, y, r):
    """d log B / d (y, r) term by term (the loop the generated evaluator replaced)."""
    tab = comp.btable
    B, grad = arb(0), [arb(0)] * (comp.n + 1)
    for t, mo in enumerate(tab._monomials(list(y) + [r])):
        cm = tab.coef_arb[t] * mo
        B += cm
        for j, a in tab.terms_arb[t]:
            grad[j] += cm * a
    return [g / B for g in grad]


def _random_point(n, rng, wide):
    rads = [0, 1e-30, 1e-10, 1e-3] if wide else [0]
    y = [arb(rng.uniform(-40, 3), rng.choice(rads)) for _ in range(n)]
    return y, arb(rng.uniform(-3, 3), rng.choice(rads))


MODELS = [lambda: symloss.RetrialOfD(5, 4), lambda: symloss.PowerOfD(20, 3), lambda: symloss.RandomRouting(3),
          lambda: hybrid(4, 2, 12), lambda: hybrid(3, 3, 2)]


@pytest.mark.parametrize("make", MODELS)
def test_generated_equal_the_loops(make):
    comp = make().compiled
    assert comp.mode == "terms"
    rng = random.Random(7)
    old = ctx.prec
    try:
        for prec in (53, 128, 333):
            ctx.prec = prec
            for trial in range(12):
                y, r = _random_point(comp.n, rng, wide=trial % 2 == 1)
                z = y + [r]
                for tab in (comp.table, comp.btable):
                    assert [_key(v) for v in tab.values_arb(z)] == [_key(v) for v in _values_loop(tab, z)]
                sels = [comp.default_selection, comp.selection([float(v.mid()) for v in y]),
                        list(reversed(comp.default_selection))]
                for sel in sels:
                    v1, J1, d1 = comp.GJ_arb(y, r, sel)
                    v2, J2, d2 = comp.table.jacobian_arb(z, rows=sel)
                    assert [_key(v) for v in v1] == [_key(v) for v in v2]
                    assert [_key(v) for v in d1] == [_key(v) for v in d2]
                    floor = arb(2) ** (-(prec + 16))
                    for i in range(J1.nrows()):
                        for j in range(J1.ncols()):
                            if abs(J2[i, j]) < floor.rad() + floor:
                                assert J1[i, j].contains(J2[i, j])      # the floor ball [0 +/- 2^-(p+16)]
                            else:
                                assert _key(J1[i, j]) == _key(J2[i, j]), (sel, i, j)
                    assert [_key(v) for v in comp.G_arb(y, r, sel)] == [_key(v) for v in v2]
                grad = grad_log_blocking_arb(comp, y, r)
                assert [_key(v) for v in grad] == [_key(v) for v in _grad_log_blocking_loop(comp, y, r)]
    finally:
        ctx.prec = old


def test_long_rows_use_the_flat_sum():
    comp = hybrid(4, 2, 12).compiled
    counts = {}
    for i in comp.table.row:
        counts[int(i)] = counts.get(int(i), 0) + 1
    assert max(counts.values()) > 16          # the case of the ``sum(tuple)`` form is exercised above


def test_rescaled_copy_gets_its_own_evaluator():
    m = hybrid(3, 2, 2)
    comp = m.compiled
    n = comp.n
    y, r = [arb(-1.5), arb(-4.0), arb(-9.0)], arb(0.25)
    base = comp.GJ_arb(y, r)                  # the original's evaluator is made (and cached) first
    L = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    b = [Fraction(1), Fraction(2), Fraction(3)]
    res = rescaled_compiled(comp, L, b, [Fraction(0)] * comp.n_rows)
    got = res.GJ_arb(y, r)
    ref = res.table.jacobian_arb(y + [r], rows=res.default_selection)
    assert [_key(v) for v in got[0]] == [_key(v) for v in ref[0]]
    assert [_key(v) for v in got[0]] != [_key(v) for v in base[0]]
    assert [_key(v) for v in res.G_arb(y, r)] == [_key(v) for v in ref[0]]


def test_docstring_example_and_constant_rows():
    # a term without variables (a constant) and a row with no term
    fn, pos = straight_line_log_terms([[], [(0, 1), (1, fmpq(1, 2))]], [0, 2], 1, [0, 1, 2])
    assert pos == [(2, 0)]
    vals, entries, dr = fn([arb(0), arb(0)], [arb(5), arb(2)])
    assert vals[0] == 5 and vals[1] == 0 and vals[2] == 2
    assert entries[0] == 2 and dr == [0, 0, 1]
    only = straight_line_log_terms([[], [(0, 2)]], [0, 0], 1, [0], jacobian=False)
    assert only([arb(0), arb(0)], [arb(1), arb(1)])[0] == 2
