r"""One function per figure of a paper on these models.

Every function takes plain data (sequences of numbers, ``mpmath.mpf`` included: values far below the
float range are handled through their logarithms) or symloss result objects, labels its axes with
units, puts the legend where it covers no data (or outside the axes), takes ``width="single"`` (3.5 in)
or ``"double"`` (7.2 in) or a width in inches, and returns the :class:`matplotlib.figure.Figure`;
:func:`symloss.plot.savefig` writes it with its provenance.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from ._style import float_values, log10_values, new_figure, paper_style, place_legend, policy_label, symlog_ticks

__all__ = ["blocking_ratio", "retrial_vs_power", "blocking_curves", "jsq_heatmap", "exact_vs_asymptotic",
           "finite_n", "regret_decomposition", "supermarket_tails", "supermarket_distance",
           "mean_queue_vs_degree", "trajectories"]

RHO_LABEL = r"load per server $\rho = \lambda/\mu$ (Erlang)"
N_LABEL = r"number of servers $N$"


def _set_title(fig, title) -> None:
    if not title:
        return
    axes = [a for a in fig.axes if a.get_label() != "<colorbar>"]
    if len(axes) == 1:
        axes[0].set_title(title)
    else:
        fig.suptitle(title)


def _info(fig, name: str, **kw) -> None:
    fig._symloss.update({"figure": name, **{k: v for k, v in kw.items() if v is not None}})


def _as_array(x, name: str) -> np.ndarray:
    arr = float_values(x) if not isinstance(x, np.ndarray) else np.asarray(x, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty one-dimensional sequence of numbers")
    return arr


def _finite_positive(arr: np.ndarray, name: str) -> None:
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must be finite and positive (it is plotted on a log axis)")


# ------------------------------------------------------------------------------------------------
# mean field: blocking ratio and blocking curves
# ------------------------------------------------------------------------------------------------

def _threshold_values(thresholds):
    if thresholds is None:
        return []
    if hasattr(thresholds, "crossings"):        # CrossingResult
        thresholds = thresholds.crossings
    if not isinstance(thresholds, (list, tuple, np.ndarray)):
        thresholds = [thresholds]
    return [float(t) for t in thresholds]


@paper_style
def blocking_ratio(rho, B_a, B_b=None, *, thresholds=None, labels=("retrial-of-$\\tilde d$", "power-of-$d$"),
                   width="single", height=None, linthresh: float | None = None, title: str | None = None):
    r"""The log-ratio :math:`\log_{10}(B_a/B_b)` of two blockings against the load, with the certified
    thresholds marked: where the curve crosses 0 the two policies block equally; below 0, policy *a*
    blocks less.

    Parameters
    ----------
    rho : sequence of float
        Loads (plotted on a log axis).
    B_a, B_b : sequences of numbers, mpf or FixedPointResult
        The two blockings at ``rho`` (values below the float range are fine). ``B_a`` may instead be a
        mapping ``{label: (B_a, B_b)}`` for several curves (then ``B_b`` is None).
    thresholds : float, sequence, CrossingResult or mapping label -> those, optional
        Certified thresholds / crossing loads, drawn as dotted vertical lines with their value.
    labels : (str, str)
        Names of policy *a* and *b* for the axis label.
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style; a two-panel figure gets a figure title).
    linthresh : float, optional
        The linear range of the ``symlog`` y axis (default: chosen from the data) -- log-ratios of
        both signs are visible, also the small negative ones at large load.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = blocking_ratio([0.5, 1, 2], [1e-3, 0.05, 0.2], [2e-3, 0.04, 0.21], thresholds=0.8)
    >>> fig.axes[0].get_xscale(), fig.axes[0].get_yscale()
    ('log', 'symlog')
    """
    rho = _as_array(rho, "rho")
    _finite_positive(rho, "rho")
    curves = B_a if isinstance(B_a, Mapping) else {None: (B_a, B_b)}
    if isinstance(B_a, Mapping) and B_b is not None:
        raise ValueError("give B_b only when B_a is a sequence (not a mapping of curves)")
    fig, axes = new_figure(width, height)
    ax = axes[0, 0]
    ys = []
    for i, (label, pair) in enumerate(curves.items()):
        a, b = pair
        la, lb = log10_values(a), log10_values(b)
        if la.shape != rho.shape or lb.shape != rho.shape:
            raise ValueError(f"B_a and B_b must have one value per load ({rho.size}); got {la.size} and {lb.size}")
        y = la - lb
        ys.append(y)
        ax.plot(rho, y, color=f"C{i}", label=label)
    allv = np.concatenate(ys)
    allv = allv[np.isfinite(allv)]
    if linthresh is None:
        small = np.abs(allv[allv != 0])
        linthresh = float(max(1e-6, min(1e-1, np.quantile(small, 0.05)))) if small.size else 1e-3
        linthresh = 10.0 ** math.floor(math.log10(linthresh))
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=linthresh, linscale=1.0)
    symlog_ticks(ax, allv, linthresh)
    ax.axhline(0.0, color="0.4", lw=0.6, ls="-", zorder=0)
    thr = thresholds if isinstance(thresholds, Mapping) else {None: thresholds}
    colours = {label: f"C{i}" for i, label in enumerate(curves)}
    ymax = np.nanmax(allv) if allv.size else 1.0
    for label, t in thr.items():
        for value in _threshold_values(t):
            c = colours.get(label, "0.3")
            ax.axvline(value, color=c, lw=0.8, ls=":", zorder=1)
            ax.annotate(rf"$\rho^* = {value:.3g}$", xy=(value, 0.0), xycoords=("data", "data"),
                        xytext=(3, 6 if ymax > 0 else -10), textcoords="offset points", fontsize=6.5, color=c,
                        ha="left", va="bottom")
    ax.set_xlabel(RHO_LABEL)
    la, lb = labels
    ax.set_ylabel(rf"$\log_{{10}}(B_a/B_b)$, $a$ = {la}, $b$ = {lb}" if len(la) + len(lb) < 30 else
                  r"$\log_{10}(B_a/B_b)$ (symmetric log scale)")
    ax.set_xlim(rho.min(), rho.max())
    if any(lbl is not None for lbl in curves):
        place_legend(ax)
    _set_title(fig, title)
    _info(fig, "blocking_ratio", title=f"log10 blocking ratio {la} / {lb}")
    return fig


@paper_style
def retrial_vs_power(C, d: int = 2, dt: int = 3, *, rho=None, dps: int = 15, width="single", height=None,
                     thresholds: bool = True, title: str | None = None):
    r"""Mean-field retrial-of-:math:`\tilde d` against power-of-:math:`d`: :func:`blocking_ratio` of the
    certified blockings at each load, with :func:`symloss.threshold_load` marked, for one or several
    capacities ``C`` (e.g. ``C=[3, 5]`` shows the thresholds near 0.95 and 2.96 of ``d = 2``,
    ``dt = 3``).

    Parameters
    ----------
    C : int or sequence of int
        Capacities, one curve each.
    d, dt : int
        Samples of power-of-d and attempts of retrial-of-dt (``dt > d``).
    rho : sequence of float, optional
        Loads (default 60 points from 0.05 to 50, geometric).
    dps : int
        Digits of the certified blockings and thresholds.
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style; a two-panel figure gets a figure title).
    thresholds : bool
        Mark :func:`symloss.threshold_load` (default True).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = retrial_vs_power(3, 2, 3, rho=[0.5, 1.0, 2.0])
    >>> [t.get_text() for t in fig.axes[0].texts]
    ['$\\rho^* = 0.95$']
    """
    import symloss
    Cs = [C] if isinstance(C, int) else list(C)
    rho = np.geomspace(0.05, 50.0, 60) if rho is None else np.asarray(rho, dtype=float)
    curves, thr = {}, {}
    for c in Cs:
        ret, pod = symloss.RetrialOfD(c, dt), symloss.PowerOfD(c, d)
        curves[f"$C = {c}$"] = ([ret.blocking(float(r), dps=dps) for r in rho],
                                [pod.blocking(float(r), dps=dps) for r in rho])
        if thresholds:
            t = symloss.threshold_load(c, d, dt, dps=dps)
            thr[f"$C = {c}$"] = [float(t)] if t > 0 else []
    fig = blocking_ratio(rho, curves, thresholds=thr, labels=(f"retrial-of-{dt}", f"power-of-{d}"), width=width,
                         height=height)
    ax = fig.axes[0]
    ax.set_ylabel(rf"$\log_{{10}}\,(B_{{\mathrm{{ret}}}}({dt}) / B_{{\mathrm{{pod}}}}({d}))$")
    _set_title(fig, title)
    _info(fig, "retrial_vs_power", dps=dps, title=f"retrial-of-{dt} vs power-of-{d}, C = {Cs}")
    return fig


@paper_style
def blocking_curves(rho, curves: Mapping, *, width="single", height=None, dps: int = 15, ylabel=None,
                    title: str | None = None):
    r"""Blocking probabilities against the load on log-log axes.

    Parameters
    ----------
    rho : sequence of float
    curves : mapping label -> values
        Values are numbers, ``mpf`` or ``FixedPointResult`` (one per load), or a model object with
        ``blocking(rho, dps=...)`` (evaluated here). A label None is replaced by the model's policy name
        (``retrial-of-2``, ``power-of-2``, ...). When some blocking is below the float range the y axis
        shows :math:`\log_{10} B` on a linear scale instead.
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style; a two-panel figure gets a figure title).
    dps : int
        Digits used when a model is evaluated here.
    ylabel : str, optional
        The y-axis label (default: blocking probability).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import symloss
    >>> fig = blocking_curves([0.5, 1, 2], [symloss.RetrialOfD(2, 2), symloss.PowerOfD(2, 2)])
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['retrial-of-2', 'power-of-2']
    """
    rho = _as_array(rho, "rho")
    _finite_positive(rho, "rho")
    if isinstance(curves, Sequence) and not isinstance(curves, Mapping):
        curves = {policy_label(m) if hasattr(m, "blocking") else f"curve {i + 1}": m for i, m in enumerate(curves)}
    logs = {}
    for label, vals in curves.items():
        if hasattr(vals, "blocking") and callable(vals.blocking):
            model = vals
            vals = [model.blocking(float(r), dps=dps) if (model.name != "jsq" or r > model.C) else 0 for r in rho]
            label = label if label is not None else policy_label(model)
        lv = log10_values(vals)
        if lv.shape != rho.shape:
            raise ValueError(f"curve {label!r}: {lv.size} values for {rho.size} loads")
        logs[label if label is not None else "blocking"] = lv
    finite = np.concatenate([v[np.isfinite(v)] for v in logs.values()]) if logs else np.zeros(0)
    as_log10 = finite.size > 0 and finite.min() < -300
    fig, axes = new_figure(width, height)
    ax = axes[0, 0]
    for i, (label, lv) in enumerate(logs.items()):
        y = lv if as_log10 else np.where(np.isfinite(lv), 10.0 ** lv, np.nan)
        ax.plot(rho, y, color=f"C{i}", label=label)
    ax.set_xscale("log")
    if as_log10:
        ax.set_ylabel(ylabel or r"$\log_{10}$ of the blocking probability $B$")
    else:
        ax.set_yscale("log")
        ax.set_ylabel(ylabel or r"blocking probability $B$")
    ax.set_xlabel(RHO_LABEL)
    ax.set_xlim(rho.min(), rho.max())
    place_legend(ax)
    _set_title(fig, title)
    _info(fig, "blocking_curves", dps=dps, title="blocking against load")
    return fig


# ------------------------------------------------------------------------------------------------
# two queues under JSQ
# ------------------------------------------------------------------------------------------------

@paper_style
def jsq_heatmap(dist, *, width="single", height=None, log: bool = True, title: str | None = None):
    r"""Heat map of the joint law :math:`p(m, n)` of two M/M/N/N queues under JSQ (integer ticks, a
    labelled colour bar, :math:`\log_{10}` colours by default).

    Parameters
    ----------
    dist : TwoQueueDistribution or 2-D array
        ``p[m][n]``: probability that queue 1 has ``m`` and queue 2 ``n`` busy servers.
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    log : bool
        Colours of :math:`\log_{10} p` (default) or of :math:`p`.
    title : str, optional
        Default: :math:`N` and :math:`\rho` of the distribution.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import symloss
    >>> fig = jsq_heatmap(symloss.TwoQueueJSQ(10, 10).stationary_distribution())
    >>> fig.axes[1].get_ylabel()
    '$\\log_{10} p(m, n)$'
    """
    from matplotlib.ticker import MaxNLocator
    info = {}
    if hasattr(dist, "p") and hasattr(dist, "N"):
        info = {"N": dist.N, "rho": dist.rho}
        lp = getattr(dist, "log_p", None)
        if lp is not None and log:
            L = np.asarray(lp, dtype=float) / math.log(10)
        else:
            p = dist.p
            L = (np.vstack([log10_values(row) for row in p]) if log else
                 np.vstack([float_values(row) for row in p]))
    else:
        arr = np.asarray(dist, dtype=object)
        if arr.ndim != 2:
            raise ValueError("dist must be a TwoQueueDistribution or a 2-D array p[m][n]")
        L = np.vstack([log10_values(row) for row in arr]) if log else np.vstack([float_values(r) for r in arr])
    Z = np.ma.masked_invalid(np.where(np.isinf(L), np.nan, L))
    m_max, n_max = Z.shape[0] - 1, Z.shape[1] - 1
    fig, axes = new_figure(width, height, aspect=0.85)
    ax = axes[0, 0]
    im = ax.imshow(Z, origin="lower", cmap="viridis", aspect="auto", interpolation="nearest",
                   extent=(-0.5, n_max + 0.5, -0.5, m_max + 0.5))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=6))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=6))
    ax.set_xlabel(r"busy servers in queue 2, $n$")
    ax.set_ylabel(r"busy servers in queue 1, $m$")
    cb = fig.colorbar(im, ax=ax, shrink=0.9)
    cb.set_label(r"$\log_{10} p(m, n)$" if log else r"$p(m, n)$")
    if title is None and info:
        title = f"$N = {info['N']}$, $\\rho = {info['rho']}$"
    if title:
        ax.set_title(title)
    for spine in ("top", "right"):
        ax.spines[spine].set_visible(True)
    _info(fig, "jsq_heatmap", title=title or "joint law p(m, n)")
    return fig


@paper_style
def exact_vs_asymptotic(x, exact, asymptotic, *, xlabel: str = RHO_LABEL, ylabel: str = "value",
                        labels=("exact", "asymptotic"), reference_slope: float | None = None,
                        width="single", height=None, title: str | None = None):
    r"""An exact quantity and its asymptotic approximation on log-log axes, with a second panel of the
    relative error :math:`|\mathrm{asymptotic}/\mathrm{exact} - 1|` (log-log; optionally a reference
    line of slope ``reference_slope``, e.g. ``-1`` for an :math:`O(1/\rho)` error).

    Parameters
    ----------
    x : sequence of float
        Abscissae (positive: log axis), e.g. loads.
    exact, asymptotic : sequences of numbers or mpf
        The two values at each ``x`` (positive).
    xlabel, ylabel : str
        Axis labels (with units).
    labels : (str, str)
        Legend entries of the two curves.
    reference_slope : float, optional
        Slope of a reference line in the error panel.
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style; a two-panel figure gets a figure title).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = exact_vs_asymptotic([10, 100, 1000], [0.11, 0.0101, 0.001001], [0.1, 0.01, 0.001],
    ...                           ylabel="blocking", reference_slope=-1)
    >>> [ax.get_yscale() for ax in fig.axes]
    ['log', 'log']
    """
    x = _as_array(x, "x")
    _finite_positive(x, "x")
    le, la = log10_values(exact), log10_values(asymptotic)
    if le.shape != x.shape or la.shape != x.shape:
        raise ValueError(f"exact and asymptotic need one value per x ({x.size})")
    with np.errstate(over="ignore", invalid="ignore"):
        rel = np.abs(np.expm1((la - le) * math.log(10)))
    fig, axes = new_figure(width, height, nrows=2, sharex=True, gridspec_kw={"height_ratios": [1.4, 1.0]})
    ax, ax2 = axes[0, 0], axes[1, 0]
    ax.plot(x, 10.0 ** le, color="C0", label=labels[0])
    ax.plot(x, 10.0 ** la, color="C1", ls="--", label=labels[1])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    place_legend(ax)
    ok = np.isfinite(rel) & (rel > 0)
    ax2.plot(x[ok], rel[ok], color="C2", marker="o", ms=2.5, label="relative error")
    if reference_slope is not None and ok.any():
        x0, r0 = x[ok][0], rel[ok][0]
        ax2.plot(x, r0 * (x / x0) ** reference_slope, color="0.5", ls=":",
                 label=f"slope {reference_slope:g} (reference)")
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xlabel(xlabel)
    ax2.set_ylabel("relative error")
    place_legend(ax2)
    _set_title(fig, title)
    _info(fig, "exact_vs_asymptotic", title=f"{ylabel}: exact and asymptotic")
    return fig


# ------------------------------------------------------------------------------------------------
# finite N
# ------------------------------------------------------------------------------------------------

def _value_ci(v):
    ci = getattr(v, "ci", None)
    val = float(getattr(v, "blocking", getattr(v, "value", v)))
    if ci is not None:
        return val, (float(ci[0]), float(ci[1]))
    return val, None


@paper_style
def finite_n(N, B_N, *, mean_field=None, V=None, W=None, ci=None, width="single", height=None,
             ylabel: str = r"blocking probability $B_N$", title: str | None = None):
    r"""Finite-:math:`N` blocking against :math:`N` with the mean field :math:`B`, the refined
    prediction :math:`B + V/N` and the second-order one :math:`B + V/N + W/N^2`; a second panel shows
    :math:`|B_N - B|` and :math:`|B_N - B - V/N|` on log-log axes against slopes :math:`1/N` and
    :math:`1/N^2`.

    Parameters
    ----------
    N : sequence of int
    B_N : sequence of numbers or results (``ExactFiniteNResult``, ``SimulationResult``: their ``blocking``
        and, for simulations, ``ci``)
    mean_field : float or RefinedMeanFieldResult
        :math:`B` (a ``RefinedMeanFieldResult`` also gives ``V``).
    V, W : float, optional
        The :math:`1/N` and :math:`1/N^2` coefficients; ``W`` is fitted to the data (least squares on
        :math:`(B_N - B - V/N) N^2`, labelled "fitted") when not given.
    ci : sequence of (low, high), optional
        Confidence intervals of ``B_N`` (taken from the results when they carry one).
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style; a two-panel figure gets a figure title).
    ylabel : str
        The y-axis label of the top panel.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = finite_n([10, 20, 40], [0.074, 0.064, 0.0585], mean_field=0.0530, V=0.2225)
    >>> len(fig.axes), fig.axes[1].get_yscale()
    (2, 'log')
    """
    Ns = _as_array(N, "N")
    vals, cis = [], []
    for v in B_N:
        val, c = _value_ci(v)
        vals.append(val)
        cis.append(c)
    y = np.asarray(vals, dtype=float)
    if y.shape != Ns.shape:
        raise ValueError(f"B_N needs one value per N ({Ns.size}), got {y.size}")
    if ci is not None:
        cis = [tuple(map(float, c)) for c in ci]
    if mean_field is None:
        raise ValueError("mean_field (B, or a RefinedMeanFieldResult) is required")
    if hasattr(mean_field, "blocking_mf"):
        V = float(mean_field.V) if V is None else V
        B = float(mean_field.blocking_mf)
    else:
        B = float(mean_field)
    fitted = False
    if W is None and V is not None and Ns.size >= 2:
        r = (y - B - V / Ns) * Ns ** 2
        half = max(1, Ns.size // 2)
        W = float(np.mean(r[np.argsort(Ns)][-half:]))
        fitted = True
    fig, axes = new_figure(width, height, nrows=2, sharex=True, gridspec_kw={"height_ratios": [1.3, 1.0]})
    ax, ax2 = axes[0, 0], axes[1, 0]
    if any(c is not None for c in cis):
        lo = np.array([c[0] if c else v for c, v in zip(cis, y)])
        hi = np.array([c[1] if c else v for c, v in zip(cis, y)])
        ax.errorbar(Ns, y, yerr=[y - lo, hi - y], fmt="o", color="k", ms=3, label=r"$B_N$ (95 % interval)")
    else:
        ax.plot(Ns, y, "o", color="k", ms=3, label=r"$B_N$")
    grid = np.geomspace(Ns.min(), Ns.max(), 200)
    ax.axhline(B, color="C0", lw=0.8, label=r"mean field $B$")
    if V is not None:
        ax.plot(grid, B + V / grid, color="C1", ls="--", label=r"$B + V/N$")
        if W is not None:
            ax.plot(grid, B + V / grid + W / grid ** 2, color="C2", ls="-.",
                    label=r"$B + V/N + W/N^2$" + (" (W fitted)" if fitted else ""))
    ax.set_xscale("log")
    ax.set_ylabel(ylabel)
    place_legend(ax)
    e1 = np.abs(y - B)
    ax2.plot(Ns, e1, "o-", color="C1", ms=3, label=r"$|B_N - B|$")
    if V is not None:
        e2 = np.abs(y - B - V / Ns)
        ok = e2 > 0
        ax2.plot(Ns[ok], e2[ok], "s-", color="C2", ms=3, label=r"$|B_N - B - V/N|$")
    i0 = int(np.argmin(Ns))
    if e1[i0] > 0:
        ax2.plot(grid, e1[i0] * Ns[i0] / grid, color="0.5", ls=":", lw=0.8, label=r"slope $1/N$")
    if V is not None and np.any(np.abs(y - B - V / Ns) > 0):
        e2 = np.abs(y - B - V / Ns)
        j = int(np.argmin(np.where(e2 > 0, Ns, np.inf)))
        ax2.plot(grid, e2[j] * (Ns[j] / grid) ** 2, color="0.5", ls="--", lw=0.8, label=r"slope $1/N^2$")
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xlabel(N_LABEL)
    ax2.set_ylabel("absolute error")
    place_legend(ax2)
    _set_title(fig, title)
    _info(fig, "finite_n", title="finite-N blocking against N")
    return fig


# ------------------------------------------------------------------------------------------------
# admission control
# ------------------------------------------------------------------------------------------------

def _est(e):
    return float(getattr(e, "value", e)), float(getattr(e, "half_width", 0.0))


@paper_style
def regret_decomposition(study, *, width="single", height=None, show_fits: bool = True,
                         title: str | None = None):
    r"""The regret decomposition :math:`R_{fluid}-R_{on} = C_{vol}+C_{long}+C_{short}` against
    :math:`N` (log scale, i.e. against :math:`\ln N`): the top panel the costs that stay bounded
    (:math:`C_{vol}`, :math:`C_{long}` per window constant :math:`c`), the bottom panel the ones that grow
    (:math:`C_{short}` and the exact online regret), with 95 % intervals and the fitted lines
    :math:`\alpha + \beta\ln N` of the study.

    Parameters
    ----------
    study : DecompositionStudy
        From :meth:`symloss.OverloadedLossNetwork.decomposition_study`.
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style; a two-panel figure gets a figure title).
        A double-width figure puts the two panels side by side.
    show_fits : bool
        Draw the fitted lines of the study (default True).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import symloss
    >>> study = symloss.OverloadedLossNetwork.decomposition_study([10, 30], 0.5, 1, 2, 1, horizon=2.0,
    ...                                                           replications=2, c=(8,), seed=1)
    >>> fig = regret_decomposition(study)
    >>> fig.axes[1].get_xscale()
    'log'
    """
    decs = list(study.decompositions)
    if not decs:
        raise ValueError("the study has no decompositions")
    Ns = np.array([d.N for d in decs], dtype=float)
    cs = list(decs[0].C_long)
    from ._style import figure_size
    wide = figure_size(width)[0] >= 5
    if wide:   # two columns: the panels side by side
        fig, axes = new_figure(width, height, ncols=2, aspect=0.36)
        ax, ax2 = axes[0, 0], axes[0, 1]
    else:
        fig, axes = new_figure(width, height, nrows=2, sharex=True)
        ax, ax2 = axes[0, 0], axes[1, 0]
    shift = 1.0 + 0.025 * (np.arange(len(cs) + 1) - len(cs) / 2)   # separate the error bars a little
    v = np.array([_est(d.C_vol) for d in decs])
    ax.errorbar(Ns * shift[0], v[:, 0], yerr=v[:, 1], fmt="o-", color="k", ms=3, label=r"$C_{vol}$")
    for i, c in enumerate(cs):
        e = np.array([_est(d.C_long[c]) for d in decs])
        ax.errorbar(Ns * shift[i + 1], e[:, 0], yerr=e[:, 1], fmt="s--", color=f"C{i}", ms=3,
                    label=rf"$C_{{long}}$, $c = {c:g}$")
    ax.axhline(0.0, color="0.6", lw=0.5)
    ax.set_ylabel("cost per unit time\n(reward units)")
    if wide:
        ax.set_xscale("log")
        ax.set_xlabel(N_LABEL + " (log scale)")
        ax.set_title("bounded: variability and long-run uncertainty")
        ax2.set_title(r"growing like $\ln N$: short-run uncertainty")
    place_legend(ax)
    for i, c in enumerate(cs):
        e = np.array([_est(d.C_short[c]) for d in decs])
        ax2.errorbar(Ns * shift[i + 1], e[:, 0], yerr=e[:, 1], fmt="^-", color=f"C{i}", ms=3,
                     label=rf"$C_{{short}}$, $c = {c:g}$")
    ax2.plot(Ns, [d.online_regret for d in decs], "k-", lw=1.0, label=r"$R_{fluid} - R_{on}$ (exact)")
    if show_fits and len(Ns) >= 2:
        fits = getattr(study, "fits", {}) or {}
        grid = np.geomspace(Ns.min(), Ns.max(), 50)
        labelled = False
        for i, c in enumerate(cs):
            f = fits.get(f"C_short[c={c:g}]")
            if f is not None:
                ax2.plot(grid, f.intercept + f.slope * np.log(grid), color=f"C{i}", lw=0.6, ls=":",
                         label=None if labelled else r"fitted $\alpha + \beta \ln N$")
                labelled = True
    ax2.set_xscale("log")
    ax2.set_xlabel(N_LABEL + " (log scale)")
    ax2.set_ylabel("cost per unit time\n(reward units)")
    place_legend(ax2)
    _set_title(fig, title)
    _info(fig, "regret_decomposition", title="regret decomposition against ln N")
    return fig


# ------------------------------------------------------------------------------------------------
# supermarket model
# ------------------------------------------------------------------------------------------------

def _tail_values(v):
    for attr in ("stationary_s", "s"):
        if hasattr(v, attr):
            s = getattr(v, attr)
            return s[-1] if (attr == "s" and np.ndim(s) == 2) else s
    return v


@paper_style
def supermarket_tails(tails: Mapping, *, lam=None, d: int | None = None, k_max: int | None = None,
                      width="single", height=None, title: str | None = None):
    r"""Tail fractions :math:`s_k` (fraction of queues with at least :math:`k` tasks) against
    :math:`k` on a log axis; with ``lam`` and ``d`` the mean-field closed form
    :math:`s_k = \lambda^{(d^k-1)/(d-1)}` is added.

    Parameters
    ----------
    tails : mapping label -> values
        ``s_0, s_1, ...`` as numbers/mpf, a ``SupermarketFixedPoint`` (``.s``), a supermarket
        ``SimulationResult`` (``.stationary_s``) or a ``PairApproximationResult`` (``.s``).
    lam, d : optional
        Arrival rate and choices of the mean-field closed form to draw.
    k_max : int, optional
        Largest ``k`` shown.
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style; a two-panel figure gets a figure title).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = supermarket_tails({"simulation": [1.0, 0.7, 0.35, 0.1, 0.02]}, lam=0.7, d=2)
    >>> fig.axes[0].get_yscale()
    'log'
    """
    fig, axes = new_figure(width, height)
    ax = axes[0, 0]
    markers = "osD^v<>ph"
    for i, (label, vals) in enumerate(tails.items()):
        lv = log10_values(_tail_values(vals))
        k = np.arange(lv.size)
        ok = np.isfinite(lv) & (k >= 1)
        if k_max is not None:
            ok &= k <= k_max
        ax.plot(k[ok], 10.0 ** lv[ok], marker=markers[i % len(markers)], ms=3, color=f"C{i}", label=label)
    if lam is not None and d is not None:
        kk = np.arange(1, (k_max or 8) + 1)
        lv = np.array([((d ** int(k) - 1) / (d - 1) if d > 1 else int(k)) * math.log10(float(lam)) for k in kk])
        ok = lv > -300
        ax.plot(kk[ok], 10.0 ** lv[ok], color="k", ls="--", lw=0.8,
                label=r"mean field $\lambda^{(d^k-1)/(d-1)}$")
    ax.set_yscale("log")
    from matplotlib.ticker import MaxNLocator
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(r"queue length $k$ (tasks)")
    ax.set_ylabel(r"fraction of queues with $\geq k$ tasks, $s_k$")
    place_legend(ax)
    _set_title(fig, title)
    _info(fig, "supermarket_tails", title="supermarket tails")
    return fig


@paper_style
def supermarket_distance(results: Mapping, *, reference: bool = True, width="single", height=None,
                         ylabel: str = r"$\sup_{t \leq T} \max_k |s^N_k(t) - s_k(t)|$",
                         title: str | None = None):
    r"""Distance of the occupancy process on graphs to the mean-field ODE against :math:`N` (log-log),
    one curve per graph family with 95 % intervals, and the :math:`N^{-1/2}` reference.

    Parameters
    ----------
    results : mapping label -> sequence of DistanceResult
        (or of ``(N, distance, (low, high))`` tuples).
    reference : bool
        Draw :math:`N^{-1/2}` (default True).
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style; a two-panel figure gets a figure title).
    ylabel : str
        The y-axis label.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = supermarket_distance({"complete": [(1000, 0.048, (0.04, 0.056)), (4000, 0.02, (0.017, 0.023))]})
    >>> fig.axes[0].get_xscale(), fig.axes[0].get_yscale()
    ('log', 'log')
    """
    fig, axes = new_figure(width, height)
    ax = axes[0, 0]
    allN = []
    for i, (label, rs) in enumerate(results.items()):
        Ns, y, lo = [], [], []
        for r in rs:
            if hasattr(r, "distance"):
                n, dist, ci = r.N, r.distance, r.ci
            else:
                n, dist, ci = r
            Ns.append(float(n))
            y.append(float(dist))
            lo.append(float(ci[0]) if ci is not None and np.isfinite(ci[0]) else float(dist))
        Ns, y, lo = map(np.asarray, (Ns, y, lo))
        allN.extend(Ns)
        ax.errorbar(Ns, y, yerr=np.clip(y - lo, 0, None), fmt="o", ms=3, color=f"C{i % 10}",
                    ls="--" if i >= 10 else "-", label=label)
    if reference and allN:
        g = np.geomspace(min(allN), max(allN), 50)
        ax.plot(g, 1.0 / np.sqrt(g), "k:", lw=0.8, label=r"$N^{-1/2}$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"number of vertices $N$")
    ax.set_ylabel(ylabel)
    place_legend(ax)
    _set_title(fig, title)
    _info(fig, "supermarket_distance", title="distance to the mean-field ODE")
    return fig


@paper_style
def mean_queue_vs_degree(points: Mapping, *, pair=None, mean_field=None, width="single", height=None,
                         title: str | None = None):
    r"""Stationary mean queue length per server against the degree :math:`k` of the graph (log
    :math:`k` axis): simulations with 95 % intervals, the pair approximation and the mean field.

    Parameters
    ----------
    points : mapping label -> sequence of (k, value)
        ``value`` a supermarket ``SimulationResult`` (its ``mean_queue_length`` and ``half_width``) or
        ``(mean, half_width)``.
    pair : (ks, values), optional
        The pair approximation's mean queue length at degrees ``ks``.
    mean_field : float, optional
        The complete-graph (mean-field) value.
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style; a two-panel figure gets a figure title).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = mean_queue_vs_degree({"random k-regular": [(2, (1.255, 0.002)), (6, (1.163, 0.001))]},
    ...                            mean_field=1.130118)
    >>> fig.axes[0].get_xlabel()
    'degree $k$ of the graph'
    """
    fig, axes = new_figure(width, height)
    ax = axes[0, 0]
    markers = "osD^v<>"
    for i, (label, pts) in enumerate(points.items()):
        ks, y, hw = [], [], []
        for k, v in pts:
            if hasattr(v, "mean_queue_length"):
                m, h = float(v.mean_queue_length), float(getattr(v, "half_width", 0.0))
            else:
                m, h = float(v[0]), float(v[1])
            ks.append(float(k))
            y.append(m)
            hw.append(h)
        ax.errorbar(ks, y, yerr=hw, fmt=markers[i % len(markers)], ms=3.5, color=f"C{i}", label=label)
    if pair is not None:
        ks, vals = pair
        ax.plot(np.asarray(ks, float), float_values(vals), "-", color="0.3", lw=0.9, label="pair approximation")
    if mean_field is not None:
        ax.axhline(float(mean_field), color="k", ls="--", lw=0.8, label="mean field (complete graph)")
    ax.set_xscale("log")
    ax.set_xlabel(r"degree $k$ of the graph")
    ax.set_ylabel(r"mean queue length $E[Q]$ (tasks per server)")
    place_legend(ax)
    _set_title(fig, title)
    _info(fig, "mean_queue_vs_degree", title="mean queue length against degree")
    return fig


@paper_style
def trajectories(t, series: Mapping, *, fixed: Mapping | None = None, log: bool = False, width="single",
                 height=None, xlabel: str = r"time $t$ (mean service times)", ylabel: str = "value",
                 title: str | None = None):
    r"""Time series (e.g. a fluid ODE from several starts) with optional fixed points as dotted lines;
    ``log=True`` for a log y axis (e.g. the distance to the fixed point).

    Parameters
    ----------
    t : sequence of float
        Times.
    series : mapping label -> sequence of float
        One value per time.
    fixed : mapping label -> float, optional
        Fixed points, drawn as dotted lines in the colour of their series.
    log : bool
        Log y axis.
    width, height : str or float, optional
        ``"single"`` (3.5 in), ``"double"`` (7.2 in) or inches; the height in inches (default from the
        width).
    title : str, optional
        A title (in the paper style; a two-panel figure gets a figure title).
    xlabel, ylabel : str
        Axis labels (with units).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = trajectories([0, 1, 2], {"$s_1$": [0.0, 0.5, 0.65]}, fixed={"$s_1$": 0.7}, ylabel="tail fraction")
    >>> fig.axes[0].get_ylabel()
    'tail fraction'
    """
    tt = _as_array(t, "t")
    fig, axes = new_figure(width, height)
    ax = axes[0, 0]
    for i, (label, vals) in enumerate(series.items()):
        y = float_values(vals)
        if y.shape != tt.shape:
            raise ValueError(f"series {label!r}: {y.size} values for {tt.size} times")
        ax.plot(tt, y, color=f"C{i}", label=label)
        if fixed and label in fixed:
            ax.axhline(float(fixed[label]), color=f"C{i}", lw=0.6, ls=":")
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_xlim(tt.min(), tt.max())
    place_legend(ax)
    _set_title(fig, title)
    _info(fig, "trajectories", title=ylabel)
    return fig
