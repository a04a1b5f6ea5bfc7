r"""Distance between a point and a triangle in 3D, batched over k pairs.

The closest point of triangle (a, b, c) to p lies in one of seven regions (codes as the IPC
Toolkit's ``PointTriangleDistanceType``):

=========  ================  ===============================================================
code       region            distance
=========  ================  ===============================================================
0, 1, 2    vertex a, b, c    :math:`|p - a|`, :math:`|p - b|`, :math:`|p - c|`
3, 4, 5    edge ab, bc, ca   point-edge distance to that edge's interior
6          face              :math:`|(p - a) \cdot n| / |n|`, :math:`n = (b - a) \times (c - a)`
=========  ================  ===============================================================

The face region holds when the projection of p onto the plane has barycentric coordinates
:math:`(1 - u - v, u, v) \ge 0`, with :math:`u = \frac{((p - a) \times (c - a)) \cdot n}{n \cdot n}` and
:math:`v = \frac{((b - a) \times (p - a)) \cdot n}{n \cdot n}`; otherwise the nearest of the three
edges (each clamped, so its end points are the vertex regions) holds it. (Each candidate joins p
to a point of the triangle, so the smallest valid one is taken: round-off at a region's border
never picks a farther point.) Either way
:math:`d = |p - \lambda_a a - \lambda_b b - \lambda_c c|` with the closest point's barycentric
coordinates, and :math:`\nabla d = (u, -\lambda_a u, -\lambda_b u, -\lambda_c u)`, u the unit vector
from the closest point to p. Triangles of zero area raise ``ValueError``, and so do the
derivatives where p lies on the triangle.
"""
import numpy as np

from . import _element
from ._closest import KindTable, cross, dot, evaluate, points_of, segment_parameter
from ._stencil import ZERO_AREA, nonzero_areas, points, positive_distances

# r = p - l_a a - l_b b - l_c c; edge regions' parameter s is the second end's weight, the face's
# parameters (u, v) are b's and c's weights
KINDS = KindTable(
    ["P_T0", "P_T1", "P_T2", "P_E0", "P_E1", "P_E2", "P_T"],
    [[1.0, -1.0, 0.0, 0.0], [1.0, 0.0, -1.0, 0.0], [1.0, 0.0, 0.0, -1.0],
     [1.0, -1.0, 0.0, 0.0], [1.0, 0.0, -1.0, 0.0], [1.0, 0.0, 0.0, -1.0],
     [1.0, -1.0, 0.0, 0.0]],
    [[], [], [],
     [[0.0, 1.0, -1.0, 0.0]], [[0.0, 0.0, 1.0, -1.0]], [[0.0, -1.0, 0.0, 1.0]],
     [[0.0, 1.0, -1.0, 0.0], [0.0, 1.0, 0.0, -1.0]]])
# edge j's clamped ends, as vertex kinds: (start, end)
_EDGE_ENDS = np.array([[0, 1], [1, 2], [2, 0]])


def _point_triangle(X, order=2, dense=True):
    """``Closest`` of stencils X (k, 4, 3) = (p, a, b, c), unchecked; ``order``, ``dense`` as ``_closest.evaluate``.

    Kinds: 0-2 vertex a, b, c; 3-5 edge ab, bc, ca (y[:, 0] = the second end's weight); 6 face
    (y = (u, v), the weights of b and c). A zero-area triangle is never classified as a face.
    """
    p, a, b, c = points_of(X)
    e0, e1, q = b - a, c - a, p - a
    n = cross(e0, e1)
    nn = dot(n, n)
    flat = nn > ZERO_AREA * dot(e0, e0) * dot(e1, e1)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.where(flat, dot(cross(q, e1), n) / nn, -1.0)
        v = np.where(flat, dot(cross(e0, q), n) / nn, -1.0)
    face = (u >= 0) & (v >= 0) & (u + v <= 1)
    k = X.shape[0]
    s = np.empty((k, 3))
    f = np.full((k, 4), np.inf)
    for j, (start, end) in enumerate(((a, b), (b, c), (c, a))):
        s[:, j], f[:, j] = segment_parameter(p, start, end)
    r = q[face] - u[face, None] * e0[face] - v[face, None] * e1[face]
    f[face, 3] = dot(r, r)
    best = np.argmin(f, axis=1)             # every candidate joins p to a point of the triangle: the least wins
    face = best == 3
    edge = np.minimum(best, 2)
    se = np.take_along_axis(s, edge[:, None], axis=1)[:, 0]
    kind = np.where(se <= 0, _EDGE_ENDS[edge, 0], np.where(se >= 1, _EDGE_ENDS[edge, 1], 3 + edge))
    kind = np.where(face, 6, kind).astype(np.int8)
    y = np.zeros((X.shape[0], 2))
    y[:, 0] = np.where(face, u, np.where(kind >= 3, se, 0.0))
    y[:, 1] = np.where(face, v, 0.0)
    return evaluate(X, KINDS, kind, y, order, dense)


def _checked(p, a, b, c, order):
    X = points({"p": p, "a": a, "b": b, "c": c}, (3,))
    nonzero_areas(X[:, 1], X[:, 2], X[:, 3], "a, b, c")
    closest = _point_triangle(X, order)
    if order:
        positive_distances(closest, "p, a, b, c")
    return closest


def point_triangle_distance(p, a, b, c):
    r"""Euclidean distance from points to triangles, pair by pair, 3D.

    :math:`d = \min_{\lambda \ge 0,\ \sum \lambda = 1} |p - \lambda_a a - \lambda_b b - \lambda_c c|` (face, edge or vertex region)

    Parameters
    ----------
    p : (k, 3) float array
        The points.
    a, b, c : (k, 3) float arrays
        The triangles' corners, of non-zero area.

    Returns
    -------
    d : (k,) float array
    """
    return _checked(p, a, b, c, 0).distance


def point_triangle_distance_gradient(p, a, b, c):
    r"""Gradient of ``point_triangle_distance`` with respect to the stencil (p, a, b, c).

    :math:`\nabla d = (u, -\lambda_a u, -\lambda_b u, -\lambda_c u)`, :math:`u` the unit vector from the closest point to p

    Parameters
    ----------
    p, a, b, c : (k, 3) float arrays

    Returns
    -------
    g : (k, 12) float array

    Raises
    ------
    ValueError
        A zero-area triangle, or a point on its triangle (the message lists the pairs).
    """
    return _checked(p, a, b, c, 1).gradient


def point_triangle_distance_hessian(p, a, b, c):
    r"""Hessian of ``point_triangle_distance`` with respect to the stencil (p, a, b, c).

    :math:`\nabla^2 d` by the envelope and implicit function theorems over the free barycentric coordinates (API page, "Distances")

    Parameters
    ----------
    p, a, b, c : (k, 3) float arrays

    Returns
    -------
    H : (k, 12, 12) float array

    Raises
    ------
    ValueError
        A zero-area triangle, or a point on its triangle (the message lists the pairs).
    """
    return _checked(p, a, b, c, 2).hessian


def point_triangle_distance_element(p, a, b, c):
    r"""Element tier: distance, gradient and Hessian of one point-triangle pair, by the plain definition.

    Parameters
    ----------
    p, a, b, c : (3,) float arrays

    Returns
    -------
    d : float
    g : (12,) float array
    H : (12, 12) float array
    """
    return _element.element({"p": p}, {"a": a, "b": b, "c": c}, singular=ZERO_AREA)
