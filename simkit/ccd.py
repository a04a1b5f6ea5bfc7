r"""Continuous collision detection: how far along a step every contact distance stays positive.

For positions x and a step dx, the positions ``x + t dx`` move linearly in t. The time of
impact ``t*`` is the first ``t >= 0`` at which some distance reaches zero (``inf`` if none
does). The filter of Li et al. 2020's line search is

    max_step(x, dx) = min(1, safety * t*)

so a step of that fraction keeps every distance positive; Newton's Armijo backtracking then
starts from it (``newton_solver(..., max_step=...)``) and no iterate ever interpenetrates.

- Vertex against half-space ``(p, n)``: the distance ``d(t) = d0 + t dx_i . n`` is linear, so
  ``t* = d0 / (-dx_i . n)`` when the vertex approaches (``dx_i . n < 0``) and ``d(safety t*) =
  (1 - safety) d0``.

Between meshes (a vertex against a moving segment in 2D, triangles and edges in 3D) the times of
impact are ``simkit.contact``'s continuous collision detection, and the filter is
``simkit.terms.MeshContact.max_step``.
"""
import numpy as np

from . import _validate
from .energies.contact_barrier import _distances, _half_space_args, _require_free

SAFETY = 0.9


def _check_safety(safety):
    safety = _validate.real_scalar(safety, "safety")
    if not 0 < safety < 1:
        raise ValueError(f"safety: expected a factor in (0, 1), got {safety}")
    return safety


def _step(dx, X):
    dX = _validate.node_positions(dx, X.shape[1], name="dx", dims=(2, 3))
    if dX.shape != X.shape:
        raise ValueError(f"dx: expected positions of shape {X.shape}, like x, got {np.shape(dx)}")
    return dX


def _half_space_impact(X, dX, P, N, vertices):
    """Time of impact (float, inf if none) of vertices moving X -> X + t dX against half-spaces."""
    D = _distances(X, P, N, vertices)
    _require_free(D, vertices)
    rate = dX[vertices] @ N.T
    approaching = rate < 0
    if not approaching.any():
        return np.inf
    with np.errstate(over="ignore"):
        return float(np.min(D[approaching] / -rate[approaching]))


def _step_fraction(t_impact, safety):
    """``min(1, safety * t_impact)``."""
    return min(1.0, safety * t_impact)


def half_space_max_step(x, dx, points, normals, *, dim=None, vertices=None, safety=SAFETY):
    r"""Largest step fraction keeping every vertex strictly on the free side of every half-space.

    :math:`\alpha = \min(1, s\, t^*)`, :math:`t^* = \min_{ij,\ \Delta x_i \cdot n_j < 0} \frac{(x_i - p_j) \cdot n_j}{-\Delta x_i \cdot n_j}`

    Parameters
    ----------
    x : (n, dim) float array, or (n*dim, 1) with `dim`
        Current positions, free of interpenetration.
    dx : float array of x's shape
        The step (e.g. a Newton direction).
    points, normals : (dim,) or (k, dim) float arrays
        The half-spaces, as ``half_space_barrier_energy`` (unit normals).
    dim : int, optional, keyword-only
        The dimension of stacked columns x and dx.
    vertices : (nv,) int array, optional, keyword-only
        The vertices that can touch (default all).
    safety : float, optional, keyword-only
        Fraction s in (0, 1) of the time of impact to keep (default 0.9).

    Returns
    -------
    alpha : float
        In (0, 1]: 1 when no vertex reaches a boundary within the full step.

    Raises
    ------
    ValueError
        A listed vertex of x is already on or behind a boundary (the message names them).
    """
    X, P, N, _, _, _, vertices = _half_space_args(x, points, normals, 1.0, 1.0, 1.0, dim, vertices)
    dX = _step(dx, X)
    safety = _check_safety(safety)
    return _step_fraction(_half_space_impact(X, dX, P, N, vertices), safety)
