r"""Continuous collision detection of two edges moving linearly, 3D, batched.

Edge A moves from (a0_t0, a1_t0) to (a0_t1, a1_t1), edge B from (b0_t0, b1_t0) to (b0_t1, b1_t1),
over t in [0, 1]. The returned time is a lower bound on their first contact, at least about 0.99
of it on a transversal approach (``simkit.contact._additive_ccd``: separating axes whose gaps stay
positive for a time found in closed form, among them the edges' common normal
:math:`e_a \times e_b`, and windows certified free of coplanarity,
:math:`\det[a_1 - a_0, b_0 - a_0, b_1 - a_0] \ne 0`, both exact up to a bound on their round-off).
Parallel edges moving in parallel planes are certified at once.
"""
from ._additive_ccd import additive_ccd
from ._stencil import points
from .edge_edge_distance import _edge_edge


def _distance(X):
    return _edge_edge(X, 0)


def _edge_edge_ccd(X0, X1, t_max=1.0, minimum=False):
    """Times of impact (k,) of stencils (a0, a1, b0, b1) moving from X0 to X1 (k, 4, 3), unchecked.

    ``t_max``, ``minimum``: as ``_additive_ccd.additive_ccd`` (``minimum=True`` returns the smallest time only).
    """
    return additive_ccd(X0, X1, _distance, [0, 1], [2, 3], t_max=t_max, minimum=minimum)


def edge_edge_ccd(a0_t0, a1_t0, b0_t0, b1_t0, a0_t1, a1_t1, b0_t1, b1_t1):
    r"""Time of impact of edges moving linearly over t in [0, 1], pair by pair.

    :math:`t^* \le \min\{t \in [0, 1] : d([a_0(t), a_1(t)], [b_0(t), b_1(t)]) = 0\}`

    Parameters
    ----------
    a0_t0, a1_t0, b0_t0, b1_t0 : (k, 3) float arrays
        The edges' end points at t = 0.
    a0_t1, a1_t1, b0_t1, b1_t1 : (k, 3) float arrays
        The same at t = 1.

    Returns
    -------
    t : (k,) float array
        A lower bound on each first time of contact in [0, 1] (0 if they touch at t = 0, or within
        round-off of touching), ``inf`` where they do not touch; within 1% of the time of impact on
        a transversal approach.
    """
    X = points({"a0_t0": a0_t0, "a1_t0": a1_t0, "b0_t0": b0_t0, "b1_t0": b1_t0,
                "a0_t1": a0_t1, "a1_t1": a1_t1, "b0_t1": b0_t1, "b1_t1": b1_t1}, (3,))
    return _edge_edge_ccd(X[:, :4], X[:, 4:])
