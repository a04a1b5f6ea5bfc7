"""The course's plotting, animation and video helpers, and the energy terms the chapters assemble.

Sections
--------
paths
    ``ROOT``, ``notebook_results_path``, ``media_dir``.
publishing
    ``Chapter``: one object per chapter that saves a figure or a video into
    ``results/<chapter>/``, publishes its copy ``media/<prefix>_<name>.png|mp4`` and returns
    what the page shows; ``check_frames_inside`` (no video frame leaves its axes).
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
3D meshes
    ``View``, ``view_basis``, ``plot_mesh_3d``, ``mesh_limits``, ``plot_meshes_3d``,
    ``animate_meshes_3d`` (flat-shaded triangle meshes by a fixed camera),
    ``plot_sheet_hinges``, ``plot_hinge_3d``, ``profile_plot`` and ``mesh_viewer_html``
    (an offline, interactive plotly view of a precomputed trajectory).
"""
import base64
import os
import re
from typing import NamedTuple

import matplotlib.colors as mcolors
import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sps
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

import simkit
from simkit import _assembly, _validate
from simkit.filesystem import BlitAnimation, save_animation, save_figure

# ---------------------------------------------------------------------------------------
# paths
# ---------------------------------------------------------------------------------------

ROOT = os.path.dirname(os.path.abspath(__file__))
"""str : the repository root (the folder holding this file).

:meta hide-value:
"""

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
    if not isinstance(name, str):
        raise TypeError(f"name: expected a str, got {type(name).__name__}")
    if name in ("", ".", "..") or os.sep in name or (os.altsep and os.altsep in name):
        raise ValueError(f"name: expected a non-empty folder name without path separators, got {name!r}")
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
# publishing
# ---------------------------------------------------------------------------------------

CHAPTER_NAME = re.compile(r"(\d{3})_[a-z0-9_]+")
MEDIA_NAME = re.compile(r"[a-z0-9][a-z0-9_]*")


class Chapter:
    """The publisher of one chapter: every figure and video in one short call.

    ``ch.figure(fig, "hooke")`` writes ``results/<chapter>/hooke.png``, publishes the
    identical copy ``media/<prefix>_hooke.png`` (``media_dir()``, so the build can stage
    it) and returns the image for the page; ``ch.video(fig, anim, "oscillators", fps=20,
    alt=...)`` does the same for an MP4 and returns the embedded video. Both close the
    figure, so a notebook shows each figure once. Files are written by
    ``simkit.filesystem.save_figure`` / ``save_animation`` (atomic, byte-reproducible) at
    ``DENSITY`` device pixels per CSS pixel and shown at ``DPI`` CSS pixels per inch.

    The page gives the figure its number, caption and alt text from the cell's metadata
    (``mystnb.figure.caption``, ``mystnb.figure.name``, ``mystnb.image.alt``); a video's
    alt text is the ``alt`` argument. See the README, "Adding a chapter".

    Parameters
    ----------
    name : str
        The notebook's name ``"NNN_topic"`` (``"011_mass_springs"``); media files are
        named ``"NNN_<name>"``.

    Attributes
    ----------
    name : str
    prefix : str
        The chapter number ``"NNN"``.
    results_dir : str
        ``<ROOT>/results/<name>``, created.
    """

    def __init__(self, name):
        if not isinstance(name, str):
            raise TypeError(f"name: expected a str, got {type(name).__name__}")
        match = CHAPTER_NAME.fullmatch(name)
        if match is None:
            raise ValueError(f"name: expected a notebook name 'NNN_topic' (three digits, then lower-case "
                             f"words joined by '_'), got {name!r}")
        self.name = name
        self.prefix = match.group(1)
        self.results_dir = notebook_results_path(name)

    def __repr__(self):
        return f"Chapter({self.name!r})"

    def paths(self, name, suffix):
        """Where a figure or video called ``name`` goes.

        Parameters
        ----------
        name : str
            Lower-case media name (``"hooke"``).
        suffix : str
            ``".png"`` or ``".mp4"``.

        Returns
        -------
        result : str
            ``results/<chapter>/<name><suffix>``.
        published : str
            ``<media_dir()>/<prefix>_<name><suffix>``.
        """
        if not isinstance(name, str):
            raise TypeError(f"name: expected a str, got {type(name).__name__}")
        if not MEDIA_NAME.fullmatch(name):
            raise ValueError(f"name: expected a lower-case media name like 'cable_static' ([a-z0-9_]), got {name!r}")
        return (os.path.join(self.results_dir, name + suffix),
                os.path.join(media_dir(), f"{self.prefix}_{name}{suffix}"))

    def figure(self, fig, name):
        r"""Save and publish a figure, close it, and return it for the page.

        Parameters
        ----------
        fig : matplotlib.figure.Figure
        name : str
            Media name: the files are ``results/<chapter>/<name>.png`` and
            ``media/<prefix>_<name>.png``.

        Returns
        -------
        image : IPython.display.Image
            The published PNG, shown at its CSS size: a figure ``w`` inches wide is
            :math:`w \cdot \mathrm{DPI}` CSS pixels and :math:`w \cdot \mathrm{DENSITY} \cdot \mathrm{DPI}`
            image pixels wide.
        """
        from IPython.display import Image

        if not isinstance(fig, Figure):
            raise TypeError(f"fig: expected a matplotlib Figure, got {type(fig).__name__}")
        result, published = self.paths(name, ".png")
        try:
            path = save_figure(fig, result, copy_to=published, dpi=DENSITY * fig.dpi)
        finally:
            plt.close(fig)
        with open(path, "rb") as fh:
            data = fh.read()
        width = int.from_bytes(data[16:20], "big")        # PNG IHDR: width, then height
        return Image(data=data, format="png", width=round(width / DENSITY))

    def video(self, fig, anim, name, fps, alt):
        """Save and publish an animation as MP4, close its figure, and return the embedded video.

        Frames are checked first (``check_frames_inside``): a video whose nodes leave their
        axes is refused before anything is written.

        Parameters
        ----------
        fig : matplotlib.figure.Figure
            Figure of the animation (create it at ``DENSITY * DPI``, as the ``animate_*``
            helpers do).
        anim : simkit.filesystem.BlitAnimation
        name : str
            Media name: ``results/<chapter>/<name>.mp4`` and ``media/<prefix>_<name>.mp4``.
        fps : float
            Frames per second.
        alt : str
            What the video shows, for readers who cannot see it (a sentence).

        Returns
        -------
        html : IPython.display.HTML
            See ``embed_video``; shown at the figure's size in CSS pixels.
        """
        if not isinstance(fig, Figure):
            raise TypeError(f"fig: expected a matplotlib Figure, got {type(fig).__name__}")
        if not isinstance(alt, str) or len(alt.split()) < 3:
            plt.close(fig)
            error = ValueError if isinstance(alt, str) else TypeError
            raise error(f"alt: expected a few words (a sentence) describing the video, got {alt!r}")
        result, published = self.paths(name, ".mp4")
        try:
            check_frames_inside(anim, name)
            path = save_animation(anim, result, fps, copy_to=published)
        finally:
            plt.close(fig)
        width = round(fig.get_size_inches()[0] * DPI)
        return embed_video(path, alt=alt, width=width)


def _data_points(artist):
    """(k, 2) data coordinates an animated artist draws, or None when it is not drawn in data space."""
    ax = artist.axes
    if isinstance(artist, LineCollection):
        segments = artist.get_segments()
        return np.concatenate(segments) if len(segments) else np.zeros((0, 2))
    if hasattr(artist, "get_offsets") and artist.get_offset_transform() == ax.transData:
        return np.asarray(artist.get_offsets(), dtype=float).reshape(-1, 2)
    if hasattr(artist, "get_xydata") and artist.get_transform() == ax.transData:
        return np.asarray(artist.get_xydata(), dtype=float).reshape(-1, 2)
    return None


def check_frames_inside(anim, name="anim"):
    r"""Raise ValueError when an animated artist of any frame draws data outside its Axes.

    Every drawn point must satisfy :math:`x_0 \le x \le x_1,\ y_0 \le y \le y_1` for the
    Axes' limits. Checks the data coordinates of every animated line, line collection and scatter of
    a ``BlitAnimation`` on flat (2D) Axes against the Axes' limits, frame by frame, so a
    video never shows nodes leaving the picture. Other animations pass unchecked.

    Parameters
    ----------
    anim : simkit.filesystem.BlitAnimation
    name : str, default "anim"
        Name used in the error message.
    """
    if not isinstance(anim, BlitAnimation):
        return
    checked = []
    for artist in anim.artists:
        ax = artist.axes
        if ax.name != "rectilinear" or _data_points(artist) is None:
            continue
        ax.apply_aspect()
        (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
        tol = 1e-9 * max(x1 - x0, y1 - y0)
        checked.append((artist, x0 - tol, x1 + tol, y0 - tol, y1 + tol))
    for i in range(anim.n_frames):
        anim.set_frame(i)
        for artist, x0, x1, y0, y1 in checked:
            P = _data_points(artist)
            P = P[np.all(np.isfinite(P), axis=1)]
            out = (P[:, 0] < x0) | (P[:, 0] > x1) | (P[:, 1] < y0) | (P[:, 1] > y1)
            if np.any(out):
                x, y = P[np.argmax(out)]
                title = artist.axes.get_title() or "an Axes"
                raise ValueError(f"{name}: frame {i} of {anim.n_frames} draws a point at ({x:.3g}, {y:.3g}) in "
                                 f"'{title}', outside its limits x in [{x0:.3g}, {x1:.3g}], y in "
                                 f"[{y0:.3g}, {y1:.3g}]; widen lims (or pass lims=None to fit every frame)")
    anim.set_frame(0)


# ---------------------------------------------------------------------------------------
# look
# ---------------------------------------------------------------------------------------

#: str : colour of springs (dark slate).
SPRING_EDGE = "#33495f"
#: str : colour of masses (orange).
SPRING_NODE = "#e07b24"
#: str : colour of pinned nodes, drawn as squares (blue).
PIN_C = "#1f5fbf"
#: str : colour of a rest shape, drawn in dashes (gray).
REST_C = "0.62"
GRID_C = "0.92"             # light grid
TRACK_C = "0.9"             # timeline track of the grid animation

#: dict of str -> str : colour of each energy term in plots and videos.
ENERGY_COLORS = {
    "potential": "#7b3fa0",
    "kinetic": "#c0392b",
    "elastic": "#16907f",
    "bending": "#2e86c1",
    "gravity": "#8a6d1f",
    "total": "#222222",
}
#: dict of str -> str : colour of each time integrator in plots and videos.
INTEGRATOR_COLORS = {
    "Forward Euler": "#d62728",
    "Backward Euler": "#1f77b4",
    "BDF2": "#2ca02c",
}

DPI = 100
"""float : CSS pixels per inch of figure size: a (7, 4) inch figure is shown 700 x 400 CSS pixels wide."""
DENSITY = 2
"""int : device pixels per CSS pixel of published figures and videos (2x, sharp on high-resolution screens)."""
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


def _new_figure(figsize, dpi=DPI, **subplots_kw):
    """A pyplot figure (so notebooks show it) at ``dpi`` with its Axes; call it inside ``style()``."""
    fig, axes = plt.subplots(figsize=figsize, dpi=dpi, **subplots_kw)
    return fig, axes


# ---------------------------------------------------------------------------------------
# input validation
# ---------------------------------------------------------------------------------------

# One validation layer for simkit and utils (``simkit._validate``): TypeError for the wrong
# kind of argument, ValueError for a wrong shape, range or value; messages "name: expected ...".

def _finite_array(a, name):
    return _validate.finite_array(a, name)


def _points(X, name, n=None, dim=2):
    X = _validate.positions(X, name, dims=(dim,))
    if X.shape[0] == 0:
        raise ValueError(f"{name}: expected at least one node, got shape {X.shape}")
    if n is not None and X.shape[0] != n:
        raise ValueError(f"{name}: expected {n} rows (one per node), got {X.shape[0]}")
    return X


def _edges(E, n, name="E"):
    return _validate.index_array(E, name, 2, n)


def _indices(idx, n, name):
    return _validate.index_vector(np.reshape(idx, -1), name, n)


def _values(v, length, name, what):
    return _validate.element_values(v, name, length, what)


def _limits(lims, name):
    arr = _validate.finite_array(lims, name)
    if arr.shape != (2,):
        raise ValueError(f"{name}: expected a pair (low, high), got shape {arr.shape}")
    lo, hi = float(arr[0]), float(arr[1])
    if not lo < hi:
        raise ValueError(f"{name}: expected low < high, got ({lo}, {hi})")
    return lo, hi


def _scene_limits(lims, name="lims"):
    if lims is None:
        return None
    if not isinstance(lims, (tuple, list, np.ndarray)) or len(lims) != 2:
        raise ValueError(f"{name}: expected ((xmin, xmax), (ymin, ymax)), got {lims!r}")
    return _limits(lims[0], f"{name}[0]"), _limits(lims[1], f"{name}[1]")


def _states(states, name="states", dim=2):
    if not isinstance(states, np.ndarray):
        states = list(states)
        if not states:
            raise ValueError(f"{name}: expected at least one (n, {dim}) array of positions, got none")
        shapes = {np.shape(s) for s in states}
        if len(shapes) != 1:
            raise ValueError(f"{name}: expected every state to have the same shape (n, {dim}), got shapes "
                             f"{sorted(shapes)}")
    arr = _finite_array(states, name)
    if arr.ndim != 3 or arr.shape[2] != dim or arr.shape[1] == 0:
        raise ValueError(f"{name}: expected a sequence of (n, {dim}) position arrays, got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name}: expected at least one (n, {dim}) array of positions, got none")
    return arr


def _series(series, length, name, what):
    if not isinstance(series, dict):
        raise TypeError(f"{name}: expected a non-empty dict {{name: values}}, got {type(series).__name__}")
    if not series:
        raise ValueError(f"{name}: expected a non-empty dict {{name: values}}, got an empty dict")
    out = {}
    for key, v in series.items():
        v = _finite_array(v, f"{name}[{key!r}]")
        if v.ndim != 1:
            raise ValueError(f"{name}[{key!r}]: expected a one-dimensional array, got shape {v.shape}")
        if length is not None and v.shape[0] != length:
            raise ValueError(f"{name}[{key!r}]: expected {length} values (there are {length} {what}), "
                             f"got {v.shape[0]}")
        out[key] = v
    return out


def _colors(colors, keys, name="colors"):
    """Colour per key: ``colors[key]`` when given, else the next colour of matplotlib's cycle."""
    if colors is not None and not isinstance(colors, dict):
        raise TypeError(f"{name}: expected a dict {{series name: colour}}, got {type(colors).__name__}")
    colors = colors or {}
    cycle = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
    return {key: colors.get(key, cycle[j % len(cycle)]) for j, key in enumerate(keys)}


def _positive(value, name):
    return _validate.positive_scalar(value, name)


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
    E = _edges(E, n)
    pins = _indices(pins if pins is not None else [], n, "pins")
    if node_values is not None and edge_values is not None:
        raise ValueError("node_values, edge_values: expected one of them, not both (one colorbar per network)")
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
        v = _finite_array(v, f"series[{key!r}]")
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
    x = _finite_array(x, "x").reshape(-1)
    series = _series(series, x.shape[0], "series", "entries in x")
    if np.any(x <= 0):
        raise ValueError("x: expected positive values on log-log axes")
    for key, y in series.items():
        if np.any(y <= 0):
            raise ValueError(f"series[{key!r}]: expected positive values on log-log axes")
    if ref_slopes is not None and not isinstance(ref_slopes, dict):
        raise TypeError(f"ref_slopes: expected a dict {{label: slope}}, got {type(ref_slopes).__name__}")
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
    anim : simkit.filesystem.BlitAnimation
    """
    P = _states(states)
    T, n = P.shape[:2]
    E = _edges(E, n)
    t = _finite_array(t, "t").reshape(-1)
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


REF_STYLES = [("#b03a2e", "--"), ("0.35", ":"), ("#2e86c1", "-.")]
"""list of (colour, linestyle) : reference lines of the grid animation, in order."""


COUNTER_PLACES = {"upper left": (0.02, 0.97, "left", "top"), "upper right": (0.98, 0.97, "right", "top"),
                  "lower left": (0.02, 0.03, "left", "bottom"), "lower right": (0.98, 0.03, "right", "bottom")}


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
    anim : simkit.filesystem.BlitAnimation
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
        E = _edges(panel["E"], P.shape[1], f"panels[{k}]['E']")
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
            d["t"] = _finite_array(d["t"], f"panels[{k}]['t']" if "t" in panels[k] else "t").reshape(-1)
            if d["t"].shape[0] != T:
                raise ValueError(f"t: expected one value per frame ({T}), got {d['t'].shape[0]}")
            d["label_of"] = _label_formatter(d["t"], "time  (s)", d["time_format"])
    fps = _positive(fps, "fps")
    if counter_loc not in COUNTER_PLACES:
        raise ValueError(f"counter_loc: expected one of {sorted(COUNTER_PLACES)}, got {counter_loc!r}")
    if ncols is None:
        ncols = len(data)
    ncols = min(_validate.integer(ncols, "ncols", low=1), len(data))
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


# ---------------------------------------------------------------------------------------
# video
# ---------------------------------------------------------------------------------------

def embed_video(path, alt=None, width=None):
    r"""An HTML5 video (controls, loop, muted, playsinline) with the MP4 inlined as a base64 data URI.

    An MP4 of :math:`b` bytes adds :math:`4 \lceil b / 3 \rceil` characters to the page. The video plays in Jupyter and on the static website (offline too) with no file to copy.

    Parameters
    ----------
    path : str or os.PathLike
        Existing ``.mp4`` file.
    alt : str, optional
        What the video shows: its ``aria-label`` and the text shown where video cannot play.
    width : int, optional
        Display width in CSS pixels (the video scales down to narrower columns).

    Returns
    -------
    html : IPython.display.HTML
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a str or os.PathLike, got {type(path).__name__}")
    path = os.fspath(path)
    if not path.lower().endswith(".mp4"):
        raise ValueError(f"path: expected an .mp4 file, got {path!r}")
    if not os.path.isfile(path):
        raise ValueError(f"path: expected an existing file, {path!r} does not exist; write it first with save_animation or show_video")
    if alt is not None and not isinstance(alt, str):
        raise TypeError(f"alt: expected a str, got {type(alt).__name__}")
    if width is not None:
        width = _validate.integer(width, "width", low=1)
    from html import escape

    from IPython.display import HTML

    with open(path, "rb") as fh:
        data = base64.b64encode(fh.read()).decode("ascii")
    label = f' aria-label="{escape(alt)}"' if alt else ""
    size = f' width="{width}"' if width else ""
    fallback = escape(alt) if alt else "Your browser does not support HTML5 video."
    return HTML(f'<video controls loop muted playsinline preload="auto"{label}{size} '
                'style="max-width: 100%; height: auto;">'
                f'<source src="data:video/mp4;base64,{data}" type="video/mp4">{fallback}</video>')


def show_video(fig, anim, path, fps=20, copy_to=None):
    r"""Save an animation as MP4, close its figure and return the embedded video: :math:`n` frames last :math:`n / \mathrm{fps}` seconds.

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
        raise TypeError(f"fig: expected a matplotlib Figure, got {type(fig).__name__}")
    try:
        written = save_animation(anim, path, fps, copy_to=copy_to)
    finally:
        plt.close(fig)
    return embed_video(written)


# ---------------------------------------------------------------------------------------
# energy terms
# ---------------------------------------------------------------------------------------

def _column(x, N, name="x"):
    """``x`` as a finite (N, 1) float column (accepts (N,) too)."""
    return _validate.stacked(x, name, size=N)


def _scalar(v):
    """A 0-d, (1,) or (1, 1) result as a Python float."""
    return float(np.asarray(v).item())


class SpringEnergy:
    r"""Strain-normalized mass springs, on simkit's ``mass_springs_*_z``.

    :math:`\Psi(x) = \sum_e v_e \tfrac{1}{2} Y_e \left(\frac{l_e - l_{0,e}}{l_{0,e}}\right)^2`, :math:`l_e = \lVert (J x)_e \rVert`

    The axial stiffness of spring e is ``d^2 Psi / d l_e^2 = ym_e * vol_e / l0_e^2``, so
    ``ym = EA`` and ``vol = l0`` give the ``EA / l`` springs of a discretized rod. simkit's
    (unnormalized) stiffness is ``ym / l0^2``; the Hessian is the PSD-projected one.

    Parameters
    ----------
    J : (m*dim, n*dim) sparse matrix or array
        Stacked edge-vector operator, ``d = J x``. The number of springs m and their
        dimension come from J: its ``kron(B, I_dim)`` structure (dim 2 or 3), or `dim`.
    ym : (m, 1) or (m,) float array, or a scalar
        Young's-modulus-like stiffness per spring (e.g. ``EA``), >= 0; one value means every spring.
    vol : (m, 1) or (m,) float array, or a scalar
        Quadrature weight per spring (e.g. its rest length), >= 0.
    l0 : (m, 1) or (m,) float array, or a scalar
        Rest length per spring, > 0.
    dim : int, optional, keyword-only
        Spatial dimension, for an operator without ``kron(B, I_dim)`` structure.
    """

    def __init__(self, J, ym, vol, l0, *, dim=None):
        shape = J.shape if sps.issparse(J) or isinstance(J, np.ndarray) else None
        if shape is None or len(shape) != 2:
            raise TypeError(f"J: expected a 2D sparse matrix or array of shape (m*dim, n*dim), got "
                            f"{type(J).__name__} of shape {shape}")
        operator = _assembly.operator_pattern(J, shape[1], dim)
        m = operator.m
        self.J = sps.csc_matrix(J)
        self.dim = operator.dim
        self.ym = _validate.element_param(ym, "ym", m, what="spring")
        self.vol = _validate.element_param(vol, "vol", m, what="spring")
        self.l0 = _validate.element_param(l0, "l0", m, positive=True, what="spring")
        self._k = self.ym / self.l0 ** 2
        self._N = shape[1]

    def energy(self, x):
        """Total spring energy, float."""
        x = _column(x, self._N)
        return simkit.energies.mass_springs_energy_z(x, self.J, self._k, self.vol, self.l0, dim=self.dim)

    def gradient(self, x):
        """Gradient, (N, 1) float array."""
        x = _column(x, self._N)
        return simkit.energies.mass_springs_gradient_z(x, self.J, self._k, self.vol, self.l0, dim=self.dim)

    def hessian(self, x):
        """PSD-projected Hessian, (N, N) sparse matrix."""
        x = _column(x, self._N)
        return simkit.energies.mass_springs_hessian_z(x, self.J, self._k, self.vol, self.l0, psd=True, dim=self.dim)


class PenaltySpring:
    r"""Soft pins, zero until ``set`` is called.

    :math:`\Psi(x) = \tfrac{k}{2} \sum_{i \in \text{idx}} \lVert x_i - t_i \rVert^2`

    Parameters
    ----------
    n : int
        Number of nodes, >= 1.
    dim : int
        Spatial dimension (2 or 3).
    k : float
        Penalty stiffness, > 0.
    """

    def __init__(self, n, dim, k):
        self.n = _validate.integer(n, "n", low=1)
        self.dim = _validate.integer(dim, "dim")
        if self.dim not in (2, 3):
            raise ValueError(f"dim: expected 2 or 3, got {self.dim}")
        self.k = _validate.positive_scalar(k, "k")
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
        targets = _finite_array(targets, "targets")
        if targets.size == 0:
            targets = targets.reshape(0, self.dim)
        if targets.shape != (idx.size, self.dim):
            raise ValueError(f"targets: expected shape ({idx.size}, {self.dim}), one row per pinned node, "
                             f"got {targets.shape}")
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
    r"""Work of constant forces, with gradient ``-f_g`` and a zero Hessian.

    :math:`\Psi(x) = -f_g^\top x`

    Parameters
    ----------
    f_g : (N, 1) or (n, dim) float array
        Force on every degree of freedom (e.g. ``simkit.gravity_force``), node-major.
    """

    def __init__(self, f_g):
        self.f_g = _finite_array(f_g, "f_g").reshape(-1, 1)
        if self.f_g.shape[0] == 0:
            raise ValueError("f_g: expected at least one degree of freedom, got an empty array")

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
    r"""Backward-Euler inertia, set per step by ``update``.

    :math:`\Psi(x) = \tfrac{1}{2h^2} \lVert x - (x_n + h v_n) \rVert_M^2`

    Equal to ``simkit.energies.kinetic_*_be(x, x_n, x_n - h v_n, M, h)``.

    Parameters
    ----------
    M : (N, N) sparse matrix or array
        Mass matrix on the stacked degrees of freedom: symmetric, positive diagonal.
    h : float
        Time step, > 0 (with h**2 a normal float).
    """

    def __init__(self, M, h):
        M = _validate.mass_matrix(M, "M")[0]
        self.M = sps.csc_matrix(M)
        self.h = _validate.time_step(h)
        self.x_n = None
        self.x_prev = None

    def update(self, x_n, v_n):
        """Set the state of the step: position ``x_n`` and velocity ``v_n``, both (N, 1).

        Returns
        -------
        self : Inertia
        """
        N = self.M.shape[0]
        self.x_n = _column(x_n, N, "x_n")
        self.x_prev = self.x_n - self.h * _column(v_n, N, "v_n")
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


# ---------------------------------------------------------------------------------------
# 3D meshes: shaded triangle meshes, hinges, profiles and the interactive view
# ---------------------------------------------------------------------------------------
# A fixed orthographic camera looks at the scene; y is up (simkit's gravity axis). Each
# triangle is flat-shaded by its face normal under a light fixed to the camera, in one
# colour on its front (the side its normal points to) and another on its back, and the
# triangles are painted far to near. Everything is drawn in an ordinary 2D Axes, so a
# frame is one PolyCollection that BlitAnimation redraws quickly.

#: str : colour of a sheet's front, the side its normals point to (blue).
CLOTH_FRONT = "#4f86c6"
#: str : colour of a sheet's back (sand).
CLOTH_BACK = "#e2b179"
#: str : colour of hinge edges and of the hinge being explained (red).
HINGE_C = "#c0392b"
#: str : colour of boundary edges, springs that carry no hinge (gray).
BOUNDARY_C = "0.55"
#: float : ambient part of the flat shading, :math:`s = a + d \max(n \cdot \ell, 0)`.
AMBIENT = 0.45
#: float : diffuse part of the flat shading.
DIFFUSE = 0.55
#: float : triangle outlines are the face colour times this factor.
EDGE_SHADE = 0.88


class View(NamedTuple):
    """A fixed orthographic camera: ``elev`` above the horizontal plane, ``azim`` about the y axis (degrees).

    At ``azim = 0`` the camera looks along -z (the x axis points right); positive ``azim``
    swings it towards +x.
    """

    elev: float = 20.0
    azim: float = -30.0


VIEW_3D = View()
"""View : the default camera of the 3D helpers."""


def _view(view):
    if view is None:
        return VIEW_3D
    angles = _finite_array(view, "view")
    if angles.shape != (2,):
        raise ValueError(f"view: expected View(elev, azim) in degrees, got shape {angles.shape}")
    if abs(angles[0]) >= 90.0:
        raise ValueError(f"view: expected |elev| < 90 degrees, got {angles[0]:g}")
    return View(float(angles[0]), float(angles[1]))


def view_basis(view=None):
    """Screen axes of a camera: unit vectors right, up and towards the camera, in world coordinates.

    Parameters
    ----------
    view : View, optional
        Camera; ``VIEW_3D`` when None.

    Returns
    -------
    basis : (3, 3) float array
        Rows ``right, up, toward``: a point X is drawn at ``(X . right, X . up)`` with depth
        ``X . toward`` (larger is nearer).
    """
    elev, azim = np.radians(_view(view))
    toward = np.array([np.cos(elev) * np.sin(azim), np.sin(elev), np.cos(elev) * np.cos(azim)])
    right = np.array([np.cos(azim), 0.0, -np.sin(azim)])
    up = np.cross(toward, right)
    return np.vstack([right, up, toward])


def _points3(X, name, n=None):
    return _points(X, name, n, dim=3)


def _triangles(F, n, name="F"):
    F = _validate.index_array(F, name, 3, n)
    if F.shape[0] == 0:
        raise ValueError(f"{name}: expected at least one triangle, got shape {F.shape}")
    return F


def _states3(states, name="states"):
    return _states(states, name, dim=3)


def _rgb(color, name):
    try:
        return np.array(mcolors.to_rgb(color))
    except ValueError as err:
        raise ValueError(f"{name}: expected a matplotlib colour, got {color!r}") from err


def _shaded_faces(X, F, basis, front, back):
    """Screen triangles (f, 3, 2) and RGBA colours (f, 4), sorted far to near."""
    tri = X[F]
    normal = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    length = np.linalg.norm(normal, axis=1, keepdims=True)
    normal = normal / np.where(length > 0, length, 1.0)
    right, up, toward = basis
    facing = normal @ toward >= 0.0
    seen = np.where(facing[:, None], normal, -normal)          # the normal of the side the camera sees
    light = _unit(toward + 0.2 * up)                            # a headlight, raised a little
    shade = AMBIENT + DIFFUSE * np.clip(seen @ light, 0.0, 1.0)
    rgba = np.ones((F.shape[0], 4))
    rgba[:, :3] = np.where(facing[:, None], front, back) * shade[:, None]
    order = np.argsort(tri.mean(axis=1) @ toward, kind="stable")
    screen = np.stack([tri @ right, tri @ up], axis=-1)
    return screen[order], rgba[order]


def _unit(v):
    return v / np.linalg.norm(v)


def _edge_rgba(rgba):
    out = rgba.copy()
    out[:, :3] *= EDGE_SHADE
    return out


def _screen_limits(points, basis, pad=0.04):
    """((xmin, xmax), (ymin, ymax)) of the projection of points (..., 3), with a relative margin."""
    P = points.reshape(-1, 3)
    return _auto_scene_limits(np.column_stack([P @ basis[0], P @ basis[1]]), pad=pad)


def _scene_axes(ax, lims, title):
    """A 3D scene Axes: fixed limits, equal aspect, no frame or ticks."""
    ax.set_xlim(*lims[0])
    ax.set_ylim(*lims[1])
    ax.set_aspect("equal")
    ax.set_axis_off()
    if title is not None:
        ax.set_title(title)


class MeshArtists(NamedTuple):
    """Artists drawn by ``plot_mesh_3d`` (``pins`` is None when no pin is drawn)."""

    faces: PolyCollection
    pins: object


def plot_mesh_3d(ax, X, F, pins=None, view=None, lims=None, title=None, front=CLOTH_FRONT, back=CLOTH_BACK,
                 edge_lw=0.3, pin_size=42.0, *, zorder=2.0):
    """Draw a triangle mesh in 3D, flat-shaded by face normal, seen by a fixed orthographic camera.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        A 2D Axes; its frame and ticks are switched off.
    X : (n, 3) float array
        Node positions (y up).
    F : (f, 3) int array
        Triangles; a triangle's front is the side its normal ``(X1-X0) x (X2-X0)`` points to.
    pins : (p,) int array, optional
        Pinned nodes, drawn as ``PIN_C`` squares above the mesh.
    view : View, optional
        Camera; ``VIEW_3D`` when None.
    lims : ((xmin, xmax), (ymin, ymax)), optional
        Screen-space limits (e.g. ``mesh_limits`` of several meshes); the mesh's own when None.
    title : str, optional
    front, back : colour
        Colours of the two sides, before shading.
    edge_lw : float, default 0.3
        Width of the triangle outlines (0: none).
    pin_size : float, default 42
        Marker area of the pins.
    zorder : float, default 2

    Returns
    -------
    artists : MeshArtists
        ``(faces, pins)``.
    """
    X = _points3(X, "X")
    F = _triangles(F, X.shape[0])
    pins = _indices(pins if pins is not None else [], X.shape[0], "pins")
    basis = view_basis(view)
    lims = _scene_limits(lims) or _screen_limits(X, basis)
    front, back = _rgb(front, "front"), _rgb(back, "back")
    screen, rgba = _shaded_faces(X, F, basis, front, back)
    with style():
        faces = PolyCollection(screen, facecolors=rgba, edgecolors=_edge_rgba(rgba), linewidths=edge_lw,
                               zorder=zorder)
        ax.add_collection(faces)
        pin_art = None
        if pins.size:
            pin_art = ax.scatter(X[pins] @ basis[0], X[pins] @ basis[1], s=pin_size, marker="s", color=PIN_C,
                                 edgecolors="white", linewidths=0.8, zorder=zorder + 1)
        _scene_axes(ax, lims, title)
    return MeshArtists(faces, pin_art)


def mesh_limits(states, view=None, pad=0.04):
    """Screen-space limits enclosing every given state, for one fixed camera over frames or panels.

    Parameters
    ----------
    states : sequence of (n, 3) float arrays, or (T, n, 3) float array
    view : View, optional
    pad : float, default 0.04
        Margin, relative to the larger extent.

    Returns
    -------
    lims : ((xmin, xmax), (ymin, ymax))
    """
    pts = np.concatenate([_points3(s, "states[i]") for s in states]) if not isinstance(
        states, np.ndarray) else _states3(states).reshape(-1, 3)
    return _screen_limits(pts, view_basis(view), pad=pad)


def _panels3d(panels):
    if not isinstance(panels, (list, tuple)):
        raise TypeError(f"panels: expected a list of dicts {{'states' or 'X', 'F', 'title', 'pins'}}, "
                        f"got {type(panels).__name__}")
    if not panels:
        raise ValueError("panels: expected at least one panel, got an empty list")
    out = []
    for k, panel in enumerate(panels):
        if not isinstance(panel, dict) or "F" not in panel or ("states" not in panel and "X" not in panel):
            raise ValueError(f"panels[{k}]: expected a dict with keys 'F' and 'states' (or 'X'), "
                             "optionally 'title' and 'pins'")
        P = _states3(panel["states"], f"panels[{k}]['states']") if "states" in panel else \
            _points3(panel["X"], f"panels[{k}]['X']")[None]
        F = _triangles(panel["F"], P.shape[1], f"panels[{k}]['F']")
        pins = _indices(panel.get("pins", []), P.shape[1], f"panels[{k}]['pins']")
        out.append((P, F, panel.get("title"), pins))
    return out


def plot_meshes_3d(panels, view=None, shared_lims=True, figsize=None, suptitle=None, ncols=None, **mesh_kw):
    """Several shaded meshes side by side, seen by one camera (a row, or a grid of ``ncols`` columns).

    Parameters
    ----------
    panels : sequence of dict
        One dict per panel: ``"X"`` ((n, 3) positions), ``"F"`` ((f, 3) triangles) and optionally
        ``"title"`` (str) and ``"pins"`` ((p,) int).
    view : View, optional
    shared_lims : bool, default True
        One scale for all panels (sizes compare); each panel fills its own Axes otherwise.
    figsize : (2,) float, optional
        ``(3.4 * ncols, 3.2 * nrows)`` when None.
    suptitle : str, optional
    ncols : int, optional
        Panels per row; all in one row when None.
    **mesh_kw
        Passed to ``plot_mesh_3d`` (``front``, ``back``, ``edge_lw``, ...).

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : (len(panels),) array of matplotlib.axes.Axes
    """
    data = _panels3d(panels)
    ncols = len(data) if ncols is None else int(ncols)
    nrows = -(-len(data) // ncols)
    basis_view = _view(view)
    lims = mesh_limits([P[0] for P, *_ in data], basis_view) if shared_lims else None
    with style():
        fig, axes = _new_figure(figsize or (3.4 * ncols, 3.2 * nrows), nrows=nrows, ncols=ncols, squeeze=False)
        axes = axes.ravel()
        for ax, (P, F, title, pins) in zip(axes, data):
            plot_mesh_3d(ax, P[0], F, pins=pins, view=basis_view, lims=lims, title=title, **mesh_kw)
        for ax in axes[len(data):]:
            ax.remove()
        if suptitle is not None:
            fig.suptitle(suptitle)
        fig.tight_layout()
    return fig, axes[:len(data)]


def animate_meshes_3d(panels, t, view=None, figsize=None, suptitle=None, time_format="t = {:.2f} s",
                      ncols=None, fps=30, **mesh_kw):
    """Animate one or several shaded triangle meshes on a shared time line, by one fixed camera.

    The camera and the limits are fixed over the whole clip (one scale for all panels), so
    motion reads as motion; a counter in the first panel gives the time, pins are marked.

    Parameters
    ----------
    panels : sequence of dict
        One dict per panel: ``"states"`` ((T, n, 3) positions per frame), ``"F"`` ((f, 3)
        triangles) and optionally ``"title"`` (str) and ``"pins"`` ((p,) int). Every panel has
        the same T.
    t : (T,) float array
        Time of each frame.
    view : View, optional
    figsize : (2,) float, optional
        ``(3.6 * ncols + 0.2, 3.6 * nrows)`` when None.
    suptitle : str, optional
    time_format : str, default "t = {:.2f} s"
    ncols : int, optional
        Panels per row; all in one row when None.
    fps : float, default 30
        Live playback rate (the video rate is ``save_animation``'s fps).
    **mesh_kw
        Passed to ``plot_mesh_3d`` (``front``, ``back``, ``edge_lw``, ``pin_size``).

    Returns
    -------
    fig : matplotlib.figure.Figure
    anim : simkit.filesystem.BlitAnimation
    """
    data = _panels3d(panels)
    counts = {P.shape[0] for P, *_ in data}
    if len(counts) != 1:
        raise ValueError(f"panels: expected the same number of frames in every panel, got {sorted(counts)}")
    T = counts.pop()
    t = _finite_array(t, "t").reshape(-1)
    if t.shape[0] != T:
        raise ValueError(f"t: expected {T} values (one per frame of the panels), got {t.shape[0]}")
    fps = _positive(fps, "fps")
    view = _view(view)
    basis = view_basis(view)
    lims = mesh_limits(np.concatenate([P.reshape(-1, 3) for P, *_ in data])[None], view)
    ncols = len(data) if ncols is None else int(ncols)
    nrows = -(-len(data) // ncols)
    front = _rgb(mesh_kw.get("front", CLOTH_FRONT), "front")
    back = _rgb(mesh_kw.get("back", CLOTH_BACK), "back")
    with style():
        fig, axes = _new_figure(figsize or (3.6 * ncols + 0.2, 3.6 * nrows), dpi=DENSITY * DPI, nrows=nrows,
                                ncols=ncols, squeeze=False)
        axes = axes.ravel()
        moving = []
        for ax, (P, F, title, pins) in zip(axes, data):
            art = plot_mesh_3d(ax, P[0], F, pins=pins, view=view, lims=lims, title=title,
                               zorder=ANIM_Z, **mesh_kw)
            moving.append((art, P, F, pins))
        for ax in axes[len(data):]:
            ax.remove()
        stamp = axes[0].text(0.02, 0.98, time_format.format(t[0]), transform=axes[0].transAxes, ha="left",
                             va="top", fontsize=10, color="0.25", zorder=ANIM_Z + 3)
        if suptitle is not None:
            fig.suptitle(suptitle)
        fig.tight_layout()

    def update(i):
        for art, P, F, pins in moving:
            screen, rgba = _shaded_faces(P[i], F, basis, front, back)
            art.faces.set_verts(screen)
            art.faces.set_facecolor(rgba)
            art.faces.set_edgecolor(_edge_rgba(rgba))
            if art.pins is not None:
                art.pins.set_offsets(np.column_stack([P[i, pins] @ basis[0], P[i, pins] @ basis[1]]))
        stamp.set_text(time_format.format(t[i]))

    artists = [stamp]
    for art, *_ in moving:
        artists.append(art.faces)
        if art.pins is not None:
            artists.append(art.pins)
    return fig, BlitAnimation(fig, update, T, artists, interval=1000.0 / fps)


def plot_sheet_hinges(ax, X, F, C, hinge=None, title=None, labels=("e0", "e1", "o0", "o1")):
    """Top view of a flat sheet: its springs (edges), the hinges on its interior edges, one hinge explained.

    Boundary edges (springs only) are gray, interior edges (a spring and a hinge each) red;
    the highlighted hinge's two triangles are filled with the sheet's front and back colours
    and its four nodes labelled in the order ``(e0, e1, o0, o1)`` of ``simkit.hinge_quads``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    X : (n, 3) float array
        Node positions of a sheet lying in a plane y = const (drawn in its (x, z) coordinates).
    F : (f, 3) int array
        Triangles.
    C : (c, 4) int array
        Hinge quads ``(e0, e1, o0, o1)``.
    hinge : int, optional
        Row of C to highlight.
    title : str, optional
    labels : (4,) str
        Labels of the highlighted hinge's nodes.

    Returns
    -------
    ax : matplotlib.axes.Axes
    """
    X = _points3(X, "X")
    n = X.shape[0]
    F = _triangles(F, n)
    C = _validate.index_array(C, "C", 4, n)
    if hinge is not None:
        hinge = _validate.integer(hinge, "hinge", low=0)
        if hinge >= C.shape[0]:
            raise ValueError(f"hinge: expected a row of C in [0, {C.shape[0]}), got {hinge}")
    P = X[:, [0, 2]]
    E = np.unique(np.sort(np.concatenate([F[:, [0, 1]], F[:, [1, 2]], F[:, [2, 0]]]), axis=1), axis=0)
    interior = {tuple(e) for e in np.sort(C[:, :2], axis=1)}
    is_hinge = np.array([tuple(e) in interior for e in E])
    with style():
        ax.add_collection(LineCollection(P[E[~is_hinge]], colors=BOUNDARY_C, linewidths=1.6, zorder=2,
                                         label="boundary edge: spring"))
        ax.add_collection(LineCollection(P[E[is_hinge]], colors=HINGE_C, linewidths=1.0, alpha=0.75, zorder=2,
                                         label="interior edge: spring + hinge"))
        ax.scatter(P[:, 0], P[:, 1], s=10, color=SPRING_EDGE, zorder=3)
        if hinge is not None:
            e0, e1, o0, o1 = C[int(hinge)]
            ax.add_collection(PolyCollection([P[[e0, e1, o0]], P[[e1, e0, o1]]], facecolors=[CLOTH_FRONT, CLOTH_BACK],
                                             edgecolors="none", alpha=0.85, zorder=1))
            ax.plot(*P[[e0, e1]].T, color=HINGE_C, lw=3.2, solid_capstyle="round", zorder=4)
            centre = P[[e0, e1, o0, o1]].mean(axis=0)
            for node, text in zip((e0, e1, o0, o1), labels):
                offset = _unit(P[node] - centre + 1e-12) * 0.045 * np.ptp(P, axis=0).max()
                ax.annotate(text, P[node], xytext=P[node] + offset, ha="center", va="center", fontsize=10,
                            fontweight="bold", color=SPRING_EDGE, zorder=5)
        ax.set_aspect("equal")
        ax.autoscale_view()
        ax.margins(0.06)
        ax.set_xlabel("x  (m)")
        ax.set_ylabel("z  (m)")
        _style_axes(ax, grid=False)
        ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.16), ncol=2, frameon=False)
        if title is not None:
            ax.set_title(title)
    return ax


def plot_hinge_3d(ax, X4, view=None, title=None, labels=("e0", "e1", "o0", "o1"), normal_length=0.5):
    """One folded hinge in 3D: its two triangles shaded, the hinge edge, both face normals, labelled nodes.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    X4 : (4, 3) float array
        Positions of the hinge's nodes in the order ``(e0, e1, o0, o1)``; the triangles are
        ``(e0, e1, o0)`` and ``(e1, e0, o1)``.
    view : View, optional
    title : str, optional
    labels : (4,) str
    normal_length : float, default 0.5
        Length of the drawn normals, relative to the hinge edge.

    Returns
    -------
    ax : matplotlib.axes.Axes
    """
    X4 = _points3(X4, "X4", 4)
    F = np.array([[0, 1, 2], [1, 0, 3]])
    basis = view_basis(view)
    tri = X4[F]
    normals = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    normals = normals / np.linalg.norm(normals, axis=1, keepdims=True)
    tips = tri.mean(axis=1) + normal_length * np.linalg.norm(X4[1] - X4[0]) * normals
    lims = _screen_limits(np.vstack([X4, tips]), basis, pad=0.12)
    plot_mesh_3d(ax, X4, F, view=view, lims=lims, title=title, edge_lw=0.8)
    to2 = lambda Y: np.column_stack([Y @ basis[0], Y @ basis[1]])  # noqa: E731
    with style():
        ax.plot(*to2(X4[:2]).T, color=HINGE_C, lw=3.2, solid_capstyle="round", zorder=4)
        for k, (start, tip) in enumerate(zip(to2(tri.mean(axis=1)), to2(tips))):
            ax.annotate("", xy=tip, xytext=start, zorder=5,
                        arrowprops=dict(arrowstyle="-|>", color=SPRING_EDGE, lw=1.4))
            ax.annotate(f"$n_{k}$", tip, xytext=(4, 4), textcoords="offset points", fontsize=11,
                        color=SPRING_EDGE, zorder=5)
        P = to2(X4)
        centre = P.mean(axis=0)
        span = np.ptp(P, axis=0).max()
        for p, text in zip(P, labels):
            ax.annotate(text, p, xytext=p + _unit(p - centre + 1e-12) * 0.07 * span, ha="center", va="center",
                        fontsize=10, fontweight="bold", color=SPRING_EDGE, zorder=5)
    return ax


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


PLOTLY_STATIC = "vendor"
"""str : folder under the site's ``_static/`` that holds the vendored plotly.js (``scripts/vendor_plotly.py``)."""


def plotly_js_name():
    """File name of the vendored plotly.js 3D bundle, for the version the pinned plotly wheel writes figures for.

    ``scripts/vendor_plotly.py`` vendors that bundle (npm's ``plotly.js-gl3d-dist-min``) into
    ``book/_static/vendor/``, which the site serves as ``_static/vendor/``.

    Returns
    -------
    name : str
        ``"plotly-gl3d-<version>.min.js"``, e.g. ``"plotly-gl3d-4.1.1.min.js"``.
    """
    from plotly.offline import get_plotlyjs_version

    return f"plotly-gl3d-{get_plotlyjs_version()}.min.js"


def mesh_viewer_html(states, F, t, pins=None, view=None, div_id="mesh-view", script_src=None, height=480,
                     fps=15, color=CLOTH_FRONT, title=None):
    """An interactive 3D view of a precomputed mesh trajectory: orbit, zoom, a time slider and play.

    Built with plotly (a ``Mesh3d`` flat-shaded by face normal, one animation frame per
    state, a slider and play/pause buttons); positions travel as float32. The page loads
    plotly.js from ``script_src``, so it works offline once the site serves that file.

    Parameters
    ----------
    states : (T, n, 3) float array
        Node positions per frame (subsample long runs first; each frame costs ``12 n`` bytes).
    F : (f, 3) int array
        Triangles.
    t : (T,) float array
        Time of each frame (slider labels).
    pins : (p,) int array, optional
        Pinned nodes, drawn as ``PIN_C`` squares (at their first-frame positions).
    view : View, optional
        Initial camera direction (the videos' ``VIEW_3D`` when None); the reader orbits from there.
    div_id : str, default "mesh-view"
        HTML id of the plot (unique on its page; fixed, so the output is reproducible).
    script_src : str, optional
        URL of plotly.js; ``"../_static/vendor/" + plotly_js_name()`` (a chapter page of the
        course site) when None.
    height : int, default 480
        Height in CSS pixels; the width follows the page column.
    fps : float, default 15
        Playback rate of the play button.
    color : colour, default CLOTH_FRONT
    title : str, optional

    Returns
    -------
    html : IPython.display.HTML
    """
    import plotly.graph_objects as go
    import plotly.io as pio
    from IPython.display import HTML

    P = _states3(states).astype(np.float32)
    T, n = P.shape[:2]
    F = _triangles(F, n).astype(np.int32)
    t = _finite_array(t, "t").reshape(-1)
    if t.shape[0] != T:
        raise ValueError(f"t: expected {T} values (one per state), got {t.shape[0]}")
    pins = _indices(pins if pins is not None else [], n, "pins")
    if not isinstance(div_id, str) or not re.fullmatch(r"[A-Za-z][\w-]*", div_id):
        raise ValueError(f"div_id: expected an HTML id (a letter, then letters, digits, - or _), got {div_id!r}")
    fps = _positive(fps, "fps")
    script_src = f"../_static/{PLOTLY_STATIC}/{plotly_js_name()}" if script_src is None else str(script_src)
    rgb = _rgb(color, "color")
    lo, hi = P.reshape(-1, 3).min(axis=0), P.reshape(-1, 3).max(axis=0)
    margin = 0.04 * float((hi - lo).max())
    lo, hi = lo - margin, hi + margin
    eye = 1.6 * view_basis(view)[2]

    def surface(X):
        return go.Mesh3d(x=X[:, 0], y=X[:, 1], z=X[:, 2])

    mesh = go.Mesh3d(x=P[0, :, 0], y=P[0, :, 1], z=P[0, :, 2], i=F[:, 0], j=F[:, 1], k=F[:, 2],
                     color=mcolors.to_hex(rgb), flatshading=True, hoverinfo="skip",
                     lighting=dict(ambient=0.6, diffuse=0.5, specular=0.05, roughness=0.9, fresnel=0.0),
                     lightposition=dict(x=0, y=1e5, z=0))
    data = [mesh]
    if pins.size:
        data.append(go.Scatter3d(x=P[0, pins, 0], y=P[0, pins, 1], z=P[0, pins, 2], mode="markers",
                                 marker=dict(symbol="square", size=6, color=PIN_C), hoverinfo="skip",
                                 showlegend=False))
    frames = [go.Frame(data=[surface(P[i])], traces=[0], name=str(i)) for i in range(T)]
    step = lambda i: dict(method="animate", label=f"{t[i]:.2f}",  # noqa: E731
                          args=[[str(i)], dict(mode="immediate", frame=dict(duration=0, redraw=True),
                                              transition=dict(duration=0))])
    axis = lambda k, name: dict(range=[float(lo[k]), float(hi[k])], title=dict(text=name),  # noqa: E731
                                backgroundcolor="white", gridcolor="#dddddd", zeroline=False)
    layout = go.Layout(
        title=dict(text=title) if title else None, height=int(height), margin=dict(l=0, r=0, t=30 if title else 0, b=0),
        paper_bgcolor="white", uirevision="keep", showlegend=False,
        scene=dict(domain=dict(x=[0, 1], y=[0.1, 1]),
                   xaxis=axis(0, "x (m)"), yaxis=axis(1, "y (m)"), zaxis=axis(2, "z (m)"),
                   aspectmode="manual", aspectratio=dict(zip("xyz", (hi - lo) / float((hi - lo).max()))),
                   camera=dict(up=dict(x=0, y=1, z=0), eye=dict(zip("xyz", eye.tolist())))),
        sliders=[dict(active=0, steps=[step(i) for i in range(T)], x=0.17, len=0.83, y=0.0, yanchor="top",
                      pad=dict(t=0, b=0), font=dict(color="rgba(0,0,0,0)"),      # no tick labels: too many
                      currentvalue=dict(prefix="t = ", suffix=" s", xanchor="right", font=dict(color="#444")))],
        updatemenus=[dict(type="buttons", direction="left", x=0.0, y=0.0, xanchor="left", yanchor="top",
                          pad=dict(t=0, r=4), showactive=False, buttons=[
                              dict(label="Play", method="animate",
                                   args=[None, dict(frame=dict(duration=1000.0 / fps, redraw=True),
                                                    transition=dict(duration=0), fromcurrent=True)]),
                              dict(label="Pause", method="animate",
                                   args=[[None], dict(mode="immediate", frame=dict(duration=0, redraw=False),
                                                      transition=dict(duration=0))])])])
    fig = go.Figure(data=data, layout=layout, frames=frames)
    html = pio.to_html(fig, include_plotlyjs=script_src, full_html=False, div_id=div_id, auto_play=False,
                       config=dict(displaylogo=False, responsive=True, modeBarButtonsToRemove=["toImage"]))
    return HTML(html)

from course.contact_scenes import block, draw_half_space, draw_segments, draw_slab, half_space_polygon  # noqa: E402,F401
