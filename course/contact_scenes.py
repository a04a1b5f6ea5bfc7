r"""Drawing helpers of chapter 017 (contact): the obstacles of a 2D scene and the bodies that hit them.

Obstacles are static: ``draw_half_space`` shades the solid side :math:`\{x : n \cdot (x - p) < 0\}`
of a floor or a slope inside the axes' limits, ``draw_slab`` a thin floor of finite thickness,
``draw_segments`` a set of rigid segments. They sit below every animated artist (``zorder`` 1),
so they can be added to the scene Axes of an ``animate_*`` figure before it is saved.
``block`` meshes a rectangular body (triangles, springs, boundary segments) for the
chapter's mass-spring bodies.
"""
import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.patches import Polygon, Rectangle

from simkit import checks

GROUND_C = "#b9a58a"
"""str : fill colour of solid obstacles (floors, slopes, slabs)."""
GROUND_EDGE = "#5d4a33"
"""str : colour of an obstacle's surface line."""
BODY_COLORS = ("#33495f", "#16907f", "#b03a2e", "#7b3fa0")
"""tuple of str : one colour per body when several share a scene."""
OBSTACLE_Z = 1.0
"""float : z-order of obstacles: above the axes' grid, below every animated artist."""


def _point_normal(point, normal):
    p = checks.finite_array(point, "point").reshape(-1)
    n = checks.finite_array(normal, "normal").reshape(-1)
    if p.shape != (2,) or n.shape != (2,):
        raise ValueError(f"point, normal: expected two 2D vectors, got shapes {np.shape(point)} and {np.shape(normal)}")
    length = float(np.hypot(*n))
    if abs(length - 1.0) > 1e-9:
        raise ValueError(f"normal: expected a unit vector, got length {length:.6g}")
    return p, n


def half_space_polygon(point, normal, xlim, ylim):
    r"""The solid side :math:`\{x : n \cdot (x - p) \le 0\}` of a half-space clipped to a box.

    Parameters
    ----------
    point : (2,) float
        A point of the boundary line.
    normal : (2,) float
        Unit outward normal (pointing out of the solid, into the free space).
    xlim, ylim : (2,) float
        The box ``[xlim[0], xlim[1]] x [ylim[0], ylim[1]]``.

    Returns
    -------
    polygon : (k, 2) float array
        Vertices of the convex clipped region in counter-clockwise order; ``k = 0`` when the
        box lies entirely in free space.
    """
    p, n = _point_normal(point, normal)
    (x0, x1), (y0, y1) = np.sort(np.asarray(xlim, float)), np.sort(np.asarray(ylim, float))
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    s = (corners - p) @ n
    a, b = corners, np.roll(corners, -1, axis=0)
    sa, sb = s, np.roll(s, -1)
    crossing = sa * sb < 0
    t = sa[crossing] / (sa[crossing] - sb[crossing])
    cuts = a[crossing] + t[:, None] * (b[crossing] - a[crossing])
    pts = np.vstack([corners[s <= 0], cuts])
    if len(pts) < 3:
        return np.zeros((0, 2))
    centre = pts.mean(axis=0)
    order = np.argsort(np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0]))
    return pts[order]


def draw_half_space(ax, point, normal, label=None, color=GROUND_C, edge=GROUND_EDGE, lw=2.0):
    r"""Shade the solid side of a half-space (floor, slope) inside the axes' current limits.

    Set the limits first (``setup_axes``): the region is clipped to them.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    point : (2,) float
        A point of the surface.
    normal : (2,) float
        Unit outward normal: free space is :math:`n \cdot (x - p) > 0`.
    label : str, optional
        Legend entry of the surface.
    color, edge : colour
        Fill and surface-line colours.
    lw : float
        Width of the surface line.

    Returns
    -------
    patch : matplotlib.patches.Polygon or None
        The shaded region (None when it lies outside the limits).
    """
    p, n = _point_normal(point, normal)
    poly = half_space_polygon(p, n, ax.get_xlim(), ax.get_ylim())
    if not len(poly):
        return None
    # the hatch is drawn in the edge colour: a faint one, and no outline
    patch = ax.add_patch(Polygon(poly, closed=True, facecolor=to_rgba(color, 0.55), edgecolor=to_rgba(edge, 0.3),
                                 lw=0.0, hatch="//", zorder=OBSTACLE_Z))
    on_surface = np.abs((poly - p) @ n) < 1e-9 * max(1.0, np.abs(poly).max())
    ends = poly[on_surface]
    if len(ends) >= 2:
        tangent = np.array([-n[1], n[0]])
        ends = ends[np.argsort(ends @ tangent)][[0, -1]]
        ax.plot(ends[:, 0], ends[:, 1], color=edge, lw=lw, label=label, zorder=OBSTACLE_Z + 0.1)
    return patch


def draw_slab(ax, y_top, thickness, xlim, label=None, color=GROUND_C, edge=GROUND_EDGE):
    """Draw a thin horizontal floor: the band ``y_top - thickness <= y <= y_top`` over ``xlim``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    y_top : float
        Height of the floor's upper surface.
    thickness : float
        Thickness of the floor, > 0.
    xlim : (2,) float
        Horizontal extent.
    label : str, optional
        Legend entry.
    color, edge : colour

    Returns
    -------
    patch : matplotlib.patches.Rectangle
    """
    y_top = checks.real_scalar(y_top, "y_top")
    thickness = checks.positive_scalar(thickness, "thickness")
    x0, x1 = np.sort(checks.finite_array(xlim, "xlim").reshape(-1)[:2])
    return ax.add_patch(Rectangle((x0, y_top - thickness), x1 - x0, thickness, facecolor=to_rgba(color, 0.8),
                                  edgecolor=to_rgba(edge, 0.5), lw=0.8, hatch="//", label=label, zorder=OBSTACLE_Z))


def draw_segments(ax, X, S, color=GROUND_EDGE, lw=3.0, label=None):
    """Draw rigid segments ``X[S[k, 0]] -> X[S[k, 1]]`` (platforms, walls).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    X : (n, 2) float array
        End points.
    S : (s, 2) int array
        Segments as index pairs into ``X``.
    color : colour
    lw : float
    label : str, optional

    Returns
    -------
    lines : matplotlib.collections.LineCollection
    """
    from matplotlib.collections import LineCollection

    X = checks.positions(X, "X", dims=(2,))
    S = checks.index_array(S, "S", 2, len(X))
    return ax.add_collection(LineCollection(X[S], colors=color, linewidths=lw, capstyle="round", label=label,
                                            zorder=OBSTACLE_Z + 0.2))


def block(corner, width, height, nx, ny):
    r"""A rectangular 2D body on a regular grid of triangles: its nodes, triangles, springs and boundary.

    Parameters
    ----------
    corner : (2,) float
        Lower-left corner.
    width, height : float
        Side lengths, > 0.
    nx, ny : int
        Nodes along x and y, >= 2 each.

    Returns
    -------
    X : (nx*ny, 2) float array
        Node ``i + nx*j`` at ``corner + (width i / (nx-1), height j / (ny-1))``.
    T : (2 (nx-1)(ny-1), 3) int array
        Counter-clockwise triangles (cells split in a checkerboard of both diagonals).
    E : (m, 2) int array
        Unique edges of ``T`` (one spring each), ``simkit.edges(T)``.
    B : (b, 2) int array
        Boundary segments, counter-clockwise around the body (the outward normal of segment
        ``(a, b)`` is the tangent :math:`X_b - X_a` turned by :math:`-90°`), ``simkit.boundary_edges(T)``.
    """
    import simkit

    c = checks.finite_array(corner, "corner").reshape(-1)
    if c.shape != (2,):
        raise ValueError(f"corner: expected a 2D point, got shape {np.shape(corner)}")
    V, F = simkit.grid_sheet(nx, ny, width, height)
    X = V[:, [0, 2]] + c
    # grid_sheet's triangles are counter-clockwise seen from +y, i.e. clockwise in (x, z): flip them
    T = F[:, [0, 2, 1]]
    return X, T, simkit.edges(T), simkit.boundary_edges(T)
