r"""Barrier contact of vertices against boundary segments in 2D, so that bodies collide and stack.

Each contact is a vertex p and a segment (a, b) that does not contain it (and, with ``bodies``,
belongs to another body). Its distance is the point-segment distance, in three regions of the
closest-point parameter ``s = (p - a).(b - a) / |b - a|^2``::

    s <= 0:      d = |p - a|                       (the vertex faces endpoint a)
    0 < s < 1:   d = |_cross(b - a, p - a)| / |b - a|   (the segment's interior)
    s >= 1:      d = |p - b|                       (endpoint b)

and the energy is the IPC barrier of every distance, scaled by ``kappa`` and the vertex's
weight ``w_p`` (lumped length or mass)::

    E(x) = kappa sum_(p, a, b) w_p b(d)

Derivatives go through the squared distance f = d^2, a polynomial (rational in the interior)
in (p, a, b): with ``q = p - a``, ``e = b - a`` the interior has ``f = q.q - (q.e)^2 / e.e``, and

    grad b(d) = b'(d) grad f / (2 d)
    hess b(d) = (b''(d) - b'(d) / d) grad f grad f^T / (4 d^2) + b'(d) hess f / (2 d)

The exact Hessian is not positive semi-definite (``b' < 0`` times the curvature of f); with
``psd=True`` (default) each contact's 6x6 block is projected (``psd_project``) before assembly.
The distance is C1 across the regions, so the energy is C1 there and C2 inside each region.

Positions are (n, 2) (or a stacked (2n, 1) column); a contact at distance <= 0 has energy
``+inf``, and its gradient and Hessian raise ``ValueError`` naming the vertices.
"""
import numpy as np

from .. import _assembly, _validate
from ..psd_project import psd_project
from .contact_barrier import _contact_parameters
from .friction import FrictionFrame
from .ipc_barrier import _b, _d2b, _db

# (q, e) = L (p, a, b) per coordinate: q = p - a, e = b - a
_L = np.kron(np.array([[1.0, -1.0, 0.0], [0.0, -1.0, 1.0]]), np.eye(2))      # (4, 6)
_POINT_A = np.kron(np.array([[1.0, -1.0, 0.0]]), np.eye(2))                  # p - a, (2, 6)
_POINT_B = np.kron(np.array([[1.0, 0.0, -1.0]]), np.eye(2))                  # p - b


def _cross(u, v):
    """z component of the 2D _cross product, row-wise: (k, 2), (k, 2) -> (k,)."""
    return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]


def segment_pairs(segments, n, vertices=None, bodies=None):
    """Candidate contacts (k, 3) ``(p, a, b)``: every listed vertex against every segment not containing it.

    Parameters
    ----------
    segments : (m, 2) int array
        Boundary segments, node indices in [0, n).
    n : int
        Number of nodes.
    vertices : (nv,) int array, optional
        The vertices that can touch (default: every node of a segment).
    bodies : (n,) int array, optional
        Body label of each node: a vertex never meets a segment of its own body (default: any
        segment that does not contain it, so one body can touch itself).

    Returns
    -------
    pairs : (k, 3) int array
    """
    S = _validate.index_array(segments, "segments", 2, n)
    if S.size and (S[:, 0] == S[:, 1]).any():
        raise ValueError(f"segments: segment {int(np.argmax(S[:, 0] == S[:, 1]))} joins a node to itself")
    V = np.unique(S) if vertices is None else _validate.index_vector(vertices, "vertices", n)
    if np.unique(V).size != V.size:
        raise ValueError("vertices: expected distinct vertex indices, found repeats")
    pv = np.repeat(V, S.shape[0])
    ps = np.tile(S, (V.size, 1))
    keep = (pv != ps[:, 0]) & (pv != ps[:, 1])
    if bodies is not None:
        labels = _validate.body_labels(bodies, n)
        keep &= labels[pv] != labels[ps[:, 0]]
        keep &= labels[pv] != labels[ps[:, 1]]
    return np.column_stack([pv[keep], ps[keep]]).astype(np.int64)


def _segment_lengths_positive(X, pairs):
    e = X[pairs[:, 2]] - X[pairs[:, 1]]
    if pairs.size and not np.minimum.reduce(np.einsum("ij,ij->i", e, e)) > 0:
        bad = int(np.argmax(np.einsum("ij,ij->i", e, e) <= 0))
        raise ValueError(f"x: segment ({pairs[bad, 1]}, {pairs[bad, 2]}) has zero length")


class _PairGeometry:
    """Squared distance f (k,), region (k,) in {0: endpoint a, 1: interior, 2: endpoint b}, q, e, r = p - b."""

    def __init__(self, X, pairs):
        p, a, b = X[pairs[:, 0]], X[pairs[:, 1]], X[pairs[:, 2]]
        self._set(p - a, b - a, p - b)

    def _set(self, q, e, r):
        self.q, self.e, self.r = q, e, r
        self.alpha = np.einsum("ij,ij->i", q, e)
        self.beta = np.einsum("ij,ij->i", e, e)
        self.region = np.where(self.alpha <= 0, 0, np.where(self.alpha >= self.beta, 2, 1))
        qq = np.einsum("ij,ij->i", q, q)
        rr = np.einsum("ij,ij->i", r, r)
        interior = np.maximum(_cross(e, q) ** 2 / self.beta, 0.0)
        self.f = np.choose(self.region, [qq, interior, rr])
        self.s = np.clip(self.alpha / self.beta, 0.0, 1.0)

    def take(self, mask):
        """The geometry of the pairs selected by a boolean mask."""
        out = _PairGeometry.__new__(_PairGeometry)
        out._set(self.q[mask], self.e[mask], self.r[mask])
        return out

    def closest_normal(self):
        """Unit vector (k, 2) from the closest point of the segment to the vertex."""
        c = self.q - self.s[:, None] * self.e
        return c / np.sqrt(np.einsum("ij,ij->i", c, c))[:, None]

    def grad_f(self):
        """(k, 6) gradient of f with respect to (p, a, b)."""
        g = np.empty((self.f.size, 6))
        for region, vec, op in ((0, self.q, _POINT_A), (2, self.r, _POINT_B)):
            on = self.region == region
            g[on] = 2.0 * vec[on] @ op
        on = self.region == 1
        q, e, al, be = self.q[on], self.e[on], self.alpha[on, None], self.beta[on, None]
        fq = 2.0 * q - 2.0 * al * e / be
        fe = -2.0 * al * q / be + 2.0 * al ** 2 * e / be ** 2
        g[on] = np.concatenate([fq, fe], axis=1) @ _L
        return g

    def hess_f(self):
        """(k, 6, 6) Hessian of f with respect to (p, a, b)."""
        H = np.empty((self.f.size, 6, 6))
        for region, op in ((0, _POINT_A), (2, _POINT_B)):
            H[self.region == region] = 2.0 * op.T @ op
        on = self.region == 1
        q, e = self.q[on], self.e[on]
        al, be = self.alpha[on, None, None], self.beta[on, None, None]
        I = np.eye(2)
        ee = e[:, :, None] * e[:, None, :]
        qq = q[:, :, None] * q[:, None, :]
        eq = e[:, :, None] * q[:, None, :]                 # e q^T
        Fqq = 2.0 * I - 2.0 * ee / be
        Fqe = -2.0 * (eq + al * I) / be + 4.0 * al * ee / be ** 2
        Fee = (-2.0 * qq / be + 4.0 * al * (eq + eq.transpose(0, 2, 1)) / be ** 2 + 2.0 * al ** 2 * I / be ** 2
               - 8.0 * al ** 2 * ee / be ** 3)
        F = np.concatenate([np.concatenate([Fqq, Fqe], axis=2),
                            np.concatenate([Fqe.transpose(0, 2, 1), Fee], axis=2)], axis=1)
        H[on] = _L.T @ F @ _L
        return H


def _require_free(f, pairs):
    """Raise ValueError naming the vertices at distance 0 from a segment (f: squared distances)."""
    if f.size and not np.minimum.reduce(f) > 0:
        bad = np.flatnonzero(f <= 0)
        raise ValueError(f"x: vertices {np.unique(pairs[bad, 0])[:10].tolist()} touch segments "
                         f"{[tuple(int(i) for i in pairs[j, 1:]) for j in bad[:3]]} (distance 0); barrier contact "
                         "needs positions free of interpenetration")


def _distances(X, pairs):
    """Point-segment distances (k,) of the contacts ``pairs`` (k, 3) at positions X (n, 2)."""
    return np.sqrt(_PairGeometry(X, pairs).f)


def _active(X, pairs, d_hat):
    geo = _PairGeometry(X, pairs)
    _require_free(geo.f, pairs)
    on = geo.f < d_hat * d_hat
    return (geo if on.all() else geo.take(on)), pairs[on], on


def _energy(X, pairs, d_hat, kappa, w):
    """w (k,): weight of each pair's vertex."""
    f = _PairGeometry(X, pairs).f
    with np.errstate(divide="ignore"):
        return kappa * float(w @ _b(np.where(f > 0, np.sqrt(f), 0.0), d_hat))


def _gradient(X, pairs, d_hat, kappa, w):
    geo, act, on = _active(X, pairs, d_hat)
    d = np.sqrt(geo.f)
    local = (kappa * w[on] * _db(d, d_hat) / (2.0 * d))[:, None] * geo.grad_f()
    return _assembly.assemble_vector(local, _assembly.node_dofs(act, 2), X.size)


def _hessian_blocks(X, pairs, d_hat, kappa, w, psd):
    """Per-contact (k_active, 6, 6) blocks and the active pairs."""
    geo, act, on = _active(X, pairs, d_hat)
    d = np.sqrt(geo.f)
    db, d2b = _db(d, d_hat), _d2b(d, d_hat)
    gf = geo.grad_f()
    outer = (d2b - db / d) / (4.0 * d * d)
    B = outer[:, None, None] * gf[:, :, None] * gf[:, None, :] + (db / (2.0 * d))[:, None, None] * geo.hess_f()
    B *= (kappa * w[on])[:, None, None]
    if psd and len(B):
        B = psd_project(B)
    return 0.5 * (B + B.transpose(0, 2, 1)), act      # exactly symmetric (eigh's rounding is not)


def _hessian(X, pairs, d_hat, kappa, w, psd):
    B, act = _hessian_blocks(X, pairs, d_hat, kappa, w, psd)
    return _assembly.assemble_matrix(B, _assembly.node_dofs(act, 2), X.size)


def _friction_frame(X, pairs, d_hat, kappa, w):
    """Lagged ``FrictionFrame`` of the active contacts: coefficients (1, -(1 - s), -s), tangent perp to the normal."""
    geo, act, on = _active(X, pairs, d_hat)
    d = np.sqrt(geo.f)
    n = geo.closest_normal()
    tangents = np.stack([-n[:, 1], n[:, 0]], axis=1)[:, :, None]
    coefficients = np.column_stack([np.ones(act.shape[0]), -(1.0 - geo.s), -geo.s])
    return FrictionFrame(act, coefficients, tangents, -kappa * w[on] * _db(d, d_hat), X.copy())


def _segment_args(x, segments, d_hat, kappa, weight, vertices, bodies):
    X = _validate.node_positions(x, 2, dims=(2,))
    n = X.shape[0]
    pairs = segment_pairs(segments, n, vertices, bodies)
    d_hat, kappa, w, _ = _contact_parameters(d_hat, kappa, weight, n, None)
    _segment_lengths_positive(X, pairs)
    return X, pairs, d_hat, kappa, w[pairs[:, 0]]


def segment_barrier_energy(x, segments, d_hat, kappa, weight=1.0, *, vertices=None, bodies=None):
    r"""Barrier energy of vertices against boundary segments, 2D.

    :math:`E = \kappa \sum_{(p, a, b)} w_p\, b\big(d(p, [a, b])\big)`, :math:`d` the point-segment distance

    Parameters
    ----------
    x : (n, 2) float array, or (2n, 1)
        Positions.
    segments : (m, 2) int array
        Boundary segments (node indices), e.g. every body's boundary edges.
    d_hat : float
        Activation distance, > 0.
    kappa : float
        Barrier stiffness, > 0.
    weight : float or (n,) float array, optional
        Per-vertex weight > 0 (lumped boundary length or mass; default 1).
    vertices : (nv,) int array, optional, keyword-only
        The vertices that can touch (default every node of a segment).
    bodies : (n,) int array, optional, keyword-only
        Body label per node: a vertex meets only other bodies' segments (default: any segment
        that does not contain it).

    Returns
    -------
    E : float
        ``+inf`` if a vertex touches a segment.
    """
    return _energy(*_segment_args(x, segments, d_hat, kappa, weight, vertices, bodies))


def segment_barrier_gradient(x, segments, d_hat, kappa, weight=1.0, *, vertices=None, bodies=None):
    r"""Gradient of ``segment_barrier_energy`` with respect to stacked x.

    :math:`\nabla E = \sum \kappa w_p\, \frac{b'(d)}{2d} \nabla f`, :math:`f = d^2`

    Parameters
    ----------
    x, segments, d_hat, kappa, weight, vertices, bodies
        As ``segment_barrier_energy``.

    Returns
    -------
    g : (2n, 1) float array

    Raises
    ------
    ValueError
        A vertex touches a segment (the message names the vertices).
    """
    return _gradient(*_segment_args(x, segments, d_hat, kappa, weight, vertices, bodies))


def segment_barrier_hessian(x, segments, d_hat, kappa, weight=1.0, *, vertices=None, bodies=None, psd=True):
    r"""Hessian of ``segment_barrier_energy``, each contact's block projected with `psd`.

    :math:`H = \sum \kappa w_p \Big[\frac{b'' - b'/d}{4 d^2} \nabla f \nabla f^\top + \frac{b'}{2d} \nabla^2 f\Big]`

    Parameters
    ----------
    x, segments, d_hat, kappa, weight, vertices, bodies
        As ``segment_barrier_energy``.
    psd : bool, optional, keyword-only
        Project each contact's 6x6 block with ``psd_project`` (default True); False gives the
        exact Hessian.

    Returns
    -------
    H : (2n, 2n) scipy.sparse.csc_matrix

    Raises
    ------
    ValueError
        A vertex touches a segment (the message names the vertices).
    """
    psd = _validate.boolean(psd, "psd")
    return _hessian(*_segment_args(x, segments, d_hat, kappa, weight, vertices, bodies), psd)
