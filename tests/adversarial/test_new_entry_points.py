"""Bad input for the entry points added in issues 21, 25 and 26 (finite-N rational functions and
thresholds, global convergence certificates, count symbols, the zero-observation warning): each is
refused with a TypeError/ValueError naming the argument before any work; each valid call is checked
against an independent value (M/M/1/1: B = rho/(1+rho) at any N with random routing)."""
import warnings
from fractions import Fraction

import pytest
from adversarial_strategies import covers

import symloss
from symloss import (PowerOfD, RandomRouting, RetrialOfD, blocking_rational_function, certified_finite_n_threshold,
                     certify_global_convergence, count_symbols, verify_global_convergence)

pytestmark = pytest.mark.timeout(120)


@covers("blocking_rational_function", "BlockingRationalFunction")
def test_blocking_rational_function_input_and_value():
    m = RandomRouting(1)
    r = blocking_rational_function(m, 3)
    assert isinstance(r, symloss.BlockingRationalFunction)
    for rho in (Fraction(1, 3), Fraction(2), Fraction(7, 2)):
        p = sum(int(c) * rho ** i for i, c in enumerate(r.P))
        q = sum(int(c) * rho ** i for i, c in enumerate(r.Q))
        assert p / q == rho / (1 + rho)
    for bad, exc, what in ((0, ValueError, "N"), (2.5, TypeError, "N"), (True, TypeError, "N")):
        with pytest.raises(exc, match=what):
            blocking_rational_function(m, bad)
    with pytest.raises(TypeError, match="MeanFieldModel"):
        blocking_rational_function("power", 2)
    with pytest.raises(ValueError, match="sampling"):
        blocking_rational_function(m, 2, "bogus")
    with pytest.raises(ValueError, match="max_states"):
        blocking_rational_function(PowerOfD(5, 2), 10 ** 6)


@covers("certified_finite_n_threshold", "CertifiedFiniteNThreshold")
def test_certified_finite_n_threshold_input():
    m = RandomRouting(1)
    with pytest.raises(ValueError, match="identical"):
        certified_finite_n_threshold(m, m, 2)
    with pytest.raises(ValueError, match="N must be an integer >= 1"):
        certified_finite_n_threshold(RetrialOfD(2, 3), PowerOfD(2, 2), -1)
    with pytest.raises(ValueError, match="digits"):
        certified_finite_n_threshold(RetrialOfD(2, 3), PowerOfD(2, 2), 2, digits=0)
    r = certified_finite_n_threshold(RetrialOfD(2, 4), PowerOfD(2, 3), 3, digits=6)
    assert isinstance(r, symloss.CertifiedFiniteNThreshold)


@covers("certify_global_convergence", "verify_global_convergence", "GlobalConvergenceResult")
def test_global_convergence_input_and_recheck():
    m = RandomRouting(1)
    for kw, exc, what in (({"rho": -1}, ValueError, "rho"), ({"rho": float("nan")}, ValueError, "rho"),
                          ({"rho": "x"}, TypeError, "rho"), ({"rho": 1, "rho_lo": 1, "rho_hi": 2}, ValueError, "not both"),
                          ({"rho_lo": 3, "rho_hi": 2}, ValueError, "rho_hi")):
        with pytest.raises(exc, match=what):
            certify_global_convergence(m, **kw)
    with pytest.raises(TypeError, match="MeanFieldModel"):
        certify_global_convergence("power")
    r = certify_global_convergence(m)
    assert isinstance(r, symloss.GlobalConvergenceResult) and r.status == "PROVED"
    assert verify_global_convergence(m, r.certificate) == "PROVED"
    for bad in ({"x": 1}, "junk"):
        with pytest.raises(ValueError, match="certificate"):
            verify_global_convergence(m, bad)


@covers("count_symbols")
def test_count_symbols_input():
    assert len(count_symbols(PowerOfD(3, 2))) == 3
    for bad in ("power", 3, None):
        with pytest.raises(TypeError, match="MeanFieldModel"):
            count_symbols(bad)


@covers("ZeroObservationsWarning")
def test_zero_observations_warning_is_public():
    """No loss observed at light load: a one-sided bound that contains the truth, with the warning."""
    with pytest.warns(symloss.ZeroObservationsWarning):
        r = symloss.simulate("random", N=10, C=6, rho=0.3, events=20000, seed=1)
    assert r.blocking == 0 and r.ci[0] == 0 and r.ci[1] > 7.5e-7     # E(6, 0.3) = 7.50e-7


@covers("certified_refined_V", "verify_refined_V", "CertifiedRefinedV")
def test_certified_refined_V_inputs():
    r = symloss.certified_refined_V(PowerOfD(2, 2), 1, digits=15)
    assert isinstance(r, symloss.CertifiedRefinedV) and r.status == "PROVED"
    import numpy as np
    assert symloss.certified_refined_V(PowerOfD(2, 2), np.int64(1), digits=15).V_lo == r.V_lo   # exact integer
    for bad, exc in ((1.0, TypeError), (None, TypeError), ("x", TypeError), (0, ValueError), (-1, ValueError),
                     (Fraction(-1, 2), ValueError), (np.float32(1), TypeError), (float("nan"), TypeError)):
        with pytest.raises(exc, match="rho"):
            symloss.certified_refined_V(PowerOfD(2, 2), bad)
    for kw, exc in (({"prec": 1}, ValueError), ({"prec": 1.5}, TypeError), ({"digits": 0}, ValueError),
                    ({"digits": 10 ** 6}, ValueError)):
        with pytest.raises(exc):
            symloss.certified_refined_V(PowerOfD(2, 2), 1, **kw)
    for bad in ({}, {"kind": "refined-V"}, [], "x"):
        with pytest.raises((ValueError, KeyError, TypeError)):
            symloss.verify_refined_V(bad, PowerOfD(2, 2))
    with pytest.raises(ValueError, match="fingerprint"):
        symloss.verify_refined_V(r.certificate, RetrialOfD(2, 2))


@covers("evaluate", "Evaluation")
def test_evaluate_inputs():
    ev = symloss.evaluate([RetrialOfD(2, 2), PowerOfD(2, 2)], [Fraction(1, 2), 1])
    frame = ev.to_frame()
    assert len(frame) == 4 and set(frame["model"]) == {"retrial-of-2", "power-of-2"} and isinstance(ev, symloss.Evaluation)
    assert list(frame["rho"]) == [0.5, 1.0, 0.5, 1.0] and (frame["status"] == "certified").all()
    for models, rhos, exc, word in (([], [1], ValueError, "models"), ([RetrialOfD(2, 2)], [], ValueError, "rhos"),
                                    ([RetrialOfD(2, 2)], [-1], ValueError, r"rhos\[0\]"),
                                    (["x"], [1], TypeError, r"models\[0\]"),
                                    ([RetrialOfD(2, 2)], [float("nan")], ValueError, r"rhos\[0\]")):
        with pytest.raises(exc, match=word):
            symloss.evaluate(models, rhos)


@covers("ThresholdLoad")
def test_threshold_load_value_says_evidence():
    t = symloss.threshold_load(RetrialOfD(3, 3), PowerOfD(3, 2), dps=15)
    assert isinstance(t, symloss.ThresholdLoad) and "EVIDENCE" in repr(t)
    assert abs(float(t) - 0.949635604002727) < 1e-12 and t > 0.9 and PowerOfD(3, 2).blocking(t) > 0
    zero = symloss.threshold_load(RetrialOfD(2, 3), PowerOfD(2, 2), dps=10)
    assert float(zero) == 0 and "better at every load" in str(zero) and "EVIDENCE" in repr(zero)


@covers("set_provenance_source")
def test_set_provenance_source_inputs(tmp_path):
    from symloss.core.provenance import provenance
    for bad in (3, 1.5, ["a"], b"x"):
        with pytest.raises(TypeError, match="source"):
            symloss.set_provenance_source(bad)
    try:
        symloss.set_provenance_source(tmp_path / "paper.ipynb")
        assert "paper.ipynb" in str(provenance())
    finally:
        symloss.set_provenance_source(None)
    assert "paper.ipynb" not in str(provenance())


@covers("threshold_law", "threshold_asymptotic", "threshold_constants", "ThresholdLaw")
def test_threshold_law_inputs():
    law = symloss.threshold_law(2, 3, digits=20)
    assert isinstance(law, symloss.ThresholdLaw)
    assert abs(symloss.threshold_asymptotic(1000, 2, 3) - 1040.58030393) < 0.01      # certified rho* at C = 1000
    import numpy as np
    assert symloss.threshold_asymptotic(np.int64(1000), np.int64(2), np.int64(3)) == symloss.threshold_asymptotic(1000, 2, 3)
    for bad in (float("nan"), float("inf"), "10", None):
        with pytest.raises(TypeError, match="C must be a finite"):
            symloss.threshold_asymptotic(bad, 2, 3)
    for args, exc, word in (((0, 2, 3), ValueError, "C"), ((10, 3, 2), ValueError, "dt must be > d"),
                            ((10, 2.5, 3), TypeError, "d must be an integer"), ((10, 0, 3), ValueError, "d")):
        with pytest.raises(exc, match=word):
            symloss.threshold_asymptotic(*args)
    for args, exc in (((3, 2), ValueError), ((0, 1), ValueError), ((2.5, 3), TypeError)):
        with pytest.raises(exc):
            symloss.threshold_law(*args)
    with pytest.raises(ValueError):
        symloss.threshold_constants(2, 3, digits=0)
