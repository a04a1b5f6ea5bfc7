"""2D animations: spring networks moving beside their energy curves, or in a grid of panels on one clock.

Each helper returns ``(fig, anim)`` with ``anim`` a ``course.filesystem.BlitAnimation``:
the static parts are drawn once, and per frame only the animated artists (``zorder >=
ANIM_Z``) are redrawn and piped to the encoder. Publish the pair with ``Chapter.video``.
"""
import re

import numpy as np
from matplotlib.patches import Rectangle

from simkit import checks
from .filesystem import BlitAnimation

from ._inputs import _auto_scene_limits, _points, _scene_limits, _series, _states
from ._marker_path import cache_marker_extents
from .plots2d import plot_spring_network
from .style import (ANIM_Z, DENSITY, DPI, ENERGY_COLORS, PIN_C, SPRING_EDGE, TRACK_C, _colors, _finish_plot,
                    _new_figure, style)


def _pin_points(pin_pts):
    if pin_pts is None:
        return None
    return _points(np.atleast_2d(checks.finite_array(pin_pts, "pin_pts")), "pin_pts")


def _label_formatter(t, xlabel, time_format):
    """Function frame value -> label text: ``time_format.format(value)``, or "<xlabel> = value <unit>"."""
    if time_format is not None:
        if np.all(t == np.round(t)):          # whole numbers (iterations) format as ints: "{:d}" works
            return lambda v: time_format.format(int(round(v)))
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
    cache_marker_extents(net.nodes)         # drawn every frame
    pins = None
    if pin_pts is not None:
        pins = ax.scatter(pin_pts[:, 0], pin_pts[:, 1], s=1.6 * node_size, marker="s", color=PIN_C,
                          edgecolors="white", linewidths=0.6, zorder=ANIM_Z + 2)
    return net.springs, net.nodes, pins, states[:, E]


def animate_springs_energy(states, E, t, series, rest=None, lims=None, xlabel="time  (s)", ylabel="energy",
                           scene_title=None, title=None, colors=None, pin_pts=None, figsize=(11, 4),
                           node_size=40, lw=2.5, interval=50, time_format=None):
    r"""Animate a spring network (left) beside its energy curves traced in lock-step (right).

    Frame :math:`i` shows ``states[i]`` and the curves over :math:`t_0 \dots t_i` with a moving marker; the
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
        Figure size in inches: shown at 1100 x 400 CSS pixels (``DPI``), rendered at
        ``DENSITY`` times that.
    node_size, lw : float
        Node marker area and spring width.
    interval : float, default 50
        Milliseconds between frames when shown live (the video rate is ``save_animation``'s fps).
    time_format : str, optional
        Format of the frame label, e.g. ``"t = {:.2f} s"``.

    Returns
    -------
    fig : matplotlib.figure.Figure
    anim : course.filesystem.BlitAnimation
    """
    P = _states(states)
    T, n = P.shape[:2]
    E = checks.index_array(E, "E", 2, n)
    t = checks.finite_array(t, "t").reshape(-1)
    if t.shape[0] != T:
        raise ValueError(f"t: expected one value per state ({T}), got {t.shape[0]}")
    series = _series(series, T, "series", "states")
    if rest is not None:
        rest = _points(rest, "rest", n)
    lims = _scene_limits(lims) or _auto_scene_limits(P)
    pin_pts = _pin_points(pin_pts)
    if colors is not None and not isinstance(colors, dict):
        raise TypeError(f"colors: expected a dict {{series name: colour}}, got {type(colors).__name__}")
    cols = _colors({**ENERGY_COLORS, **(colors or {})}, series)
    label_of = _label_formatter(t, xlabel, time_format)

    with style():
        fig, (ax_s, ax_e) = _new_figure(figsize, dpi=DENSITY * DPI, ncols=2,
                                        gridspec_kw={"width_ratios": [1.1, 1]})
        springs, nodes, pins, segments = _animated_network(ax_s, P, E, rest, pin_pts, lims, scene_title,
                                                           node_size, lw)
        stamp = ax_s.text(0.02, 0.96, label_of(t[0]), transform=ax_s.transAxes, ha="left", va="top",
                          fontsize=10, color="0.25", zorder=ANIM_Z + 3)
        traces = _trace_series(ax_e, t, series, cols)
        _finish_plot(fig, ax_e, False, xlabel, ylabel, title, legend=len(series) > 1)
        fig.tight_layout()

    def update(i):
        springs.set_segments(segments[i])
        nodes.set_offsets(P[i])
        _advance_traces(traces, t, i)
        stamp.set_text(label_of(t[i]))

    artists = [springs, nodes, stamp, *(a for line, dot, _ in traces for a in (line, dot))]
    if pins is not None:
        artists.append(pins)
    return fig, BlitAnimation(fig, update, T, artists, interval=interval)


def _trace_series(ax, t, series, colors):
    """Faint full curves of ``series`` over ``t`` and, above them, animated ones traced up to a frame.

    Returns the list of ``(line, dot, values)`` that ``_advance_traces`` moves to a frame.
    """
    traces = []
    for j, (key, y) in enumerate(series.items()):
        ax.plot(t, y, color=colors[key], lw=1.2, alpha=0.25)
        line, = ax.plot(t[:1], y[:1], color=colors[key], lw=2.2, label=key, zorder=ANIM_Z + 2 * j)
        dot, = ax.plot(t[:1], y[:1], "o", color=colors[key], ms=7, mec="white", mew=1.2, zorder=ANIM_Z + 2 * j + 1)
        traces.append((line, dot, y))
    Y = np.concatenate(list(series.values()))
    ax.set_xlim(*_padded(t.min(), t.max(), 0.02))
    ax.set_ylim(*_padded(Y.min(), Y.max(), 0.06))
    return traces


def _advance_traces(traces, t, i):
    """Trace every curve of ``_trace_series`` up to frame ``i``, its dot at frame ``i``."""
    for line, dot, y in traces:
        line.set_data(t[:i + 1], y[:i + 1])
        dot.set_data(t[i:i + 1], y[i:i + 1])


def _padded(lo, hi, pad):
    span = hi - lo
    margin = pad * span if span > 0 else max(abs(lo), 1.0) * 0.5
    return lo - margin, hi + margin


REF_STYLES = [("#b03a2e", "--"), ("0.35", ":"), ("#2e86c1", "-.")]
"""list of (colour, linestyle) : reference lines of the grid animation, in order."""


COUNTER_PLACES = {"upper left": (0.02, 0.97, "left", "top"), "upper right": (0.98, 0.97, "right", "top"),
                  "lower left": (0.02, 0.03, "left", "bottom"), "lower right": (0.98, 0.03, "right", "bottom")}
"""dict of str -> (x, y, ha, va) : where a panel's counter sits for each ``counter_loc`` (axes fractions)."""


def _polylines(refs, name):
    """{label: (k, 2) float array} of reference polylines; NaN rows break a polyline into pieces."""
    if refs is None:
        return {}
    if not isinstance(refs, dict):
        raise TypeError(f"{name}: expected a dict {{label: (k, 2) points}}, got {type(refs).__name__}")
    out = {}
    for label, pts in refs.items():
        try:
            pts = np.asarray(pts, dtype=float)
        except (TypeError, ValueError) as err:
            raise TypeError(f"{name}[{label!r}]: expected a numeric (k, 2) array ({err})") from err
        if pts.ndim != 2 or pts.shape[1] != 2 or pts.shape[0] < 2:
            raise ValueError(f"{name}[{label!r}]: expected a (k, 2) array of k >= 2 points, got shape {pts.shape}")
        if np.any(np.isinf(pts)):
            raise ValueError(f"{name}[{label!r}]: expected no inf (NaN rows separate pieces)")
        out[label] = pts
    return out


def animate_springs_grid(panels, lims=None, fps=20, pin_pts=None, figsize=None, suptitle=None,
                         node_size=40, lw=2.5, t=None, time_format=None, ncols=None, legend_loc="lower left",
                         counter_loc="upper left"):
    r"""Animate several spring networks in a grid of panels on one shared time line.

    Every panel must have the same number of frames T (panels are not resampled: pick
    frames with e.g. ``np.linspace(0, len(states) - 1, T).astype(int)``). A thin bar under
    the panels shows the progress :math:`i / (T - 1)` through the T frames; with ``t`` each panel also shows
    a counter ("time = 1.20 s"), and reference polylines (a rest length, an initial
    amplitude, a static shape) stay in place, dashed, while the network moves.

    Parameters
    ----------
    panels : sequence of dict
        One dict per panel: ``"states"`` (sequence of (n, 2) arrays or (T, n, 2) array),
        ``"E"`` ((m, 2) int array) and optionally ``"title"`` (str), ``"rest"`` ((n, 2),
        gray dashes), ``"refs"`` (dict label -> (k, 2) polyline, NaN rows separate
        pieces), ``"legend"`` (bool, default True: list the refs), ``"t"`` ((T,) values of
        this panel's counter) and ``"time_format"``.
    lims : ((xmin, xmax), (ymin, ymax)), optional
        Limits shared by all panels; the bounding box of all states when None.
    fps : float, default 20
        Live playback rate (the video rate is ``save_animation``'s fps).
    pin_pts : (p, 2) float array, optional
        Pinned positions drawn in every panel.
    figsize : (2,) float, optional
        ``(4.2 * ncols + 0.4, 3.9 * rows)`` when None.
    suptitle : str, optional
    node_size, lw : float
        Node marker area and spring width.
    t : (T,) float array, optional
        Counter values of every panel without its own ``"t"`` (e.g. time in seconds).
    time_format : str, optional
        Format of the counter, e.g. ``"t = {:.2f} s"``; "time = 1.20 s" when None.
    ncols : int, optional
        Panels per row; all in one row when None, ``ncols=1`` stacks them.
    legend_loc : str, default "lower left"
        Legend position of the reference lines in each panel that has some; ``"outside"``
        puts it to the right of the panel.
    counter_loc : {"upper left", "upper right", "lower left", "lower right"}, default "upper left"
        Corner of each panel holding its counter.

    Returns
    -------
    fig : matplotlib.figure.Figure
        At ``DENSITY * DPI`` dots per inch.
    anim : course.filesystem.BlitAnimation
    """
    if not isinstance(panels, (list, tuple)) or not panels:
        error = ValueError if isinstance(panels, (list, tuple)) else TypeError
        raise error("panels: expected a non-empty list of dicts {'states', 'E', 'title'}, "
                    f"got {type(panels).__name__}")
    data = []
    for k, panel in enumerate(panels):
        if not isinstance(panel, dict):
            raise TypeError(f"panels[{k}]: expected a dict with keys 'states' and 'E', got {type(panel).__name__}")
        if "states" not in panel or "E" not in panel:
            raise ValueError(f"panels[{k}]: expected keys 'states' and 'E' (and optionally 'title'), got {sorted(panel)}")
        P = _states(panel["states"], f"panels[{k}]['states']")
        E = checks.index_array(panel["E"], f"panels[{k}]['E']", 2, P.shape[1])
        rest = panel.get("rest")
        rest = None if rest is None else _points(rest, f"panels[{k}]['rest']", P.shape[1])
        refs = _polylines(panel.get("refs"), f"panels[{k}]['refs']")
        data.append({"P": P, "E": E, "title": panel.get("title"), "rest": rest, "refs": refs,
                     "legend": bool(panel.get("legend", True)),
                     "t": panel.get("t", t), "time_format": panel.get("time_format", time_format)})
    counts = [d["P"].shape[0] for d in data]
    if len(set(counts)) != 1:
        raise ValueError(f"panels: expected the same number of frames in every panel, got {counts}; resample the states "
                         "(e.g. states[i] for i in np.linspace(0, len(states) - 1, T).astype(int))")
    T = counts[0]
    for k, d in enumerate(data):
        if d["t"] is not None:
            d["t"] = checks.finite_array(d["t"], f"panels[{k}]['t']" if "t" in panels[k] else "t").reshape(-1)
            if d["t"].shape[0] != T:
                raise ValueError(f"t: expected one value per frame ({T}), got {d['t'].shape[0]}")
            d["label_of"] = _label_formatter(d["t"], "time  (s)", d["time_format"])
    fps = checks.positive_scalar(fps, "fps")
    if counter_loc not in COUNTER_PLACES:
        raise ValueError(f"counter_loc: expected one of {sorted(COUNTER_PLACES)}, got {counter_loc!r}")
    if ncols is None:
        ncols = len(data)
    ncols = min(checks.integer(ncols, "ncols", low=1), len(data))
    nrows = -(-len(data) // ncols)
    lims = _scene_limits(lims) or _auto_scene_limits(np.concatenate([d["P"].reshape(-1, 2) for d in data]))
    pin_pts = _pin_points(pin_pts)
    if figsize is None:
        figsize = (4.2 * ncols + 0.4, 3.9 * nrows)

    with style():
        fig, axes = _new_figure(figsize, dpi=DENSITY * DPI, nrows=nrows + 1, ncols=ncols, squeeze=False,
                                gridspec_kw={"height_ratios": [1] * nrows + [0.035 * nrows ** 0.5]})
        gs = axes[-1, 0].get_subplotspec().get_gridspec()
        for ax in axes.flat[len(data):]:
            ax.remove()
        ax_time = fig.add_subplot(gs[-1, :])
        ax_time.set_xlim(0, 1)
        ax_time.set_ylim(0, 1)
        ax_time.set_axis_off()
        ax_time.add_patch(Rectangle((0, 0), 1, 1, color=TRACK_C, lw=0))
        bar = ax_time.add_patch(Rectangle((0, 0), 1.0 if T == 1 else 0.0, 1, color=SPRING_EDGE, lw=0,
                                          zorder=ANIM_Z))
        moving, pin_artists = [], []
        for ax, d in zip(axes.flat, data):
            for (label, pts), (color, ls) in zip(d["refs"].items(), REF_STYLES * len(d["refs"])):
                ax.plot(pts[:, 0], pts[:, 1], color=color, ls=ls, lw=1.4, label=label, zorder=ANIM_Z - 1)
            springs, nodes, pins, segments = _animated_network(ax, d["P"], d["E"], d["rest"], pin_pts, lims,
                                                               d["title"], node_size, lw)
            if d["refs"] and d["legend"]:
                outside = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0)} if legend_loc == "outside" else {
                    "loc": legend_loc}
                ax.legend(fontsize=8.5, **outside)
            stamp = None
            if d["t"] is not None:
                x, y, ha, va = COUNTER_PLACES[counter_loc]
                stamp = ax.text(x, y, d["label_of"](d["t"][0]), transform=ax.transAxes, ha=ha, va=va,
                                fontsize=9.5, color="0.2", zorder=ANIM_Z + 3)
            moving.append((springs, nodes, stamp, d, segments))
            if pins is not None:
                pin_artists.append(pins)
        if suptitle is not None:
            fig.suptitle(suptitle)
        fig.tight_layout()

    def update(i):
        for springs, nodes, stamp, d, segments in moving:
            springs.set_segments(segments[i])
            nodes.set_offsets(d["P"][i])
            if stamp is not None:
                stamp.set_text(d["label_of"](d["t"][i]))
        bar.set_width(i / (T - 1) if T > 1 else 1.0)

    artists = [bar, *(a for springs, nodes, stamp, _, _ in moving for a in (springs, nodes, stamp)
                      if a is not None), *pin_artists]
    return fig, BlitAnimation(fig, update, T, artists, interval=1000.0 / fps)
