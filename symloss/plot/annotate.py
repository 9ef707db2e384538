r"""What the figures of :mod:`symloss.plot.figures` mark and fit: threshold marks (PROVED for a
re-checked certificate, EVIDENCE for a number), fitted tail slopes, and the small helpers every figure
function shares (titles, provenance info, array checks). Re-exported by :mod:`symloss.plot.figures`.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

from ..meanfield.certified import verify_comparison
from ._legend import _layout, _renderer, place_legend
from ._style import (
    float_values,
)

__all__ = ["threshold_marks", "tail_slope"]

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


def _finish(fig, name: str, title, about: str, *, legend=None, **info):
    """The last steps of every figure function: the legend of the axes ``legend`` placed off the data
    (:func:`place_legend`, when given), the ``title`` set (:func:`_set_title`), the provenance recorded
    (:func:`_info`: the figure's ``name``, ``info`` and ``about``, what it shows); returns ``fig``."""
    if legend is not None:
        place_legend(legend)
    _set_title(fig, title)
    _info(fig, name, **info, title=about)
    return fig


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

PROVED, EVIDENCE = "PROVED", "EVIDENCE"


def threshold_marks(thresholds) -> list[tuple[float, str]]:
    r"""The loads to mark and how each is known: ``"PROVED"`` or ``"EVIDENCE"``.

    ``PROVED`` only where the object says it is certified: a
    :class:`~symloss.meanfield.certified.CertifiedComparison` (from
    :func:`~symloss.meanfield.certified.certified_threshold` /
    :func:`~symloss.meanfield.certified.certified_comparison`: every crossing on :math:`(0, \infty)`
    in an interval of width :math:`\le 10^{-\mathrm{dps}}`, with a certificate that
    :func:`~symloss.meanfield.certified.verify_comparison` re-checks; each crossing is marked at its
    interval's midpoint). A number (e.g. the :class:`~symloss.ThresholdLoad` of :func:`symloss.threshold_load`, the end of a
    float scan whose crossings are bisected with certified signs but whose search is not a proof) and
    any :class:`~symloss.CrossingResult` are ``EVIDENCE``: even the eliminant method's ``certified``
    crossings carry no stored certificate that an independent re-check verifies (use
    :func:`~symloss.meanfield.certified.certified_threshold` for a PROVED mark).

    Parameters
    ----------
    thresholds : None, number, mpf, sequence of those, CrossingResult or CertifiedComparison
        What to mark (None: nothing).

    Returns
    -------
    list of (float, str)
        Each load with its status, in the order of the object (the crossings of a comparison in the
        order it lists them).

    Raises
    ------
    TypeError
        For an object that is none of these, or a sequence with an element that is not a number.

    Examples
    --------
    >>> threshold_marks(0.8)
    [(0.8, 'EVIDENCE')]
    >>> from symloss.meanfield.certified import certified_threshold
    >>> [(round(v, 6), s) for v, s in threshold_marks(certified_threshold(3, 2, 3, dps=15))]
    [(0.949636, 'PROVED')]
    """
    if thresholds is None:
        return []
    if hasattr(thresholds, "certificate") and hasattr(thresholds, "pieces") and hasattr(thresholds, "crossings"):
        out = []
        for c in thresholds.crossings:         # CertifiedComparison: Crossing(rho_lo, rho_hi, sign_after)
            with mpmath.workdps(40):
                mid = (mpmath.mpf(c.rho_lo) + mpmath.mpf(c.rho_hi)) / 2
            out.append((float(mid), PROVED))
        return out
    if hasattr(thresholds, "crossings") and hasattr(thresholds, "guarantee"):   # CrossingResult
        return [(float(t), EVIDENCE) for t in thresholds.crossings]   # no re-checkable certificate
    if not isinstance(thresholds, (list, tuple, np.ndarray)):
        thresholds = [thresholds]
    out = []
    for t in thresholds:
        try:
            out.append((float(t), EVIDENCE))
        except (TypeError, ValueError):
            raise TypeError("thresholds must be numbers, a CrossingResult or a CertifiedComparison (or a "
                            f"mapping label -> those), got a {type(t).__name__}") from None
    return out


def _recheck(thresholds, model_a, model_b):
    """Re-check a CertifiedComparison's certificate for the two models (raises CertificateMismatch)."""
    if hasattr(thresholds, "certificate") and hasattr(thresholds, "pieces"):
        verify_comparison(thresholds.certificate, model_a, model_b)


def _is_model(x) -> bool:
    return hasattr(x, "blocking") and callable(getattr(x, "blocking"))


def _line_points(ax) -> np.ndarray:
    """Display coordinates along every visible line of ``ax`` (about every 2 px)."""
    pts = []
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        xy = np.column_stack(line.get_data(orig=False)).astype(float)
        if not len(xy):
            continue
        d = line.get_transform().transform(xy)
        d = d[np.all(np.isfinite(d), axis=1)]
        for p, q in zip(d[:-1], d[1:]):
            n = int(min(400, max(2, np.hypot(*(q - p)) / 2.0)))
            pts.append(p + np.linspace(0, 1, n)[:, None] * (q - p))
        pts.append(d)
    return np.vstack(pts) if pts else np.zeros((0, 2))


def _mark_thresholds(ax, marks, colour) -> None:
    """Vertical lines at the marked loads (dotted: PROVED, dashed: EVIDENCE), each with its value and
    status written beside it, inside the axes, at the top or the bottom, on the side of the line where
    it covers the fewest drawn points (other labels included)."""
    fig = ax.figure
    x0, x1 = ax.get_xlim()
    for value, status in marks:
        if not (min(x0, x1) <= value <= max(x0, x1)):
            continue
        ax.axvline(value, color=colour, lw=0.8, ls=":" if status == PROVED else "--", zorder=1)
    _layout(fig)
    renderer = _renderer(fig)
    pts = _line_points(ax)
    axbb = ax.get_window_extent(renderer)
    for value, status in marks:
        if not (min(x0, x1) <= value <= max(x0, x1)):
            continue
        best = None
        for above in (True, False):
            for right in (True, False):
                t = ax.annotate(rf"$\rho^* = {value:.4g}$" + "\n" + status, xy=(value, 0.97 if above else 0.03),
                                xycoords=("data", "axes fraction"), xytext=(3 if right else -3, 0),
                                textcoords="offset points", fontsize=6.5, color=colour,
                                ha="left" if right else "right", va="top" if above else "bottom",
                                linespacing=1.1)
                bb = t.get_window_extent(renderer)
                inside_axes = bb.x0 >= axbb.x0 - 1 and bb.x1 <= axbb.x1 + 1
                hit = int(np.sum((pts[:, 0] >= bb.x0 - 1) & (pts[:, 0] <= bb.x1 + 1) &
                                 (pts[:, 1] >= bb.y0 - 1) & (pts[:, 1] <= bb.y1 + 1))) if len(pts) else 0
                score = (not inside_axes, hit)
                t.remove()
                if best is None or score < best[0]:
                    best = (score, above, right)
        _, above, right = best
        t = ax.annotate(rf"$\rho^* = {value:.4g}$" + "\n" + status, xy=(value, 0.97 if above else 0.03),
                        xycoords=("data", "axes fraction"), xytext=(3 if right else -3, 0),
                        textcoords="offset points", fontsize=6.5, color=colour,
                        ha="left" if right else "right", va="top" if above else "bottom", linespacing=1.1)
        bb = t.get_window_extent(renderer)       # later labels avoid this one
        xs, ys = np.linspace(bb.x0, bb.x1, 12), np.linspace(bb.y0, bb.y1, 4)
        pts = np.vstack([pts, np.array([(x, y) for x in xs for y in ys])])



def tail_slope(x, y, *, fraction: float = 0.5, min_points: int = 3):
    r"""Least-squares slope of :math:`\log y` against :math:`\log x` on the tail (the largest ``x``).

    Parameters
    ----------
    x, y : array_like
        Positive values (non-positive or non-finite pairs are left out).
    fraction : float
        Share of the points (the largest ``x``) in the fit; at least ``min_points`` (or all there are).
    min_points : int
        Fewest points of the fit.

    Returns
    -------
    (float, float, numpy.ndarray) or None
        Slope, intercept (of :math:`\log_{10} y = \mathrm{intercept} + \mathrm{slope}\,\log_{10} x`) and
        the ``x`` of the points fitted; None with fewer than two usable points.

    Examples
    --------
    >>> slope, intercept, xs = tail_slope([1, 10, 100, 1000], [1, 0.1, 0.01, 0.001])
    >>> round(slope, 12), xs.tolist()
    (-1.0, [10.0, 100.0, 1000.0])
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    x, y = x[ok], y[ok]
    if x.size < 2:
        return None
    order = np.argsort(x)
    x, y = x[order], y[order]
    n = min(x.size, max(min_points, int(math.ceil(fraction * x.size))))
    x, y = x[-n:], y[-n:]
    slope, intercept = np.polyfit(np.log10(x), np.log10(y), 1)
    return float(slope), float(intercept), x


def _slope_text(slope: float) -> str:
    return f"${slope:.2f}$"


def _draw_fit(ax, x, y, data_line, *, theory: float | None = None):
    """The least-squares line of the tail of ``(x, y)`` on log-log axes (black, dotted, one legend entry
    "least-squares fit of the tail" per axes); the slope it has (and the slope expected in theory,
    when given) is appended to the legend label of ``data_line``. The fit line's ``gid`` is that label."""
    fit = tail_slope(x, y)
    if fit is None:
        return None
    slope, intercept, xs = fit
    g = np.geomspace(xs.min(), xs.max(), 30)
    label = f"{data_line.get_label()}: slope {_slope_text(slope)}"
    if theory is not None:
        label += f" (theory ${theory:g}$)"
    data_line.set_label(label)
    first = not any(getattr(ln, "_symloss_fit", False) for ln in ax.get_lines())
    (ln,) = ax.plot(g, 10.0 ** (intercept + slope * np.log10(g)), color="k", ls=":", lw=0.9, zorder=3,
                    label="least-squares fit of the tail" if first else None)
    ln._symloss_fit = True
    ln.set_gid(label)
    return slope
