r"""Certified enclosures for the comparison of retrial-of-:math:`\tilde d` and power-of-:math:`d`
over *every* load, through a one-dimensional reduction whose monotone structure is itself proved.

The reduction (fast path of :mod:`symloss.meanfield.certified`)
----------------------------------------------------------------
Let ``R = RetrialOfD(C, dt)`` and ``P = PowerOfD(C, d)`` (or any models whose definitions are
identical to those templates: checked, :func:`retrial_binding`, :func:`power_binding`).

* **Retrial** (birth-death drift with arrival rate :math:`\Lambda = \rho\,\sigma(x_C)`,
  :math:`\sigma(p) = 1 + p + \dots + p^{\tilde d-1}`): every fixed point is truncated Poisson with load
  :math:`a = \Lambda`, so :math:`p = E(C, a)` and :math:`\rho = g(a) = a / \sigma(E(C, a))`. The map
  ``g`` is a strictly increasing bijection of :math:`(0, \infty)` (lemma :func:`retrial_g_lemma`:
  the numerator of ``g'`` has non-negative integer coefficients), so the retrial fixed point at load
  :math:`\rho(a)` is the one with per-server load ``a``, and ``a`` parametrises all loads.
* **Power-of-d** (:math:`\rho(u_{k-1}^d - u_k^d) = k(u_k - u_{k+1})`): summing the stationary
  equations ``k..C`` of the model's own drift (checked symbolically) gives the *telescoped recursion*

  .. math:: u_{k-1}^d = u_C^d + \frac{1}{\rho}\Big(k\,u_k + \sum_{j>k} u_j\Big), \qquad k = C, \dots, 1,

  whose right-hand side has only positive terms: from :math:`u_C = s`, every :math:`u_{k-1}` is an
  increasing function of ``s`` and a decreasing function of :math:`\rho`, and so is
  :math:`W_1(s, \rho) = u_0^d`. The fixed point is the unique ``s`` with :math:`W_1(s, \rho) = 1`
  (:math:`W_1 \to 0` as :math:`s \to 0`, :math:`W_1(1, \rho) > 1`).
* **The comparison function.** With :math:`s^*(a) = E(C, a)^{\tilde d/d}` (the full fraction a
  power-of-d system would need to block exactly as much as the retrial system),

  .. math:: \Psi(a) = W_1\big(s^*(a), \rho(a)\big) - 1,
            \qquad \operatorname{sign}\Psi(a) = \operatorname{sign}\big(B_{ret}(\tilde d) - B_{pod}(d)\big)(\rho(a)),

  because :math:`\Psi > 0 \iff s^* > s \iff B_{ret} = (s^*)^d > s^d = B_{pod}`. :math:`\Psi` is an
  *explicit* composition of elementary functions of ``a`` (no fixed point is solved anywhere), so it
  has Taylor models (:mod:`symloss.meanfield.taylor`) on intervals of ``a``.

Tests on a cell ``[a0, a1]`` (all in ball arithmetic)
-----------------------------------------------------
* **mixed monotone** (:func:`psi_mixed`): :math:`s^*` and :math:`\rho` increase with ``a`` (lemmas),
  :math:`W_1` increases in ``s`` and decreases in :math:`\rho`, so on the cell
  :math:`W_1(s^*(a_0), \rho(a_1)) - 1 \le \Psi \le W_1(s^*(a_1), \rho(a_0)) - 1`;
* **Taylor model** of :math:`\Psi` of order ``K`` (:func:`psi_tm`): the sign holds on the cell when
  :math:`|c_0|` exceeds the deviation bound;
* **one crossing**: opposite certified signs of :math:`\Psi(a_0)`, :math:`\Psi(a_1)` and a Taylor
  model of :math:`\Psi'` (:class:`~symloss.meanfield.taylor.DualBallTM`) that excludes 0: exactly one
  zero in the cell.

End pieces
----------
* **Small loads** (:func:`small_end_bound`, :math:`\rho \le \rho(a_{lo})`): elementary inequalities
  with explicit remainders. Retrial: :math:`\rho \le a \le \rho\,\sigma_{lo}`,
  :math:`\sigma_{lo} = a_{lo}/\rho(a_{lo})` (``p`` increases with the load) and
  :math:`a^C e^{-a}/C! \le E(C, a) \le a^C/C!`, so
  :math:`\log B_{ret} \in \tilde d (C \log\rho - \log C!) + [-\tilde d \rho_{lo}, \tilde d C \log\sigma_{lo}]`.
  Power-of-d: the telescoped recursion gives
  :math:`k u_k/\rho \le u_{k-1}^d \le (k u_k/\rho)(1 + H_k)` with
  :math:`H_k = \rho_{lo}^d (1/k + (C-k)/(k(k+1)))` (from :math:`s \le u_j \le u_{k+1} \le \rho u_k^d/(k+1)`,
  :math:`u_k \le u_1 \le \rho`), hence
  :math:`\log B_{pod} \in e \log\rho + c - [0, \varepsilon]`, :math:`e = d(d^C-1)/(d-1)`,
  :math:`c = -d\sum_k d^{C-k}\log k`, :math:`\varepsilon = d \sum_k d^{C-k}\log(1 + H_k)`.
* **Large loads** (:func:`large_end_tm`, :math:`a \ge a_{hi}`): in :math:`\tau = 1/a` everything is
  analytic at :math:`\tau = 0` (:math:`E(C, 1/\tau) = 1/Q(\tau)`,
  :math:`Q(\tau) = \sum_j C!/(C-j)!\,\tau^j`, :math:`1/\rho = \tau\sigma(p)`, all roots taken near 1):
  an exact-coefficient Taylor model :math:`\Psi(\tau) \in \sum_{n \le K} c_n\tau^n + \tau^{K+1} R`
  on :math:`[0, \tau_{hi}]`; with ``m`` the first non-zero exact coefficient, the sign of
  :math:`\Psi(\tau)/\tau^m` on :math:`(0, \tau_{hi}]` is certified (``m = 4`` for ``dt = d``: the
  blockings agree to order :math:`\rho^{-3}`; ``m = 2`` for ``dt > d``).

Everything here reads only exact inputs (rationals, integers) and the models' definitions.

Modules (issue 22 split this one by subsystem; every name stays importable from here):
:mod:`~symloss.meanfield.ball_text` (exact numbers and balls as certificate text),
:mod:`~symloss.meanfield.lemmas` (the exact lemmas), :mod:`~symloss.meanfield.psi` (:math:`\Psi`, its
Taylor models and end pieces), :mod:`~symloss.meanfield.ball_samples` (ball samples); the bindings
:func:`retrial_binding` / :func:`power_binding` live beside their accelerators
(:mod:`symloss.meanfield.accelerators`), the Erlang-B ball forms in :mod:`symloss.erlang.balls`.
"""
from __future__ import annotations

from .accel_base import _BINDING_CACHE, BindingError
from .accel_power import power_binding
from .accelerators import retrial_binding
from .ball_samples import (  # noqa: F401  (re-exported)
    _newton_bracket,
    _power_W1,
    _retrial_F,
    _round_q,
    point_certificate,
    verify_point_certificate,
)
from .ball_text import (  # noqa: F401  (re-exported)
    _arb_exact_to_fraction,
    _ball_ends,
    _dec,
    ball_str,
    dec_down,
    dec_up,
    parse_ball,
    parse_q,
    q_arb,
    q_str,
)
from .lemmas import (  # noqa: F401  (re-exported)
    _erlang_polys,
    _nonneg_positive_constant,
    carried_load_lemma,
    erlang_increasing_lemma,
    retrial_g_lemma,
)
from .psi import (  # noqa: F401  (re-exported)
    _arb_pow,
    _erlang_coeffs,
    _inv_coeffs,
    _psi_formula,
    _w1_mixed,
    erlang_ball,
    large_end_tm,
    psi_mixed,
    psi_point,
    psi_tm,
    rho_of_a,
    small_end_bound,
)

__all__ = [
    "BindingError",
    "ball_str",
    "dec_down",
    "dec_up",
    "erlang_ball",
    "erlang_increasing_lemma",
    "large_end_tm",
    "parse_ball",
    "parse_q",
    "power_binding",
    "psi_mixed",
    "psi_point",
    "psi_tm",
    "q_arb",
    "q_str",
    "retrial_binding",
    "retrial_g_lemma",
    "rho_of_a",
    "small_end_bound",
]


def clear_caches() -> None:
    """Forget the binding checks and lemmas (so that a re-check recomputes them)."""
    _BINDING_CACHE.clear()
    retrial_g_lemma.cache_clear()
    erlang_increasing_lemma.cache_clear()
    carried_load_lemma.cache_clear()
