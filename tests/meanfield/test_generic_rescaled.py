"""Middle cells of the generic certified comparison in rescaled coordinates
(symloss.meanfield.generic_rescaled): ``v = L y + b log rho`` (``L`` from the two largest terms of each
row), rows divided by a power of rho. The rescaled rows are the original rows times positive factors
(checked against the unscaled evaluator), a C = 10 cell of relative width 1/8 near rho = 1/4 is
certified (it needed about 2^-13 in y = log x), its stored tube is re-checked from the model's
equations and the stored (L, b, m), and tampered rescalings are refused."""
import copy
from fractions import Fraction

import pytest
import sympy as sp
from flint import arb

from symloss import RHO, PowerOfD, certified_comparison, define_model
from symloss.core.certify import check_selection, parse_exact
from symloss.core.precision import flint_prec
from symloss.meanfield.enclosures import q_arb
from symloss.meanfield.generic_rescaled import RescaledModel, parse_rescaling
from symloss.meanfield.generic_search import _Generic, _verify_split_tube


def hybrid(C, d, r):
    """docs/models.md (as in test_certified_user_models)."""
    u = sp.symbols(f"u1:{C + 1}", nonnegative=True)
    U = (sp.Integer(1),) + u + (sp.Integer(0),)
    retry = sum((u[-1] ** d) ** j for j in range(r))
    tr = []
    for k in range(1, C + 1):
        tr.append(({u[k - 1]: +1}, RHO * retry * (U[k - 1] ** d - U[k] ** d)))
        tr.append(({u[k - 1]: -1}, k * (U[k] - U[k + 1])))
    return define_model(f"hybrid(d={d}, r={r})", u, tr, blocking=u[-1] ** (d * r), state_kind="tail", C=C)


@pytest.fixture(scope="module")
def cell10():
    g = _Generic(hybrid(10, 2, 2), PowerOfD(10, 3), 15, 128)
    r0 = Fraction(1, 4)
    r1 = r0 * Fraction(9, 8)
    return g, r0, r1, g.test_cell(r0, r1)


def test_rescaled_rows_are_positive_multiples_of_the_rows():
    m = PowerOfD(5, 3)
    comp = m.compiled
    y = [-1.3, -4.9, -16.0, -50.0, -152.0]
    r = -1.4
    from symloss.meanfield.generic_rescaled import choose_rescaling
    sel = comp.default_selection
    L, b, mrow = choose_rescaling(comp, y, r, [1.0, 3.0, 10.0, 31.0, 94.0], sel)
    assert any(L[i][j] != (i == j) for i in range(5) for j in range(5))      # not the identity here
    R = RescaledModel(m, L, b, mrow)
    with flint_prec(128):
        ya = [arb(v) for v in y]
        ra = arb(r)
        v = R.to_v(ya, ra)
        G = comp.G_arb(ya, ra, sel)
        Gr = R.compiled.G_arb(v, ra, sel)
        for k, i in enumerate(sel):
            want = G[k] * (-q_arb(mrow[i]) * ra).exp()
            assert Gr[k].overlaps(want) and not Gr[k].rad() > abs(want) * 2 ** -60 + 2 ** -100
        assert R.compiled.log_blocking_arb(v, ra).overlaps(comp.log_blocking_arb(ya, ra))


def test_wide_cell_at_C10_is_certified_and_rechecked(cell10):
    g, r0, r1, cell = cell10
    assert cell is not None and cell["test"] == "interval"
    tr = cell["tubes"]["b"]
    assert "rescale" in tr
    m = g.models["b"]
    args = ([parse_exact(v) for v in tr["center"]], [parse_exact(v) for v in tr["slope"]],
            [parse_exact(v) for v in tr["delta"]], check_selection(m, tr["sel"]), r0, r1, tr["splits"])
    with flint_prec(128):
        tube = _verify_split_tube(m, *args, prec=128, rescale=tr["rescale"])
        assert tube.contains(r0, g.point(r0)["b"]["box"]) and tube.contains(r1, g.point(r1)["b"]["box"])
        with pytest.raises(ValueError):                                        # stored without its rescaling
            _verify_split_tube(m, *args, prec=128)
        bad = copy.deepcopy(tr["rescale"])
        bad["b"][-1] = str(Fraction(bad["b"][-1]) + 1)                         # another change of variables
        with pytest.raises(ValueError):
            _verify_split_tube(m, *args, prec=128, rescale=bad)
        bad = copy.deepcopy(tr["rescale"])
        bad["L"][1] = list(bad["L"][0])                                        # singular L
        with pytest.raises(ValueError, match="invertible"):
            _verify_split_tube(m, *args, prec=128, rescale=bad)


def test_bad_rescaling_records_are_refused():
    comp = PowerOfD(3, 2).compiled
    ok = {"L": [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"]], "b": ["0", "-1", "-3"],
          "m": ["0"] * comp.n_rows}
    assert parse_rescaling(ok, comp)[1] == [0, -1, -3]
    for bad, msg in ((dict(ok, b=["0", "1"]), "offset b must be 3"), (dict(ok, m=[0] * comp.n_rows), "row powers m"),
                     (dict(ok, L=ok["L"][:2]), "L must have 3 rows"), ({"e": [0, 1, 3]}, "keys 'L', 'b' and 'm'"),
                     (dict(ok, b=["0", "0", str(2 ** 41)]), "absolute value < 2\\^40")):
        with pytest.raises(ValueError, match=msg):
            parse_rescaling(bad, comp)


def test_more_state_variables_than_the_limit_refused_before_any_work():
    from symloss.meanfield.certified_generic import _MAX_VARIABLES
    n = _MAX_VARIABLES + 1
    with pytest.raises(ValueError, match=f"model_a = .* has {n} state variables; .* handles 1 to {_MAX_VARIABLES} "
                                         "per model$"):
        certified_comparison(hybrid(n, 2, 2), PowerOfD(n, 2))
