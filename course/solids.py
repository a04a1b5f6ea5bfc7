"""Drawing elastic solids in 2D (chapter 016): triangle meshes, still or animated.

``plot_triangles_2d`` fills a triangle mesh in the plane, in one colour or coloured per
element (an energy density, a volume change); ``animate_triangles_2d`` plays one or several
meshes side by side on one clock, by blitting. Tetrahedral solids in 3D are drawn by their
boundary triangles with ``utils.animate_meshes_3d`` and ``utils.mesh_viewer_html``.

The look (``style``, colours) comes from ``course.style``, like every drawing module's.
"""
from typing import NamedTuple

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import PolyCollection
from matplotlib.colors import Normalize, to_rgba

from simkit import checks
from .filesystem import BlitAnimation

from ._moving_polygons import movable_polygons
from ._public import public
from .plots2d import setup_axes
from .style import ANIM_Z, DENSITY, DPI, PIN_C, REST_C, SPRING_EDGE, style

SOLID_FACE = "#8fb3de"
"""str : fill colour of a solid drawn in one colour (a light steel blue)."""


@public
class TriangleArtists(NamedTuple):
    """Artists drawn by ``plot_triangles_2d`` (None where not drawn)."""

    faces: PolyCollection
    pins: object
    rest: PolyCollection


def _mesh(X, T, name="X"):
    X = checks.positions(X, name, dims=(2,))
    T = checks.index_array(T, "T", 3, X.shape[0])
    return X, T


def _element_values(values, count):
    values = checks.finite_array(values, "values").reshape(-1)
    if values.shape[0] != count:
        raise ValueError(f"values: expected one value per triangle ({count}), got {values.shape[0]}")
    return values


def plot_triangles_2d(ax, X, T, pins=None, values=None, cmap="viridis", vmin=None, vmax=None, color=SOLID_FACE,
                      rest=None, edge_lw=0.4, pin_size=24.0, *, zorder=2.0):
    r"""Fill a planar triangle mesh, in one colour or coloured per triangle.

    Each triangle :math:`(i, j, k)` is drawn as the polygon :math:`X_i X_j X_k` with its outline;
    ``values`` maps to colours through ``cmap`` on :math:`[v_{\min}, v_{\max}]`.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        A 2D Axes (its limits are left alone: see ``setup_axes``).
    X : (n, 2) float array
        Node positions.
    T : (t, 3) int array
        Triangles.
    pins : (p,) int array, optional
        Pinned nodes, drawn as ``PIN_C`` squares.
    values : (t,) float array, optional
        A value per triangle (an energy density, ``det F``); the single ``color`` when None.
    cmap : str, default "viridis"
    vmin, vmax : float, optional
        Colour range of ``values``; their own range when None.
    color : colour, default SOLID_FACE
        Fill when ``values`` is None.
    rest : (n, 2) float array, optional
        Rest positions, drawn as gray outlines behind the mesh.
    edge_lw : float, default 0.4
        Width of the element outlines (0: none).
    pin_size : float, default 24
    zorder : float, default 2

    Returns
    -------
    artists : TriangleArtists
        ``(faces, pins, rest)``; with ``values``, ``faces`` is a colour mappable (``fig.colorbar(faces)``).
    """
    X, T = _mesh(X, T)
    pins = checks.index_vector(np.reshape(pins if pins is not None else [], -1), "pins", X.shape[0])
    with style():
        rest_art = None
        if rest is not None:
            R = checks.positions(rest, "rest", dims=(2,))
            if R.shape != X.shape:
                raise ValueError(f"rest: expected the shape of X {X.shape}, got {R.shape}")
            rest_art = PolyCollection(R[T], facecolors="none", edgecolors=REST_C, linewidths=0.5,
                                      linestyles="--", zorder=zorder - 0.5)
            ax.add_collection(rest_art)
        faces = PolyCollection(X[T], edgecolors=SPRING_EDGE, linewidths=edge_lw, zorder=zorder)
        if values is None:
            faces.set_facecolor(to_rgba(color))
        else:
            v = _element_values(values, T.shape[0])
            faces.set_array(v)
            faces.set_cmap(cmap)
            faces.set_norm(Normalize(v.min() if vmin is None else vmin, v.max() if vmax is None else vmax))
        ax.add_collection(faces)
        pin_art = None
        if pins.size:
            pin_art = ax.scatter(X[pins, 0], X[pins, 1], s=pin_size, marker="s", color=PIN_C,
                                 edgecolors="white", linewidths=0.6, zorder=zorder + 1)
    return TriangleArtists(faces, pin_art, rest_art)


def triangle_limits(states, pad=0.06):
    """Equal-aspect-friendly limits that enclose every node of every state.

    Parameters
    ----------
    states : (T, n, 2) float array, or a sequence of (n_k, 2) arrays
    pad : float, default 0.06
        Margin, relative to the larger extent.

    Returns
    -------
    lims : ((xmin, xmax), (ymin, ymax))
    """
    P = np.concatenate([checks.positions(s, "states[i]", dims=(2,)) for s in states])
    lo, hi = P.min(axis=0), P.max(axis=0)
    margin = pad * float((hi - lo).max())
    return (lo[0] - margin, hi[0] + margin), (lo[1] - margin, hi[1] + margin)


def _panels(panels):
    if not isinstance(panels, (list, tuple)) or not panels:
        raise ValueError("panels: expected a non-empty list of dicts {'states', 'T', 'title', 'pins', 'values'}")
    out = []
    for k, panel in enumerate(panels):
        if not isinstance(panel, dict) or "states" not in panel or "T" not in panel:
            raise ValueError(f"panels[{k}]: expected a dict with keys 'states' and 'T' "
                             "(optionally 'title', 'pins', 'values', 'vmin', 'vmax', 'cmap')")
        P = checks.finite_array(panel["states"], f"panels[{k}]['states']")
        if P.ndim != 3 or P.shape[2] != 2 or P.shape[0] == 0:
            raise ValueError(f"panels[{k}]['states']: expected a (T, n, 2) array, got shape {P.shape}")
        T = checks.index_array(panel["T"], f"panels[{k}]['T']", 3, P.shape[1])
        values = panel.get("values")
        if values is not None:
            values = checks.finite_array(values, f"panels[{k}]['values']")
            if values.shape != (P.shape[0], T.shape[0]):
                raise ValueError(f"panels[{k}]['values']: expected one value per frame and triangle "
                                 f"{(P.shape[0], T.shape[0])}, got {values.shape}")
        out.append({"P": P, "T": T, "title": panel.get("title"), "pins": panel.get("pins"), "values": values,
                    "cmap": panel.get("cmap", "viridis"), "vmin": panel.get("vmin"), "vmax": panel.get("vmax")})
    if len({d["P"].shape[0] for d in out}) != 1:
        raise ValueError(f"panels: expected the same number of frames in every panel, got "
                         f"{[d['P'].shape[0] for d in out]}")
    return out


def animate_triangles_2d(panels, t, lims=None, figsize=None, suptitle=None, time_format="t = {:.2f} s", fps=30,
                         xlabel="x  (m)", ylabel="y  (m)", ncols=None, edge_lw=0.3):
    """Animate one or several planar triangle meshes side by side, on one clock and one scale.

    Parameters
    ----------
    panels : sequence of dict
        One dict per panel: ``"states"`` ((T, n, 2) positions per frame), ``"T"`` ((t, 3)
        triangles) and optionally ``"title"``, ``"pins"`` ((p,) int, drawn where they are in
        each frame), ``"values"`` ((T, t) a value per frame and triangle, coloured by ``"cmap"``
        on ``["vmin", "vmax"]``, their range over all frames by default). Every panel has the same T.
    t : (T,) float array
        Counter value of each frame (time, or an angle with ``time_format="{:.0f} deg"``).
    lims : ((xmin, xmax), (ymin, ymax)), optional
        Shared limits; every node of every frame of every panel when None.
    figsize : (2,) float, optional
        ``(3.7 * ncols, 3.2 * nrows)`` when None.
    suptitle : str, optional
    time_format : str, default "t = {:.2f} s"
    fps : float, default 30
        Live playback rate (the video rate is ``save_animation``'s fps).
    xlabel, ylabel : str
    ncols : int, optional
        Panels per row; all in one row when None.
    edge_lw : float, default 0.3

    Returns
    -------
    fig : matplotlib.figure.Figure
        At ``DENSITY * DPI`` dots per inch.
    anim : course.filesystem.BlitAnimation
    """
    data = _panels(panels)
    n_frames = data[0]["P"].shape[0]
    t = checks.finite_array(t, "t").reshape(-1)
    if t.shape[0] != n_frames:
        raise ValueError(f"t: expected {n_frames} values (one per frame of the panels), got {t.shape[0]}")
    fps = checks.positive_scalar(fps, "fps")
    if lims is None:
        lims = triangle_limits([P for d in data for P in d["P"]])
    ncols = len(data) if ncols is None else checks.integer(ncols, "ncols", low=1)
    nrows = -(-len(data) // ncols)
    with style():
        fig, axes = plt.subplots(nrows, ncols, figsize=figsize or (3.7 * ncols, 3.2 * nrows),
                                 dpi=DENSITY * DPI, squeeze=False)
        axes = axes.ravel()
        moving = []
        for ax, d in zip(axes, data):
            setup_axes(ax, *lims, title=d["title"], xlabel=xlabel, ylabel=ylabel)
            values = d["values"]
            lo = hi = None
            if values is not None:
                lo = values.min() if d["vmin"] is None else d["vmin"]
                hi = values.max() if d["vmax"] is None else d["vmax"]
                hi = hi if hi > lo else lo + 1.0
            art = plot_triangles_2d(ax, d["P"][0], d["T"], pins=d["pins"], edge_lw=edge_lw, zorder=ANIM_Z,
                                    values=None if values is None else values[0], cmap=d["cmap"], vmin=lo, vmax=hi)
            moving.append((art, d, movable_polygons(art.faces)))
        for ax in axes[len(data):]:
            ax.remove()
        stamp = axes[0].text(0.03, 0.96, time_format.format(t[0]), transform=axes[0].transAxes, ha="left",
                             va="top", fontsize=10, color="0.25", zorder=ANIM_Z + 3)
        if suptitle is not None:
            fig.suptitle(suptitle)
        fig.tight_layout()

    def update(i):
        for art, d, corners in moving:
            corners[:, :3] = d["P"][i][d["T"]]
            corners[:, 3] = corners[:, 0]
            art.faces.stale = True
            if d["values"] is not None:
                art.faces.set_array(d["values"][i])
            if art.pins is not None:
                art.pins.set_offsets(d["P"][i][np.reshape(d["pins"], -1)])
        stamp.set_text(time_format.format(t[i]))

    artists = [stamp]
    for art, *_ in moving:
        artists.append(art.faces)
        if art.pins is not None:
            artists.append(art.pins)
    return fig, BlitAnimation(fig, update, n_frames, artists, interval=1000.0 / fps)
