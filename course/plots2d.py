"""Static 2D plots in the course look: scenes (springs, nodes, pins) and curves.

Curves: lines, phase planes, residuals, convergence, profiles.

A new static 2D plot goes here: validate its inputs first, draw inside ``style()``, take an
optional ``ax`` and return ``(fig, ax)`` (or the artists it drew, for a scene).
"""
from typing import NamedTuple

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from simkit import checks

from ._inputs import _indices, _limits, _points, _scene_limits, _series
from ._public import public
from .style import (GRID_C, INTEGRATOR_COLORS, PIN_C, REST_C, SPRING_EDGE, SPRING_NODE, STYLE, _colors,
                    _finish_plot, _plot_axes, _style_axes, style)


def _curves(x, series, name):
    """The abscissa ``x`` as a finite (k,) array and the series as {name: (k,) array} of a curve plot."""
    x = checks.finite_array(x, name).reshape(-1)
    return x, _series(series, x.shape[0], "series", f"entries in {name}")


@public
class SpringNetworkArtists(NamedTuple):
    """Artists drawn by ``plot_spring_network`` (None where not drawn)."""

    springs: LineCollection
    nodes: object
    pins: object
    rest: LineCollection
    colorbar: object


def setup_axes(ax, xlim, ylim, title=None, xlabel=None, ylabel=None):
    r"""Prepare a scene Axes: fixed limits, equal aspect (:math:`\Delta y / \Delta x` drawn to scale), light grid, title and axis labels.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    xlim, ylim : (2,) float
        ``(low, high)`` limits of the x and y axes.
    title : str, optional
    xlabel, ylabel : str, optional
        Axis labels with their unit, e.g. ``"x  (m)"``.

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
        if xlabel is not None:
            ax.set_xlabel(xlabel)
        if ylabel is not None:
            ax.set_ylabel(ylabel)
    return ax


def plot_spring_network(ax, X, E, pins=None, node_values=None, edge_values=None, cmap="viridis",
                        label=None, vmin=None, vmax=None, node_size=30, lw=2.0, title=None, lims=None,
                        rest=None, *, zorder=2.0):
    r"""Draw a 2D spring network: springs as one LineCollection, nodes as a scatter, pins as squares.

    A scalar field on the nodes (a lumped mass) or on the springs (a tension
    :math:`k\,(l_e - l_{0,e})`) colours them through ``cmap`` and gets a colorbar labelled
    ``label``; the rest shape, when given, is drawn in gray dashes below.

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
    E = checks.index_array(E, "E", 2, n)
    pins = _indices(pins if pins is not None else [], n, "pins")
    if node_values is not None and edge_values is not None:
        raise ValueError("node_values, edge_values: expected one of them, not both (one colorbar per network)")
    if node_values is not None:
        node_values = checks.element_values(node_values, "node_values", n, "node")
    if edge_values is not None:
        edge_values = checks.element_values(edge_values, "edge_values", E.shape[0], "spring")
    if rest is not None:
        rest = _points(rest, "rest", n)
    node_size = checks.positive_scalar(node_size, "node_size")
    lw = checks.positive_scalar(lw, "lw")
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


def line_plot(t, series, xlabel="", ylabel="", colors=None, title=None, ax=None, figsize=(7.5, 4.2)):
    r"""Plot several named series against a shared abscissa: one curve :math:`(t_i, y_i)` per name.

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
    t, series = _curves(t, series, "t")
    cols = _colors(colors, series)
    with style():
        fig, ax, own = _plot_axes(ax, figsize)
        for key, y in series.items():
            ax.plot(t, y, color=cols[key], label=key)
        _finish_plot(fig, ax, own, xlabel, ylabel, title, legend=True)
    return fig, ax


def phase_plot(series, xlabel="", ylabel="", title=None, figsize=(7.5, 5.5), colors=None, ax=None):
    r"""Plot trajectories in a 2D phase plane, e.g. :math:`(u, p = m v)`, start marked by a dot.

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
        error = ValueError if isinstance(series, dict) else TypeError
        raise error(f"series: expected a non-empty dict {{name: (k, 2) array}}, got {type(series).__name__}")
    paths = {}
    for key, v in series.items():
        v = checks.finite_array(v, f"series[{key!r}]")
        if v.ndim != 2 or v.shape[1] != 2 or v.shape[0] == 0:
            raise ValueError(f"series[{key!r}]: expected a (k, 2) array of phase-plane points, got shape {v.shape}")
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
    r"""Plot positive quantities that decay (residuals, errors, energy gaps) on a log y axis.

    Zero or negative entries (e.g. the final gap :math:`\Phi_k - \Phi^\star` of a converged solve) have
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
            raise ValueError(f"series: expected equal lengths without t, got {sorted(lengths)}; pass t or equal-length series")
        t = np.arange(lengths.pop(), dtype=float)
    else:
        t, series = _curves(t, series, "t")
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
    r"""Plot convergence data on log-log axes with dashed reference slopes.

    Each reference line :math:`y = y_0\,(x / x_0)^s` is anchored at the first point :math:`(x_0, y_0)`
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
    x, series = _curves(x, series, "x")
    if np.any(x <= 0):
        raise ValueError("x: expected positive values on log-log axes")
    for key, y in series.items():
        if np.any(y <= 0):
            raise ValueError(f"series[{key!r}]: expected positive values on log-log axes")
    if ref_slopes is not None and not isinstance(ref_slopes, dict):
        raise TypeError(f"ref_slopes: expected a dict {{label: slope}}, got {type(ref_slopes).__name__}")
    slopes = {key: checks.finite_array(s, f"ref_slopes[{key!r}]").item() for key, s in (ref_slopes or {}).items()}
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


def profile_plot(curves, xlabel="", ylabel="", title=None, colors=None, styles=None, ax=None, figsize=(7.5, 4.2),
                 pins=None):
    """Side views of shapes: named polylines in one plane, equal aspect (e.g. centrelines).

    Parameters
    ----------
    curves : dict of str -> (k, 2) float array
        Polyline per name.
    xlabel, ylabel : str
    title : str, optional
    colors : dict of str -> colour, optional
    styles : dict of str -> str, optional
        matplotlib format string per name (default "-o" with small markers).
    ax : matplotlib.axes.Axes, optional
    figsize : (2,) float, default (7.5, 4.2)
    pins : (p, 2) float array, optional
        Clamped points, drawn as ``PIN_C`` squares.

    Returns
    -------
    fig : matplotlib.figure.Figure
    ax : matplotlib.axes.Axes
    """
    if not isinstance(curves, dict):
        raise TypeError(f"curves: expected a dict {{name: (k, 2) array}}, got {type(curves).__name__}")
    if not curves:
        raise ValueError("curves: expected at least one curve, got an empty dict")
    paths = {key: _points(v, f"curves[{key!r}]") for key, v in curves.items()}
    cols = _colors(colors, paths)
    styles = styles or {}
    with style():
        fig, ax, own = _plot_axes(ax, figsize)
        for key, v in paths.items():
            ax.plot(v[:, 0], v[:, 1], styles.get(key, "-o"), color=cols[key], ms=3.5, label=key)
        if pins is not None:
            pins = _points(np.atleast_2d(pins), "pins")
            ax.scatter(pins[:, 0], pins[:, 1], s=60, marker="s", color=PIN_C, zorder=5, label="clamped")
        ax.set_aspect("equal")
        _finish_plot(fig, ax, own, xlabel, ylabel, title, legend=True)
    return fig, ax
