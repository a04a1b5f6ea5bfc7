"""utils, the look (course.style) and the static 2D plots (course.plots2d)."""

import matplotlib.colors as mcolors
import matplotlib.pyplot as plt
import numpy as np
import pytest

import utils

N_NODES = 6
SLOPE_TOL = 1e-12
SEED = 0


@pytest.fixture
def chain():
    """A small pinned chain: nodes on the x axis, spring e joins nodes e and e + 1."""
    X = np.column_stack([np.linspace(0.0, 2.0, N_NODES), np.zeros(N_NODES)])
    E = np.column_stack([np.arange(N_NODES - 1), np.arange(1, N_NODES)])
    return X, E


def _rgba(c):
    return np.array(mcolors.to_rgba(c))


# ---------------------------------------------------------------------------------------
# look
# ---------------------------------------------------------------------------------------

def test_colour_constants():
    for key in ["potential", "kinetic", "elastic", "gravity", "total"]:
        assert mcolors.is_color_like(utils.ENERGY_COLORS[key])
    assert set(utils.INTEGRATOR_COLORS) == {"Forward Euler", "Backward Euler", "BDF2"}
    colours = [utils.SPRING_EDGE, utils.SPRING_NODE, utils.PIN_C, *utils.INTEGRATOR_COLORS.values()]
    assert all(mcolors.is_color_like(c) for c in colours)
    assert len({mcolors.to_hex(c) for c in colours}) == len(colours), "colours must be distinguishable"


def test_style_does_not_leak_into_global_rcparams():
    before = plt.rcParams["font.size"]
    with utils.style():
        assert plt.rcParams["font.size"] == utils.STYLE["font.size"]
    fig, ax = utils.line_plot([0, 1], {"a": [1, 2]})
    assert plt.rcParams["font.size"] == before


# ---------------------------------------------------------------------------------------
# scene axes and spring networks
# ---------------------------------------------------------------------------------------

def test_setup_axes():
    fig, ax = plt.subplots()
    assert utils.setup_axes(ax, (-1, 2), (-0.5, 0.5), title="scene") is ax
    np.testing.assert_allclose(ax.get_xlim(), (-1, 2))
    np.testing.assert_allclose(ax.get_ylim(), (-0.5, 0.5))
    assert ax.get_aspect() == 1.0
    assert ax.get_title() == "scene"


@pytest.mark.parametrize("xlim, error", [((1, 0), ValueError), ((0, np.inf), ValueError), ((0,), ValueError),
                                          ("ab", TypeError)])
def test_setup_axes_bad_limits(xlim, error):
    fig, ax = plt.subplots()
    with pytest.raises(error, match="^xlim: expected"):
        utils.setup_axes(ax, xlim, (0, 1))


def test_plot_spring_network_artists(chain):
    X, E = chain
    fig, ax = plt.subplots()
    art = utils.plot_spring_network(ax, X, E, pins=[0, N_NODES - 1], title="chain", lims=((-1, 3), (-1, 1)))
    assert len(art.springs.get_segments()) == len(E)
    np.testing.assert_allclose(np.array(art.springs.get_segments()), X[E])
    np.testing.assert_allclose(art.nodes.get_offsets(), X)
    np.testing.assert_allclose(art.pins.get_offsets(), X[[0, N_NODES - 1]])
    np.testing.assert_allclose(art.pins.get_facecolors()[0], _rgba(utils.PIN_C))
    square = art.pins.get_paths()[0].vertices
    assert len(np.unique(np.abs(np.round(square, 6)), axis=0)) == 1, "pins must be drawn as squares"
    np.testing.assert_allclose(art.springs.get_colors()[0], _rgba(utils.SPRING_EDGE))
    assert art.rest is None and art.colorbar is None
    assert ax.get_title() == "chain"
    np.testing.assert_allclose(ax.get_xlim(), (-1, 3))


def test_plot_spring_network_node_field(chain):
    X, E = chain
    fig, ax = plt.subplots()
    mass = np.linspace(1.0, 2.0, N_NODES)
    art = utils.plot_spring_network(ax, X, E, node_values=mass, label="mass", vmin=0.0, cmap="viridis")
    assert art.colorbar is not None
    assert art.colorbar.ax.get_ylabel() == "mass"
    np.testing.assert_allclose(art.nodes.get_array(), mass)
    assert art.nodes.get_clim() == (0.0, 2.0)
    assert art.pins is None


def test_plot_spring_network_edge_field_and_rest(chain):
    X, E = chain
    fig, ax = plt.subplots()
    tension = np.arange(len(E), dtype=float)
    sagged = X + np.column_stack([np.zeros(N_NODES), -np.sin(np.pi * X[:, 0] / 2)])
    art = utils.plot_spring_network(ax, sagged, E, edge_values=tension, label=r"$k(l-l_0)$", cmap="plasma",
                                    rest=X)
    assert art.colorbar.ax.get_ylabel() == r"$k(l-l_0)$"
    np.testing.assert_allclose(art.springs.get_array(), tension)
    assert art.springs.get_cmap().name == "plasma"
    fig.canvas.draw()
    drawn = art.springs.get_edgecolor()
    np.testing.assert_allclose(drawn, plt.get_cmap("plasma")(tension / tension.max()), atol=1e-12,
                               err_msg="springs must be drawn in the colours of their field")
    np.testing.assert_allclose(np.array(art.rest.get_segments()), X[E])
    assert art.rest.get_linestyle()[0][1] is not None, "rest shape must be dashed"
    assert art.rest.get_zorder() < art.springs.get_zorder()
    assert ax.get_ylim()[0] < -0.9, "autoscaling must include the sagged nodes"


def test_plot_spring_network_label_without_field(chain):
    X, E = chain
    fig, ax = plt.subplots()
    art = utils.plot_spring_network(ax, X, E, label="cable")
    assert art.springs.get_label() == "cable"


@pytest.mark.parametrize("kwargs, error, match", [
    ({"X": np.zeros((N_NODES, 3))}, ValueError, r"^X: expected shape \(n, dim\) with dim in \(2,\)"),
    ({"X": np.full((N_NODES, 2), np.nan)}, ValueError, "^X: expected finite values"),
    ({"X": [["a", "b"]] * N_NODES}, TypeError, "^X: expected a real numeric array"),
    ({"E": np.array([[0, N_NODES]])}, ValueError, rf"^E: expected indices in \[0, {N_NODES}\)"),
    ({"E": np.array([[0.0, 1.0]])}, TypeError, "^E: expected an integer index array"),
    ({"E": np.array([0, 1])}, ValueError, r"^E: expected shape \(k, 2\)"),
    ({"pins": [N_NODES]}, ValueError, r"^pins: expected indices in \[0"),
    ({"node_values": np.ones(N_NODES - 1)}, ValueError, "^node_values: expected a scalar or one value per node"),
    ({"edge_values": np.ones(N_NODES)}, ValueError, "^edge_values: expected a scalar or one value per spring"),
    ({"node_values": np.ones(N_NODES), "edge_values": np.ones(N_NODES - 1)}, ValueError, "not both"),
    ({"rest": np.zeros((2, 2))}, ValueError, r"^rest: expected 6 rows \(one per node\)"),
    ({"node_size": -1}, ValueError, "^node_size: expected a finite value > 0"),
    ({"node_size": "big"}, TypeError, "^node_size: expected a real scalar"),
    ({"lims": ((0, 1),)}, ValueError, r"^lims: expected \(\(xmin, xmax\), \(ymin, ymax\)\)"),
])
def test_plot_spring_network_bad_input(chain, kwargs, error, match):
    X, E = chain
    args = {"X": X, "E": E, **kwargs}
    fig, ax = plt.subplots()
    with pytest.raises(error, match=match):
        utils.plot_spring_network(ax, args.pop("X"), args.pop("E"), **args)


# ---------------------------------------------------------------------------------------
# line, phase, residual and log-log plots
# ---------------------------------------------------------------------------------------

def test_line_plot():
    t = np.linspace(0, 1, 11)
    series = {"Forward Euler": t ** 2, "BDF2": np.cos(t), "other": t}
    fig, ax = utils.line_plot(t, series, xlabel="time  (s)", ylabel="H", colors=utils.INTEGRATOR_COLORS,
                              title="drift")
    assert len(ax.lines) == 3
    for line, (key, y) in zip(ax.lines, series.items()):
        np.testing.assert_allclose(line.get_xydata(), np.column_stack([t, y]))
        assert line.get_label() == key
    np.testing.assert_allclose(_rgba(ax.lines[0].get_color()), _rgba(utils.INTEGRATOR_COLORS["Forward Euler"]))
    np.testing.assert_allclose(_rgba(ax.lines[1].get_color()), _rgba(utils.INTEGRATOR_COLORS["BDF2"]))
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(series)
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("time  (s)", "H", "drift")


def test_line_plot_into_given_axes():
    fig, ax = plt.subplots()
    assert utils.line_plot([0, 1], {"a": [0, 1]}, ax=ax) == (fig, ax)


@pytest.mark.parametrize("series, error, match", [
    ({"a": np.ones(4)}, ValueError, r"^series\['a'\]: expected 5 values \(there are 5 entries in t\), got 4"),
    ({}, ValueError, "^series: expected a non-empty dict"),
    ([1, 2, 3, 4, 5], TypeError, "^series: expected a non-empty dict"),
    ({"a": np.ones((5, 2))}, ValueError, r"^series\['a'\]: expected a one-dimensional array"),
])
def test_line_plot_bad_series(series, error, match):
    with pytest.raises(error, match=match):
        utils.line_plot(np.arange(5), series)


def test_phase_plot_defaults_to_integrator_colours():
    rng = np.random.default_rng(SEED)
    paths = {s: rng.standard_normal((10, 2)) for s in utils.INTEGRATOR_COLORS}
    fig, ax = utils.phase_plot(paths, xlabel="u", ylabel="p", title="phase", figsize=(5, 4))
    curves = [line for line in ax.lines if line.get_label() in paths]
    assert len(curves) == 3
    for line in curves:
        np.testing.assert_allclose(line.get_xydata(), paths[line.get_label()])
        np.testing.assert_allclose(_rgba(line.get_color()), _rgba(utils.INTEGRATOR_COLORS[line.get_label()]))
    np.testing.assert_allclose(fig.get_size_inches(), (5, 4))


def test_phase_plot_bad_shape():
    with pytest.raises(ValueError, match=r"series\['BDF2'\]: expected a \(k, 2\) array"):
        utils.phase_plot({"BDF2": np.ones((10, 3))})


def test_residual_plot_iteration_index_and_log_scale():
    gap = np.array([10.0, 1.0, 1e-3, 1e-9, 0.0])        # a converged energy gap ends at exactly zero
    fig, ax = utils.residual_plot({"Newton": gap}, markers=True, xlabel="Newton iteration")
    assert ax.get_yscale() == "log"
    (line,) = ax.lines
    np.testing.assert_allclose(line.get_xdata(), np.arange(5))
    np.testing.assert_allclose(line.get_ydata()[:4], gap[:4])
    assert np.isnan(line.get_ydata()[4]), "non-positive values must be left out, not clipped"
    assert line.get_marker() == "o"


def test_residual_plot_with_time_axis():
    t = np.linspace(0, 2, 9)
    fig, ax = plt.subplots()
    out = utils.residual_plot({"dynamic": np.exp(-t)}, t, ax=ax, title="distance")
    assert out == (fig, ax)
    np.testing.assert_allclose(ax.lines[0].get_xdata(), t)
    assert ax.lines[0].get_marker() in (None, "None", "")


def test_residual_plot_mismatched_lengths():
    with pytest.raises(ValueError, match="^series: expected equal lengths"):
        utils.residual_plot({"a": np.ones(3), "b": np.ones(4)})
    with pytest.raises(ValueError, match="entries in t"):
        utils.residual_plot({"a": np.ones(3)}, t=np.arange(4))


def test_loglog_plot_reference_slopes():
    N = np.array([5.0, 9.0, 17.0, 33.0, 65.0])
    err = 0.8 / N
    fig, ax = utils.loglog_plot(N, {"tip error": err}, xlabel="N", ylabel="error",
                                ref_slopes={"O(1/N)": -1, "O(1/N^2)": -2}, title="convergence")
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    refs = {line.get_label(): line for line in ax.lines if line.get_linestyle() == "--"}
    assert set(refs) == {"O(1/N)  (slope -1)", "O(1/N^2)  (slope -2)"}
    for label, slope in [("O(1/N)  (slope -1)", -1), ("O(1/N^2)  (slope -2)", -2)]:
        x, y = refs[label].get_xdata(), refs[label].get_ydata()
        np.testing.assert_allclose(np.diff(np.log(y)) / np.diff(np.log(x)), slope, rtol=SLOPE_TOL)
        np.testing.assert_allclose((x[0], y[0]), (N[0], err[0]))      # anchored at the first data point
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "O(1/N)  (slope -1)" in legend and "tip error" in legend


@pytest.mark.parametrize("x, series, match", [
    ([0.0, 1.0], {"e": [1.0, 2.0]}, "^x: expected positive values"),
    ([1.0, 2.0], {"e": [1.0, -2.0]}, r"^series\['e'\]: expected positive values"),
    ([1.0, 2.0], {"e": [1.0]}, "entries in x"),
])
def test_loglog_plot_bad_input(x, series, match):
    with pytest.raises(ValueError, match=match):
        utils.loglog_plot(x, series)


def test_profile_plot_draws_each_curve_and_the_pins():
    fig, ax = utils.profile_plot({"a": np.zeros((3, 2)), "b": np.ones((4, 2))}, pins=[[0.0, 0.0]])
    assert len(ax.lines) == 2
    assert ax.get_legend() is not None
    with pytest.raises(ValueError, match=r"^curves\['b'\]: expected shape \(n, dim\)"):
        utils.profile_plot({"b": np.ones((4, 3))})
