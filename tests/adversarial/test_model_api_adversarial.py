"""The model-definition API (issue 12) under valid, extreme and invalid input (issue 17 phase 2): every
public name is probed; errors are TypeError/ValueError naming the argument; numpy and flint scalars as
``rho`` are accepted exactly (same value as the float), bool/complex/str refused."""
import numpy as np
import pytest
import sympy
from adversarial_strategies import covers, invalid_type_values

from symloss import (
    RHO,
    CertifiedComparison,
    DefinitionMismatchWarning,
    DominanceResult,
    Enclosure,
    FiniteNChain,
    FiniteNModelError,
    MeanFieldModel,
    ModelDefinitionError,
    PowerOfD,
    RetrialOfD,
    certified_comparison,
    certified_threshold,
    define_model,
    dominance,
    finite_n_chain,
    register_accelerator,
    verify_comparison,
)

pytestmark = pytest.mark.timeout(120)
X0, X1 = sympy.symbols("x0 x1")


def mm11():
    """M/M/1/1 as a definition: blocking x1 = rho / (1 + rho) (Erlang B with C = 1), independent value."""
    return define_model("mm11", [X0, X1], [({X0: -1, X1: 1}, RHO * X0), ({X0: 1, X1: -1}, X1)], X1,
                        invariants=[sympy.Eq(X0 + X1, 1)], state_kind="occupancy", C=1)


@covers("define_model", "MeanFieldModel", "RHO", "ModelDefinitionError")
def test_define_model_values_and_bad_definitions():
    m = mm11()
    assert isinstance(m, MeanFieldModel)
    for rho in (1e-8, 0.5, 1.0, 3.0, 1e6):
        assert abs(float(m.blocking(rho, dps=20)) - rho / (1 + rho)) < 1e-12 * max(1.0, rho / (1 + rho))
    with pytest.raises(ModelDefinitionError, match="zz"):
        define_model("bad", [X0], [({X0: 1}, X0)], sympy.Symbol("zz"))
    assert issubclass(ModelDefinitionError, ValueError)


@covers("MeanFieldModel")
def test_rho_numeric_types_accepted_exactly_and_bad_types_refused():
    pytest.importorskip("flint")
    import flint
    for m, ref in ((mm11(), None), (PowerOfD(3, 2), None), (RetrialOfD(3, 2), None)):
        for good, f in ((np.float32(1.5), 1.5), (np.int64(2), 2.0), (np.float64(1.5), 1.5),
                        (flint.fmpz(2), 2.0), (flint.fmpq(3, 2), 1.5), (flint.arb(2), 2.0)):
            assert m.blocking(good, dps=15) == m.blocking(f, dps=15), (m, type(good))
        # a float32 is its binary value: 0.1f32 != 0.1
        assert m.blocking(np.float32(0.1), dps=15) == m.blocking(float(np.float32(0.1)), dps=15)
        for bad in invalid_type_values():
            with pytest.raises(TypeError, match="rho"):
                m.blocking(bad, dps=15)
        for bad in (float("nan"), float("inf"), -1.0, 0):
            with pytest.raises(ValueError, match="rho"):
                m.blocking(bad, dps=15)


@covers("Enclosure")
def test_enclose_checks_its_interval():
    e = mm11().enclose(0.999, 1.001)
    assert isinstance(e, Enclosure)
    with pytest.raises(ValueError, match="rho_lo"):
        mm11().enclose(1.1, 0.9)


@covers("finite_n_chain", "FiniteNChain", "FiniteNModelError")
def test_finite_n_chain_inputs():
    assert isinstance(finite_n_chain(RetrialOfD(2, 2), 5), FiniteNChain)
    assert issubclass(FiniteNModelError, ModelDefinitionError)
    for bad in (0, -1):
        with pytest.raises(ValueError, match="N"):
            finite_n_chain(RetrialOfD(2, 2), bad)
    for bad in (2.5, True, "5"):
        with pytest.raises(TypeError, match="N"):
            finite_n_chain(RetrialOfD(2, 2), bad)
    with pytest.raises(ValueError, match="sampling"):
        finite_n_chain(RetrialOfD(2, 2), 5, sampling="xx")
    with pytest.raises(TypeError, match="model"):
        finite_n_chain("retrial", 5)


@covers("dominance", "DominanceResult")
def test_dominance_inputs():
    r = dominance(RetrialOfD(2, 3), PowerOfD(2, 2), dps=15)
    assert isinstance(r, DominanceResult)
    # independent check of the reported sign at one load
    b_r, b_p = RetrialOfD(2, 3).blocking(1.0, dps=15), PowerOfD(2, 2).blocking(1.0, dps=15)
    assert (b_r < b_p) == (r.signs[0] < 0)
    with pytest.raises(ValueError, match="rho_min"):
        dominance(RetrialOfD(2, 3), PowerOfD(2, 2), rho_min=-1)


@covers("certified_threshold", "certified_comparison", "verify_comparison", "CertifiedComparison")
def test_certified_comparison_inputs():
    c = certified_threshold(2, 2, 3, dps=15)
    assert isinstance(c, CertifiedComparison)
    for bad in ((0, 2, 3),):
        with pytest.raises(ValueError, match="C"):
            certified_threshold(*bad)
    with pytest.raises(TypeError, match="C"):
        certified_threshold(2.5, 2, 3)
    c2 = certified_comparison(RetrialOfD(2, 3), PowerOfD(2, 2), dps=15)
    assert isinstance(c2, CertifiedComparison)
    v = verify_comparison(c2.certificate, RetrialOfD(2, 3), PowerOfD(2, 2))      # re-check from stored data
    assert isinstance(v, CertifiedComparison)
    with pytest.raises(ValueError, match="format"):
        verify_comparison({"garbage": 1}, RetrialOfD(2, 3), PowerOfD(2, 2))
    with pytest.raises(ValueError, match="certificate"):
        verify_comparison("not a dict", RetrialOfD(2, 3), PowerOfD(2, 2))


@covers("register_accelerator", "DefinitionMismatchWarning")
def test_register_accelerator_refuses_non_classes():
    assert issubclass(DefinitionMismatchWarning, UserWarning)
    with pytest.raises(TypeError, match="model_class"):
        register_accelerator("PowerOfD", object())
    with pytest.raises(TypeError, match="accelerator"):
        register_accelerator(PowerOfD, object())
