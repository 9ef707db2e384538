"""Finite-N threshold: the load above which one model blocks less than another at N servers (any two
models; the ``(C, d, dt)`` shorthand is retrial-of-``dt`` against power-of-``d``).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..core.docstrings import fill_doc
from ..core.model import MeanFieldModel
from ..core.random import seed_sequence, spawn
from ..core.results import ResultMixin
from ..core.stats import t_quantile
from ..core.validation import check_choice, check_int, check_real
from ..meanfield import threshold_load
from ..meanfield.models import PowerOfD, RetrialOfD
from .common import SAMPLINGS, _to_float
from .exact import _max_states, exact_finite_n
from .refined import refined_mean_field
from .simulate import simulate
from .states import n_states_estimate

# --------------------------------------------------------------------------------------------------
# finite-N threshold: the load above which model_a blocks less than model_b
# --------------------------------------------------------------------------------------------------

@dataclass
class FiniteNThresholdResult(ResultMixin):
    r"""Result of :func:`finite_n_threshold`.

    ``threshold`` is the largest load at which
    :math:`D_N(\rho) = \log B_N^{a} - \log B_N^{b}` changes sign (``model_a`` blocks less above it;
    for the shorthand ``a`` = retrial-of-``dt``, ``b`` = power-of-``d``); 0 when no crossing was found
    in the search range and ``model_a`` is better at its lower end. ``ci`` is exact-to-tolerance for ``method == "exact"`` and a 95 % Fieller
    interval from a weighted regression of simulated :math:`D_N` on :math:`\log\rho` for
    ``method == "simulation"``. ``mean_field`` is :func:`symloss.threshold_load`, ``refined`` the
    crossing of the refined mean-field blockings :math:`B + V/N`.

    Parameters
    ----------
    threshold : float
        The finite-N threshold load.
    ci : tuple of float
        Its interval (see above).
    method : str
        ``"exact"`` or ``"simulation"``.
    mean_field, refined : float or None
        The mean-field and refined mean-field thresholds of the pair (``None`` when not computed).
    C, d, dt : int or None
        Set for a retrial-of-``dt`` vs power-of-``d`` pair of one capacity.
    N : int
        Number of servers.
    sampling : str
        The finite-N convention.
    loads, log_ratio, log_ratio_se : numpy.ndarray
        The loads evaluated, :math:`D_N` there and its standard error (0 for exact values).
    events : int
        Simulated events in all (simulation).
    wall_time : float
        Seconds.
    model_a, model_b : str
        The two models.
    """

    C: int | None
    d: int | None
    dt: int | None
    N: int
    threshold: float
    ci: tuple
    method: str
    sampling: str
    mean_field: float | None
    refined: float | None
    loads: np.ndarray = field(default_factory=lambda: np.zeros(0))
    log_ratio: np.ndarray = field(default_factory=lambda: np.zeros(0))
    log_ratio_se: np.ndarray = field(default_factory=lambda: np.zeros(0))
    events: int = 0
    wall_time: float = 0.0
    model_a: str = ""
    model_b: str = ""

    def to_dict(self) -> dict:
        """Plain data, for JSON.

        Returns
        -------
        dict
        """
        return {"model_a": self.model_a, "model_b": self.model_b, "C": self.C, "d": self.d, "dt": self.dt, "N": self.N, "threshold": self.threshold,
                "ci": list(self.ci), "method": self.method, "sampling": self.sampling,
                "mean_field": self.mean_field, "refined": self.refined,
                "loads": self.loads.tolist(), "log_ratio": self.log_ratio.tolist(),
                "log_ratio_se": self.log_ratio_se.tolist(), "events": self.events,
                "wall_time": self.wall_time}


_MF_CACHE: dict = {}


def _mf_threshold(a, b):
    """Mean-field threshold :func:`symloss.threshold_load` (cached per pair of definitions)."""
    key = (a._definition_key(), b._definition_key())
    if key in _MF_CACHE:
        return _MF_CACHE[key]
    try:
        out = float(threshold_load(a, b, dps=15))
    except (ValueError, ArithmeticError, ImportError):
        out = None
    _MF_CACHE[key] = out
    return out


def _refined_threshold(a, b, N, lo, hi):
    def D(lr):
        r = math.exp(lr)
        ba = refined_mean_field(a, rho=r, dps=None, order=1).at(N)
        bb = refined_mean_field(b, rho=r, dps=None, order=1).at(N)
        return math.log(ba) - math.log(bb) if ba > 0 and bb > 0 else float("nan")
    thr, low = _last_crossing(D, math.log(lo), math.log(hi), 24)
    return (0.0 if low < 0 else None) if thr is None else thr


def _exact_fits(model, N):
    """True when the exact chain of ``model`` is within the default LU limit."""
    kind = getattr(model, "state_kind", "custom")
    if kind not in ("occupancy", "tail"):
        return False
    return n_states_estimate(kind, N, model.C) <= _max_states(model.C)


def _last_crossing(D, llo, lhi, n):
    """Largest root of D on [llo, lhi] in log-load (grid of n cells, then Brent); returns
    (load, value at the lower end)."""
    from scipy.optimize import brentq
    grid = np.linspace(llo, lhi, n + 1)
    vals = [D(g) for g in grid]
    for i in range(n - 1, -1, -1):
        a, b = vals[i], vals[i + 1]
        if math.isfinite(a) and math.isfinite(b) and a > 0 >= b:
            return math.exp(brentq(D, grid[i], grid[i + 1], xtol=1e-12, rtol=1e-12)), vals[0]
    return None, vals[0]


@fill_doc
def finite_n_threshold(model_a, model_b, N, *args, method="auto", sampling="with_replacement", rho_min=None,
                       rho_max=None, events=None, replications=8, n_loads=7, log_width=0.3, seed=None,
                       mean_field=True):
    r"""Load above which ``model_a`` blocks less than ``model_b`` with ``N`` servers.

    Call as ``finite_n_threshold(model_a, model_b, N)`` with any two
    :class:`~symloss.MeanFieldModel`, or with the shorthand ``finite_n_threshold(C, d, dt, N)`` for
    retrial-of-``dt`` (:class:`~symloss.RetrialOfD`) against power-of-``d``
    (:class:`~symloss.PowerOfD`), ``dt > d``.

    Parameters
    ----------
    model_a, model_b : MeanFieldModel
        The two models (shorthand: ``C, d``).
    N : int
        Number of servers (shorthand: ``dt``, then ``N``).
    *args
        Only the shorthand: ``N`` after ``C, d, dt``.
    method : {"auto", "exact", "simulation"}
        "exact": the count chains are solved (:func:`exact_finite_n`) on a log-spaced grid
        of 24 cells in ``[rho_min, rho_max]`` and the last sign change of
        :math:`D_N(\rho) = \log B^{a}_N - \log B^{b}_N` is refined by Brent's method
        (interval width ``1e-12`` relative). "simulation": two grids of ``n_loads`` loads equally
        spaced in :math:`\log\rho`; at each load both models are simulated (:func:`simulate`,
        ``replications`` replications of ``events`` events) and
        :math:`\hat D = \log \hat B^{a} - \log \hat B^{b}` gets a delta-method standard
        error. Stage 1: ``center * exp(+-log_width)`` around the refined mean-field estimate, a
        weighted quadratic in :math:`\log\rho` locates the downward crossing. Stage 2: a window
        three times narrower around it, a weighted quadratic (straight line if ``n_loads < 5``)
        gives the root and its 95 % confidence set by test inversion (Fieller's construction:
        the loads where :math:`D = 0` is not rejected), re-centred once if the root leaves the
        window. "auto": exact when both chains are within the default state limit of
        :func:`exact_finite_n` (occupancy and tail models), otherwise simulation.
    sampling : str
        Finite-N convention (the models' ``finite_n_transitions``).
    rho_min, rho_max : float
        Search range of the exact method (default ``0.02`` and ``4 C``, ``C`` the larger capacity).
    events, replications, n_loads, seed
        Simulation effort (default ``events = max(200 000, 400 N)`` per replication,
        ``replications >= 2``, ``n_loads >= 3``); ``seed`` as for :func:`simulate`.
    log_width : float
        Half-width in :math:`\log\rho` of the stage-1 window of the simulation method, ``> 0``.
    mean_field : bool
        Also compute the mean-field threshold :func:`symloss.threshold_load` (certified; cached
        per pair of definitions).

    Returns
    -------
    FiniteNThresholdResult
        The threshold, its interval, and the mean-field and refined thresholds of the pair.

    Raises
    ------
    TypeError
        If the call form is wrong or an integer argument is not an integer.
    ValueError
        If an argument is out of range (``dt <= d`` in the shorthand, ``d > N`` without
        replacement), or no sign change is found in the range.

    See Also
    --------
    symloss.threshold_load : the mean-field threshold (the limit of this one as ``N`` grows).
    symloss.exact_finite_n, symloss.simulate : the finite-N blocking at one load.
    symloss.certified_finite_n_threshold : the same threshold proved, from the exact rational blockings.

    {{references_retrial}}

    Examples
    --------
    >>> from symloss import PowerOfD, RetrialOfD
    >>> r = finite_n_threshold(RetrialOfD(2, 4), PowerOfD(2, 3), 10, mean_field=False)
    >>> r.method, round(r.threshold, 4)
    ('exact', 0.4448)
    """
    if not isinstance(model_a, MeanFieldModel):
        if len(args) != 1:
            raise TypeError("finite_n_threshold(C, d, dt, N) (shorthand) or finite_n_threshold(model_a, model_b, N)")
        C = check_int(model_a, "C", min_value=1)
        d = check_int(model_b, "d", min_value=1)
        dt = check_int(N, "dt", min_value=1)
        if dt <= d:
            raise ValueError(f"dt must be > d, got d = {d}, dt = {dt}")
        N = args[0]
        a, b = RetrialOfD(C, dt), PowerOfD(C, d)
    else:
        if args:
            raise TypeError("finite_n_threshold(model_a, model_b, N) takes 3 positional arguments")
        if not isinstance(model_b, MeanFieldModel):
            raise TypeError(f"model_b must be a symloss.MeanFieldModel, got {type(model_b).__name__}")
        a, b = model_a, model_b
        C = d = dt = None
        if isinstance(a, RetrialOfD) and isinstance(b, PowerOfD) and a.C == b.C:
            C, d, dt = a.C, b.d, a.d
    N = check_int(N, "N", min_value=1)
    check_choice(method, "method", ("auto", "exact", "simulation"))
    check_choice(sampling, "sampling", SAMPLINGS)
    for m in (a, b):
        dm = getattr(m, "d", None)
        if sampling == "without_replacement" and isinstance(dm, int) and dm > N:
            raise ValueError(f"d must be <= N = {N} when sampling without replacement, got {dm} ({m!r})")
    Cmax = max(getattr(a, "C", None) or 1, getattr(b, "C", None) or 1)
    lo = 0.02 if rho_min is None else _to_float(check_real(rho_min, "rho_min", lower=0, lower_open=True))
    hi = 4.0 * Cmax if rho_max is None else _to_float(check_real(rho_max, "rho_max", lower=lo, lower_open=True))
    replications = check_int(replications, "replications", min_value=2)
    n_loads = check_int(n_loads, "n_loads", min_value=3)
    log_width = _to_float(check_real(log_width, "log_width", lower=0, lower_open=True))
    if method == "auto":
        method = "exact" if (_exact_fits(a, N) and _exact_fits(b, N)) else "simulation"
    common = dict(C=C, d=d, dt=dt, N=N, sampling=sampling, model_a=repr(a), model_b=repr(b))
    t0 = time.perf_counter()
    mf = _mf_threshold(a, b) if mean_field else None
    refined = None
    if sampling == "with_replacement":
        try:
            refined = _refined_threshold(a, b, N, lo, hi)
        except (ValueError, ArithmeticError, ImportError):
            refined = None

    if method == "exact":
        cache = {}

        def D(lr):
            if lr not in cache:
                r = math.exp(lr)
                ba = exact_finite_n(a, N, r, sampling=sampling).blocking
                bb = exact_finite_n(b, N, r, sampling=sampling).blocking
                cache[lr] = math.log(ba) - math.log(bb) if ba > 0 and bb > 0 else float("nan")
            return cache[lr]
        thr, low_val = _last_crossing(D, math.log(lo), math.log(hi), 24)
        if thr is None:
            if not (low_val < 0):
                raise ValueError(f"no crossing of the finite-N blockings in [{lo}, {hi}] and "
                                 f"{a!r} is not better at rho_min: no threshold in range")
            thr = 0.0
        ks = sorted(cache)
        return FiniteNThresholdResult(
            threshold=thr, ci=(thr, thr), method="exact", **common,
            mean_field=mf, refined=refined, loads=np.exp(np.array(ks)),
            log_ratio=np.array([cache[k] for k in ks]), log_ratio_se=np.zeros(len(ks)),
            wall_time=time.perf_counter() - t0)

    # ---- simulation ----
    if events is None:
        events = max(200_000, 400 * N)
    events = check_int(events, "events", min_value=1000)
    if refined is None and mf is None:
        mf = _mf_threshold(a, b)
    ss = seed_sequence(seed)
    seeds = iter(spawn(ss, 6 * n_loads))
    total_events = 0

    def sim_D(r):
        nonlocal total_events
        sa = simulate(a, N=N, rho=float(r), events=events, replications=replications, seed=next(seeds),
                      sampling=sampling)
        sb = simulate(b, N=N, rho=float(r), events=events, replications=replications, seed=next(seeds),
                      sampling=sampling)
        total_events += sa.total_events + sb.total_events
        if not (sa.blocking > 0 and sb.blocking > 0):
            raise ValueError(f"simulated blocking is zero at rho = {r:.4g}: the threshold is "
                             f"below the simulation's reach (N = {N})")
        return (math.log(sa.blocking) - math.log(sb.blocking),
                math.hypot(sa.std_error / sa.blocking, sb.std_error / sb.blocking))

    if not (refined or mf):
        # no crossing in the (refined) mean field: check the sign on a grid of loads where the
        # simulated blockings are resolvable; threshold 0 if retrial is significantly better at all
        loads = Cmax * np.exp(np.linspace(math.log(0.25), math.log(2.0), n_loads))
        res = [sim_D(r) for r in loads]
        y = np.array([v for v, _ in res])
        se = np.array([e for _, e in res])
        tq = t_quantile(replications - 1)
        if np.all(y + tq * se < 0):
            return FiniteNThresholdResult(
                threshold=0.0, ci=(0.0, float(loads[0])),
                method="simulation (sign check: model_a better at every tested load)", **common,
                mean_field=mf, refined=refined, loads=loads, log_ratio=y,
                log_ratio_se=se, events=total_events, wall_time=time.perf_counter() - t0)
        center = float(loads[int(np.argmin(np.abs(y)))])
    else:
        center = refined if refined else mf
    def run_grid(c, width):
        loads = c * np.exp(np.linspace(-width, width, n_loads))
        res = [sim_D(r) for r in loads]
        return (np.log(loads), np.array([v for v, _ in res]), np.array([e for _, e in res]))

    def wls(x, y, se, degree):
        w = 1.0 / se ** 2
        xm = float(np.sum(w * x) / np.sum(w))
        X = np.column_stack([(x - xm) ** p for p in range(degree + 1)])
        cov_unscaled = np.linalg.inv(X.T @ (X * w[:, None]))
        beta = cov_unscaled @ (X.T @ (w * y))
        chi2 = float(np.sum(w * (y - X @ beta) ** 2))
        dof = max(1, x.size - degree - 1)
        return xm, beta, cov_unscaled * max(1.0, chi2 / dof)   # inflate for lack of fit

    # stage 1 (locate): a quadratic through the wide grid; D is curved (it has a minimum above
    # the threshold and tends to 0 at high load), so a straight line over a wide window is biased.
    x1, y1, se1 = run_grid(center, log_width)
    xm, beta, _ = wls(x1, y1, se1, 2 if n_loads >= 4 else 1)
    roots = np.roots(beta[::-1]) if beta.size == 3 else np.array([-beta[0] / beta[1]])
    slope = lambda z: beta[1] + (2 * beta[2] * z if beta.size == 3 else 0.0)
    cands = [float(z.real) for z in np.atleast_1d(roots) if abs(z.imag) < 1e-12 and slope(z.real) < 0]
    if cands:
        z0 = min(cands, key=lambda z: abs(z + xm - math.log(center)))
        center = math.exp(min(max(xm + z0, x1[0] - log_width), x1[-1] + log_width))
    # stage 2 (estimate): a window three times narrower around that root; weighted polynomial
    # (quadratic when n_loads >= 5, else a straight line) in z = log rho - xm
    width2 = log_width / 3
    deg = 2 if n_loads >= 5 else 1
    for _attempt in range(2):
        x, y, se = run_grid(center, width2)
        xm, beta, cov = wls(x, y, se, deg)
        zc = math.log(center) - xm
        rts = np.atleast_1d(np.roots(beta[::-1]))
        slope2 = np.polyder(np.poly1d(beta[::-1]))
        real = [float(z.real) for z in rts if abs(z.imag) < 1e-12 and slope2(z.real) < 0]
        if not real:
            raise ValueError(f"no downward crossing of the simulated log-ratio near rho = "
                             f"{center:.4g} (N = {N}); increase events / replications")
        zr = min(real, key=lambda z: abs(z - zc))
        root = xm + zr
        if x[0] <= root <= x[-1] or _attempt == 1:
            break
        center = math.exp(root)
    # 95 % confidence set by test inversion (Fieller's construction, for any degree):
    # {z : p(z)^2 <= t^2 g(z)^T Cov g(z)}, g(z) = (1, z, z^2, ...); the connected piece holding
    # the root is reported (0 / inf when it reaches 1 e-fold from the root).
    tq = t_quantile(max(1, n_loads - deg - 1))
    zz = np.linspace(zr - 1.0, zr + 1.0, 8001)
    G = np.column_stack([zz ** q for q in range(deg + 1)])
    inside = (G @ beta) ** 2 <= tq ** 2 * np.einsum("ij,jk,ik->i", G, cov, G)
    k0 = 4000
    lo_i, hi_i = k0, k0
    while lo_i > 0 and inside[lo_i - 1]:
        lo_i -= 1
    while hi_i < zz.size - 1 and inside[hi_i + 1]:
        hi_i += 1
    ci = (0.0 if lo_i == 0 else math.exp(xm + zz[lo_i]),
          float("inf") if hi_i == zz.size - 1 else math.exp(xm + zz[hi_i]))
    return FiniteNThresholdResult(
        threshold=math.exp(root), ci=ci, method="simulation", **common, mean_field=mf, refined=refined, loads=np.exp(x), log_ratio=y,
        log_ratio_se=se, events=total_events, wall_time=time.perf_counter() - t0)
