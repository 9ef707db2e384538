"""The refined mean field on unbounded tail models truncated at a large buffer (issue 24): W where the
reduced Jacobian's eigenvectors are ill-conditioned (dense Kronecker-sum solve), and the coordinates far
below the working precision dropped with a stated, checked argument; compared with the exact finite-N
chain."""
from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

import symloss
from symloss import RHO, define_unbounded_model
from symloss.core.precision import PrecisionError
from symloss.finite_n.refined import _kron_sum_dense, _kron_sum_solve

a, b, c = sp.symbols("a b c")
JSQ2 = define_unbounded_model("JSQ(2)", RHO * (a ** 2 - b ** 2), b - c, a=a, b=b, c=c)


def test_buffer_40_gives_V_and_W_of_the_automatic_truncation():
    K = JSQ2.certified_values("0.9", dps=30).K         # 9: u_9 ~ 4e-24 (at K = 8, V moves by ~u_8 ~ 1e-11)
    auto = symloss.refined_mean_field(JSQ2.truncated(K, "mean_queue_length"), rho=0.9, dps=None)
    deep = symloss.refined_mean_field(JSQ2.truncated(40, "mean_queue_length"), rho=0.9, dps=None)
    assert auto.W is not None and deep.W is not None
    assert abs(deep.V - auto.V) < 1e-12 * auto.V and abs(deep.W - auto.W) < 1e-9 * abs(auto.W)
    assert "31 coordinates" in deep.note and "dropped" in deep.note
    assert deep.x_correction.shape == (40,) and deep.covariance2.shape == (40, 40)
    assert np.all(deep.x_correction[K:] == 0)
    assert abs(deep.blocking_mf - float(JSQ2.certified_values("0.9").mean_queue_length.mid())) < 1e-14


def test_buffer_40_V_at_30_digits():
    deep = symloss.refined_mean_field(JSQ2.truncated(40, "mean_queue_length"), rho=0.9, dps=30)
    ten = symloss.refined_mean_field(JSQ2.truncated(10, "mean_queue_length"), rho=0.9, dps=30)
    assert abs(deep.V_mp - ten.V_mp) < mpmath.mpf(10) ** -28 * ten.V_mp
    assert deep.W is not None


def test_buffer_10_has_W_now():
    # the reduced Jacobian has eigenvalues -1 - 1.8 u_k with u_8..u_10 ~ 1e-12..1e-47: the diagonalising
    # solver refuses its eigenvectors; the dense solve gives W, equal to the buffer-9 value
    r10 = symloss.refined_mean_field(JSQ2.truncated(10, "mean_queue_length"), rho=0.9, dps=None)
    r9 = symloss.refined_mean_field(JSQ2.truncated(9, "mean_queue_length"), rho=0.9, dps=None)
    assert r10.W is not None and abs(r10.W - r9.W) < 1e-9 * abs(r9.W)


def test_the_loss_probability_of_a_deep_buffer_is_refused_with_the_reason():
    r = symloss.refined_mean_field(JSQ2.truncated(40), rho=0.9, dps=None)
    assert r.W is None and "carry the whole measure" in r.note
    with pytest.raises(PrecisionError, match="carry the whole measure"):
        symloss.refined_mean_field(JSQ2.truncated(40), rho=0.9, dps=30)


def test_against_the_exact_chain():
    # buffer 6 at rho = 0.7 (8008 states at N = 10): the second order is much closer than the first
    m = JSQ2.truncated(6, "delay_probability")
    r = symloss.refined_mean_field(m, rho=0.7, dps=None)
    for N in (5, 10):
        exact = symloss.exact_finite_n(m, N, 0.7).blocking
        err1, err2 = abs(exact - r.at(N, 1)), abs(exact - r.at(N, 2))
        assert err2 < err1 / 10, (N, err1, err2)
    assert abs(symloss.exact_finite_n(m, 10, 0.7).blocking - r.at(10, 2)) < 1e-5


def test_mutation_of_a_rate_is_followed():
    slow = define_unbounded_model("JSQ(2), mu = 2", RHO * (a ** 2 - b ** 2), 2 * (b - c), a=a, b=b, c=c)
    r1 = symloss.refined_mean_field(JSQ2.truncated(40, "mean_queue_length"), rho=0.9, dps=None)
    r2 = symloss.refined_mean_field(slow.truncated(40, "mean_queue_length"), rho=0.9, dps=None)
    ref = symloss.refined_mean_field(slow.truncated(8, "mean_queue_length"), rho=0.9, dps=None)
    assert abs(r2.V - r1.V) > 0.1 and abs(r2.V - ref.V) < 1e-12 * abs(ref.V)


def test_dense_kronecker_solve():
    rng = np.random.default_rng(1)
    A = -np.eye(4) * 3 + 0.3 * rng.standard_normal((4, 4))
    B = rng.standard_normal((4, 4, 4))
    assert np.allclose(_kron_sum_dense(A, B, 3), _kron_sum_solve(A, B, 3), atol=1e-12)
    J = -np.eye(6) + np.diag(np.ones(5), 1)                 # a Jordan block: no eigenvector basis
    with pytest.raises(ArithmeticError):
        _kron_sum_solve(J, B[:1, :1, :1] * np.ones((6, 6, 6)), 3)
    X = _kron_sum_dense(J, np.ones((6, 6, 6)), 3)
    res = sum(np.moveaxis(np.tensordot(J, X, axes=(1, ax)), 0, ax) for ax in range(3)) - 1
    assert np.max(np.abs(res)) < 1e-10
