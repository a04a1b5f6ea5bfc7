"""The course look: every colour, the figure sizes and density, the rc style, and the frame every plot shares.

Helpers apply the look per figure (inside ``style()`` plus explicit per-Axes settings), never
by changing global rcParams. A new colour goes here, next to the others, so chapters and
helpers agree on what a spring, a pin or an energy looks like.
"""
import matplotlib.pyplot as plt

#: str : colour of springs (dark slate).
SPRING_EDGE = "#33495f"
#: str : colour of masses (orange).
SPRING_NODE = "#e07b24"
#: str : colour of pinned nodes, drawn as squares (blue).
PIN_C = "#1f5fbf"
#: str : colour of a rest shape, drawn in dashes (gray).
REST_C = "0.62"
#: str : colour of the light grid of plots.
GRID_C = "0.92"
#: str : colour of the timeline track under a grid animation.
TRACK_C = "0.9"

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

#: str : colour of a sheet's front, the side its normals point to (blue).
CLOTH_FRONT = "#4f86c6"
#: str : colour of a sheet's back (sand).
CLOTH_BACK = "#e2b179"
#: str : colour of hinge edges and of the hinge being explained (red).
HINGE_C = "#c0392b"
#: str : colour of boundary edges, springs that carry no hinge (gray).
BOUNDARY_C = "0.55"

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

#: float : zorder of animated artists, above every static one (legend 5, text 3, spines 2.5).
ANIM_Z = 10.0


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


def _panel_grid(figsize, count, ncols, **figure_kw):
    """A figure of ``count`` Axes in rows of ``ncols`` (the cells left over removed); call it inside ``style()``."""
    fig, axes = _new_figure(figsize, nrows=-(-count // ncols), ncols=ncols, squeeze=False, **figure_kw)
    axes = axes.ravel()
    for ax in axes[count:]:
        ax.remove()
    return fig, axes[:count]


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


def _colors(colors, keys, name="colors"):
    """Colour per key: ``colors[key]`` when given, else the next colour of matplotlib's cycle."""
    if colors is not None and not isinstance(colors, dict):
        raise TypeError(f"{name}: expected a dict {{series name: colour}}, got {type(colors).__name__}")
    colors = colors or {}
    cycle = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
    return {key: colors.get(key, cycle[j % len(cycle)]) for j, key in enumerate(keys)}
