"""The 2D point-segment barrier written the plain way, as an oracle for MeshContact in 2D: every listed
vertex against every segment (no broad phase, no merged stencils), and the time of impact of each pair
from the roots of a quadratic.

Energy ``kappa sum_(p, a, b) w_p b(d(p, [a, b]))`` over all pairs (a vertex near a segment's end counts
once per segment ending there), derivatives from ``simkit.contact.point_edge_distance``'s element
derivatives. Time of impact: p lies on the moving segment (a, b) when ``c(t) = (b - a)(t) x (p - a)(t)``,
a quadratic in t, vanishes with the closest-point parameter in [0, 1]; when c vanishes identically the
vertex moves along the segment's line and can only enter it at an end point.
"""
import numpy as np

from simkit import contact
from simkit.energies import ipc_barrier_energy, ipc_barrier_gradient, ipc_barrier_hessian

ROOT_TOLERANCE = 1e-9


def pairs(segments, n, points=None, bodies=None):
    """(k, 3) rows (p, a, b): each vertex (default: every vertex of a segment) against each segment not
    containing it (and, with body labels, of another body)."""
    S = np.asarray(segments).reshape(-1, 2)
    V = np.unique(S) if points is None else np.asarray(points)
    pv, ps = np.repeat(V, len(S)), np.tile(S, (len(V), 1))
    keep = (pv != ps[:, 0]) & (pv != ps[:, 1])
    if bodies is not None:
        keep &= np.asarray(bodies)[pv] != np.asarray(bodies)[ps[:, 0]]
    return np.column_stack([pv[keep], ps[keep]])


def _stencils(X, P):
    return X[P[:, 0]], X[P[:, 1]], X[P[:, 2]]


def distances(X, P):
    return contact.point_edge_distance(*_stencils(X, P))


def energy(X, P, d_hat, kappa, w):
    return kappa * float(np.asarray(w)[P[:, 0]] @ ipc_barrier_energy(distances(X, P), d_hat)[:, 0])


def gradient(X, P, d_hat, kappa, w):
    """(2n, 1) gradient, assembled pair by pair."""
    d = distances(X, P)
    local = (kappa * np.asarray(w)[P[:, 0]] * ipc_barrier_gradient(d, d_hat)[:, 0])[:, None] \
        * contact.point_edge_distance_gradient(*_stencils(X, P))
    g = np.zeros(X.size)
    dofs = (2 * P[:, :, None] + np.arange(2)).reshape(len(P), 6)
    np.add.at(g, dofs, local)
    return g.reshape(-1, 1)


def hessian(X, P, d_hat, kappa, w):
    """(2n, 2n) dense exact Hessian: kappa w (b'' g g^T + b' hess d) per pair."""
    d = distances(X, P)
    g = contact.point_edge_distance_gradient(*_stencils(X, P))
    Hd = contact.point_edge_distance_hessian(*_stencils(X, P))
    scale = kappa * np.asarray(w)[P[:, 0]]
    blocks = scale[:, None, None] * (ipc_barrier_hessian(d, d_hat)[:, 0, None, None] * g[:, :, None] * g[:, None, :]
                                     + ipc_barrier_gradient(d, d_hat)[:, 0, None, None] * Hd)
    H = np.zeros((X.size, X.size))
    dofs = (2 * P[:, :, None] + np.arange(2)).reshape(len(P), 6)
    np.add.at(H, (dofs[:, :, None], dofs[:, None, :]), blocks)
    return H


def _cross(u, v):
    return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]


def _point_hit_times(v0, dv):
    """Times (k,) in [0, 1] at which v0 + t dv = 0 (to round-off), inf where never."""
    dd = np.einsum("ij,ij->i", dv, dv)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(dd > 0, -np.einsum("ij,ij->i", v0, dv) / dd, np.inf)
    miss = np.linalg.norm(v0 + np.where(np.isfinite(t), t, 0.0)[:, None] * dv, axis=1)
    hit = (t >= -ROOT_TOLERANCE) & (t <= 1 + ROOT_TOLERANCE) & (miss <= 1e-9 * (np.linalg.norm(v0, axis=1)
                                                                                + np.sqrt(dd)))
    return np.where(hit, np.clip(t, 0.0, 1.0), np.inf)


def impact_times(X, dX, P):
    """First time (k,) in [0, 1] at which each pair's vertex meets its segment on X + t dX (inf if never)."""
    p, a, b = _stencils(X, P)
    dp, da, db = _stencils(dX, P)
    q0, e0, dq, de = p - a, b - a, dp - da, db - da
    c0, c1, c2 = _cross(e0, q0), _cross(e0, dq) + _cross(de, q0), _cross(de, dq)
    disc = c1 * c1 - 4.0 * c2 * c0
    sq = np.sqrt(np.where(disc > -1e-12 * (c1 * c1 + 4.0 * np.abs(c2 * c0)), np.maximum(disc, 0.0), np.nan))
    big = -0.5 * (c1 + np.where(c1 >= 0, 1.0, -1.0) * sq)
    with np.errstate(divide="ignore", invalid="ignore"):
        roots = np.stack([big / c2, c0 / big], axis=1)                 # cancellation-free
    roots = np.where(np.isfinite(roots), roots, np.inf)
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
    ends = np.minimum(_point_hit_times(q0[flat], dq[flat]), _point_hit_times(p[flat] - b[flat], dp[flat] - db[flat]))
    first[flat] = np.minimum(first[flat], ends)
    return first
