"""Unbounded tail models (symloss.core.unbounded): certified values against independent values (the
shipped supermarket closed form, M/M/1, a float solve of a large truncation), the structural checks,
the certificate and its re-check (every edited number rejected), and mutation of a rate."""
from __future__ import annotations

import copy
import json
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from flint import arb, fmpq

import symloss
from symloss import RHO, ModelDefinitionError, define_unbounded_model, verify_unbounded
from symloss.core.precision import PrecisionError, flint_prec

a, b, c = sp.symbols("a b c")


def power(d, departure=b - c):
    return define_unbounded_model(f"power-of-{d}", RHO * (a ** d - b ** d), departure, a=a, b=b, c=c)


def contains(ball, value):
    """Whether the arb ball contains the mpf / Fraction ``value`` (read at 400 bits)."""
    with flint_prec(400):
        if isinstance(value, Fraction):
            return ball.contains(arb(fmpq(value.numerator, value.denominator)))
        return ball.contains(arb(mpmath.nstr(value, 110, strip_zeros=False)))


def closed_form(d, lam, dps):
    """u_k = lam^((d^k - 1)/(d - 1)) (k for d = 1) and the mean queue length, in mpmath at 2 dps digits."""
    with mpmath.workdps(2 * dps + 20):
        lam = mpmath.mpf(lam.numerator) / lam.denominator
        tails, k = [], 1
        while True:
            e = k if d == 1 else (d ** k - 1) // (d - 1)
            t = lam ** e
            tails.append(t)
            if t < mpmath.mpf(10) ** (-(2 * dps + 10)) * (1 - lam if d == 1 else 1):
                break
            k += 1
        return tails, mpmath.fsum(tails) + (tails[-1] * lam / (1 - lam) if d == 1 else 0)


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("lam", [Fraction(1, 10), Fraction(1, 2), Fraction(9, 10), Fraction(99, 100)])
def test_closed_form_to_35_digits(d, lam):
    m = power(d)
    v = m.certified_values(lam, dps=35)
    tails, L = closed_form(d, lam, 35)
    assert v.status == "PROVED"
    assert contains(v.mean_queue_length, L)
    for k, t in enumerate(v.tails[:12]):
        assert contains(t, tails[k]), k
    assert float(v.mean_queue_length.rad()) <= 1e-35 * float(L)
    with mpmath.workdps(90):
        assert contains(v.delay_probability, tails[0] ** d)
        assert contains(v.mean_sojourn_time, L / (mpmath.mpf(lam.numerator) / lam.denominator))
    assert verify_unbounded(v.certificate, m)


@pytest.mark.parametrize("d,lam", [(2, "0.9"), (3, "0.5"), (1, "0.5")])
def test_tails_match_the_shipped_supermarket(d, lam):
    shipped = symloss.Supermarket(d, lam).fixed_point(dps=40)
    v = power(d).certified_values(lam, dps=40)
    for k in range(1, min(len(shipped.s), v.K)):
        assert abs(float(v.tails[k - 1].mid()) - float(shipped.s[k])) <= 1e-30 * float(shipped.s[k])


@pytest.mark.parametrize("lam", [Fraction(1, 3), Fraction(9, 10)])
def test_random_routing_is_mm1(lam):
    v = power(1).certified_values(lam, dps=30)
    assert contains(v.mean_queue_length, lam / (1 - lam))
    assert v.load == lam


def test_mutation_of_the_departure_rate_is_followed():
    lam = Fraction(9, 10)
    m1 = power(1, departure=2 * (b - c))               # M/M/1 at service rate 2
    v = m1.certified_values(lam, dps=30)
    assert contains(v.mean_queue_length, lam / (2 - lam))
    assert not contains(v.mean_queue_length, lam / (1 - lam))
    m2 = power(2, departure=2 * (b - c))               # supermarket at lam / mu = 9/20
    tails, L = closed_form(2, lam / 2, 30)
    assert contains(m2.certified_values(lam, dps=30).mean_queue_length, L)
    assert m2.fingerprint() != power(2).fingerprint()
    with pytest.raises(ValueError, match="fingerprint"):
        verify_unbounded(power(2).certified_values(lam, dps=20).certificate, m2)


def test_mixture_against_a_float_solve_of_a_large_truncation():
    p = sp.Rational(3, 10)
    G = lambda x: p * x + (1 - p) * x ** 2            # noqa: E731
    m = define_unbounded_model("mixture", RHO * (G(a) - G(b)), b - c, a=a, b=b, c=c)
    v = m.certified_values("0.95", dps=30)
    t = m.truncated(40, measure="mean_queue_length")   # u_40 ~ 0.285^40 ~ 1e-22 (60 levels: ~20 s, the shooting start)
    fp = t.fixed_point(0.95, dps=20)
    assert abs(float(fp.blocking) - float(v.mean_queue_length.mid())) < 1e-12
    for k in range(5):
        assert abs(float(fp.x[k]) - float(v.tails[k].mid())) < 1e-12


def test_parameters_are_substituted():
    mu = sp.Symbol("mu", positive=True)
    m = define_unbounded_model("mm1", RHO * (a - b), mu * (b - c), a=a, b=b, c=c, parameters={mu: 4})
    assert m.mu == 4
    assert contains(m.certified_values(1, dps=25).mean_queue_length, Fraction(1, 3))
    assert m.truncated(5).fixed_point(1).x[0] > 0


def test_truncation_is_an_ordinary_user_model_with_identity_from_the_definition():
    K = 6
    u = sp.symbols(f"u1:{K + 1}", nonnegative=True)
    U = (sp.Integer(1),) + u + (sp.Integer(0),)
    trs = []
    for k in range(1, K + 1):
        trs.append(({u[k - 1]: 1}, RHO * (U[k - 1] ** 2 - U[k] ** 2)))
        trs.append(({u[k - 1]: -1}, U[k] - U[k + 1]))
    by_hand = symloss.define_model("by hand", u, trs, blocking=u[-1] ** 2, state_kind="tail", C=K)
    t = power(2).truncated(K)
    assert t.fingerprint() == by_hand.fingerprint()
    assert power(2).truncated(K, "mean_queue_length").fingerprint() != t.fingerprint()
    m = power(2)
    assert m.truncated(K) is m.truncated(K)                # one object per (K, measure)


def test_automatic_truncation_and_bound_are_rigorous():
    m = power(2)
    v = m.certified_values("0.9", dps=30)
    tails, L = closed_form(2, Fraction(9, 10), 30)
    tail_sum = mpmath.fsum(tails[v.K:])
    assert tail_sum <= mpmath.mpf(v.truncation_bound.upper().str(30, radius=False))
    assert v.truncation_bound < arb(10) ** -31 * v.mean_queue_length
    assert v.K == 9                                     # u_10 ~ 1.5e-47 is the first tail below 1e-31


# --------------------------------------------------------------------------------------------------
# certificates
# --------------------------------------------------------------------------------------------------

def _tamper_number(s: str) -> str:
    man, exp = s.split("*2^")
    return f"{int(man) + 1}*2^{exp}"


def test_certificate_is_json_and_every_edited_number_is_rejected():
    m = power(2)
    cert = m.certified_values("0.9", dps=25).certificate
    cert = json.loads(json.dumps(cert))
    assert verify_unbounded(cert, m)
    edits = []
    for i in range(len(cert["tails"])):
        for j in (0, 1):
            edits.append(("tails", i, j))
    edits += [("ratio", 0), ("ratio", 1), ("tail_bound",)] + \
        [(k, j) for k in ("mean_queue_length", "delay_probability", "mean_sojourn_time") for j in (0, 1)]
    for path in edits:
        bad = copy.deepcopy(cert)
        node = bad
        for p in path[:-1]:
            node = node[p]
        node[path[-1]] = _tamper_number(node[path[-1]])
        with pytest.raises(ValueError):
            verify_unbounded(bad, m)
    for key, value in (("rho", "91/100"), ("K", cert["K"] - 1), ("prec", cert["prec"] + 1), ("dps", 200),
                       ("mu", "2"), ("G", ["0", "1"]), ("kind", "krawczyk"), ("rho", "2")):
        bad = dict(cert, **{key: value})
        with pytest.raises(ValueError):
            verify_unbounded(bad, m)
    bad = dict(cert, tails=cert["tails"][:-1])
    with pytest.raises(ValueError):
        verify_unbounded(bad, m)
    with pytest.raises(ValueError, match="fingerprint"):
        verify_unbounded(cert, power(3))


def test_result_to_dict_is_plain_data():
    v = power(2).certified_values(Fraction(1, 2), dps=20)
    d = json.loads(json.dumps(v.to_dict()))
    assert d["status"] == "PROVED" and d["K"] == v.K
    assert "PROVED" in repr(v) and "truncation bound" in repr(v)


# --------------------------------------------------------------------------------------------------
# bad input: named errors before any work
# --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arrival,departure,match", [
    (RHO * a * (a - b), b - c, "jointly"),
    (RHO * (a - b) * c, b - c, "depends on c"),
    (RHO ** 2 * (a - b), b - c, "depends on RHO"),
    (RHO * (2 * a - a ** 2 - 2 * b + b ** 2), b - c, "negative coefficient"),
    (RHO * (sp.exp(a) - sp.exp(b)), b - c, "not a polynomial"),
    (RHO * (a - b) * 0, b - c, "identically 0"),
    (RHO * (a - b), 2 * b - c, "departure"),
    (RHO * (a - b), b - c + a, "departure"),
    (RHO * (a - b), RHO * (b - c), "departure"),
    (RHO * (a - b) * sp.Symbol("q"), b - c, "parameters="),
    (RHO * (a - b), -(b - c), "mu > 0"),
])
def test_definitions_outside_the_class_are_refused(arrival, departure, match):
    with pytest.raises(ModelDefinitionError, match=match):
        define_unbounded_model("bad", arrival, departure, a=a, b=b, c=c)


def test_argument_errors():
    with pytest.raises(TypeError):
        define_unbounded_model("", RHO * (a - b), b - c, a=a, b=b, c=c)
    with pytest.raises(TypeError):
        define_unbounded_model("x", RHO * (a - b), b - c, a=a, b=a, c=c)
    with pytest.raises(TypeError):
        define_unbounded_model("x", RHO * (a - b), b - c, a="a", b=b, c=c)
    q = sp.Symbol("q")
    with pytest.raises(TypeError):
        define_unbounded_model("x", RHO * q * (a - b), b - c, a=a, b=b, c=c, parameters={q: 0.5})
    m = power(2)
    with pytest.raises(ValueError, match="must be < 1"):
        m.certified_values(1)
    with pytest.raises(ValueError, match="must be < 1"):
        power(1, departure=2 * (b - c)).certified_values(3)
    with pytest.raises(ValueError):
        m.certified_values(0)
    with pytest.raises(ValueError):
        m.certified_values(-0.5)
    with pytest.raises((TypeError, ValueError)):
        m.certified_values("abc")
    with pytest.raises((TypeError, ValueError)):
        m.certified_values(0.5, dps=0)
    with pytest.raises(TypeError):
        m.certified_values(0.5, dps=2.5)
    with pytest.raises((TypeError, ValueError)):
        m.truncated(0)
    with pytest.raises(ValueError):
        m.truncated(3, measure="throughput")


def test_a_float_load_is_its_binary_value():
    v = power(2).certified_values(0.9, dps=30)
    assert v.rho == Fraction(0.9) != Fraction(9, 10)
    w = power(2).certified_values("0.9", dps=30)
    assert not w.mean_queue_length.overlaps(v.mean_queue_length)


def test_too_many_levels_raise(monkeypatch):
    import symloss.core.unbounded_orbit as ub
    monkeypatch.setattr(ub, "MAX_LEVELS", 50)
    with pytest.raises(PrecisionError, match="50 levels"):
        power(1).certified_values("0.99", dps=30)
