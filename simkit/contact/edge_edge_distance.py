r"""Distance between two edges (segments) in 3D, batched over k pairs, exact for parallel edges.

Edge A runs from a0 to a1, edge B from b0 to b1; points on them are :math:`a(s) = a_0 + s e_a` and
:math:`b(t) = b_0 + t e_b`. The closest pair lies in one of nine regions (codes as the IPC
Toolkit's ``EdgeEdgeDistanceType``):

=====  ====================  ===============================================================
code   region                closest points
=====  ====================  ===============================================================
0-3    EA0_EB0 ... EA1_EB1   two end points: point-point distance
4, 5   EA_EB0, EA_EB1        b0 or b1 against A's interior: point-edge distance
6, 7   EA0_EB, EA1_EB        a0 or a1 against B's interior: point-edge distance
8      EA_EB                 both interiors: the lines' distance :math:`|(b_0 - a_0) \cdot n| / |n|`,
                             :math:`n = e_a \times e_b`
=====  ====================  ===============================================================

The lines' closest parameters are :math:`s = \frac{n \cdot ((b_0 - a_0) \times e_b)}{n \cdot n}`
and t, the projection of a(s) on B's line (so that round-off in s, large near parallel, moves
both points along the edges, where the distance is flat). Otherwise the minimum is attained at an
end point, as one of the four clamped point-edge distances (a0 and a1 against B, b0 and b1
against A). Each of these five candidates is the length of a segment joining a point of each
edge, so the smallest valid one is taken, and it is computed as :math:`|a(s) - b(t)|`, within a
few units of round-off of the stencil's size even for nearly parallel edges. Parallel edges:
when :math:`|n|^2 \le 10^{-20} |e_a|^2 |e_b|^2` (an angle below 1e-10 rad) the interior
candidate is not used, so s is never divided by a vanishing :math:`|n|^2`; the end point
minimum is exact for parallel edges and within :math:`\tfrac12 (10^{-10} L)^2 / d` of the true
distance for nearly parallel ones (L the edges' length). Distance, gradient and Hessian stay
finite. The gradient is :math:`((1 - s) u, s u, -(1 - t) u, -t u)` with u the unit vector
from b(t) to a(s). Zero-length edges raise ``ValueError``, and so do the derivatives where the
edges touch.
"""
import numpy as np

from . import _element
from ._closest import KindTable, cross, dot, evaluate, points_of, segment_parameter
from ._stencil import nonzero_lengths, points, positive_distances

# Below this sin^2 of the angle between the edges, the interior-interior region is not used.
PARALLEL = 1e-20

_S = [-1.0, 1.0, 0.0, 0.0]          # d w / d s: A's interior (s is a1's weight)
_T = [0.0, 0.0, 1.0, -1.0]          # d w / d t: B's interior (t is b1's weight)
KINDS = KindTable(
    ["EA0_EB0", "EA0_EB1", "EA1_EB0", "EA1_EB1", "EA_EB0", "EA_EB1", "EA0_EB", "EA1_EB", "EA_EB"],
    [[1.0, 0.0, -1.0, 0.0], [1.0, 0.0, 0.0, -1.0], [0.0, 1.0, -1.0, 0.0], [0.0, 1.0, 0.0, -1.0],
     [1.0, 0.0, -1.0, 0.0], [1.0, 0.0, 0.0, -1.0], [1.0, 0.0, -1.0, 0.0], [0.0, 1.0, -1.0, 0.0],
     [1.0, 0.0, -1.0, 0.0]],
    [[], [], [], [], [_S], [_S], [_T], [_T], [_S, _T]])
# candidate j of the end-point minimum: (end point, its parameter on the other edge) -> kinds at
# parameter 0, 1 and in between; which y column the parameter goes to
_CANDIDATE_KINDS = np.array([[0, 1, 6], [2, 3, 7], [0, 2, 4], [1, 3, 5]])


def _edge_edge(X, order=2, dense=True):
    """``Closest`` of stencils X (k, 4, 3) = (a0, a1, b0, b1), unchecked; ``order``, ``dense`` as ``_closest.evaluate``.

    Kinds: 0-3 end point pairs, 4-5 b0 or b1 against A's interior (y[:, 0] = s), 6-7 a0 or a1
    against B's interior (y[:, 0] = t), 8 interior pair (y = (s, t)); s is a1's weight and t
    b1's. Parallel edges (module docstring) never get kind 8.
    """
    a0, a1, b0, b1 = points_of(X)
    ea, eb, w = a1 - a0, b1 - b0, b0 - a0
    n = cross(ea, eb)
    nn = dot(n, n)
    ebeb = dot(eb, eb)
    skew = nn > PARALLEL * dot(ea, ea) * ebeb
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(skew, dot(n, cross(w, eb)) / nn, -1.0)
        a = a0 + s[:, None] * ea
        t = dot(a - b0, eb) / ebeb              # a(s) projected on B's line: errors in s stay along the edges
    interior = (s > 0) & (s < 1) & (t > 0) & (t < 1)
    k = X.shape[0]
    param = np.empty((k, 4))
    f = np.full((k, 5), np.inf)
    for j, (point, start, end) in enumerate(((a0, b0, b1), (a1, b0, b1), (b0, a0, a1), (b1, a0, a1))):
        param[:, j], f[:, j] = segment_parameter(point, start, end)
    r = a - b0 - t[:, None] * eb
    f[interior, 4] = dot(r[interior], r[interior])
    best = np.argmin(f, axis=1)            # every candidate joins two points of the edges: the least is the distance
    interior = best == 4
    pj = np.take_along_axis(param, np.minimum(best, 3)[:, None], axis=1)[:, 0]
    kind = _CANDIDATE_KINDS[np.minimum(best, 3), np.where(pj <= 0, 0, np.where(pj >= 1, 1, 2))]
    kind = np.where(interior, 8, kind).astype(np.int8)
    y = np.zeros((k, 2))
    y[:, 0] = np.where(interior, s, np.where((kind >= 4), pj, 0.0))
    y[:, 1] = np.where(interior, t, 0.0)
    return evaluate(X, KINDS, kind, y, order, dense)


def _checked(a0, a1, b0, b1, order):
    X = points({"a0": a0, "a1": a1, "b0": b0, "b1": b1}, (3,))
    nonzero_lengths(X[:, 0], X[:, 1], "a0, a1")
    nonzero_lengths(X[:, 2], X[:, 3], "b0, b1")
    closest = _edge_edge(X, order)
    if order:
        positive_distances(closest, "a0, a1, b0, b1")
    return closest


def edge_edge_distance(a0, a1, b0, b1):
    r"""Euclidean distance between edges, pair by pair, 3D; exact for parallel edges.

    :math:`d = \min_{s, t \in [0, 1]} |a_0 + s (a_1 - a_0) - b_0 - t (b_1 - b_0)|`

    Parameters
    ----------
    a0, a1 : (k, 3) float arrays
        First edges' end points, distinct.
    b0, b1 : (k, 3) float arrays
        Second edges' end points, distinct.

    Returns
    -------
    d : (k,) float array
    """
    return _checked(a0, a1, b0, b1, 0).distance


def edge_edge_distance_gradient(a0, a1, b0, b1):
    r"""Gradient of ``edge_edge_distance`` with respect to the stencil (a0, a1, b0, b1).

    :math:`\nabla d = ((1 - s) u, s u, -(1 - t) u, -t u)`, :math:`u` the unit vector from b(t) to a(s)

    Parameters
    ----------
    a0, a1, b0, b1 : (k, 3) float arrays

    Returns
    -------
    g : (k, 12) float array

    Raises
    ------
    ValueError
        A zero-length edge, or touching edges (the message lists the pairs).
    """
    return _checked(a0, a1, b0, b1, 1).gradient


def edge_edge_distance_hessian(a0, a1, b0, b1):
    r"""Hessian of ``edge_edge_distance`` with respect to the stencil (a0, a1, b0, b1).

    :math:`\nabla^2 d` by the envelope and implicit function theorems over the free parameters (API page, "Distances")

    Parameters
    ----------
    a0, a1, b0, b1 : (k, 3) float arrays

    Returns
    -------
    H : (k, 12, 12) float array
        Finite for parallel edges; of order :math:`d / (|n|^2 / (|e_a| |e_b|)^2)` in the interior
        region near parallel, which the mollifier (``edge_edge_mollifier``) tempers.

    Raises
    ------
    ValueError
        A zero-length edge, or touching edges (the message lists the pairs).
    """
    return _checked(a0, a1, b0, b1, 2).hessian


def edge_edge_distance_element(a0, a1, b0, b1):
    r"""Element tier: distance, gradient and Hessian of one edge pair, by the plain definition.

    Parameters
    ----------
    a0, a1, b0, b1 : (3,) float arrays

    Returns
    -------
    d : float
    g : (12,) float array
    H : (12, 12) float array
    """
    return _element.element({"a0": a0, "a1": a1}, {"b0": b0, "b1": b1}, singular=PARALLEL)
