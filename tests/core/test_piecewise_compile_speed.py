"""The faster evaluators and exact solve of the piecewise-smooth solver give the same results:
the generated code equals that of ``arb_lambdify`` / ``numpy_lambdify``, the Jacobian, the linearity
test and the exact rational solve equal the generic SymPy ones, the evaluators are made lazily, and no
memo makes an output depend on what was computed before."""
import inspect
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp
from flint import arb

from symloss.core import piecewise_certify as pcert
from symloss.core import piecewise_pieces as pp
from symloss.core import piecewise_search as psearch
from symloss.core.definition import RHO
from symloss.core.printers import arb_lambdify, numpy_lambdify

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "meanfield"))
from nonsmooth_models import user_jiq, user_jsq  # noqa: E402

u1, u2, u3 = sp.symbols("u1:4", nonnegative=True)
th = pp._theta_symbol(0)


def _pieces(model, loads):
    """The pieces whose evaluators the solver asks for at ``loads``."""
    seen = {}
    orig = pp.PieceSystem.compiled

    def spy(self):
        seen.setdefault((tuple(self.unknowns), tuple(self.rows)), self)
        return orig(self)
    pp.PieceSystem.compiled = spy
    try:
        for r in loads:
            model.fixed_point(r, dps=20)
    finally:
        pp.PieceSystem.compiled = orig
    return list(seen.values())


@pytest.fixture(scope="module")
def pieces():
    out = _pieces(user_jsq(4), [1.3, 2.0, 3.7]) + _pieces(user_jiq(4), [1.0, 2.6])
    assert len(out) >= 4
    return out


def _source(f):
    return inspect.getsource(f)


def test_generated_code_is_that_of_the_printers(pieces):
    n = 0
    for pc in pieces:
        args = list(pc.unknowns) + [RHO]
        J = [[sp.diff(r, z) for z in pc.unknowns] for r in pc.rows]
        sig = [sp.sympify(e) for e, _s in pc.sign_exprs.values()]
        for e in (list(pc.rows), J, [sp.diff(r, RHO) for r in pc.rows], sp.sympify(pc.blocking), sig):
            assert _source(pp._lambdify("arb", args, e)) == _source(arb_lambdify(args, e))
            assert _source(pp._lambdify("np", args, e)) == _source(numpy_lambdify(args, e))
            n += 1
    assert n >= 20


def test_generated_functions_evaluate_as_the_printers():
    e = [u1 ** 2 / 3 + RHO * u2 - sp.Rational(7, 5), sp.sqrt(u1) * sp.exp(u2) + sp.Heaviside(u1 - 1, 1)]
    args = [u1, u2, RHO]
    f_np, g_np = pp._lambdify("np", args, e), numpy_lambdify(args, e)
    assert f_np(0.7, 1.3, 2.5) == g_np(0.7, 1.3, 2.5)
    f_arb, g_arb = pp._lambdify("arb", args, e[:1]), arb_lambdify(args, e[:1])
    a, b = f_arb(arb(0.7), arb(1.3), arb(2.5))[0], g_arb(arb(0.7), arb(1.3), arb(2.5))[0]
    assert a.mid() == b.mid() and a.rad() == b.rad()


def test_unusual_input_goes_to_sympy_lambdify():
    f = sp.Function("f")
    e = [sp.Subs(sp.Derivative(f(u1), u1), u1, u2) + u1]      # a Subs: printed by SymPy's own path
    assert pp._printed("np", e[0]) is None
    d = sp.Dummy("d")
    g = pp._lambdify("np", [d, u1], [d + u1])                  # a Dummy argument: SymPy's own path
    assert g(1.0, 2.0) == [3.0]


def test_jacobian_equals_diff(pieces):
    for pc in pieces:
        U, R = tuple(pc.unknowns), tuple(pc.rows)
        assert pp._jacobian(U, R) == [[sp.diff(r, z) for z in U] for r in R]


@pytest.mark.parametrize("rows, linear", [
    ([u1 + 2 * u2 - RHO, u1 / RHO - 3], True),
    ([th * u1 + u2 - 1, u2 - th], False),
    ([u1 ** 2 - u2, u1 + u2], False),
    ([RHO ** 3 * u1 + sp.exp(RHO) * u2 - 1, u2 - sp.sqrt(2)], True),
    ([(u1 + 1) * (u1 - 1) - u1 ** 2 + u2, u2 - 1], True),      # not expanded: Poly decides
    ([sp.Integer(0), u1], True),
])
def test_linearity_test_equals_poly(rows, linear):
    U = (u1, u2, th)
    poly = all(sp.Poly(r, *U).total_degree() <= 1 for r in rows)
    assert pp._is_linear(U, tuple(rows)) == poly == linear


class _Piece:
    def __init__(self, unknowns, rows):
        self.unknowns, self.rows = list(unknowns), list(rows)

    def compiled(self):
        return {"linear": pp._is_linear(tuple(self.unknowns), tuple(self.rows))}


def _generic_solution(piece, rho):
    """The generic SymPy solve (the path ``_exact_solution`` takes for non-rational rows)."""
    return pcert._generic_linear_solution([r.xreplace({RHO: pp._q(rho)}) for r in piece.rows], piece.unknowns)


@pytest.mark.parametrize("rows", [
    [2 * u1 - u2 + RHO / 3, u1 + 5 * u2 * RHO - 1, u3 - u1],
    [u1 + u2 - 1, 2 * u1 + 2 * u2 - 2, u3],                       # singular
    [u1 + u2 - 1, u1 - u2, u3 - sp.Rational(1, 7)],
    [sp.sqrt(2) * u1 - 1, u2 - u1, u3],                           # an irrational coefficient
    [u1 - 1, u2 - 2],                                             # not square
])
def test_exact_solution_equals_generic_solve(rows):
    pc = _Piece((u1, u2, u3), rows)
    rho = Fraction(13, 4)
    got = pcert._exact_solution(pc, rho)
    assert got == _generic_solution(pc, rho)
    if got is not None:
        assert all(type(v) is type(w) for v, w in zip(got.values(), _generic_solution(pc, rho).values()))


def test_evaluators_are_made_when_asked_for():
    red_face = {u1: sp.Integer(1)}
    pc = pp.PieceSystem(red_face, {}, {}, [u2, u3], [u2 + u3 * RHO - 1, u2 - u3], [], [], 1 - u2 / RHO,
                        {"k": (u2 - sp.Rational(1, 3), 1)})
    c = pc.compiled()
    assert isinstance(c, pp._CompiledPiece) and dict.__len__(c) == 0
    assert "B_arb" in c and c.get("B_arb") is not None
    assert dict.__contains__(c, "B_arb") and not dict.__contains__(c, "S_arb")
    assert c["linear"] is True
    with pytest.raises(KeyError):
        c["no such evaluator"]
    c["dB_arb"] = "stored by a caller"
    assert pc.compiled()["dB_arb"] == "stored by a caller"
    full = pp._compile_piece(tuple(pc.unknowns), tuple(pc.rows), pc.blocking, (u2 - sp.Rational(1, 3),))
    assert set(full) == set(pp._ENTRY_READS)
    assert c["G_np"](0.25, 0.5, 2.0) == full["G_np"](0.25, 0.5, 2.0)


def _clear_memos():
    for f in (pp._printed, pp._diff, pp._jacobian, pp._compile_entry, pp._relationals, pp._is_smooth, pp._on_face,
              pp._symbol_names, pp._rel_diff, pp._depends_on_state, pp._key_str, pp._restrict, pp._orient_cached):
        f.cache_clear()
    psearch._MEMO.clear()


def _digest(r):
    return [str(v) for v in r.x], str(r.blocking), r.extra["certificate"], r.method


@pytest.mark.parametrize("make, loads", [(user_jsq, (2.0, 1.3, 3.6)), (user_jiq, (1.0, 2.2, 3.1))])
def test_results_do_not_depend_on_earlier_calls(make, loads):
    m = make(4)
    _clear_memos()
    cold = _digest(m.fixed_point(loads[0], dps=25))
    for r in loads[1:]:
        m.fixed_point(r, dps=25)
    psearch._MEMO.clear()                          # the search's own memo of outcomes: not what is tested
    warm = _digest(m.fixed_point(loads[0], dps=25))
    assert warm == cold


@pytest.mark.parametrize("row", [
    (RHO + 1) * u1 ** 2 - RHO * u1 ** 2 - u1 ** 2 + u2,       # cancelling coefficients: Poly decides
    sp.Add(u1 ** 2, -u1 ** 2, u2, evaluate=False),              # repeated monomials: Poly decides
    u1 ** 2 / RHO + u1 * RHO,
    u1 * u2 * RHO ** -2 + 3,
    sp.sqrt(2) * u1 ** 2 + u2,
])
def test_linearity_test_on_unusual_rows(row):
    U = (u1, u2)
    assert pp._is_linear(U, (row,)) == (sp.Poly(row, *U).total_degree() <= 1)
