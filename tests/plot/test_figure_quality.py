"""Figures a reviewer accepts (issue 26, item 2), checked on the drawn figures through the matplotlib API,
independently of symloss.plot's own layout code:

* nothing clipped: every visible text (tick labels, axis labels, titles, annotations), legend and axes
  lies inside the figure (1 px tolerance) -- for every figure function, one and two columns;
* no symlog axis anywhere; ratios on log axes;
* probability axes end at 1 (and values above 1 are refused);
* one font family among all texts (text and mathtext);
* legends inside covering at most 25 % of the axes, or above the axes;
* legend labels from the models' names, never a Python repr;
* a drawn slope line has the slope its label says (fitted from the data);
* thresholds marked PROVED only for certified objects, EVIDENCE for plain numbers and scans.

The helpers are shown to fail on figures made to break each rule (a check that cannot fail proves
nothing)."""
from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

mpl = pytest.importorskip("matplotlib")
mpl.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import symloss  # noqa: E402
from symloss import plot  # noqa: E402

REPR = re.compile(r"[A-Za-z_]\w*\(\w+=")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ------------------------------------------------------------------------------------------------
# independent checks
# ------------------------------------------------------------------------------------------------

def _drawn_tick_labels(ax):
    """The tick labels matplotlib draws: visible, non-empty, at a tick inside the view interval."""
    out = []
    for axis, coord in ((ax.xaxis, 0), (ax.yaxis, 1)):
        axbb = ax.get_window_extent()
        lo, hi = (axbb.x0, axbb.x1) if coord == 0 else (axbb.y0, axbb.y1)
        for ticks in (axis.get_major_ticks(), axis.get_minor_ticks()):
            for tick in ticks:
                loc = tick.get_loc()
                if loc is None or not np.isfinite(loc):
                    continue
                pt = (loc, 0) if coord == 0 else (0, loc)
                disp = ax.transData.transform(pt)[coord]
                if not (lo - 1 <= disp <= hi + 1):
                    continue
                for lab in (tick.label1, tick.label2):
                    if lab.get_visible() and lab.get_text() and tick.get_visible():
                        out.append(lab)
    return out


def _canvas(fig):
    """The figure's Agg canvas (a figure closed by pyplot keeps only a base canvas)."""
    if not hasattr(fig.canvas, "get_renderer"):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        FigureCanvasAgg(fig)
    return fig.canvas


def drawn_texts(fig, draw: bool = True):
    """Every text artist that is drawn: figure texts, titles, axis labels, offset texts, tick labels,
    annotations and legend texts (visible, non-empty). ``draw=False``: the figure was drawn already."""
    if draw:
        _canvas(fig).draw()
    texts = [t for t in fig.texts if t.get_visible() and t.get_text()]
    sup = getattr(fig, "_suptitle", None)
    if sup is not None and sup.get_visible() and sup.get_text():
        texts.append(sup)
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for t in (ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label,
                  ax.xaxis.get_offset_text(), ax.yaxis.get_offset_text()):
            if t.get_visible() and t.get_text():
                texts.append(t)
        texts.extend(_drawn_tick_labels(ax))
        texts.extend(t for t in ax.texts if t.get_visible() and t.get_text())
        leg = ax.get_legend()
        if leg is not None and leg.get_visible():
            texts.extend(t for t in leg.get_texts() if t.get_text())
            if leg.get_title().get_text():
                texts.append(leg.get_title())
    return texts


def assert_nothing_clipped(fig, tol: float = 1.0, draw: bool = True):
    """Draw the canvas; every visible text, every legend and every axes lies within the figure."""
    texts = drawn_texts(fig, draw)
    renderer = _canvas(fig).get_renderer()
    W, H = fig.bbox.width, fig.bbox.height
    boxes = [(f"text {t.get_text()!r}", t.get_window_extent(renderer)) for t in texts]
    for ax in fig.axes:
        boxes.append((f"axes {ax.get_label() or ax.get_ylabel()!r}", ax.get_window_extent(renderer)))
        leg = ax.get_legend()
        if leg is not None and leg.get_visible():
            boxes.append(("legend", leg.get_window_extent(renderer)))
    bad = [(what, (round(b.x0, 1), round(b.y0, 1), round(b.x1, 1), round(b.y1, 1))) for what, b in boxes
           if b.x0 < -tol or b.y0 < -tol or b.x1 > W + tol or b.y1 > H + tol]
    assert not bad, f"clipped by the figure's edge ({W:.0f} x {H:.0f} px): {bad}"


def assert_one_font_family(fig, draw: bool = True):
    texts = drawn_texts(fig, draw)
    families = {t.get_fontname() for t in texts}
    math_sets = {t.get_math_fontfamily() for t in texts if "$" in t.get_text()}
    assert families == {plot.FONT_FAMILY}, families
    assert math_sets <= {plot.MATH_FONTSET}, math_sets


def assert_legends_small_or_above(fig, share: float = 0.25, draw: bool = True):
    if draw:
        _canvas(fig).draw()
    r = _canvas(fig).get_renderer()
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None:
            continue
        bb, axbb = leg.get_window_extent(r), ax.get_window_extent(r)
        above = bb.y0 >= axbb.y1 - 1
        inside = bb.x0 >= axbb.x0 - 1 and bb.x1 <= axbb.x1 + 1 and bb.y0 >= axbb.y0 - 1 and bb.y1 <= axbb.y1 + 1
        assert above or inside, f"legend neither inside nor above the axes: {bb} vs {axbb}"
        if inside:
            assert bb.width * bb.height <= share * axbb.width * axbb.height, \
                f"legend covers {bb.width * bb.height / (axbb.width * axbb.height):.0%} of the axes"
        for t in leg.get_texts():
            assert not REPR.search(t.get_text()), f"a Python repr as a legend label: {t.get_text()!r}"


def assert_no_symlog(fig):
    for ax in fig.axes:
        assert ax.get_xscale() != "symlog" and ax.get_yscale() != "symlog", ax.get_ylabel()


# ------------------------------------------------------------------------------------------------
# every figure function with small inputs
# ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def study():
    return _fake_study()


def _fake_study():
    """A small regret decomposition in the shape of DecompositionStudy (numbers made up: the figure's
    layout is under test here; tests/plot/test_plot.py draws a computed study)."""
    from types import SimpleNamespace as NS
    est = lambda v, h: NS(value=v, half_width=h)                    # noqa: E731
    decs = [NS(N=N, C_vol=est(0.4, 0.05), C_long={4: est(0.3, 0.04), 8: est(0.1, 0.03)},
               C_short={4: est(0.2 * math.log(N), 0.05), 8: est(0.3 * math.log(N), 0.05)},
               online_regret=1.0 + 0.5 * math.log(N)) for N in (10, 30, 100)]
    fits = {f"C_short[c={c}]": NS(intercept=0.0, slope=b) for c, b in ((4, 0.2), (8, 0.3))}
    return NS(decompositions=decs, fits=fits)


@pytest.fixture(scope="module")
def certified_3_2_3():
    from symloss.meanfield.certified import certified_threshold
    return certified_threshold(3, 2, 3, dps=15)


def _figures(width, study, cert):
    """(name, figure, indices of the axes that show a probability)."""
    rho = [0.3, 0.6, 1.0, 2.0, 4.0]
    ratio_a = [1e-4, 3e-3, 0.03, 0.2, 0.45]
    ratio_b = [5e-5, 2e-3, 0.035, 0.22, 0.47]
    n = np.array([10.0, 20.0, 40.0, 80.0])
    t = np.linspace(0, 5, 30)
    yield "blocking_ratio", plot.blocking_ratio(rho, ratio_a, ratio_b, thresholds=0.8, width=width), ()
    yield "blocking_ratio(zoom, certified)", plot.blocking_ratio(
        [0.3, 0.6, 0.9496356040027, 2.0, 4.0], {"$C = 3$": ([1e-9, 1e-5, 0.05, 0.3, 0.5],
                                                          [1e-12, 1e-6, 0.05, 0.32, 0.52])},
        thresholds={"$C = 3$": cert}, width=width, title="a title above the legend"), ()
    yield "retrial_vs_power", plot.retrial_vs_power(3, 2, 3, rho=[0.5, 0.8, 1.2, 2.0], width=width), ()
    yield "blocking_curves", plot.blocking_curves(
        [0.5, 1.0, 2.0], [symloss.RandomRouting(2), symloss.RetrialOfD(2, 2), symloss.PowerOfD(2, 2)],
        width=width, title="$C = 2$"), (0,)
    yield "jsq_heatmap", plot.jsq_heatmap(symloss.TwoQueueJSQ(6, 6).stationary_distribution(), width=width), ()
    yield "exact_vs_asymptotic", plot.exact_vs_asymptotic(
        n, 0.5 / n, 0.5 / n * (1 + 2 * n ** -1.5), ylabel=r"$P(m = n)$", reference_slope=-1, probability=True,
        width=width, title="regime $a > 1/2$"), (0,)
    yield "finite_n", plot.finite_n(n, 0.05 + 0.2 / n + 0.3 / n ** 2, mean_field=0.05, V=0.2, width=width,
                                    title="power-of-2, $C = 2$"), (0,)
    yield "regret_decomposition", plot.regret_decomposition(study, width=width), ()
    yield "supermarket_tails", plot.supermarket_tails(
        {"mean field": [1.0, 0.7, 0.343, 0.0576], "simulation, ring": [1.0, 0.7, 0.45, 0.25, 0.12]},
        lam=0.7, d=2, k_max=5, width=width, title="stationary tails"), (0,)
    yield "supermarket_distance", plot.supermarket_distance(
        {f"family {i}": [(500, 0.05 + 0.01 * i, (0.04, 0.06 + 0.01 * i)), (2000, 0.03 + 0.01 * i, None)]
         for i in range(6)}, width=width, title="distance to the ODE"), ()
    yield "mean_queue_vs_degree", plot.mean_queue_vs_degree(
        {"simulation, random $k$-regular": [(2, (1.255, 0.002)), (3, (1.20, 0.002)), (6, (1.16, 0.002))],
         "simulation, ring": [(2, (1.26, 0.003))], "simulation, torus": [(4, (1.19, 0.003))]},
        pair=([2, 3, 6], [1.2553, 1.2022, 1.1615]), mean_field=1.130118, width=width,
        title="JSQ(2) on $k$-regular graphs"), ()
    yield "trajectories", plot.trajectories(
        t, {"retrial-of-2": np.array([0.3 * np.exp(-t), 0.2 * np.exp(-1.1 * t)]) + 1e-12,
            "power-of-2": 0.25 * np.exp(-0.9 * t) + 1e-12}, log=True, probability=True,
        ylabel=r"$|B(t) - B^*|$", width=width), (0,)


@pytest.fixture(scope="module", params=["single", "double"])
def figures(request, study, certified_3_2_3):
    figs = list(_figures(request.param, study, certified_3_2_3))
    for _, f, _ in figs:          # drawn once here; the checks below read the drawn figures
        _canvas(f).draw()
    yield figs
    for _, f, _ in figs:
        plt.close(f)


def test_every_figure_function_is_covered(figures):
    names = {name.split("(")[0] for name, _, _ in figures}
    figure_functions = set(plot.figures.__all__) - {"threshold_marks", "tail_slope"}
    assert figure_functions <= names, figure_functions - names


def test_nothing_clipped(figures):
    for name, fig, _ in figures:
        try:
            assert_nothing_clipped(fig, draw=False)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None


def test_no_symlog_anywhere(figures):
    for name, fig, _ in figures:
        assert_no_symlog(fig)
    src = "".join(p.read_text() for p in Path(plot.__file__).parent.glob("*.py"))
    assert "symlog" not in src


def test_probability_axes_end_at_one(figures):
    for name, fig, prob_axes in figures:
        for i in prob_axes:
            top = max(fig.axes[i].get_ylim())
            assert top <= 1.0, (name, top)


def test_one_font_family(figures):
    for name, fig, _ in figures:
        try:
            assert_one_font_family(fig, draw=False)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None


def test_legends_inside_and_small_or_above(figures):
    for name, fig, _ in figures:
        try:
            assert_legends_small_or_above(fig, draw=False)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None


def test_constrained_layout_everywhere(figures):
    for name, fig, _ in figures:
        assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine", name


def test_a_title_goes_above_a_legend_above_the_axes():
    x = np.linspace(0, 1, 50)
    with plot.paper_rc():
        fig, axes = plot.new_figure("single")
        ax = axes[0, 0]
        for k in range(5):
            ax.plot(x, (x * (k + 1)) % 1.0, label=f"series number {k}")
        ax.set_title("a title")
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        plot.place_legend(ax)
        plot.finish_figure(fig)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    leg, title = ax.get_legend().get_window_extent(r), ax.title.get_window_extent(r)
    assert plot.legend_is_above(ax)
    assert title.y0 >= leg.y1 - 1                                  # the title clears the legend
    assert_nothing_clipped(fig)
    assert_one_font_family(fig)


# ------------------------------------------------------------------------------------------------
# the checks fail where they should
# ------------------------------------------------------------------------------------------------

def test_the_clipping_check_catches_a_clipped_label():
    fig, ax = plt.subplots(figsize=(3.5, 2.5))                     # plain matplotlib, no layout engine
    ax.plot([1, 2], [1, 2])
    ax.set_ylabel("a y label much longer than the height of this small figure, certainly clipped")
    with pytest.raises(AssertionError, match="clipped"):
        assert_nothing_clipped(fig)
    # the same label through symloss.plot is wrapped and fits
    with plot.paper_rc():
        fig2, axes = plot.new_figure("single")
        axes[0, 0].plot([1, 2], [1, 2])
        axes[0, 0].set_ylabel("a y label much longer than the height of this small figure, certainly clipped")
        plot.finish_figure(fig2)
    assert "\n" in axes[0, 0].get_ylabel()
    assert_nothing_clipped(fig2)


def test_the_font_check_catches_mixed_fonts():
    fig, ax = plt.subplots()                                       # matplotlib's default DejaVu Sans
    ax.plot([1, 2], [1, 2])
    ax.set_xlabel(r"load $\rho$")
    with pytest.raises(AssertionError):
        assert_one_font_family(fig)


def test_the_legend_check_catches_a_large_legend_and_a_repr():
    fig, ax = plt.subplots(figsize=(3.5, 2.5))
    for k in range(8):
        ax.plot([0, 1], [k, k], label=f"a rather long legend entry {k}")
    ax.legend(loc="center")
    with pytest.raises(AssertionError, match="covers"):
        assert_legends_small_or_above(fig)
    fig, ax = plt.subplots(figsize=(3.5, 2.5))
    ax.plot([0, 1], [0, 1], label=repr(symloss.PowerOfD(3, 3)))
    ax.legend(loc="upper left")
    with pytest.raises(AssertionError, match="repr"):
        assert_legends_small_or_above(fig)


def test_place_legend_refuses_a_large_share_and_goes_above():
    fig, axes = plot.new_figure("double")
    ax = axes[0, 0]
    ax.plot([0, 1], [0, 0.01], label="low line")
    for k in range(8):                      # entries that are many but leave the upper corners free
        ax.plot([], [], label=f"an empty series with a long name {k}")
    leg = plot.place_legend(ax)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    assert plot.legend_is_above(ax, leg)
    assert leg._ncols > 1                                       # in rows, not one tall column
    assert leg.get_window_extent(r).width <= ax.get_window_extent(r).width + 1
    assert_nothing_clipped(fig)


# ------------------------------------------------------------------------------------------------
# ratios, probabilities, labels, slopes, thresholds
# ------------------------------------------------------------------------------------------------

def test_blocking_ratio_plots_the_ratio_on_a_log_axis():
    a = [Fraction(1, 1000), Fraction(1, 20), Fraction(1, 5)]
    b = [Fraction(1, 500), Fraction(1, 25), Fraction(21, 100)]
    fig = plot.blocking_ratio([0.5, 1.0, 2.0], [float(v) for v in a], [float(v) for v in b], zoom=None)
    (ax,) = fig.axes
    assert ax.get_yscale() == "log" and ax.get_xscale() == "log"
    y = ax.get_lines()[0].get_ydata()
    assert y == pytest.approx([float(p / q) for p, q in zip(a, b)], rel=1e-12)    # B_a / B_b, not its log
    ref = [ln for ln in ax.get_lines() if set(ln.get_ydata()) == {1.0}]
    assert ref, "the line ratio = 1 is drawn"
    with pytest.raises(ValueError, match="positive"):
        plot.blocking_ratio([0.5, 1.0], [0.0, 0.1], [0.1, 0.1])
    with pytest.raises(ValueError, match="zoom"):
        plot.blocking_ratio([0.5, 1.0], [0.1, 0.1], [0.1, 0.1], zoom=0.5)


def test_blocking_ratio_beyond_the_float_range_says_so():
    import mpmath
    fig = plot.blocking_ratio([0.5, 1.0], [mpmath.mpf("1e-900"), mpmath.mpf("0.1")],
                              [mpmath.mpf("1e-100"), mpmath.mpf("0.2")], zoom=None)
    ax = fig.axes[0]
    assert ax.get_yscale() == "linear" and "log_{10}" in ax.get_ylabel()
    assert ax.get_lines()[0].get_ydata()[0] == pytest.approx(-800.0)


def test_probabilities_above_one_are_refused():
    with pytest.raises(ValueError, match="<= 1"):
        plot.blocking_curves([0.5, 1.0], {"bad": [0.5, 1.5]})
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        plot.supermarket_tails({"bad": [1.0, 1.2, 0.3]})
    with pytest.raises(ValueError, match="<= 1"):
        plot.exact_vs_asymptotic([1, 2], [0.5, 2.0], [0.5, 0.6], probability=True)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        plot.finite_n([10, 20], [0.3, 1.3], mean_field=0.2)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        plot.trajectories([0, 1], {"s": [0.5, 1.5]}, probability=True)
    # a log axis whose autoscale would pass 1 is capped there
    fig = plot.blocking_curves([0.5, 1.0, 2.0], {"near one": [0.3, 0.9, 0.999]})
    assert max(fig.axes[0].get_ylim()) <= 1.0


def test_labels_come_from_the_models_names():
    assert plot.policy_label(symloss.RetrialOfD(3, 3)) == "retrial-of-3"
    assert plot.policy_label(symloss.PowerOfD(3, 4)) == "power-of-4"

    class Named:
        name = "my policy"

    assert plot.policy_label(Named()) == "my policy"
    with pytest.raises(TypeError, match="name"):
        plot.policy_label(object())
    fig = plot.blocking_ratio([0.5, 1.0], [0.01, 0.1], [0.02, 0.1], zoom=None,
                              labels=(symloss.RetrialOfD(3, 3), symloss.PowerOfD(3, 2)))
    ylabel = fig.axes[0].get_ylabel()
    assert "retrial-of-3" in ylabel and "power-of-2" in ylabel and not REPR.search(ylabel)


def _line_slope(line) -> float:
    x, y = (np.asarray(v, float) for v in line.get_data())
    return float(np.polyfit(np.log10(x), np.log10(y), 1)[0])


def _label_slope(label: str) -> float:
    m = re.search(r"slope \$(-?\d+\.\d+)\$", label)
    assert m, label
    return float(m.group(1))


def _fit_lines(ax):
    """Lines drawn as fits: their gid is the legend label of the data they fit (with the slope)."""
    return [ln for ln in ax.get_lines() if ln.get_gid()]


def test_a_slope_line_has_the_slope_its_label_says():
    """Error falling like x^-1.5 with a theory of -1: the line drawn has slope -1.5 and the legend says
    so; no line of slope -1 is drawn against it."""
    x = np.array([50.0, 100.0, 200.0, 400.0, 800.0])
    exact = 0.9 * np.ones_like(x)
    asym = exact * (1 + 3 * x ** -1.5)
    fig = plot.exact_vs_asymptotic(x, exact, asym, reference_slope=-1)
    err_ax = fig.axes[1]
    (fit,) = _fit_lines(err_ax)
    legend = [t.get_text() for t in err_ax.get_legend().get_texts()]
    assert fit.get_gid() in legend
    drawn, said = _line_slope(fit), _label_slope(fit.get_gid())
    assert drawn == pytest.approx(said, abs=0.006) and said == pytest.approx(-1.5, abs=0.01)
    assert "theory $-1$" in fit.get_gid()
    others = [ln for ln in err_ax.get_lines() if ln is not fit and len(ln.get_xdata()) > 1]
    assert len(others) == 1 and others[0].get_label().startswith("relative error")   # the data, nothing else
    # finite N: B_N = B + V/N + W/N^2 exactly; each fitted line's slope is the one in its label
    Ns = np.array([10.0, 20.0, 40.0, 80.0, 160.0])
    fig = plot.finite_n(Ns, 0.05 + 0.2 / Ns + 0.3 / Ns ** 2, mean_field=0.05, V=0.2, W=0.3)
    lines = _fit_lines(fig.axes[1])
    assert len(lines) == 2
    for ln in lines:
        assert _line_slope(ln) == pytest.approx(_label_slope(ln.get_gid()), abs=0.006)
    assert _label_slope(lines[1].get_gid()) == pytest.approx(-2.0, abs=0.01)   # |B_N - B - V/N| = W/N^2


def test_tail_slope_against_exact_power_laws():
    x = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0])
    slope, intercept, xs = plot.tail_slope(x, 7.0 * x ** -2.5)
    assert slope == pytest.approx(-2.5, abs=1e-12) and 10 ** intercept == pytest.approx(7.0, rel=1e-12)
    assert xs.tolist() == [8.0, 16.0, 32.0]                          # the tail: the largest half
    assert plot.tail_slope([1.0], [1.0]) is None


def test_threshold_status_follows_the_object(certified_3_2_3):
    import mpmath
    from symloss.meanfield.compare import CrossingResult
    assert plot.threshold_marks(mpmath.mpf("1.28764657757593")) == [(pytest.approx(1.28764657757593), "EVIDENCE")]
    assert plot.threshold_marks([0.5, Fraction(3, 2)]) == [(0.5, "EVIDENCE"), (1.5, "EVIDENCE")]
    (value, status), = plot.threshold_marks(certified_3_2_3)
    assert status == "PROVED" and value == pytest.approx(0.9496356040027269, rel=1e-14)

    def crossing(certified):
        return CrossingResult(C=None, d=None, dt=None, crossings=[mpmath.mpf("0.75")], rho_min=0.01, rho_max=10,
                              evaluations=0, guarantee="test", certified=certified)

    assert plot.threshold_marks(crossing(False)) == [(0.75, "EVIDENCE")]
    assert plot.threshold_marks(crossing(True)) == [(0.75, "EVIDENCE")]     # no re-checkable certificate
    with pytest.raises(TypeError, match="thresholds"):
        plot.threshold_marks(["not a number"])
    fig = plot.blocking_ratio([0.5, 1.0, 2.0], [0.01, 0.1, 0.3], [0.02, 0.1, 0.29],
                              thresholds=mpmath.mpf("1.0"), zoom=None)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts == ["$\\rho^* = 1$\nEVIDENCE"] and not any("PROVED" in t or "certified" in t for t in texts)


def test_a_certificate_for_other_models_is_refused(certified_3_2_3):
    from symloss.meanfield.certified import CertificateMismatch
    rho = [0.8, 1.2]
    with pytest.raises(CertificateMismatch):
        plot.blocking_ratio(rho, {"C = 4": (symloss.RetrialOfD(4, 3), symloss.PowerOfD(4, 2))},
                            thresholds={"C = 4": certified_3_2_3})
    fig = plot.blocking_ratio(rho, {"C = 3": (symloss.RetrialOfD(3, 3), symloss.PowerOfD(3, 2))},
                              thresholds={"C = 3": certified_3_2_3}, zoom=None)
    assert [t.get_text().split("\n")[1] for t in fig.axes[0].texts] == ["PROVED"]


def test_retrial_vs_power_passes_through_one_at_the_proved_threshold():
    fig = plot.retrial_vs_power(3, 2, 3, rho=[0.5, 2.0])
    ax = fig.axes[-1]
    (text,) = ax.texts
    assert text.get_text() == "$\\rho^* = 0.9496$\nPROVED"
    (line,) = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 3]
    x, y = line.get_data()
    assert len(x) == 3 and y[1] == pytest.approx(1.0, abs=1e-9)    # the curve passes through 1 there
    assert y[0] > 1 > y[2]
