"""Writing a user model: errors that name the cause (issue 21 bad input, issue 26 item 4).

* a symbol with the name of the model's own but other SymPy assumptions (``sp.Symbol("rho")``,
  ``sp.Symbol("n_x0")``) is told apart, with both sets of assumptions and the symbol to use;
* a free parameter is pointed to the keyword that binds it (``parameters=`` / ``parameter_values``);
* ``sampling="without_replacement"`` on a model with no finite-N rates is refused (was: the
  with-replacement chain labelled ``without_replacement``); JSQ, which samples nothing, is accepted;
* ``symloss.count_symbols(model)`` gives the symbols ``finite_n`` rates are written in.
"""
from fractions import Fraction

import pytest
import sympy as sp

import symloss
from symloss import RHO, FiniteNModelError, ModelDefinitionError, define_model, exact_finite_n, finite_n_chain

X0, X1 = sp.symbols("x0 x1", nonnegative=True)


def mm11(**kw):
    return define_model("mm11", [X0, X1], [({X0: -1, X1: 1}, RHO * X0), ({X1: -1, X0: 1}, X1)], blocking=X1,
                        invariants=[sp.Eq(X0 + X1, 1)], **kw)


def test_plain_rho_is_told_apart_with_its_assumptions():
    with pytest.raises(ModelDefinitionError, match=r"'rho' \(no assumptions\), which is not the model's 'rho' "
                                                   r"\(.*positive=True.*symloss\.RHO"):
        define_model("m", [X0, X1], [({X0: -1, X1: 1}, sp.Symbol("rho") * X0), ({X1: -1, X0: 1}, X1)], blocking=X1)


def test_free_parameter_points_to_the_keyword():
    mu = sp.Symbol("mu", positive=True)
    with pytest.raises(ModelDefinitionError, match=r"\['mu'\].*parameters=\{symbol: value\}.*parameter_values"):
        define_model("m", [X0, X1], [({X0: -1, X1: 1}, RHO * X0), ({X1: -1, X0: 1}, mu * X1)], blocking=X1)
    m = define_model("m", [X0, X1], [({X0: -1, X1: 1}, RHO * X0), ({X1: -1, X0: 1}, mu * X1)], blocking=X1,
                     invariants=[sp.Eq(X0 + X1, 1)], parameters={mu: Fraction(1, 2)})
    assert abs(float(m.blocking(1, dps=20)) - 2 / 3) < 1e-15            # rho / (rho + mu)


def test_count_symbols_with_other_assumptions_are_named():
    n0, n1 = symloss.count_symbols(mm11())
    assert n0.assumptions0["integer"] and n0.assumptions0["nonnegative"]
    plain = sp.Symbol(str(n0))
    m = mm11(finite_n=lambda N, s: [(sp.Matrix([-1, 1]), RHO * plain), (sp.Matrix([1, -1]), n1)])
    with pytest.raises(ModelDefinitionError, match=rf"'{n0}' \(no assumptions\), which is not the model's '{n0}' "
                                                   r"\(integer=True, nonnegative=True.*count_symbols"):
        finite_n_chain(m, 2)
    with pytest.raises(TypeError, match="MeanFieldModel"):
        symloss.count_symbols("power")


def test_without_replacement_needs_finite_n_rates():
    m = mm11()
    with pytest.raises(FiniteNModelError, match=r"no sampling='without_replacement' chain"):
        exact_finite_n(m, 3, 1.0, sampling="without_replacement")
    with pytest.raises(FiniteNModelError, match="without_replacement"):
        finite_n_chain(m, 3, "without_replacement")
    # with replacement is the mean-field rates x N: M/M/1/1 stations, blocking rho/(1+rho) exactly at any N
    assert abs(exact_finite_n(m, 3, 1.0).blocking - 0.5) < 1e-12
    # a shipped model that samples has its own without-replacement rates; JSQ samples nothing
    assert finite_n_chain(symloss.PowerOfD(2, 2), 3, "without_replacement").source == "finite_n_transitions"
    assert finite_n_chain(symloss.JSQ(2), 3, "without_replacement").sampling == "without_replacement"
