"""Non-smooth user models (JSQ, join-the-idle-queue, a threshold policy): the piecewise-smooth certified
solver of symloss.core.piecewise, the JSQ closed form verified on its definition, certificates."""
import copy
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp
from scipy.optimize import fsolve

import symloss
from symloss import JSQ, RHO, PowerOfD, define_model, refined_mean_field
from symloss.core.certify import DefinitionMismatchWarning
from symloss.core.definition import ModelDefinitionError
from symloss.core.piecewise import piecewise_fixed_point, verify_piecewise_certificate
from symloss.meanfield.accelerators import JSQ_CLOSED_FORM

sys.path.insert(0, str(Path(__file__).parent))
from nonsmooth_models import user_jiq, user_jsq, user_threshold  # noqa: E402

JSQ_LOADS = [0.3, 1, 1.5, 2, Fraction(2001, 1000), 2.75, 3, 3.5, 7]


@pytest.fixture(scope="module")
def jsq3():
    return user_jsq(3)


def test_user_jsq_equals_shipped_jsq(jsq3):
    """The user-written JSQ (Heaviside rates, flow-balance blocking) gives the shipped closed form to 30
    digits, below and above each load where the face changes (rho = 1, 2, 3)."""
    for rho in JSQ_LOADS:
        mine = jsq3.fixed_point(rho, dps=30)
        ref = JSQ(3).fixed_point(rho, dps=30)
        assert mine.x == ref.x, rho
        with mpmath.workdps(40):
            assert abs(mine.blocking - ref.blocking) <= mpmath.mpf(10) ** -30 * max(1, abs(ref.blocking)), rho
        assert mine.extra["parts"]["zero"] == "PROVED" and mine.extra["parts"]["active_piece"] == "PROVED"
        assert "piecewise-smooth certified solver" in mine.method


def test_face_fixed_point_is_exact(jsq3):
    """At rho = 1.5 the fixed point is on a face: u1 = 1 and u3 = 0 exactly, u2 = 1/2 (a linear piece,
    solved exactly), the sliding weight of the surface u1 = 1 in (0, 1)."""
    r = jsq3.fixed_point(1.5, dps=30)
    assert r.x == [1, mpmath.mpf("0.5"), 0]
    assert r.blocking == 0 and r.blocking_bracket == (0, 0)
    cert = r.extra["certificate"]
    assert cert["face"] == {"u1": "1/1", "u3": "0/1"}
    assert list(cert["theta"].values()).count("free") == 1
    # theta: the weight of the side 1 - u1 > 0 (u1 < 1, arrivals kept at level 1): rho theta = u1 - u2
    assert cert["exact"] == {"u2": "1/2", "theta_0": "1/3"}


def test_jsq_accelerator_is_verified_on_the_definition():
    """The shipped closed form answers only after the piecewise solver proved the same point of JSQ's
    own definition; a wrong closed-form answer is refused."""
    m = JSQ(4)
    r = m.fixed_point(2.5, dps=25)
    assert r.method.startswith("closed form")
    assert r.extra["certificate"]["kind"] == "piecewise-krawczyk"
    assert verify_piecewise_certificate(m, r.extra["certificate"])[0]
    bad = JSQ_CLOSED_FORM.solve(m, 2.5, 25)
    bad.extra["_x_work"][2] = mpmath.mpf("0.4")                      # u3 = 0.4 instead of 0.5
    ok, why = JSQ_CLOSED_FORM.verify(m, bad, 25)
    assert not ok and "u3" in why


def test_mutation_the_accelerator_does_not_answer():
    """Mutation test: doubling every arrival rate of JSQ is a new definition; the closed form does not
    answer (warning) and the piecewise solver follows the edit (JSQ at load 2 rho)."""
    class Edited(JSQ):
        def transitions(self):
            return [(j, 2 * r if r.has(RHO) else r) for j, r in super().transitions()]
    with pytest.warns(DefinitionMismatchWarning):
        r = Edited(3).fixed_point(Fraction(5, 4), dps=30)
    assert r.method.startswith("piecewise-smooth")
    assert r.x == JSQ(3).fixed_point(Fraction(5, 2), dps=30).x


def _jiq_reference(C, rho):
    """JIQ above rho = 1, independently: u1 = 1 (idle servers are filled at once), the arrivals left
    after refilling the idle servers, rho - (u1 - u2), are routed at random (integrated to t = 200)."""
    def rhs(_t, v):
        U = np.concatenate(([1.0, 1.0], v, [0.0]))
        a = rho - (U[1] - U[2])
        return [a * (U[k - 1] - U[k]) - k * (U[k] - U[k + 1]) for k in range(2, C + 1)]
    sol = solve_ivp(rhs, (0, 200), np.zeros(C - 1), rtol=1e-12, atol=1e-14, method="LSODA")
    return [1.0] + list(sol.y[:, -1])


def test_jiq_against_an_independent_integration():
    m = user_jiq(3)
    low = m.fixed_point(0.75, dps=30)
    assert low.x == [mpmath.mpf(0.75), 0, 0] and low.blocking == 0       # every job finds an idle server
    for rho in (1.5, 4.0):
        r = m.fixed_point(rho, dps=30)
        ref = _jiq_reference(3, rho)
        assert max(abs(float(a) - b) for a, b in zip(r.x, ref)) < 1e-9
        assert r.extra["certificate"]["face"] == {"u1": "1/1"}
        assert verify_piecewise_certificate(m, r.extra["certificate"])[0]


def test_threshold_policy_slides_on_an_interior_surface():
    """Power-of-2 while u2 > 3/10, random routing below: at rho = 1.1 neither regime is consistent and
    the fixed point slides on u2 = 3/10 (a weight theta in (0, 1) mixes the two); compared with an
    independent float solve of the sliding equations."""
    tau = sp.Rational(3, 10)
    m = user_threshold(3, 2, 2, tau)
    r = m.fixed_point(1.1, dps=30)
    assert r.extra["face"] == {"u2": "3/10"} and r.extra["certificate"]["face"] == {"u2": "3/10"}
    th = float(r.extra["theta"][0])
    assert 0 < th < 1

    def eqs(z):
        u1, u3, t = z
        U = [1.0, u1, 0.3, u3, 0.0]
        return [1.1 * (t * (U[k - 1] ** 2 - U[k] ** 2) + (1 - t) * (U[k - 1] - U[k])) - k * (U[k] - U[k + 1])
                for k in range(1, 4)]
    u1, u3, t = fsolve(eqs, [0.7, 0.05, 0.5], xtol=1e-13)
    # the certified weight is that of the side 3/10 - u2 > 0 (random routing); t weighs power-of-2
    assert abs(float(r.x[0]) - u1) < 1e-10 and abs(float(r.x[2]) - u3) < 1e-10 and abs(th - (1 - t)) < 1e-10
    # away from the surface the policy is plain random routing / power-of-2 (no sliding weight)
    assert m.fixed_point(1, dps=20).extra["face"] == {} and m.fixed_point(2, dps=20).extra["face"] == {}


def test_certificate_tampering_is_detected(jsq3):
    r = jsq3.fixed_point(2.75, dps=30)
    cert = r.extra["certificate"]
    assert verify_piecewise_certificate(jsq3, cert)[0]
    t1 = copy.deepcopy(cert)
    t1["face"]["u1"] = "9/10"
    t2 = copy.deepcopy(cert)
    assert t2["exact"]["u3"] == "3/4"
    t2["exact"]["u3"] = "1/2"
    t3 = copy.deepcopy(cert)
    c, rad = t3["box"][0]
    t3["box"][0] = [str(int(c.split("*")[0]) + 7 * 2 ** 40) + "*2^" + c.split("^")[1], rad]
    t4 = copy.deepcopy(cert)
    k = next(iter(t4["signs"]))
    t4["signs"][k] = -t4["signs"][k]
    for i, bad in enumerate((t1, t2, t3, t4)):
        ok, why = verify_piecewise_certificate(jsq3, bad)
        assert not ok, (i, why)
    assert not verify_piecewise_certificate(user_jsq(4), cert)[0]        # another definition


def test_ode_of_a_user_jsq_reaches_the_fixed_point(jsq3):
    r = jsq3.ode(2.5, [0, 0, 0], [0, 50])
    assert np.max(np.abs(r.x[-1] - [1, 1, 0.5])) < 1e-3


@pytest.mark.parametrize("rate, match", [
    (sp.Piecewise((RHO, sp.Symbol("u1", nonnegative=True) < 1)), "no default branch"),
    (RHO * sp.floor(2 * sp.Symbol("u1", nonnegative=True)), "floor"),
    (RHO * sp.Piecewise((1, sp.Eq(sp.Symbol("u1", nonnegative=True), 1)), (0, True)), "measure zero"),
])
def test_bad_non_smooth_rates_are_refused_at_definition(rate, match):
    u1, u2 = sp.symbols("u1 u2", nonnegative=True)
    with pytest.raises(ModelDefinitionError, match=rf"transition 0: .*{match}"):
        define_model("bad", [u1, u2], [({u1: 1}, rate), ({u1: -1}, u1 - u2), ({u2: 1}, RHO * u1),
                                       ({u2: -1}, 2 * u2)], blocking=u2, state_kind="tail", C=2)


def test_bad_arguments():
    with pytest.raises(ValueError, match="rho"):
        piecewise_fixed_point(JSQ(2), -1)
    with pytest.raises(TypeError, match="uniqueness"):
        piecewise_fixed_point(JSQ(2), 1, uniqueness="yes")


def test_uniqueness_is_evidence_not_proof(jsq3):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = jsq3.fixed_point(2.75, dps=20, uniqueness=True)
    assert r.extra["parts"]["uniqueness"] == "EVIDENCE" and r.uniqueness.startswith("EVIDENCE")


def test_recheck_decides_like_the_search_next_to_a_switching_surface():
    """A load 1e-50 below C: the search decides the branch sign u_3 - 1 < 0 exactly at the exact zero of the
    linear piece; the re-check must decide it the same way (it used the ball, and refused the certificate)."""
    from fractions import Fraction

    from symloss import JSQ
    from symloss.core.piecewise import piecewise_fixed_point, verify_piecewise_certificate
    r = piecewise_fixed_point(JSQ(3), 3 - Fraction(1, 10 ** 50), 15)
    ok, why = verify_piecewise_certificate(JSQ(3), r.extra["certificate"])
    assert ok, why
    bad = copy.deepcopy(r.extra["certificate"])
    key = next(k for k in bad["exact"] if k.startswith("u"))
    bad["exact"][key] = "1/1"                               # on the surface: not the piece's zero
    assert not verify_piecewise_certificate(JSQ(3), bad)[0]


def test_jiq_at_load_one_is_the_degenerate_point_proved_exactly():
    """JIQ at rho = 1: the face u1 = 1, u_k = 0 meets the switching surface u1 = 1 with weight 1 (the
    idle side's drift alone vanishes); du1/dt = rho - 1 vanishes at this load only and is proved
    exactly. Was refused after "400 attempts"."""
    m = user_jiq(5)
    r = m.fixed_point(1.0, dps=30)
    assert r.x == [1, 0, 0, 0, 0] and r.blocking == 0 and r.blocking_bracket == (0, 0)
    cert = r.extra["certificate"]
    assert cert["face"] == {"u1": "1/1", "u2": "0/1", "u3": "0/1", "u4": "0/1", "u5": "0/1"}
    assert cert["theta"] == {"1 - u1": "1/1"} and 0 in cert["vanishing_rows"]
    assert "degenerate load" in r.method and "1 - u1 = 0 (weight 1)" in r.method
    assert verify_piecewise_certificate(m, cert)[0]
    for rho in ("51/50", "99/100"):                      # the same piece is no fixed point at another load
        bad = copy.deepcopy(cert)
        bad["rho"] = rho
        assert not verify_piecewise_certificate(m, bad)[0]
    # next to the degenerate load the ordinary pieces answer: below, every job finds an idle server
    with mpmath.workdps(30):
        assert m.fixed_point(Fraction(99, 100), dps=30).x == [mpmath.mpf("0.99"), 0, 0, 0, 0]
    assert m.fixed_point(Fraction(101, 100), dps=30).extra["certificate"]["face"] == {"u1": "1/1"}


def test_refined_mean_field_names_what_blocks_the_expansion():
    """A switching model that declares only finite_n_blocking (no finite-N transitions), with the default
    sampling: the refusal names the switch and the per-state loss indicator, not the sampling."""
    jiq = user_jiq(3)

    def busy_then_full(N, sampling):
        n = symloss.count_symbols(m)
        return sp.Piecewise((n[-1] / N, n[0] >= N), (0, True))
    m = define_model("jiq3", jiq.variables, jiq.transitions(), jiq.blocking_expr(), state_kind="tail", C=3,
                     finite_n_blocking=busy_then_full)
    with pytest.raises(ValueError) as exc:
        refined_mean_field(m, rho=1.5)
    msg = str(exc.value)
    assert "1 - u1 = 0" in msg and "twice differentiable" in msg and "per-state loss indicator" in msg
    assert "finite_n_transitions" not in msg and "use sampling" not in msg
    with pytest.raises(ValueError, match="not smooth across 1 - u1 = 0") as exc:
        refined_mean_field(jiq, rho=1.5)
    assert "finite_n_blocking" not in str(exc.value)
    with pytest.raises(ValueError, match="finite_n_transitions gives other rates.*use sampling='with_replacement'"):
        refined_mean_field(PowerOfD(2, 2), rho=1.0, sampling="without_replacement")
    pod = PowerOfD(2, 2)                                   # smooth, but a loss probability declared apart
    m2 = define_model("pod+fb", pod.variables, pod.transitions(), pod.blocking_expr(), state_kind="tail", C=2,
                      finite_n_blocking=lambda N, s: symloss.count_symbols(pod)[-1] / N)
    with pytest.raises(ValueError, match=r"declares its finite-N loss probability apart.*\(finite_n_blocking\)") as exc:
        refined_mean_field(m2, rho=1.5)
    assert "finite_n_transitions" not in str(exc.value)


def test_the_face_is_reported_in_the_variables_order():
    """The face of the certificate and of the method text lists the fixed coordinates in the order of
    the model's variables (was: by distance of the float state to the face, so the text changed with
    the last bits of the settled state, e.g. JIQ at C = 20, rho = 1: 'u9 = 0, u11 = 0, ...')."""
    for m, rho in ((user_jiq(5), 1.0), (user_jiq(5), 2.75), (user_jsq(5), 3.8), (user_jsq(5), 10.5)):
        r = m.fixed_point(rho, dps=20)
        names = [str(v) for v in m.variables]
        keys = list(r.extra["certificate"]["face"])
        assert keys == sorted(keys, key=names.index), (rho, keys)
        txt = r.method.split("face (")[1].split(")")[0]
        assert [t.split(" = ")[0] for t in txt.split(", ")] == keys or txt == "none"
