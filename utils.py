"""The course's plotting, animation and video helpers, and the energy terms the chapters assemble.

Sections
--------
paths
    ``ROOT``, ``notebook_results_path``, ``media_dir``.
look
    Colour constants, the ``STYLE`` rc dict and the ``style()`` context manager. Helpers
    apply the look per figure (inside ``style()`` plus explicit per-Axes settings), never
    by changing global rcParams.
static plots
    ``setup_axes``, ``plot_spring_network``, ``line_plot``, ``phase_plot``,
    ``residual_plot``, ``loglog_plot``.
animations
    ``animate_springs_energy``, ``animate_springs_grid``: ``(fig, anim)`` pairs whose
    ``anim`` is a ``simkit.filesystem.BlitAnimation``, which ``save_animation`` renders by
    blitting.
video
    ``embed_video``, ``show_video``.
energy terms
    ``SpringEnergy``, ``PenaltySpring``, ``Gravity``, ``Inertia``: objects with
    ``energy(x) -> float``, ``gradient(x) -> (N, 1)``, ``hessian(x) -> sparse (N, N)`` for
    stacked node-major positions ``x`` of shape ``(N, 1)``, ``N = n * dim``.
"""
import base64
import math
import numbers
import os
import re
from typing import NamedTuple

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sps
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

import simkit
from simkit.filesystem import BlitAnimation, save_animation

# ---------------------------------------------------------------------------------------
# paths
# ---------------------------------------------------------------------------------------

ROOT = os.path.dirname(os.path.abspath(__file__))
"""str : the repository root (the folder holding this file)."""

MEDIA_ENV = "SIMKIT_MEDIA_DIR"
RESULTS_ENV = "SIMKIT_RESULTS_DIR"


def notebook_results_path(name):
    """Create and return the results folder of a notebook, ``<ROOT>/results/<name>``, whatever the cwd.

    The site build sets ``SIMKIT_RESULTS_DIR`` to a staging folder used instead of
    ``<ROOT>/results``, so a failing chapter leaves no partial results behind.

    Parameters
    ----------
    name : str
        Notebook name, a single path component (``"011_mass_springs"``).

    Returns
    -------
    path : str
        Absolute path of the (existing) folder.
    """
    if not isinstance(name, str) or name in ("", ".", "..") or os.sep in name or (
            os.altsep and os.altsep in name):
        raise ValueError(f"name must be a non-empty folder name without path separators, got {name!r}")
    base = os.environ.get(RESULTS_ENV, "")
    path = os.path.join(os.path.abspath(os.path.expanduser(base)) if base else os.path.join(ROOT, "results"), name)
    os.makedirs(path, exist_ok=True)
    return path


def media_dir():
    """Create and return the folder of the website's media: ``$SIMKIT_MEDIA_DIR`` when set, else ``<ROOT>/media``.

    The site build sets ``SIMKIT_MEDIA_DIR`` to a staging folder, so a failing chapter
    never touches the tracked ``media/`` folder.

    Returns
    -------
    path : str
        Absolute path of the (existing) folder.
    """
    env = os.environ.get(MEDIA_ENV, "")
    path = os.path.abspath(os.path.expanduser(env)) if env else os.path.join(ROOT, "media")
    if os.path.exists(path) and not os.path.isdir(path):
        raise ValueError(f"media folder {path!r} (from ${MEDIA_ENV} or <ROOT>/media) is a file, not a folder")
    os.makedirs(path, exist_ok=True)
    return path


# ---------------------------------------------------------------------------------------
# look
# ---------------------------------------------------------------------------------------

SPRING_EDGE = "#33495f"     # springs: dark slate
SPRING_NODE = "#e07b24"     # masses: orange
PIN_C = "#1f5fbf"           # pinned nodes: blue squares
REST_C = "0.62"             # rest shape: gray dashes
GRID_C = "0.92"             # light grid
TRACK_C = "0.9"             # timeline track of the grid animation

ENERGY_COLORS = {
    "potential": "#7b3fa0",
    "kinetic": "#c0392b",
    "elastic": "#16907f",
    "bending": "#2e86c1",
    "gravity": "#8a6d1f",
    "total": "#222222",
}
INTEGRATOR_COLORS = {
    "Forward Euler": "#d62728",
    "Backward Euler": "#1f77b4",
    "BDF2": "#2ca02c",
}

DPI = 100                   # figure resolution: a (11, 4) inch animation is 1100 x 400 pixels
STYLE = {
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "legend.fontsize": 9.5,
    "legend.framealpha": 0.9,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "lines.linewidth": 2.0,
    "axes.axisbelow": True,
    "figure.facecolor": "white",
    "axes.facecolor": "white",
}
"""dict : rcParams of the course look, applied per figure through ``style()``."""


def style():
    """Context manager applying ``STYLE`` to the figures and artists created inside it.

    Returns
    -------
    context : contextlib.AbstractContextManager
        ``matplotlib.pyplot.rc_context(STYLE)``.
    """
    return plt.rc_context(STYLE)


def _style_axes(ax, grid=True):
    # Tick labels are created lazily at draw time, after rc_context has exited: set their
    # size on the Axes so it sticks.
    ax.tick_params(labelsize=STYLE["xtick.labelsize"])
    ax.set_axisbelow(True)
    if grid:
        ax.grid(True, color=GRID_C, lw=0.8)


def _new_figure(figsize, **subplots_kw):
    """A pyplot figure (so notebooks show it) at ``DPI`` with its Axes; call it inside ``style()``."""
    fig, axes = plt.subplots(figsize=figsize, dpi=DPI, **subplots_kw)
    return fig, axes


# ---------------------------------------------------------------------------------------
# input validation
# ---------------------------------------------------------------------------------------

def _finite_array(a, name, dtype=float):
    try:
        arr = np.asarray(a, dtype=dtype)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be numeric array-like: {err}") from err
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain finite values only (no NaN or inf)")
    return arr


def _points(X, name, n=None):
    X = _finite_array(X, name)
    if X.ndim != 2 or X.shape[1] != 2 or X.shape[0] == 0:
        raise ValueError(f"{name} must be an (n, 2) array of 2D positions with n >= 1, got shape {X.shape}")
    if n is not None and X.shape[0] != n:
        raise ValueError(f"{name} must have {n} rows (one per node), got {X.shape[0]}")
    return X


def _edges(E, n, name="E"):
    E = np.asarray(E)
    if E.ndim != 2 or E.shape[1] != 2:
        raise ValueError(f"{name} must be an (m, 2) int array of node index pairs, got shape {E.shape}")
    if E.size and not np.issubdtype(E.dtype, np.integer):
        raise ValueError(f"{name} must hold integer node indices, got dtype {E.dtype}")
    E = E.astype(np.intp)
    if E.size and (E.min() < 0 or E.max() >= n):
        raise ValueError(f"{name} indices must lie in [0, {n}) for {n} nodes, got [{E.min()}, {E.max()}]")
    return E


def _indices(idx, n, name):
    idx = np.asarray(idx).reshape(-1)
    if idx.size and not np.issubdtype(idx.dtype, np.integer):
        raise ValueError(f"{name} must be integer node indices, got dtype {idx.dtype}")
    idx = idx.astype(np.intp)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise ValueError(f"{name} must lie in [0, {n}) for {n} nodes, got [{idx.min()}, {idx.max()}]")
    return idx


def _values(v, length, name, what):
    v = _finite_array(v, name).reshape(-1) if np.ndim(v) else _finite_array([v], name)
    if v.shape[0] != length:
        raise ValueError(f"{name} must have one value per {what} ({length}), got {v.shape[0]}")
    return v


def _limits(lims, name):
    try:
        lo, hi = (float(v) for v in lims)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be a pair (low, high) of numbers, got {lims!r}") from err
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"{name} must be finite with low < high, got ({lo}, {hi})")
    return lo, hi


def _scene_limits(lims, name="lims"):
    if lims is None:
        return None
    if len(lims) != 2:
        raise ValueError(f"{name} must be ((xmin, xmax), (ymin, ymax)), got {lims!r}")
    return _limits(lims[0], f"{name}[0]"), _limits(lims[1], f"{name}[1]")


def _states(states, name="states"):
    if isinstance(states, np.ndarray):
        arr = _finite_array(states, name)
    else:
        states = list(states)
        if not states:
            raise ValueError(f"{name} is empty; pass at least one (n, 2) array of positions")
        shapes = {np.shape(s) for s in states}
        if len(shapes) != 1:
            raise ValueError(f"{name} must all have the same shape (n, 2), got shapes {sorted(shapes)}")
        arr = _finite_array(states, name)
    if arr.ndim != 3 or arr.shape[2] != 2 or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a sequence of (n, 2) position arrays, got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty; pass at least one (n, 2) array of positions")
    return arr


def _series(series, length, name, what):
    if not isinstance(series, dict) or not series:
        raise ValueError(f"{name} must be a non-empty dict {{name: values}}, got {type(series).__name__}")
    out = {}
    for key, v in series.items():
        v = _finite_array(v, f"{name}[{key!r}]")
        if v.ndim != 1:
            raise ValueError(f"{name}[{key!r}] must be one-dimensional, got shape {v.shape}")
        if length is not None and v.shape[0] != length:
            raise ValueError(f"{name}[{key!r}] has {v.shape[0]} values but there are {length} {what}; "
                             "pass one value per entry")
        out[key] = v
    return out


def _colors(colors, keys, name="colors"):
    """Colour per key: ``colors[key]`` when given, else the next colour of matplotlib's cycle."""
    if colors is not None and not isinstance(colors, dict):
        raise ValueError(f"{name} must be a dict {{series name: colour}}, got {type(colors).__name__}")
    colors = colors or {}
    cycle = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
    return {key: colors.get(key, cycle[j % len(cycle)]) for j, key in enumerate(keys)}


def _positive(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not (
            math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


# ---------------------------------------------------------------------------------------
# static plots
# ---------------------------------------------------------------------------------------

class SpringNetworkArtists(NamedTuple):
    """Artists drawn by ``plot_spring_network`` (None where not drawn)."""

    springs: LineCollection
    nodes: object
    pins: object
    rest: LineCollection
    colorbar: object


def setup_axes(ax, xlim, ylim, title=None):
    """Prepare a scene Axes: fixed limits, equal aspect, light grid, optional title.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    xlim, ylim : (2,) float
        ``(low, high)`` limits of the x and y axes.
    title : str, optional

    Returns
    -------
    ax : matplotlib.axes.Axes
    """
    xlim, ylim = _limits(xlim, "xlim"), _limits(ylim, "ylim")
    with style():
        ax.set_xlim(*xlim)
        ax.set_ylim(*ylim)
        ax.set_aspect("equal")
        _style_axes(ax)
        if title is not None:
            ax.set_title(title)
    return ax


def plot_spring_network(ax, X, E, pins=None, node_values=None, edge_values=None, cmap="viridis",
                        label=None, vmin=None, vmax=None, node_size=30, lw=2.0, title=None, lims=None,
                        rest=None, *, zorder=2.0):
    """Draw a 2D spring network: springs as one LineCollection, nodes as a scatter, pins as squares.

    A scalar field on the nodes or on the springs colours them through ``cmap`` and gets a
    colorbar labelled ``label``; the rest shape, when given, is drawn in gray dashes below.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    X : (n, 2) float array
        Node positions.
    E : (m, 2) int array
        Springs as node index pairs.
    pins : (p,) int array, optional
        Indices of pinned nodes, drawn as ``PIN_C`` squares.
    node_values : (n,) float array, optional
        Scalar per node (e.g. lumped mass).
    edge_values : (m,) float array, optional
        Scalar per spring (e.g. tension ``k (l - l0)``); not together with ``node_values``.
    cmap : str or matplotlib.colors.Colormap, default "viridis"
        Colormap of the field.
    label : str, optional
        Colorbar label when a field is given, else the legend label of the springs.
    vmin, vmax : float, optional
        Colour range of the field (its min / max when None).
    node_size : float, default 30
        Marker area of the nodes (points^2); pins are drawn 1.6 times larger.
    lw : float, default 2
        Spring line width.
    title : str, optional
    lims : ((xmin, xmax), (ymin, ymax)), optional
        Axes limits (through ``setup_axes``); autoscaled with equal aspect when None.
    rest : (n, 2) float array, optional
        Rest positions, drawn as gray dashed springs.
    zorder : float, default 2
        zorder of the springs; nodes and pins sit 1 and 2 above, the rest shape below.

    Returns
    -------
    artists : SpringNetworkArtists
        ``(springs, nodes, pins, rest, colorbar)``; ``pins``, ``rest``, ``colorbar`` may be None.
    """
    X = _points(X, "X")
    n = X.shape[0]
    E = _edges(E, n)
    pins = _indices(pins if pins is not None else [], n, "pins")
    if node_values is not None and edge_values is not None:
        raise ValueError("pass node_values or edge_values, not both (one colorbar per network)")
    if node_values is not None:
        node_values = _values(node_values, n, "node_values", "node")
    if edge_values is not None:
        edge_values = _values(edge_values, E.shape[0], "edge_values", "spring")
    if rest is not None:
        rest = _points(rest, "rest", n)
    node_size = _positive(node_size, "node_size")
    lw = _positive(lw, "lw")
    lims = _scene_limits(lims)

    with style():
        if lims is not None:
            setup_axes(ax, *lims, title=title)
        else:
            ax.set_aspect("equal")
            _style_axes(ax)
            if title is not None:
                ax.set_title(title)
        rest_lc = None
        if rest is not None:
            rest_lc = ax.add_collection(LineCollection(
                rest[E], colors=REST_C, linestyles="--", linewidths=max(1.0, 0.6 * lw), zorder=zorder - 0.5))
        if edge_values is not None:      # explicit colors would switch the colormap off
            springs = LineCollection(X[E], array=edge_values, cmap=cmap, linewidths=lw, capstyle="round",
                                     zorder=zorder)
            springs.set_clim(vmin, vmax)
        else:
            springs = LineCollection(X[E], colors=SPRING_EDGE, linewidths=lw, capstyle="round",
                                     zorder=zorder, label=label)
        ax.add_collection(springs, autolim=True)
        if node_values is not None:
            nodes = ax.scatter(X[:, 0], X[:, 1], s=node_size, c=node_values, cmap=cmap, vmin=vmin, vmax=vmax,
                               edgecolors="white", linewidths=0.6, zorder=zorder + 1)
        else:
            nodes = ax.scatter(X[:, 0], X[:, 1], s=node_size, color=SPRING_NODE, edgecolors="white",
                               linewidths=0.6, zorder=zorder + 1)
        pin_art = None
        if pins.size:
            pin_art = ax.scatter(X[pins, 0], X[pins, 1], s=1.6 * node_size, marker="s", color=PIN_C,
                                 edgecolors="white", linewidths=0.6, zorder=zorder + 2)
        colorbar = None
        field = nodes if node_values is not None else springs if edge_values is not None else None
        if field is not None:
            colorbar = ax.get_figure().colorbar(field, ax=ax, shrink=0.9, pad=0.02)
            if label is not None:
                colorbar.set_label(label)
            colorbar.ax.tick_params(labelsize=STYLE["xtick.labelsize"])
        if lims is None:
            ax.autoscale_view()
    return SpringNetworkArtists(springs, nodes, pin_art, rest_lc, colorbar)


def _plot_axes(ax, figsize):
    """Return ``(fig, ax, own)``: the given Axes and its figure, or a new styled figure (own=True)."""
    if ax is not None:
        return ax.get_figure(), ax, False
    fig, ax = _new_figure(figsize)
    return fig, ax, True


def _finish_plot(fig, ax, own, xlabel, ylabel, title, legend):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title)
    _style_axes(ax)
    if legend:
        ax.legend()
    if own:
        fig.tight_layout()


def line_plot(t, series, xlabel="", ylabel="", colors=None, title=None, ax=None, figsize=(7.5, 4.2)):
    """Plot several named series against a shared abscissa.

    Parameters
    ----------
    t : (k,) float array
        Abscissa (e.g. time).
    series : dict of str -> (k,) float array
        Curves by name; the names fill the legend.
    xlabel, ylabel : str
    colors : dict of str -> colour, optional
        Colour per series name (e.g. ``INTEGRATOR_COLORS``); matplotlib's cycle otherwise.
    title : str, optional
    ax : matplotlib.axes.Axes, optional
        Axes to draw in; a new figure of size ``figsize`` otherwise.
    figsize : (2,) float, default (7.5, 4.2)

    Returns
    -------
    fig : matplotlib.figure.Figure
    ax : matplotlib.axes.Axes
    """
    t = _finite_array(t, "t").reshape(-1)
    series = _series(series, t.shape[0], "series", "entries in t")
    cols = _colors(colors, series)
    with style():
        fig, ax, own = _plot_axes(ax, figsize)
        for key, y in series.items():
            ax.plot(t, y, color=cols[key], label=key)
        _finish_plot(fig, ax, own, xlabel, ylabel, title, legend=True)
    return fig, ax


def phase_plot(series, xlabel="", ylabel="", title=None, figsize=(7.5, 5.5), colors=None, ax=None):
    """Plot trajectories in a 2D phase plane (e.g. displacement against momentum), start marked by a dot.

    Parameters
    ----------
    series : dict of str -> (k, 2) float array
        Trajectory per name, one ``(u, p)`` row per step.
    xlabel, ylabel : str
    title : str, optional
    figsize : (2,) float, default (7.5, 5.5)
    colors : dict of str -> colour, optional
        Colour per name; ``INTEGRATOR_COLORS`` when None (matplotlib's cycle for other names).
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    fig : matplotlib.figure.Figure
    ax : matplotlib.axes.Axes
    """
    if not isinstance(series, dict) or not series:
        raise ValueError(f"series must be a non-empty dict {{name: (k, 2) array}}, got {type(series).__name__}")
    paths = {}
    for key, v in series.items():
        v = _finite_array(v, f"series[{key!r}]")
        if v.ndim != 2 or v.shape[1] != 2 or v.shape[0] == 0:
            raise ValueError(f"series[{key!r}] must be a (k, 2) array of phase-plane points, got shape {v.shape}")
        paths[key] = v
    cols = _colors(INTEGRATOR_COLORS if colors is None else colors, paths)
    with style():
        fig, ax, own = _plot_axes(ax, figsize)
        for key, v in paths.items():
            ax.plot(v[:, 0], v[:, 1], color=cols[key], lw=1.6, label=key)
            ax.plot(v[:1, 0], v[:1, 1], "o", color=cols[key], ms=5)
        _finish_plot(fig, ax, own, xlabel, ylabel, title, legend=True)
    return fig, ax


def residual_plot(series, t=None, ax=None, markers=False, xlabel="iteration", ylabel="residual",
                  title=None, colors=None, figsize=(6.5, 4.2)):
    """Plot positive quantities that decay (residuals, errors, energy gaps) on a log y axis.

    Zero or negative entries (e.g. the final gap ``Phi_k - Phi*`` of a converged solve) have
    no logarithm; they are left out of the curve instead of being clipped.

    Parameters
    ----------
    series : dict of str -> (k,) float array
        Curves by name.
    t : (k,) float array, optional
        Abscissa (e.g. time); the iteration index ``0..k-1`` when None.
    ax : matplotlib.axes.Axes, optional
    markers : bool, default False
        Mark every sample (useful for a handful of Newton iterations).
    xlabel, ylabel : str
    title : str, optional
    colors : dict of str -> colour, optional
    figsize : (2,) float, default (6.5, 4.2)

    Returns
    -------
    fig : matplotlib.figure.Figure
    ax : matplotlib.axes.Axes
    """
    series = _series(series, None, "series", "")
    lengths = {v.shape[0] for v in series.values()}
    if t is None:
        if len(lengths) != 1:
            raise ValueError(f"series have different lengths {sorted(lengths)}; pass t or equal-length series")
        t = np.arange(lengths.pop(), dtype=float)
    else:
        t = _finite_array(t, "t").reshape(-1)
        series = _series(series, t.shape[0], "series", "entries in t")
    cols = _colors(colors, series)
    with style():
        fig, ax, own = _plot_axes(ax, figsize)
        for key, y in series.items():
            ax.plot(t, np.where(y > 0, y, np.nan), color=cols[key], label=key,
                    marker="o" if markers else None, ms=5)
        ax.set_yscale("log")
        _finish_plot(fig, ax, own, xlabel, ylabel, title, legend=len(series) > 1)
    return fig, ax


def loglog_plot(x, series, xlabel="", ylabel="", colors=None, ref_slopes=None, title=None, ax=None,
                figsize=(6.5, 4.5)):
    """Plot convergence data on log-log axes with dashed reference slopes.

    Each reference line ``y = y0 (x / x0)^s`` is anchored at the first point ``(x0, y0)``
    of the first series, so a series with order ``s`` runs parallel to it.

    Parameters
    ----------
    x : (k,) float array
        Positive abscissa (e.g. number of nodes, step size).
    series : dict of str -> (k,) float array
        Positive data by name.
    xlabel, ylabel : str
    colors : dict of str -> colour, optional
    ref_slopes : dict of str -> float, optional
        Reference slopes by label, e.g. ``{"O(1/N)": -1}``.
    title : str, optional
    ax : matplotlib.axes.Axes, optional
    figsize : (2,) float, default (6.5, 4.5)

    Returns
    -------
    fig : matplotlib.figure.Figure
    ax : matplotlib.axes.Axes
    """
    x = _finite_array(x, "x").reshape(-1)
    series = _series(series, x.shape[0], "series", "entries in x")
    if np.any(x <= 0):
        raise ValueError("x must be positive on log-log axes")
    for key, y in series.items():
        if np.any(y <= 0):
            raise ValueError(f"series[{key!r}] must be positive on log-log axes")
    if ref_slopes is not None and not isinstance(ref_slopes, dict):
        raise ValueError(f"ref_slopes must be a dict {{label: slope}}, got {type(ref_slopes).__name__}")
    slopes = {key: _finite_array(s, f"ref_slopes[{key!r}]").item() for key, s in (ref_slopes or {}).items()}
    cols = _colors(colors, series)
    with style():
        fig, ax, own = _plot_axes(ax, figsize)
        for key, y in series.items():
            ax.loglog(x, y, "-o", color=cols[key], ms=5, label=key)
        x0, y0 = x[0], next(iter(series.values()))[0]
        for key, s in slopes.items():
            ax.loglog(x, y0 * (x / x0) ** s, "--", color="0.45", lw=1.3, label=f"{key}  (slope {s:g})")
        if x.size <= 10:
            # A handful of resolutions reads best with a tick at each one, in plain numbers.
            ax.xaxis.set_major_locator(FixedLocator(x))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.xaxis.set_minor_locator(NullLocator())
        _finish_plot(fig, ax, own, xlabel, ylabel, title, legend=True)
        ax.grid(True, which="minor", axis="y", color=GRID_C, lw=0.5)
    return fig, ax


# ---------------------------------------------------------------------------------------
# animations
# ---------------------------------------------------------------------------------------

ANIM_Z = 10.0   # animated artists sit above every static one (legend 5, text 3, spines 2.5)


def _auto_scene_limits(points, pad=0.08):
    """((xmin, xmax), (ymin, ymax)) enclosing ``points`` (..., 2) with a relative margin."""
    lo = points.reshape(-1, 2).min(axis=0)
    hi = points.reshape(-1, 2).max(axis=0)
    margin = pad * max(float((hi - lo).max()), 1e-9) + 1e-3
    return (lo[0] - margin, hi[0] + margin), (lo[1] - margin, hi[1] + margin)


def _pin_points(pin_pts):
    if pin_pts is None:
        return None
    return _points(np.atleast_2d(_finite_array(pin_pts, "pin_pts")), "pin_pts")


def _label_formatter(t, xlabel, time_format):
    """Function frame value -> label text: ``time_format.format(value)``, or "<xlabel> = value <unit>"."""
    if time_format is not None:
        return time_format.format
    words = " ".join(xlabel.split()) if xlabel else "t"
    match = re.fullmatch(r"(.*?)\s*\(([^()]*)\)", words)
    name, unit = (match.group(1), " " + match.group(2)) if match else (words, "")
    if np.all(t == np.round(t)):
        return lambda v: f"{name} = {int(round(v))}{unit}"
    return lambda v: f"{name} = {v:.2f}{unit}"


def _animated_network(ax, states, E, rest, pin_pts, lims, title, node_size, lw):
    """Draw frame 0 of a network as animated artists; return (springs, nodes, pins) and the segments per frame."""
    net = plot_spring_network(ax, states[0], E, rest=rest, node_size=node_size, lw=lw, title=title,
                              lims=lims, zorder=ANIM_Z)
    pins = None
    if pin_pts is not None:
        pins = ax.scatter(pin_pts[:, 0], pin_pts[:, 1], s=1.6 * node_size, marker="s", color=PIN_C,
                          edgecolors="white", linewidths=0.6, zorder=ANIM_Z + 2)
    return net.springs, net.nodes, pins, states[:, E]


def animate_springs_energy(states, E, t, series, rest=None, lims=None, xlabel="time  (s)", ylabel="energy",
                           scene_title=None, title=None, colors=None, pin_pts=None, figsize=(11, 4),
                           node_size=40, lw=2.5, interval=50, time_format=None):
    """Animate a spring network (left) beside its energy curves traced in lock-step (right).

    Frame ``i`` shows ``states[i]`` and the curves up to ``t[i]`` with a moving marker; the
    full curves stay faint in the background and a label gives the current ``t[i]``.

    Parameters
    ----------
    states : sequence of (n, 2) float arrays, or (T, n, 2) float array
        Node positions per frame, T >= 1.
    E : (m, 2) int array
        Springs as node index pairs.
    t : (T,) float array
        Abscissa per frame (time, iteration, length, ...).
    series : dict of str -> (T,) float array
        Energies per frame by name.
    rest : (n, 2) float array, optional
        Rest shape, drawn as gray dashes.
    lims : ((xmin, xmax), (ymin, ymax)), optional
        Scene limits; the bounding box of all states when None.
    xlabel, ylabel : str
        Labels of the energy axes; the frame label reuses ``xlabel`` ("time = 0.40 s").
    scene_title, title : str, optional
        Titles of the scene and energy axes.
    colors : dict of str -> colour, optional
        Colour per series; ``ENERGY_COLORS`` for known names, matplotlib's cycle otherwise.
    pin_pts : (p, 2) float array, optional
        Positions of pinned nodes, drawn as ``PIN_C`` squares.
    figsize : (2,) float, default (11, 4)
        Figure size in inches (at ``DPI``: 1100 x 400 pixels).
    node_size, lw : float
        Node marker area and spring width.
    interval : float, default 50
        Milliseconds between frames when shown live (the video rate is ``save_animation``'s fps).
    time_format : str, optional
        Format of the frame label, e.g. ``"t = {:.2f} s"``.

    Returns
    -------
    fig : matplotlib.figure.Figure
    anim : simkit.filesystem.BlitAnimation
    """
    P = _states(states)
    T, n = P.shape[:2]
    E = _edges(E, n)
    t = _finite_array(t, "t").reshape(-1)
    if t.shape[0] != T:
        raise ValueError(f"t has {t.shape[0]} values but there are {T} states; pass one t per state")
    series = _series(series, T, "series", "states")
    if rest is not None:
        rest = _points(rest, "rest", n)
    lims = _scene_limits(lims) or _auto_scene_limits(P)
    pin_pts = _pin_points(pin_pts)
    if colors is not None and not isinstance(colors, dict):
        raise ValueError(f"colors must be a dict {{series name: colour}}, got {type(colors).__name__}")
    cols = _colors({**ENERGY_COLORS, **(colors or {})}, series)
    label_of = _label_formatter(t, xlabel, time_format)

    with style():
        fig, (ax_s, ax_e) = _new_figure(figsize, ncols=2, gridspec_kw={"width_ratios": [1.1, 1]})
        springs, nodes, pins, segments = _animated_network(ax_s, P, E, rest, pin_pts, lims, scene_title,
                                                           node_size, lw)
        stamp = ax_s.text(0.02, 0.96, label_of(t[0]), transform=ax_s.transAxes, ha="left", va="top",
                          fontsize=10, color="0.25", zorder=ANIM_Z + 3)
        traces = []
        for j, (key, y) in enumerate(series.items()):
            ax_e.plot(t, y, color=cols[key], lw=1.2, alpha=0.25)
            line, = ax_e.plot(t[:1], y[:1], color=cols[key], lw=2.2, label=key, zorder=ANIM_Z + 2 * j)
            dot, = ax_e.plot(t[:1], y[:1], "o", color=cols[key], ms=7, mec="white", mew=1.2,
                             zorder=ANIM_Z + 2 * j + 1)
            traces.append((line, dot, y))
        Y = np.concatenate(list(series.values()))
        ax_e.set_xlim(*_padded(t.min(), t.max(), 0.02))
        ax_e.set_ylim(*_padded(Y.min(), Y.max(), 0.06))
        _finish_plot(fig, ax_e, False, xlabel, ylabel, title, legend=len(series) > 1)
        fig.tight_layout()

    def update(i):
        springs.set_segments(segments[i])
        nodes.set_offsets(P[i])
        for line, dot, y in traces:
            line.set_data(t[:i + 1], y[:i + 1])
            dot.set_data(t[i:i + 1], y[i:i + 1])
        stamp.set_text(label_of(t[i]))

    artists = [springs, nodes, stamp, *(a for line, dot, _ in traces for a in (line, dot))]
    if pins is not None:
        artists.append(pins)
    return fig, BlitAnimation(fig, update, T, artists, interval=interval)


def _padded(lo, hi, pad):
    span = hi - lo
    margin = pad * span if span > 0 else max(abs(lo), 1.0) * 0.5
    return lo - margin, hi + margin


def animate_springs_grid(panels, lims=None, fps=20, pin_pts=None, figsize=None, suptitle=None,
                         node_size=40, lw=2.5):
    """Animate several spring networks side by side on one shared time line.

    Every panel must have the same number of frames T (panels are not resampled: pick
    frames with e.g. ``np.linspace(0, len(states) - 1, T).astype(int)``). A thin bar under
    the panels shows the progress through the T frames.

    Parameters
    ----------
    panels : sequence of dict
        One dict per panel: ``"states"`` (sequence of (n, 2) arrays or (T, n, 2) array),
        ``"E"`` ((m, 2) int array) and optionally ``"title"`` (str) and ``"rest"`` ((n, 2)).
    lims : ((xmin, xmax), (ymin, ymax)), optional
        Limits shared by all panels; the bounding box of all states when None.
    fps : float, default 20
        Live playback rate (the video rate is ``save_animation``'s fps).
    pin_pts : (p, 2) float array, optional
        Pinned positions drawn in every panel.
    figsize : (2,) float, optional
        ``(4.2 * panels + 0.4, 3.9)`` when None.
    suptitle : str, optional
    node_size, lw : float
        Node marker area and spring width.

    Returns
    -------
    fig : matplotlib.figure.Figure
    anim : simkit.filesystem.BlitAnimation
    """
    if not isinstance(panels, (list, tuple)) or not panels:
        raise ValueError("panels must be a non-empty list of dicts {'states', 'E', 'title'}, "
                         f"got {type(panels).__name__}")
    data = []
    for k, panel in enumerate(panels):
        if not isinstance(panel, dict) or "states" not in panel or "E" not in panel:
            raise ValueError(f"panels[{k}] must be a dict with keys 'states' and 'E' (and optionally 'title')")
        P = _states(panel["states"], f"panels[{k}]['states']")
        E = _edges(panel["E"], P.shape[1], f"panels[{k}]['E']")
        rest = panel.get("rest")
        rest = None if rest is None else _points(rest, f"panels[{k}]['rest']", P.shape[1])
        data.append((P, E, panel.get("title"), rest))
    counts = [P.shape[0] for P, *_ in data]
    if len(set(counts)) != 1:
        raise ValueError(f"all panels need the same number of frames, got {counts}; resample the states "
                         "(e.g. states[i] for i in np.linspace(0, len(states) - 1, T).astype(int))")
    T = counts[0]
    fps = _positive(fps, "fps")
    lims = _scene_limits(lims) or _auto_scene_limits(np.concatenate([P.reshape(-1, 2) for P, *_ in data]))
    pin_pts = _pin_points(pin_pts)
    if figsize is None:
        figsize = (4.2 * len(data) + 0.4, 3.9)

    with style():
        fig, axes = _new_figure(figsize, nrows=2, ncols=len(data), squeeze=False,
                                gridspec_kw={"height_ratios": [1, 0.035]})
        gs = axes[1, 0].get_subplotspec().get_gridspec()
        for ax in axes[1]:
            ax.remove()
        ax_time = fig.add_subplot(gs[1, :])
        ax_time.set_xlim(0, 1)
        ax_time.set_ylim(0, 1)
        ax_time.set_axis_off()
        ax_time.add_patch(Rectangle((0, 0), 1, 1, color=TRACK_C, lw=0))
        bar = ax_time.add_patch(Rectangle((0, 0), 1.0 if T == 1 else 0.0, 1, color=SPRING_EDGE, lw=0,
                                          zorder=ANIM_Z))
        moving, pin_artists = [], []
        for ax, (P, E, title, rest) in zip(axes[0], data):
            springs, nodes, pins, segments = _animated_network(ax, P, E, rest, pin_pts, lims, title,
                                                               node_size, lw)
            moving.append((springs, nodes, P, segments))
            if pins is not None:
                pin_artists.append(pins)
        if suptitle is not None:
            fig.suptitle(suptitle)
        fig.tight_layout()

    def update(i):
        for springs, nodes, P, segments in moving:
            springs.set_segments(segments[i])
            nodes.set_offsets(P[i])
        bar.set_width(i / (T - 1) if T > 1 else 1.0)

    artists = [bar, *(a for springs, nodes, _, _ in moving for a in (springs, nodes)), *pin_artists]
    return fig, BlitAnimation(fig, update, T, artists, interval=1000.0 / fps)


# ---------------------------------------------------------------------------------------
# video
# ---------------------------------------------------------------------------------------

def embed_video(path):
    """An HTML5 video (controls, loop, muted, playsinline) with the MP4 inlined as a base64 data URI.

    The video plays in Jupyter and on the static website with no file to copy.

    Parameters
    ----------
    path : str or os.PathLike
        Existing ``.mp4`` file.

    Returns
    -------
    html : IPython.display.HTML
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    path = os.fspath(path)
    if not path.lower().endswith(".mp4"):
        raise ValueError(f"path must be an .mp4 file, got {path!r}")
    if not os.path.isfile(path):
        raise ValueError(f"path {path!r} does not exist; write it first with save_animation or show_video")
    from IPython.display import HTML

    with open(path, "rb") as fh:
        data = base64.b64encode(fh.read()).decode("ascii")
    return HTML('<video controls loop muted playsinline style="max-width: 100%; height: auto;">'
                f'<source src="data:video/mp4;base64,{data}" type="video/mp4">'
                "Your browser does not support HTML5 video.</video>")


def show_video(fig, anim, path, fps=20, copy_to=None):
    """Save an animation as MP4, close its figure and return the embedded video.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        Figure of the animation; closed afterwards (also on failure), so the notebook
        does not show it again as a still image.
    anim : matplotlib.animation.Animation
    path : str or os.PathLike
        Target ``.mp4``.
    fps : float, default 20
    copy_to : str or os.PathLike, optional
        Second target receiving an identical copy.

    Returns
    -------
    html : IPython.display.HTML
        See ``embed_video``.
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    try:
        written = save_animation(anim, path, fps, copy_to=copy_to)
    finally:
        plt.close(fig)
    return embed_video(written)


# ---------------------------------------------------------------------------------------
# energy terms
# ---------------------------------------------------------------------------------------

def _column(x, N, name="x"):
    """``x`` as an (N, 1) float column (accepts (N,) too)."""
    x = np.asarray(x, dtype=float)
    if x.size != N or x.ndim not in (1, 2) or (x.ndim == 2 and x.shape[1] != 1):
        raise ValueError(f"{name} must be a stacked position column of shape ({N}, 1), got {x.shape}")
    return x.reshape(N, 1)


def _scalar(v):
    """A 0-d, (1,) or (1, 1) result as a Python float."""
    return float(np.asarray(v).item())


def _per_edge(v, m, name):
    v = _finite_array(v, name)
    if v.size != m or v.ndim > 2 or (v.ndim == 2 and v.shape[1] != 1):
        raise ValueError(f"{name} must have shape ({m}, 1), one value per spring, got {v.shape}")
    return v.reshape(m, 1)


class SpringEnergy:
    """Strain-normalized mass springs: ``Psi(x) = sum_e vol_e * 1/2 * ym_e * ((l_e - l0_e) / l0_e)^2``.

    The axial stiffness of spring e is ``d^2 Psi / d l_e^2 = ym_e * vol_e / l0_e^2``, so
    ``ym = EA`` and ``vol = l0`` give the ``EA / l`` springs of a discretized rod. Built on
    ``simkit.energies.mass_springs_*_z`` with simkit's (unnormalized) stiffness
    ``ym / l0^2``; the Hessian is the PSD-projected one.

    Parameters
    ----------
    J : (m*dim, n*dim) sparse matrix
        Stacked edge-vector operator, ``d = J x``.
    ym : (m, 1) float array
        Young's-modulus-like stiffness per spring (e.g. ``EA``).
    vol : (m, 1) float array
        Quadrature weight per spring (e.g. its rest length).
    l0 : (m, 1) float array
        Rest length per spring, > 0.
    """

    def __init__(self, J, ym, vol, l0):
        if not (sps.issparse(J) or isinstance(J, np.ndarray)) or J.ndim != 2:
            raise TypeError(f"J must be a 2D sparse matrix or array, got {type(J).__name__}")
        l0 = _finite_array(l0, "l0").reshape(-1, 1)
        m = l0.shape[0]
        if m == 0 or J.shape[0] % m:
            raise ValueError(f"J has {J.shape[0]} rows, expected m*dim for m = {m} springs (len(l0))")
        if np.any(l0 <= 0):
            raise ValueError("l0 must be positive: a zero rest length has no strain")
        self.J = sps.csc_matrix(J)
        self.ym = _per_edge(ym, m, "ym")
        self.vol = _per_edge(vol, m, "vol")
        self.l0 = l0
        self._k = self.ym / l0 ** 2
        self._N = J.shape[1]

    def energy(self, x):
        """Total spring energy, float."""
        x = _column(x, self._N)
        return _scalar(simkit.energies.mass_springs_energy_z(x, self.J, self._k, self.vol, self.l0))

    def gradient(self, x):
        """Gradient, (N, 1) float array."""
        x = _column(x, self._N)
        return simkit.energies.mass_springs_gradient_z(x, self.J, self._k, self.vol, self.l0)

    def hessian(self, x):
        """PSD-projected Hessian, (N, N) sparse matrix."""
        x = _column(x, self._N)
        return simkit.energies.mass_springs_hessian_z(x, self.J, self._k, self.vol, self.l0, psd=True)


class PenaltySpring:
    """Soft pins: ``Psi(x) = k/2 * ||x[idx] - targets||^2`` (zero until ``set`` is called).

    Parameters
    ----------
    n : int
        Number of nodes.
    dim : int
        Spatial dimension (2 or 3).
    k : float
        Penalty stiffness, > 0.
    """

    def __init__(self, n, dim, k):
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral) or n < 1:
            raise ValueError(f"n must be a positive int number of nodes, got {n!r}")
        if dim not in (2, 3) or isinstance(dim, (bool, np.bool_)):
            raise ValueError(f"dim must be 2 or 3, got {dim!r}")
        self.n, self.dim, self.k = int(n), int(dim), _positive(k, "k")
        N = self.n * self.dim
        self.Q = sps.csc_matrix((N, N))
        self.b = np.zeros((N, 1))
        self.c = 0.0

    def set(self, idx, targets):
        """Pin nodes ``idx`` to ``targets``, replacing earlier pins.

        Parameters
        ----------
        idx : (p,) int array
            Pinned node indices in [0, n).
        targets : (p, dim) float array
            Target positions.

        Returns
        -------
        self : PenaltySpring
        """
        idx = _indices(idx, self.n, "idx")
        targets = _finite_array(targets, "targets").reshape(-1, self.dim) if np.size(targets) else np.zeros(
            (0, self.dim))
        if targets.shape != (idx.size, self.dim):
            raise ValueError(f"targets must have shape ({idx.size}, {self.dim}), one row per pinned node, "
                             f"got {np.shape(targets)}")
        self.Q, self.b = simkit.dirichlet_penalty(idx, targets, self.n, self.k)
        self.c = 0.5 * self.k * float(np.sum(targets ** 2))   # the constant dirichlet_penalty drops
        return self

    def energy(self, x):
        """Penalty energy, float."""
        x = _column(x, self.n * self.dim)
        return _scalar(simkit.energies.quadratic_energy(x, self.Q, self.b)) + self.c

    def gradient(self, x):
        """Gradient ``Q x + b``, (N, 1) float array."""
        x = _column(x, self.n * self.dim)
        return simkit.energies.quadratic_gradient(x, self.Q, self.b)

    def hessian(self, x):
        """Constant Hessian ``Q``, (N, N) sparse matrix."""
        _column(x, self.n * self.dim)
        return simkit.energies.quadratic_hessian(self.Q)


class Gravity:
    """Work of constant forces: ``Psi(x) = -f_g^T x``, gradient ``-f_g``, zero Hessian.

    Parameters
    ----------
    f_g : (N, 1) or (n, dim) float array
        Force on every degree of freedom (e.g. ``simkit.gravity_force``), node-major.
    """

    def __init__(self, f_g):
        self.f_g = _finite_array(f_g, "f_g").reshape(-1, 1)
        if self.f_g.shape[0] == 0:
            raise ValueError("f_g must not be empty")

    def energy(self, x):
        """Potential of the forces, float."""
        return -_scalar(self.f_g.T @ _column(x, self.f_g.shape[0]))

    def gradient(self, x):
        """Gradient ``-f_g``, (N, 1) float array."""
        _column(x, self.f_g.shape[0])
        return -self.f_g.copy()

    def hessian(self, x):
        """Zero Hessian, (N, N) sparse matrix."""
        N = self.f_g.shape[0]
        _column(x, N)
        return sps.csc_matrix((N, N))


class Inertia:
    """Backward-Euler inertia: ``1/(2 h^2) ||x - (x_n + h v_n)||_M^2``, set per step by ``update``.

    Equal to ``simkit.energies.kinetic_*_be(x, x_n, x_n - h v_n, M, h)``.

    Parameters
    ----------
    M : (N, N) sparse matrix
        Mass matrix on the stacked degrees of freedom.
    h : float
        Time step, > 0.
    """

    def __init__(self, M, h):
        if not (sps.issparse(M) or isinstance(M, np.ndarray)) or M.ndim != 2 or M.shape[0] != M.shape[1]:
            raise ValueError(f"M must be a square (N, N) matrix, got {getattr(M, 'shape', type(M).__name__)}")
        self.M = sps.csc_matrix(M)
        self.h = _positive(h, "h")
        self.x_n = None
        self.x_prev = None

    def update(self, x_n, v_n):
        """Set the state of the step: position ``x_n`` and velocity ``v_n``, both (N, 1).

        Returns
        -------
        self : Inertia
        """
        N = self.M.shape[0]
        self.x_n = _finite_array(_column(x_n, N, "x_n"), "x_n")
        self.x_prev = self.x_n - self.h * _finite_array(_column(v_n, N, "v_n"), "v_n")
        return self

    def _state(self, x):
        if self.x_n is None:
            raise RuntimeError("Inertia has no state yet: call update(x_n, v_n) before evaluating it")
        return _column(x, self.M.shape[0])

    def energy(self, x):
        """Inertia energy, float."""
        x = self._state(x)
        return _scalar(simkit.energies.kinetic_energy_be(x, self.x_n, self.x_prev, self.M, self.h))

    def gradient(self, x):
        """Gradient ``M (x - x_tilde) / h^2``, (N, 1) float array."""
        x = self._state(x)
        return simkit.energies.kinetic_gradient_be(x, self.x_n, self.x_prev, self.M, self.h)

    def hessian(self, x):
        """Constant Hessian ``M / h^2``, (N, N) sparse matrix."""
        self._state(x)
        return simkit.energies.kinetic_hessian_be(self.M, self.h)
