r"""Distance between a point and an edge (a segment), batched over k pairs, 2D and 3D.

With the closest-point parameter :math:`s = \operatorname{clamp}\big(\frac{(p - a) \cdot (b - a)}{|b - a|^2}, 0, 1\big)`
the closest point is :math:`a + s (b - a)` and

.. math::

    d = |p - a - s (b - a)| = \begin{cases}
    |p - a| & s = 0 \quad (\texttt{P\_E0}, \text{code } 0) \\
    |p - b| & s = 1 \quad (\texttt{P\_E1}, 1) \\
    \dfrac{|(b - a) \times (p - a)|}{|b - a|} & 0 < s < 1 \quad (\texttt{P\_E}, 2)
    \end{cases}

(region codes as the IPC Toolkit's ``PointEdgeDistanceType``). The gradient is
:math:`(u, -(1 - s) u, -s u)` with :math:`u` the unit vector from the closest point to p; the
Hessian is ``simkit.contact._closest``'s formula. Zero-length edges raise ``ValueError``, and
so do the derivatives where p lies on the edge.
"""
import numpy as np

from . import _element
from ._closest import KindTable, evaluate, points_of, segment_parameter
from ._stencil import nonzero_lengths, points, positive_distances

# r = p - (1 - s) a - s b; the interior's free parameter s is b's weight
KINDS = KindTable(["P_E0", "P_E1", "P_E"],
                  [[1.0, -1.0, 0.0], [1.0, 0.0, -1.0], [1.0, -1.0, 0.0]],
                  [[], [], [[0.0, 1.0, -1.0]]])


def _point_edge(X, order=2, dense=True):
    """``Closest`` of stencils X (k, 3, dim) = (p, a, b), unchecked; ``order``, ``dense`` as ``_closest.evaluate``.

    Kinds: 0 ``P_E0`` (closest to a), 1 ``P_E1`` (b), 2 ``P_E`` (interior; y[:, 0] = s).
    """
    s, _ = segment_parameter(*points_of(X))
    kind = np.where(s <= 0, 0, np.where(s >= 1, 1, 2)).astype(np.int8)
    y = np.zeros((X.shape[0], 2))
    y[:, 0] = np.where(kind == 2, s, 0.0)
    return evaluate(X, KINDS, kind, y, order, dense)


def _checked(p, a, b, order):
    X = points({"p": p, "a": a, "b": b}, (2, 3))
    nonzero_lengths(X[:, 1], X[:, 2], "a, b")
    closest = _point_edge(X, order)
    if order:
        positive_distances(closest, "p, a, b")
    return closest


def point_edge_distance(p, a, b):
    r"""Euclidean distance from points to edges, pair by pair, 2D or 3D.

    :math:`d = |p - a - s (b - a)|`, :math:`s` the clamped closest-point parameter

    Parameters
    ----------
    p : (k, dim) float array
        The points, dim 2 or 3.
    a, b : (k, dim) float arrays
        The edges' end points, distinct.

    Returns
    -------
    d : (k,) float array
    """
    return _checked(p, a, b, 0).distance


def point_edge_distance_gradient(p, a, b):
    r"""Gradient of ``point_edge_distance`` with respect to the stencil (p, a, b).

    :math:`\nabla d = (u, -(1 - s) u, -s u)`, :math:`u` the unit vector from the closest point to p

    Parameters
    ----------
    p, a, b : (k, dim) float arrays

    Returns
    -------
    g : (k, 3*dim) float array

    Raises
    ------
    ValueError
        A zero-length edge, or a point on its edge (the message lists the pairs).
    """
    return _checked(p, a, b, 1).gradient


def point_edge_distance_hessian(p, a, b):
    r"""Hessian of ``point_edge_distance`` with respect to the stencil (p, a, b).

    :math:`\nabla^2 d` by the envelope and implicit function theorems over s (API page, "Distances")

    Parameters
    ----------
    p, a, b : (k, dim) float arrays

    Returns
    -------
    H : (k, 3*dim, 3*dim) float array

    Raises
    ------
    ValueError
        A zero-length edge, or a point on its edge (the message lists the pairs).
    """
    return _checked(p, a, b, 2).hessian


def point_edge_distance_element(p, a, b):
    r"""Element tier: distance, gradient and Hessian of one point-edge pair, by the plain definition.

    Parameters
    ----------
    p, a, b : (dim,) float arrays

    Returns
    -------
    d : float
    g : (3*dim,) float array
    H : (3*dim, 3*dim) float array
    """
    return _element.element({"p": p}, {"a": a, "b": b}, singular=0.0)
