r"""Continuous collision detection of a point and an edge moving linearly, 2D (and 3D), batched.

The point moves from p0 to p1 and the edge from (a0, b0) to (a1, b1) over t in [0, 1]. The
returned time is a lower bound on their first contact (``simkit.contact._additive_ccd``:
separating axes whose gaps stay positive for a time found in closed form, and in 2D windows
certified free of collinearity, :math:`\det[a - p, b - p] \ne 0`, both exact up to a bound on
their round-off). In 3D a point and an edge touch only on special motions and the collinearity
certificate does not apply: the axes answer.
"""
from ._additive_ccd import additive_ccd
from ._stencil import points
from .point_edge_distance import _point_edge


def _distance(X):
    return _point_edge(X, 0)


def _point_edge_ccd(X0, X1, t_max=1.0, minimum=False):
    """Times of impact (k,) of stencils (p, a, b) moving from X0 to X1 (k, 3, dim), unchecked.

    ``t_max``, ``minimum``: as ``_additive_ccd.additive_ccd`` (``minimum=True`` returns the smallest time only).
    """
    return additive_ccd(X0, X1, _distance, [0], [1, 2], coplanar=X0.shape[2] == 2, t_max=t_max, minimum=minimum)


def point_edge_ccd(p0, a0, b0, p1, a1, b1):
    r"""Time of impact of points and edges moving linearly over t in [0, 1], pair by pair, 2D or 3D.

    :math:`t^* \le \min\{t \in [0, 1] : d(p(t), [a(t), b(t)]) = 0\}`

    Parameters
    ----------
    p0, a0, b0 : (k, dim) float arrays
        The points and the edges' end points at t = 0, dim 2 or 3.
    p1, a1, b1 : (k, dim) float arrays
        The same at t = 1.

    Returns
    -------
    t : (k,) float array
        A lower bound on each first time of contact in [0, 1] (0 if they touch at t = 0, or within
        round-off of touching), ``inf`` where they do not touch; in 2D within 1% of the time of
        impact on a transversal approach.
    """
    X = points({"p0": p0, "a0": a0, "b0": b0, "p1": p1, "a1": a1, "b1": b1}, (2, 3))
    return _point_edge_ccd(X[:, :3], X[:, 3:])
