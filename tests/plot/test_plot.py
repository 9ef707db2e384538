"""symloss.plot: every figure renders (Agg), has labelled axes, log axes where values span decades, a
legend that covers no data (checked here independently of symloss.plot's own placement: line
vertices and segment points, markers, error bars and text boxes against the legend's box, through the
matplotlib API), one- and two-column sizes, and saved files carry the provenance."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

mpl = pytest.importorskip("matplotlib")
mpl.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import symloss  # noqa: E402
from symloss import plot  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ------------------------------------------------------------------------------------------------
# independent checks
# ------------------------------------------------------------------------------------------------

def _data_display_points(ax, renderer) -> np.ndarray:
    pts = []
    for line in ax.get_lines():
        xy = line.get_xydata()
        if len(xy) == 0:
            continue
        d = line.get_transform().transform(xy)
        d = d[np.all(np.isfinite(d), axis=1)]
        pts.append(d)
        for a, b in zip(d[:-1], d[1:]):        # points along each segment, every pixel
            n = max(2, int(np.hypot(*(b - a))))
            pts.append(a + np.linspace(0, 1, n)[:, None] * (b - a))
    for coll in ax.collections:
        for path in coll.get_paths():
            v = coll.get_transform().transform(path.vertices)
            pts.append(v[np.all(np.isfinite(v), axis=1)])
        offs = np.asarray(coll.get_offsets(), float)
        if offs.size and len(getattr(coll, "get_sizes", lambda: [])()):
            pts.append(coll.get_offset_transform().transform(offs))
    for t in ax.texts:
        bb = t.get_window_extent(renderer)
        pts.append(np.array([[bb.x0, bb.y0], [bb.x1, bb.y1], [bb.x0, bb.y1], [bb.x1, bb.y0],
                             [(bb.x0 + bb.x1) / 2, (bb.y0 + bb.y1) / 2]]))
    pts = [p for p in pts if len(p)]
    return np.vstack(pts) if pts else np.zeros((0, 2))


def check_figure(fig, *, xlog=None, ylog=None, legend=True):
    """Labels on every axes, the expected scales, legends off the data."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    data_axes = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    assert data_axes
    for ax in data_axes:
        assert ax.get_xlabel().strip() or (ax.get_shared_x_axes().get_siblings(ax) and
                                           any(o.get_xlabel().strip() for o in ax.get_shared_x_axes().get_siblings(ax)))
        assert ax.get_ylabel().strip(), "every panel has a y label"
        assert "symloss." not in ax.get_ylabel() and "(" not in ax.get_title()[:1]
        if xlog is not None:
            assert ax.get_xscale() == xlog, (ax.get_xscale(), xlog)
        if ylog is not None:
            want = ylog if isinstance(ylog, str) else None
            if want:
                assert ax.get_yscale() == want
        leg = ax.get_legend()
        if legend:
            assert leg is not None or not ax.get_legend_handles_labels()[0]
        if leg is None:
            continue
        for txt in leg.get_texts():     # no Python reprs as labels
            assert not re.search(r"\w+\(\w+=", txt.get_text()), txt.get_text()
        bb = leg.get_window_extent(renderer)
        axbb = ax.get_window_extent(renderer)
        outside = bb.x0 >= axbb.x1 or bb.x1 <= axbb.x0 or bb.y0 >= axbb.y1 or bb.y1 <= axbb.y0
        if outside:
            continue
        pts = _data_display_points(ax, renderer)
        inside = ((pts[:, 0] > bb.x0) & (pts[:, 0] < bb.x1) & (pts[:, 1] > bb.y0) & (pts[:, 1] < bb.y1))
        assert not inside.any(), f"the legend of {ax.get_ylabel()!r} covers {int(inside.sum())} data points"
    return data_axes


# ------------------------------------------------------------------------------------------------
# the figures
# ------------------------------------------------------------------------------------------------

def test_retrial_vs_power_shows_the_thresholds():
    """C = 3 and C = 5 (d = 2, dt = 3): the certified thresholds 0.9496 and 2.962 are marked PROVED and
    the plotted ratio B_ret / B_pod (log axis) crosses 1 at each of them (not two curves on top of each
    other); the ratios span many decades, so a second panel shows them within a factor 2 of 1."""
    rho = np.geomspace(0.3, 20, 28)
    fig = plot.retrial_vs_power([3, 5], 2, 3, rho=rho)
    main, zoom = check_figure(fig, xlog="log")
    assert main.get_yscale() == "log" and zoom.get_yscale() == "log"
    texts = [t.get_text() for t in zoom.texts]
    assert texts == ["$\\rho^* = 0.9496$\nPROVED", "$\\rho^* = 2.962$\nPROVED"]
    for ax in (main, zoom):
        vlines = [ln for ln in ax.get_lines() if len(set(ln.get_xdata())) == 1]
        xs = sorted(float(ln.get_xdata()[0]) for ln in vlines)
        assert xs == pytest.approx([0.9496356040027, 2.9620286000896], rel=1e-9)
    curves = [ln for ln in main.get_lines() if ln.get_label() in ("$C = 3$", "$C = 5$")]
    assert len(curves) == 2
    for ln, thr in zip(curves, xs):
        x, y = ln.get_data()
        assert np.all(y[x < thr * 0.97] > 1) and np.all(y[x > thr * 1.03] < 1)   # crosses 1 at thr
        assert y[np.argmin(np.abs(x - thr))] == pytest.approx(1.0, abs=1e-9)     # the grid holds thr
    assert fig.get_size_inches().tolist() == [3.5, pytest.approx(2.52 * 1.75)]


def test_blocking_ratio_plain_data_and_far_below_the_float_range():
    import mpmath
    rho = [0.5, 1.0, 2.0]
    a = [mpmath.mpf("1e-2000"), mpmath.mpf("1e-5"), mpmath.mpf("0.3")]
    b = [mpmath.mpf("1e-2100"), mpmath.mpf("2e-5"), mpmath.mpf("0.29")]
    fig = plot.blocking_ratio(rho, a, b, thresholds=0.8, width="double", zoom=None)
    (ax,) = check_figure(fig, xlog="log", legend=False)
    assert ax.get_yscale() == "log"
    y = ax.get_lines()[0].get_ydata()
    assert y[0] == pytest.approx(1e100) and y[1] == pytest.approx(0.5)          # the ratio itself
    assert [t.get_text() for t in ax.texts] == ["$\\rho^* = 0.8$\nEVIDENCE"]     # a number: not a proof
    assert fig.get_size_inches()[0] == pytest.approx(7.2)
    with pytest.raises(ValueError, match="one value per load"):
        plot.blocking_ratio(rho, a[:2], b)


def test_blocking_curves_log_log_and_labels_from_models():
    rho = np.geomspace(0.2, 10, 12)
    models = [symloss.RandomRouting(2), symloss.RetrialOfD(2, 2), symloss.PowerOfD(2, 2), symloss.JSQ(2)]
    fig = plot.blocking_curves(rho, models)
    (ax,) = check_figure(fig, xlog="log", ylog="log")
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["random routing", "retrial-of-2", "power-of-2", "JSQ"]
    # values below the float range: log10 on a linear axis, said in the label
    fig = plot.blocking_curves([0.1, 0.2], {"tiny": [symloss.erlang_b(10**6, 9 * 10**5), 1e-3]})
    (ax,) = check_figure(fig, xlog="log")
    assert ax.get_yscale() == "linear" and "log_{10}" in ax.get_ylabel()
    assert ax.get_lines()[0].get_ydata()[0] == pytest.approx(-2331.44, abs=0.01)


def test_jsq_heatmap_integer_ticks_and_labelled_colour_bar():
    d = symloss.TwoQueueJSQ(12, 12).stationary_distribution()
    fig = plot.jsq_heatmap(d)
    ax = fig.axes[0]
    cbar = [a for a in fig.axes if a.get_label() == "<colorbar>"]
    assert len(cbar) == 1 and "p(m, n)" in cbar[0].get_ylabel()
    assert ax.get_xlabel() and ax.get_ylabel()
    fig.canvas.draw()
    for axis in (ax.xaxis, ax.yaxis):
        ticks = [t for t in axis.get_ticklocs() if -0.5 <= t <= 12.5]
        assert ticks and all(float(t).is_integer() for t in ticks)
    img = ax.get_images()[0].get_array()
    assert img.shape == (13, 13) and np.nanmax(img) <= 0          # log10 of probabilities
    with pytest.raises(ValueError):
        plot.jsq_heatmap([1, 2, 3])


def test_exact_vs_asymptotic_two_log_log_panels():
    rho = np.array([20.0, 40.0, 80.0, 160.0])
    exact = [symloss.TwoQueueJSQ(int(r / 2), r).stationary_distribution().imbalance()[0] for r in rho]
    asym = [float(symloss.TwoQueueJSQ(int(r / 2), r).asymptotic("imbalance")[0]) for r in rho]
    fig = plot.exact_vs_asymptotic(rho, exact, asym, ylabel=r"$P(m = n)$", reference_slope=-1)
    axes = check_figure(fig, xlog="log")
    assert len(axes) == 2 and all(a.get_yscale() == "log" for a in axes)
    err = axes[1].get_lines()[0].get_ydata()
    assert np.all(np.diff(err) < 0)                                 # the error falls with rho
    assert "relative error" in axes[1].get_ylabel()


def test_finite_n_with_refined_predictions():
    Ns = [5, 10, 20, 40]
    exact = [symloss.exact_finite_n("power", N, 2, 1.0, 2) for N in Ns]
    rm = symloss.refined_mean_field("power", rho=1.0, C=2, d=2)
    fig = plot.finite_n(Ns, exact, mean_field=rm)
    top, bottom = check_figure(fig, xlog="log")
    assert bottom.get_yscale() == "log"
    labels = [t.get_text() for t in top.get_legend().get_texts()]
    assert any("V/N" in t and "W/N^2" not in t for t in labels) and any("W/N^2" in t for t in labels)
    blabels = [t.get_text() for t in bottom.get_legend().get_texts()]
    assert any("theory $-1$" in t for t in blabels) and any("theory $-2$" in t for t in blabels)
    assert "least-squares fit of the tail" in blabels


def test_regret_decomposition_single_and_double():
    study = symloss.OverloadedLossNetwork.decomposition_study([10, 30], 0.5, 1.0, 2.0, 1.0, 1.0, horizon=3.0,
                                                              replications=2, c=(8,), seed=1)
    for width, shape in (("single", "rows"), ("double", "cols")):
        fig = plot.regret_decomposition(study, width=width)
        axes = check_figure(fig, xlog="log")
        assert len(axes) == 2
        p0, p1 = (a.get_position() for a in axes)
        assert (p0.y0 > p1.y0) if shape == "rows" else (p0.x0 < p1.x0)


def test_supermarket_figures():
    mf = symloss.Supermarket(2, 0.7)
    fp = mf.fixed_point(20)
    pa = symloss.pair_approximation(3, 0.7)
    fig = plot.supermarket_tails({"mean field": fp, "pair approximation, k = 3": pa}, lam=0.7, d=2, k_max=6)
    (ax,) = check_figure(fig, ylog="log")
    dist = {"complete": [(500, 0.05, (0.04, 0.06)), (2000, 0.026, (0.02, 0.03))],
            "ring": [(500, 0.06, (0.05, 0.07)), (2000, 0.045, (0.04, 0.05))]}
    fig = plot.supermarket_distance(dist)
    (ax,) = check_figure(fig, xlog="log", ylog="log")
    fig = plot.mean_queue_vs_degree({"simulation": [(2, (1.255, 0.002)), (3, (1.20, 0.002)), (6, (1.16, 0.002))]},
                                    pair=([2, 3, 6], [1.2553, 1.2022, 1.1615]), mean_field=1.130118)
    check_figure(fig, xlog="log")
    sol = mf.ode(None, 5.0)
    fig = plot.trajectories(sol.t, {f"$s_{k}$": sol.s[:, k] for k in (1, 2, 3)},
                            fixed={f"$s_{k}$": float(fp.s[k]) for k in (1, 2, 3)}, ylabel="tail fraction")
    check_figure(fig)


def test_legend_goes_above_when_every_corner_is_covered():
    fig, axes = plot._style.new_figure("single")
    ax = axes[0, 0]
    x = np.linspace(0, 1, 50)
    for k in range(6):            # curves through every corner and the middle
        ax.plot(x, (x * (k + 1)) % 1.0, label=f"series {k}")
        ax.plot(x, 1 - (x * (k + 1)) % 1.0)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    leg = plot.place_legend(ax)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    bb, axbb = leg.get_window_extent(r), ax.get_window_extent(r)
    assert bb.y0 >= axbb.y1 - 1                                    # above the axes
    assert not plot.legend_overlaps_data(ax)


def test_the_independent_check_catches_a_legend_on_the_data():
    fig, axes = plot._style.new_figure("single")
    ax = axes[0, 0]
    x = np.linspace(0, 1, 100)
    ax.plot(x, 0.5 + 0 * x, label="flat line through the middle")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.legend(loc="center")
    with pytest.raises(AssertionError, match="covers"):
        check_figure(fig)
    assert plot.legend_overlaps_data(ax)


def test_place_legend_prefers_a_free_corner():
    fig, axes = plot._style.new_figure("single")
    ax = axes[0, 0]
    x = np.linspace(0, 1, 100)
    ax.plot(x, x ** 3, label="cubic")          # leaves the upper left corner free
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    leg = plot.place_legend(ax)
    assert leg._loc in (2, 1)                  # 'upper left' (2) or 'upper right' if it fits there
    check_figure(fig)


def test_savefig_writes_pdf_and_png_with_provenance(tmp_path):
    fig = plot.blocking_curves([0.5, 1, 2], {"retrial-of-2": [0.01, 0.07, 0.3]})
    paths = plot.savefig(fig, tmp_path / "fig.pdf", formats=("pdf", "png"))
    assert [p.suffix for p in paths] == [".pdf", ".png"] and all(p.stat().st_size > 1000 for p in paths)
    from PIL import Image
    prov = json.loads(Image.open(paths[1]).text["Provenance"])
    assert prov["symloss"] == symloss.__version__ and prov["figure"] == "blocking_curves"
    assert {"dependencies", "command", "date", "python"} <= set(prov)
    raw = paths[0].read_bytes()
    assert b"/Creator (symloss " in raw and b"/Subject" in raw and b"blocking_curves" in raw
    with pytest.raises(ValueError, match="must end in"):
        plot.savefig(fig, tmp_path / "fig.jpg")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        plot.savefig(fig, tmp_path / "missing" / "fig.pdf")


def test_sizes_and_bad_input():
    assert plot.figure_size("single")[0] == 3.5 and plot.figure_size("double")[0] == 7.2
    assert plot.figure_size(5.0, 2.0) == (5.0, 2.0)
    with pytest.raises(ValueError, match="width must be"):
        plot.figure_size("triple")
    with pytest.raises(TypeError, match="width must be"):
        plot.figure_size([1])
    with pytest.raises(ValueError, match="finite and positive"):
        plot.blocking_curves([0, 1], {"a": [0.1, 0.2]})


def test_blocking_ratio_of_models_refines_the_zoom_band():
    """Curves given as models: the cells where the ratio is within the zoom band get eight more loads
    each (the magnified panel is smooth), the rest of the grid is unchanged; data curves are drawn on
    the given grid only."""
    rho = np.geomspace(0.2, 20, 12)
    ret, pod = symloss.RetrialOfD(3, 3), symloss.PowerOfD(3, 2)
    fig = plot.blocking_ratio(rho, {"models": (ret, pod)}, labels=("retrial-of-3", "power-of-2"), zoom=2.0)
    x = fig.axes[1].get_lines()[0].get_xdata()
    assert len(x) > len(rho) and set(rho) <= set(x)
    y = np.log10(fig.axes[1].get_lines()[0].get_ydata())
    near = np.abs(y) < 1.5 * np.log10(2.0)
    assert np.all(np.diff(np.log(x))[near[:-1] & near[1:]] < np.log(rho[1] / rho[0]) / 8)
    for r in x[::7]:    # every drawn point is the models' ratio at that load
        assert np.isclose(10 ** y[list(x).index(r)], float(ret.blocking(r) / pod.blocking(r)), rtol=1e-9)
    a = [float(ret.blocking(r)) for r in rho]
    b = [float(pod.blocking(r)) for r in rho]
    fig2 = plot.blocking_ratio(rho, a, b, zoom=2.0)
    assert len(fig2.axes[1].get_lines()[0].get_xdata()) == len(rho)
    plt.close("all")


def test_trajectories_styles_and_their_errors():
    t = [0.0, 1.0, 2.0]
    fig = plot.trajectories(t, {"a": [[0.1, 0.2, 0.3], [0.2, 0.3, 0.4]], "b": [0.5, 0.5, 0.5]},
                            styles={"a": {"color": "C3", "lw": 2.0}, "b": {"ls": "--"}})
    lines = fig.axes[0].get_lines()
    assert lines[0].get_linewidth() == 2.0 and lines[1].get_color() == "C3"
    assert lines[2].get_linestyle() == "--" and lines[2].get_color() == "C1"
    with pytest.raises(TypeError, match="'c', which is not a series"):
        plot.trajectories(t, {"a": [0.1, 0.2, 0.3]}, styles={"c": {}})
    with pytest.raises(TypeError, match=r"styles\['a'\] must be a dict"):
        plot.trajectories(t, {"a": [0.1, 0.2, 0.3]}, styles={"a": "red"})
    plt.close("all")
