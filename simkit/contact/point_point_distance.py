r"""Distance between two points, batched over k pairs, with its gradient and Hessian.

.. math::

    d = |p - q|, \qquad \nabla_{(p, q)} d = (u, -u), \qquad
    \nabla^2 d = \frac{1}{d} \begin{pmatrix} I - u u^\top & -(I - u u^\top) \\ -(I - u u^\top) & I - u u^\top \end{pmatrix},
    \qquad u = \frac{p - q}{d}.

2D or 3D. The derivatives are undefined where the points coincide (``ValueError``).
"""
import numpy as np

from . import _element
from ._closest import KindTable, evaluate
from ._stencil import points, positive_distances

KINDS = KindTable(["P_P"], [[1.0, -1.0]], [[]])


def _point_point(X, order=2, dense=True):
    """``Closest`` of stencils X (k, 2, dim) = (p, q), unchecked; ``order``, ``dense`` as ``_closest.evaluate``."""
    k = X.shape[0]
    return evaluate(X, KINDS, np.zeros(k, dtype=np.int8), np.zeros((k, 2)), order, dense)


def _checked(p, q, order):
    closest = _point_point(points({"p": p, "q": q}, (2, 3)), order)
    if order:
        positive_distances(closest, "p, q")
    return closest


def point_point_distance(p, q):
    r"""Euclidean distance between points, pair by pair.

    :math:`d = |p - q|`

    Parameters
    ----------
    p, q : (k, dim) float arrays
        The points, dim 2 or 3.

    Returns
    -------
    d : (k,) float array
    """
    return _checked(p, q, 0).distance


def point_point_distance_gradient(p, q):
    r"""Gradient of ``point_point_distance`` with respect to the stencil (p, q).

    :math:`\nabla d = (u, -u)`, :math:`u = (p - q) / d`

    Parameters
    ----------
    p, q : (k, dim) float arrays

    Returns
    -------
    g : (k, 2*dim) float array

    Raises
    ------
    ValueError
        Coinciding points (the message lists the pairs).
    """
    return _checked(p, q, 1).gradient


def point_point_distance_hessian(p, q):
    r"""Hessian of ``point_point_distance`` with respect to the stencil (p, q).

    :math:`\nabla^2 d = \begin{pmatrix} 1 & -1 \\ -1 & 1 \end{pmatrix} \otimes \frac{I - u u^\top}{d}`

    Parameters
    ----------
    p, q : (k, dim) float arrays

    Returns
    -------
    H : (k, 2*dim, 2*dim) float array

    Raises
    ------
    ValueError
        Coinciding points (the message lists the pairs).
    """
    return _checked(p, q, 2).hessian


def point_point_distance_element(p, q):
    r"""Element tier: distance, gradient and Hessian of one point pair, by the plain definition.

    Parameters
    ----------
    p, q : (dim,) float arrays

    Returns
    -------
    d : float
    g : (2*dim,) float array
    H : (2*dim, 2*dim) float array
    """
    return _element.element({"p": p}, {"q": q}, singular=0.0)
