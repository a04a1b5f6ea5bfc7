"""Triangle meshes in 3D by a fixed orthographic camera: shaded meshes, panels, animations, hinges.

A fixed orthographic camera (``View``) looks at the scene; y is up (simkit's gravity axis).
Each triangle is flat-shaded by its face normal under a light fixed to the camera, in one
colour on its front (the side its normal points to) and another on its back, and the
triangles are painted far to near. Everything is drawn in an ordinary 2D Axes, so a frame is
one PolyCollection that ``BlitAnimation`` redraws quickly. A new drawing of 3D meshes goes
here; the interactive (orbiting) view is ``course.viewer``.
"""
from typing import NamedTuple

import matplotlib.colors as mcolors
import numpy as np
from matplotlib.collections import LineCollection, PolyCollection

from simkit import checks
from .filesystem import BlitAnimation

from ._inputs import _auto_scene_limits, _indices, _points, _scene_limits, _states
from ._moving_polygons import movable_polygons
from ._public import public
from .style import (ANIM_Z, BOUNDARY_C, CLOTH_BACK, CLOTH_FRONT, DENSITY, DPI, HINGE_C, PIN_C, SPRING_EDGE,
                    _new_figure, _panel_grid, _style_axes, style)

#: float : ambient part of the flat shading, :math:`s = a + d \max(n \cdot \ell, 0)`.
AMBIENT = 0.45
#: float : diffuse part of the flat shading.
DIFFUSE = 0.55
#: float : triangle outlines are the face colour times this factor.
EDGE_SHADE = 0.88


@public
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
    angles = checks.finite_array(view, "view")
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


def _triangles(F, n, name="F"):
    F = checks.index_array(F, name, 3, n)
    if F.shape[0] == 0:
        raise ValueError(f"{name}: expected at least one triangle, got shape {F.shape}")
    return F


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


@public
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
    X = _points(X, "X", dim=3)
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
    pts = np.concatenate([_points(s, "states[i]", dim=3) for s in states]) if not isinstance(
        states, np.ndarray) else _states(states, dim=3).reshape(-1, 3)
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
        P = _states(panel["states"], f"panels[{k}]['states']", dim=3) if "states" in panel else \
            _points(panel["X"], f"panels[{k}]['X']", dim=3)[None]
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
        fig, axes = _panel_grid(figsize or (3.4 * ncols, 3.2 * nrows), len(data), ncols)
        for ax, (P, F, title, pins) in zip(axes, data):
            plot_mesh_3d(ax, P[0], F, pins=pins, view=basis_view, lims=lims, title=title, **mesh_kw)
        if suptitle is not None:
            fig.suptitle(suptitle)
        fig.tight_layout()
    return fig, axes


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
    anim : course.filesystem.BlitAnimation
    """
    data = _panels3d(panels)
    counts = {P.shape[0] for P, *_ in data}
    if len(counts) != 1:
        raise ValueError(f"panels: expected the same number of frames in every panel, got {sorted(counts)}")
    T = counts.pop()
    t = checks.finite_array(t, "t").reshape(-1)
    if t.shape[0] != T:
        raise ValueError(f"t: expected {T} values (one per frame of the panels), got {t.shape[0]}")
    fps = checks.positive_scalar(fps, "fps")
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
            moving.append((art, P, F, pins, movable_polygons(art.faces)))
        for ax in axes[len(data):]:
            ax.remove()
        stamp = axes[0].text(0.02, 0.98, time_format.format(t[0]), transform=axes[0].transAxes, ha="left",
                             va="top", fontsize=10, color="0.25", zorder=ANIM_Z + 3)
        if suptitle is not None:
            fig.suptitle(suptitle)
        fig.tight_layout()

    def update(i):
        for art, P, F, pins, corners in moving:
            screen, rgba = _shaded_faces(P[i], F, basis, front, back)
            corners[:, :3] = screen
            corners[:, 3] = screen[:, 0]
            art.faces.stale = True
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
    X = _points(X, "X", dim=3)
    n = X.shape[0]
    F = _triangles(F, n)
    C = checks.index_array(C, "C", 4, n)
    if hinge is not None:
        hinge = checks.integer(hinge, "hinge", low=0)
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
    X4 = _points(X4, "X4", 4, dim=3)
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

