r"""The one derivative formula behind every distance of ``simkit.contact`` (batched).

Every primitive pair's distance is the length of the shortest vector between its two
primitives. On a stencil of m points :math:`x_1 \dots x_m` that vector is an affine
combination with weights :math:`w(y)` that are affine in the free closest-point parameters y
(none, one or two, depending on the region)::

    r(x, y) = sum_i w_i(y) x_i,    w(y) = w0 + W y,    d(x) = min_y |r(x, y)|

e.g. point-triangle, face region: ``r = p - (1 - u - v) a - u b - v c``, ``y = (u, v)``. Each
region (``kind``) is a row of a table ``(w0, W)``; the kinds and their codes are the IPC
Toolkit's (``P_T0 ... P_T``, ``EA0_EB0 ... EA_EB``, ``P_E0, P_E1, P_E``).

With ``u = r / d`` and the region's free directions ``R = [dr/dy_j] = sum_i W_ij x_i``, the
envelope theorem gives the gradient, and the implicit function theorem the Hessian:

    grad_i d = w_i u
    hess_ik d = w_i w_k C / d - d (W G W^T)_ik u u^T - w_k u v_i^T - w_i v_k u^T

with ``G = (R^T R)^{-1}`` (the free parameters' Gram inverse), ``v_i = R G W_i^T`` and C the
projector onto the directions orthogonal to both u and the free directions: ``I - u u^T`` for
a vertex-vertex region, ``n n^T`` with ``n = u x R / |u x R|`` for a point-line region in 3D, and
0 otherwise (where ``I - u u^T - R G R^T`` vanishes identically, the 1/d terms cancel exactly
and are left out, so the Hessian stays accurate as d -> 0). In stacked columns
``Fa_l = W_l (x) u`` and ``Fb_l = w (x) R_l`` this is a product of rank at most 4,

    hess d = Phi K Phi^T,  Phi = [Fa | Fb] (with the unit vectors spanning C, times w, in the
             columns of Fa a region leaves empty),  K = [[-d G, -G], [-G, 0]] (+ 1/d for those),

evaluated as one batched matrix product and also returned factored (``Closest.factors``).

This module holds the kind tables, the batched closest-segment-point helper the classifiers
share, and ``evaluate``, which turns (kind, y) into a :class:`Closest`. It runs unchecked:
the public functions validate first.
"""
import numpy as np


class Closest:
    """Closest points of k stencils and, on request, the distance's derivatives.

    Attributes
    ----------
    kind : (k,) int8 array
        The region: the IPC Toolkit's distance-type code (see each distance's module).
    distance : (k,) float array
        Euclidean distance d.
    weights : (k, m) float array
        Stencil weights of the shortest vector ``r = sum_i weights[:, i] x_i`` (they sum to 0:
        the first primitive's barycentric coordinates minus the second's).
    normal : (k, dim) float array or None
        ``r / d``, the unit vector from the second primitive's closest point to the first's
        (order >= 1).
    gradient : (k, m*dim) float array or None
        ``grad d``, stencil in argument order (order >= 1).
    hessian : (k, m*dim, m*dim) float array or None
        ``hess d`` (order 2).
    factors : tuple ``(Phi, K)`` or None
        The Hessian as a rank-4 product, ``hessian = Phi @ K @ Phi^T`` with Phi (k, m*dim, 4) and K
        (k, 4, 4) symmetric (order 2): a barrier's block ``b'' g g^T + b' hess d`` is then
        ``[g, Phi] diag(b'', b' K) [g, Phi]^T``, of rank 5, which a PSD projection can work on in
        5 dimensions instead of m*dim.
    """

    __slots__ = ("kind", "distance", "weights", "normal", "gradient", "hessian", "factors")

    def __init__(self, kind, distance, weights, normal=None, gradient=None, hessian=None, factors=None):
        self.kind, self.distance, self.weights = kind, distance, weights
        self.normal, self.gradient, self.hessian, self.factors = normal, gradient, hessian, factors


class KindTable:
    """Per-kind weights ``w = w0[kind] + W[kind] @ y`` (W: (kinds, m, 2), y padded to 2 entries)."""

    def __init__(self, names, w0, free):
        self.names = tuple(names)
        self.w0 = np.asarray(w0, dtype=float)
        m = self.w0.shape[1]
        self.W = np.zeros((len(self.names), m, 2))
        for kind, columns in enumerate(free):
            for j, column in enumerate(columns):
                self.W[kind, :, j] = column
        self.n_free = np.array([len(columns) for columns in free])


def dot(u, v):
    """Row-wise dot product of (k, dim) arrays."""
    return np.einsum("ij,ij->i", u, v)


def cross(u, v):
    """Row-wise cross product of (k, 3) arrays."""
    out = np.empty(np.broadcast_shapes(u.shape, v.shape))
    u0, u1, u2, v0, v1, v2 = u[..., 0], u[..., 1], u[..., 2], v[..., 0], v[..., 1], v[..., 2]
    np.multiply(u1, v2, out=out[..., 0])
    out[..., 0] -= u2 * v1
    np.multiply(u2, v0, out=out[..., 1])
    out[..., 1] -= u0 * v2
    np.multiply(u0, v1, out=out[..., 2])
    out[..., 2] -= u1 * v0
    return out


def segment_parameter(p, a, b):
    """Closest-point parameter ``s`` in [0, 1] of p on segment (a, b) and the squared distance (k,) each.

    ``s = 0`` for a zero-length segment.
    """
    e = b - a
    q = p - a
    ee = dot(e, e)
    s = np.zeros(ee.shape)
    np.divide(dot(q, e), ee, out=s, where=ee > 0)
    np.clip(s, 0.0, 1.0, out=s)
    q -= s[:, None] * e
    return s, dot(q, q)


def points_of(X):
    """The stencil points of X (k, m, dim) as m contiguous (k, dim) arrays (faster arithmetic than strided views)."""
    return np.ascontiguousarray(X.transpose(1, 0, 2))


def evaluate(X, table, kind, y, order, dense=True):
    """``Closest`` of stencils X (k, m, dim) in regions ``kind`` (k,) at parameters y (k, 2).

    ``order`` 0: kind, distance, weights; 1: also normal and gradient; 2: also the Hessian's
    factors and, with ``dense``, the Hessian itself. Unchecked: where a distance is 0 its
    derivatives are NaN.
    """
    k, m, dim = X.shape
    Wk = table.W[kind]                                             # (k, m, 2)
    w = table.w0[kind] + np.einsum("kmj,kj->km", Wk, y)
    r = np.einsum("km,kmd->kd", w, X)
    d = np.sqrt(dot(r, r))
    out = Closest(kind, d, w)
    if order == 0:
        return out
    with np.errstate(divide="ignore", invalid="ignore"):      # touching primitives: NaN derivatives, unchecked
        u = r / d[:, None]
        out.normal = u
        out.gradient = (w[:, :, None] * u[:, None, :]).reshape(k, m * dim)
        if order == 2:
            out.factors = _hessian_factors(X, Wk, w, u, d, table.n_free[kind])
            if dense:
                Phi, K = out.factors
                out.hessian = (Phi @ K) @ Phi.transpose(0, 2, 1)
    return out


def _gram_inverse(R, n_free):
    """``(R^T R)^{-1}`` on the free parameters, zero-padded: (k, 2, 2) from R (k, dim, 2)."""
    A, B, C = dot(R[:, :, 0], R[:, :, 0]), dot(R[:, :, 0], R[:, :, 1]), dot(R[:, :, 1], R[:, :, 1])
    G = np.zeros((R.shape[0], 2, 2))
    one, two = n_free == 1, n_free == 2
    G[one, 0, 0] = 1.0 / A[one]
    if two.any():
        R0, R1 = R[two, :, 0], R[two, :, 1]
        det = dot(c := cross(R0, R1), c) if R.shape[1] == 3 else (R0[:, 0] * R1[:, 1] - R0[:, 1] * R1[:, 0]) ** 2
        G[two] = np.stack([np.stack([C[two], -B[two]], axis=1), np.stack([-B[two], A[two]], axis=1)], axis=1) \
            / det[:, None, None]
    return G


def _complement_columns(u, R0, n_free):
    """Unit vectors N (k, dim, 2) spanning C's range, in the columns a region's free parameters leave empty.

    Vertex regions (no free parameter): the dim - 1 unit vectors orthogonal to u, in columns 0
    (and 1 in 3D). Point-line regions in 3D (one free parameter, so column 1 is empty): the unit
    vector orthogonal to u and to the line R0, in column 1. Zero elsewhere.
    """
    k, dim = u.shape
    N = np.zeros((k, dim, 2))
    vertex = n_free == 0
    if dim == 2:
        N[vertex, 0, 0], N[vertex, 1, 0] = -u[vertex, 1], u[vertex, 0]
        return N
    line = n_free == 1
    axis = np.eye(3)[np.argmin(np.abs(u), axis=1)]                # the axis least aligned with u
    n = cross(u, np.where(line[:, None], R0, axis))
    n /= np.sqrt(dot(n, n))[:, None]
    N[vertex, :, 0] = n[vertex]
    N[vertex, :, 1] = cross(u[vertex], n[vertex])
    N[line, :, 1] = n[line]
    return N


def _hessian_factors(X, Wk, w, u, d, n_free):
    """``(Phi, K)`` with the Hessian of d ``Phi K Phi^T``: the formula of the module docstring as a rank-4 product.

    With the columns ``Fa_l = W_l (x) u`` and ``Fb_l = w (x) R_l`` for the free parameters l,
    ``H = -d Fa G Fa^T - Fa G Fb^T - Fb G Fa^T + sum_n (w (x) n)(w (x) n)^T / d`` over the unit
    vectors n spanning C, which take the columns of Fa that a region's missing parameters leave
    empty: ``H = Phi K Phi^T`` with Phi (k, m*dim, 4) and K (k, 4, 4), one batched product.
    """
    k, m, dim = X.shape
    R = X.transpose(0, 2, 1) @ Wk                                    # free directions (k, dim, 2)
    G = _gram_inverse(R, n_free)
    Phi = np.empty((k, m, dim, 4))
    np.multiply(Wk[:, :, None, :], u[:, None, :, None], out=Phi[..., :2])
    np.multiply(w[:, :, None, None], R[:, None, :, :], out=Phi[..., 2:])
    K = np.empty((k, 4, 4))
    np.multiply(-d[:, None, None], G, out=K[:, :2, :2])
    np.negative(G, out=K[:, :2, 2:])
    np.negative(G, out=K[:, 2:, :2])
    K[:, 2:, 2:] = 0.0
    with_n = np.flatnonzero((n_free == 0) | (n_free == 1)) if dim == 3 else np.flatnonzero(n_free == 0)
    if with_n.size:
        N = _complement_columns(u[with_n], R[with_n, :, 0], n_free[with_n])
        Phi[with_n, :, :, :2] += w[with_n, :, None, None] * N[:, None, :, :]
        inverse = 1.0 / d[with_n]
        vertex = n_free[with_n] == 0
        K[with_n, 0, 0] += np.where(vertex, inverse, 0.0)
        if dim == 3:
            K[with_n, 1, 1] += inverse
    return Phi.reshape(k, m * dim, 4), K
