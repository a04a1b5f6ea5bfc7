r"""Continuous collision detection of a point and a triangle moving linearly, 3D, batched.

The point moves from p0 to p1 and the triangle's corners from (a0, b0, c0) to (a1, b1, c1) over
t in [0, 1]. The returned time is a lower bound on their first contact, at least about 0.99 of it
on a transversal approach (``simkit.contact._additive_ccd``: separating axes whose gaps stay
positive for a time found in closed form, and windows certified free of coplanarity,
:math:`\det[a - p, b - p, c - p] \ne 0`, both exact up to a bound on their round-off).
"""
from ._additive_ccd import additive_ccd
from ._stencil import points
from .point_triangle_distance import _point_triangle


def _distance(X):
    return _point_triangle(X, 0)


def _point_triangle_ccd(X0, X1, t_max=1.0, minimum=False):
    """Times of impact (k,) of stencils (p, a, b, c) moving from X0 to X1 (k, 4, 3), unchecked.

    ``t_max``, ``minimum``: as ``_additive_ccd.additive_ccd`` (``minimum=True`` returns the smallest time only).
    """
    return additive_ccd(X0, X1, _distance, [0], [1, 2, 3], t_max=t_max, minimum=minimum)


def point_triangle_ccd(p0, a0, b0, c0, p1, a1, b1, c1):
    r"""Time of impact of points and triangles moving linearly over t in [0, 1], pair by pair.

    :math:`t^* \le \min\{t \in [0, 1] : d(p(t), [a(t), b(t), c(t)]) = 0\}`, :math:`x(t) = x_0 + t (x_1 - x_0)`

    Parameters
    ----------
    p0, a0, b0, c0 : (k, 3) float arrays
        The points and the triangles' corners at t = 0.
    p1, a1, b1, c1 : (k, 3) float arrays
        The same at t = 1.

    Returns
    -------
    t : (k,) float array
        A lower bound on each first time of contact in [0, 1] (0 if they touch at t = 0, or within
        round-off of touching), ``inf`` where they do not touch. On a transversal approach it is
        within 1% of the time of impact; it may be lower where the primitives pass within 1e-7 of
        the positions' size of each other on the way.
    """
    X = points({"p0": p0, "a0": a0, "b0": b0, "c0": c0, "p1": p1, "a1": a1, "b1": b1, "c1": c1}, (3,))
    return _point_triangle_ccd(X[:, :4], X[:, 4:])
