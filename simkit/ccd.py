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
- 2D vertex p against a moving segment (a, b): they touch when p lies on the segment, i.e.
  when ``c(t) = cross(e(t), q(t)) = 0`` (``q = p - a``, ``e = b - a``, both linear in t, so c is
  a quadratic ``c0 + c1 t + c2 t^2``) with the closest-point parameter ``s(t) = q.e / e.e`` in
  [0, 1]. The roots are found with the cancellation-free quadratic formula and accepted with a
  small tolerance on t and s (a near miss counts as a hit: the filter only gets more
  cautious); when c vanishes identically (p moving along the segment's line) the vertex can
  only enter the segment through an endpoint, so the times at which ``p = a`` or ``p = b`` are
  used. The returned fraction is then checked: while a distance at it is not positive (round-
  off at a grazing contact) it is halved.
"""
import numpy as np

from . import _validate
from .energies import segment_barrier as sb
from .energies.contact_barrier import _distances, _half_space_args, _require_free

SAFETY = 0.9
ROOT_TOLERANCE = 1e-9     # relative slack on t and s when accepting a root (errs towards a hit)
MAX_HALVINGS = 60


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


def _quadratic_roots(c0, c1, c2):
    """Both real roots (k, 2) of c0 + c1 t + c2 t^2 (inf where none), cancellation-free; a double root for disc ~ 0."""
    disc = c1 * c1 - 4.0 * c2 * c0
    slack = 1e-12 * (c1 * c1 + 4.0 * np.abs(c2 * c0))
    sq = np.sqrt(np.where(disc > -slack, np.maximum(disc, 0.0), np.nan))
    big = -0.5 * (c1 + np.where(c1 >= 0, 1.0, -1.0) * sq)
    with np.errstate(divide="ignore", invalid="ignore"):
        roots = np.stack([big / c2, c0 / big], axis=1)
    return np.where(np.isfinite(roots), roots, np.inf)


def _point_hit_times(v0, dv):
    """Times (k,) in [0, 1] at which v0 + t dv = 0 (to round-off), inf where never."""
    dd = np.einsum("ij,ij->i", dv, dv)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = -np.einsum("ij,ij->i", v0, dv) / dd
    t = np.where(dd > 0, t, np.inf)
    miss = np.linalg.norm(v0 + np.where(np.isfinite(t), t, 0.0)[:, None] * dv, axis=1)
    hit = (t >= -ROOT_TOLERANCE) & (t <= 1 + ROOT_TOLERANCE) & (miss <= 1e-9 * (np.linalg.norm(v0, axis=1)
                                                                                + np.sqrt(dd)))
    return np.where(hit, np.clip(t, 0.0, 1.0), np.inf)


def _reachable_pairs(X, dX, pairs):
    """The pairs that may touch within the step: distance <= |dq| + |de| (d is 1-Lipschitz in p and the segment).

    Raises ValueError (naming the vertices) if a vertex already touches a segment.
    """
    f = sb._PairGeometry(X, pairs).f
    sb._require_free(f, pairs)
    dq = dX[pairs[:, 0]] - dX[pairs[:, 1]]
    de = dX[pairs[:, 2]] - dX[pairs[:, 1]]
    reach = np.sqrt(np.einsum("ij,ij->i", dq, dq)) + np.sqrt(np.einsum("ij,ij->i", de, de))
    return pairs[f <= reach * reach * (1 + 1e-9)]


def _segment_impact(X, dX, pairs):
    """First time of impact (float, inf if none) in [0, 1] of vertex-segment pairs moving X -> X + t dX."""
    if not pairs.size:
        return np.inf
    p, a, b = (X[pairs[:, i]] for i in range(3))
    dp, da, db = (dX[pairs[:, i]] for i in range(3))
    q0, e0, dq, de = p - a, b - a, dp - da, db - da
    c0 = sb._cross(e0, q0)
    c1 = sb._cross(e0, dq) + sb._cross(de, q0)
    c2 = sb._cross(de, dq)
    roots = _quadratic_roots(c0, c1, c2)
    in_range = (roots >= -ROOT_TOLERANCE) & (roots <= 1 + ROOT_TOLERANCE)
    t = np.where(in_range, np.clip(roots, 0.0, 1.0), 0.0)
    q = q0[:, None, :] + t[:, :, None] * dq[:, None, :]
    e = e0[:, None, :] + t[:, :, None] * de[:, None, :]
    ee = np.einsum("kri,kri->kr", e, e)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.einsum("kri,kri->kr", q, e) / ee
    on_segment = (s >= -ROOT_TOLERANCE) & (s <= 1 + ROOT_TOLERANCE) & (ee > 0)
    first = np.min(np.where(in_range & on_segment, t, np.inf), axis=1)
    scale = (np.linalg.norm(e0, axis=1) + np.linalg.norm(de, axis=1)) * (np.linalg.norm(q0, axis=1)
                                                                          + np.linalg.norm(dq, axis=1))
    flat = (np.abs(c0) <= 1e-14 * scale) & (np.abs(c1) <= 1e-14 * scale) & (np.abs(c2) <= 1e-14 * scale)
    if flat.any():
        r0 = p - b
        ends = np.minimum(_point_hit_times(q0[flat], dq[flat]), _point_hit_times(r0[flat], dp[flat] - db[flat]))
        first[flat] = np.minimum(first[flat], ends)
    return float(first.min())


def _filtered_fraction(t_impact, safety, X, dX, pairs):
    """``min(1, safety t*)``, halved while some vertex-segment distance at it is not positive."""
    alpha = _step_fraction(t_impact, safety)
    for _ in range(MAX_HALVINGS):
        if not pairs.size or np.minimum.reduce(sb._PairGeometry(X + alpha * dX, pairs).f) > 0:
            return alpha
        alpha *= 0.5
    return alpha


def segment_max_step(x, dx, segments, *, vertices=None, bodies=None, safety=SAFETY):
    r"""Largest step fraction keeping every vertex off every (moving) segment, 2D.

    :math:`\alpha = \min(1, s\, t^*)`, :math:`t^*` the first root in [0, 1] of :math:`\operatorname{cross}(e(t), q(t))` with :math:`q \cdot e / e \cdot e \in [0, 1]`

    Parameters
    ----------
    x : (n, 2) float array, or (2n, 1)
        Current positions: no vertex on a segment.
    dx : float array of x's shape
        The step.
    segments : (m, 2) int array
        Boundary segments.
    vertices, bodies : int arrays, optional, keyword-only
        As ``segment_barrier_energy``.
    safety : float, optional, keyword-only
        Fraction s in (0, 1) of the time of impact to keep (default 0.9).

    Returns
    -------
    alpha : float
        In (0, 1]: 1 when no vertex reaches a segment within the full step.

    Raises
    ------
    ValueError
        A vertex of x touches a segment (the message names them).
    """
    X, pairs, _, _, _ = sb._segment_args(x, segments, 1.0, 1.0, 1.0, vertices, bodies)
    dX = _step(dx, X)
    safety = _check_safety(safety)
    near = _reachable_pairs(X, dX, pairs)
    return _filtered_fraction(_segment_impact(X, dX, near), safety, X, dX, near)
