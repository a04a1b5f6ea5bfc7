r"""Barrier contact of vertices against half-spaces (the ground, walls), 2D and 3D.

A half-space j is a point ``p_j`` on its boundary and a unit outward normal ``n_j``; the free
side is ``(x - p_j) . n_j > 0``. Each listed vertex i and each half-space j form a contact with
signed distance ``d_ij = (x_i - p_j) . n_j``, and the energy is the IPC barrier ``b``
(``ipc_barrier``) of every distance, scaled by a stiffness ``kappa`` and a per-vertex weight
``w_i`` (the vertex's lumped area or mass, so that refining a mesh keeps the total contact
force)::

    E(x) = kappa sum_i sum_j w_i b(d_ij)
    grad_i E = kappa w_i sum_j b'(d_ij) n_j
    H_ii = kappa w_i sum_j b''(d_ij) n_j n_j^T

The distance is linear in x, so the Hessian is exactly block diagonal with positive
semi-definite blocks (``b'' >= 0``): the exact Hessian is already the projected one. Its
sparsity is that of every listed vertex, whether in contact or not, so it never changes.

x is given as (n, dim) positions or a stacked (n*dim, 1) column with ``dim=``; gradients are
(n*dim, 1) columns and Hessians (n*dim, n*dim) CSC matrices. A configuration with a distance
<= 0 has energy ``+inf``; its gradient and Hessian raise ``ValueError`` naming the vertices.
"""
import numpy as np

from .. import _assembly, _validate
from .friction import FrictionFrame, _tangent_basis
from .ipc_barrier import _b, _d2b, _db

NORMAL_TOLERANCE = 1e-9


def _half_spaces(points, normals):
    """Validate half-spaces: points and unit normals, each (dim,) or (k, dim); return (k, dim) arrays."""
    P = _validate.finite_array(points, "points")
    N = _validate.finite_array(normals, "normals")
    P, N = np.atleast_2d(P), np.atleast_2d(N)
    if P.ndim != 2 or P.shape[1] not in (2, 3):
        raise ValueError(f"points: expected shape (dim,) or (k, dim) with dim 2 or 3, got {np.shape(points)}")
    if N.shape != P.shape:
        raise ValueError(f"normals: expected one normal per point, shape {P.shape}, got {np.shape(normals)}")
    length = np.sqrt(np.einsum("ij,ij->i", N, N))
    bad = np.flatnonzero(np.abs(length - 1.0) > NORMAL_TOLERANCE)
    if bad.size:
        raise ValueError(f"normals: expected unit vectors, normal {int(bad[0])} has length {length[bad[0]]:.12g}")
    return P, N


def _contact_parameters(d_hat, kappa, weight, n, vertices):
    """Validate d_hat > 0, kappa > 0, weights (scalar or (n,)) > 0 and vertex indices; return them converted.

    ``vertices`` None means every vertex; the weights returned are those of the listed vertices.
    """
    d_hat = _validate.positive_scalar(d_hat, "d_hat")
    kappa = _validate.positive_scalar(kappa, "kappa")
    w = _validate.element_param(weight, "weight", n, positive=True, what="vertex")
    if vertices is None:
        vertices = np.arange(n)
    else:
        vertices = _validate.index_vector(vertices, "vertices", n)
        if np.unique(vertices).size != vertices.size:
            raise ValueError("vertices: expected distinct vertex indices, found repeats")
    return d_hat, kappa, w[vertices], vertices


def _half_space_args(x, points, normals, d_hat, kappa, weight, dim, vertices):
    X = _validate.node_positions(x, dim, dims=(2, 3))
    P, N = _half_spaces(points, normals)
    if P.shape[1] != X.shape[1]:
        raise ValueError(f"points: expected {X.shape[1]}D half-spaces for {X.shape[1]}D positions, "
                         f"got shape {P.shape}")
    return (X, P, N) + _contact_parameters(d_hat, kappa, weight, X.shape[0], vertices)


def _distances(X, P, N, vertices):
    """Signed distances (nv, k) of the listed vertices of positions X (n, dim) to the half-spaces."""
    return X[vertices] @ N.T - np.einsum("ij,ij->i", P, N)


def _require_free(D, vertices, what="half-space"):
    """Raise ValueError naming the vertices with a distance <= 0 in D (nv, k)."""
    if D.size and not np.minimum.reduce(D, axis=None) > 0:
        rows, cols = np.nonzero(D <= 0)
        names = np.unique(vertices[rows])
        raise ValueError(f"x: vertices {names[:10].tolist()} are on or behind {what} {int(cols[0])} (distance "
                         f"{D[rows[0], cols[0]]:g} <= 0); barrier contact needs positions free of interpenetration")


def _energy(X, P, N, d_hat, kappa, w, vertices):
    return kappa * float(w @ _b(_distances(X, P, N, vertices), d_hat).sum(axis=1))


def _gradient(X, P, N, d_hat, kappa, w, vertices):
    D = _distances(X, P, N, vertices)
    _require_free(D, vertices)
    g = np.zeros_like(X)
    g[vertices] = (kappa * w)[:, None] * (_db(D, d_hat) @ N)
    return g.reshape(-1, 1)


def _hessian_blocks(X, P, N, d_hat, kappa, w, vertices):
    """Per-vertex (nv, dim, dim) blocks ``kappa w_i sum_j b''(d_ij) n_j n_j^T``."""
    D = _distances(X, P, N, vertices)
    _require_free(D, vertices)
    B = np.einsum("ij,ja,jb->iab", (kappa * w)[:, None] * _d2b(D, d_hat), N, N)
    return 0.5 * (B + B.transpose(0, 2, 1))      # exactly symmetric (einsum's rounding is not)


def _hessian(X, P, N, d_hat, kappa, w, vertices):
    pattern = _assembly.element_pattern(vertices[:, None], X.shape[1], X.size)
    return pattern.matrix(_hessian_blocks(X, P, N, d_hat, kappa, w, vertices))


def _friction_frame(X, P, N, d_hat, kappa, w, vertices):
    """The lagged ``FrictionFrame`` of positions X: every active vertex-half-space pair (d < d_hat).

    Normal force ``lambda_ij = -kappa w_i b'(d_ij)``, tangents of ``n_j``, coefficient 1.
    """
    D = _distances(X, P, N, vertices)
    _require_free(D, vertices)
    rows, cols = np.nonzero(D < d_hat)
    force = -kappa * w[rows] * _db(D[rows, cols], d_hat)
    return FrictionFrame(vertices[rows][:, None], np.ones((rows.size, 1)), _tangent_basis(N)[cols], force, X.copy())


def half_space_friction_frame(x_start, points, normals, d_hat, kappa, weight=1.0, *, dim=None, vertices=None):
    r"""The lagged friction frame of vertices against half-spaces at the start of a step.

    :math:`\lambda_{ij} = -\kappa w_i b'(d_{ij})` for every pair with :math:`d_{ij} < \hat d`, :math:`T_j \perp n_j`

    Parameters
    ----------
    x_start : (n, dim) float array, or (n*dim, 1) with `dim`
        Positions at the start of the step (x_n).
    points, normals, d_hat, kappa, weight, dim, vertices
        As ``half_space_barrier_energy``.

    Returns
    -------
    frame : FrictionFrame
        For ``friction_energy`` and its derivatives.
    """
    return _friction_frame(*_half_space_args(x_start, points, normals, d_hat, kappa, weight, dim, vertices))


def half_space_barrier_energy(x, points, normals, d_hat, kappa, weight=1.0, *, dim=None, vertices=None):
    r"""Barrier energy of vertices against half-spaces.

    :math:`E = \kappa \sum_i \sum_j w_i\, b\big((x_i - p_j) \cdot n_j\big)`, :math:`b` = ``ipc_barrier_energy``

    Parameters
    ----------
    x : (n, dim) float array, or (n*dim, 1) with `dim`
        Positions, dim 2 or 3.
    points : (dim,) or (k, dim) float array
        A point on the boundary of each half-space.
    normals : (dim,) or (k, dim) float array
        Unit outward normal of each half-space (pointing into the free side).
    d_hat : float
        Activation distance, > 0: a contact exerts force only closer than d_hat.
    kappa : float
        Barrier stiffness, > 0.
    weight : float or (n,) float array, optional
        Per-vertex weight > 0 (lumped area or mass; default 1). Leave a vertex out with
        `vertices` rather than giving it weight 0.
    dim : int, optional, keyword-only
        The dimension of a stacked column x.
    vertices : (nv,) int array, optional, keyword-only
        Distinct indices of the vertices that can touch (default all, e.g. pass the boundary).

    Returns
    -------
    E : float
        ``+inf`` if a listed vertex is on or behind a boundary.
    """
    return _energy(*_half_space_args(x, points, normals, d_hat, kappa, weight, dim, vertices))


def half_space_barrier_gradient(x, points, normals, d_hat, kappa, weight=1.0, *, dim=None, vertices=None):
    r"""Gradient of ``half_space_barrier_energy`` with respect to stacked x.

    :math:`\partial E / \partial x_i = \kappa w_i \sum_j b'(d_{ij})\, n_j`

    Parameters
    ----------
    x, points, normals, d_hat, kappa, weight, dim, vertices
        As ``half_space_barrier_energy``.

    Returns
    -------
    g : (n*dim, 1) float array
        Minus the contact forces.

    Raises
    ------
    ValueError
        A listed vertex is on or behind a boundary (the message names the vertices).
    """
    return _gradient(*_half_space_args(x, points, normals, d_hat, kappa, weight, dim, vertices))


def half_space_barrier_hessian(x, points, normals, d_hat, kappa, weight=1.0, *, dim=None, vertices=None):
    r"""Hessian of ``half_space_barrier_energy``: exact, block diagonal, positive semi-definite.

    :math:`H_{ii} = \kappa w_i \sum_j b''(d_{ij})\, n_j n_j^\top`

    Parameters
    ----------
    x, points, normals, d_hat, kappa, weight, dim, vertices
        As ``half_space_barrier_energy``.

    Returns
    -------
    H : (n*dim, n*dim) scipy.sparse.csc_matrix
        One (dim, dim) block per listed vertex (zero for vertices farther than d_hat).

    Raises
    ------
    ValueError
        A listed vertex is on or behind a boundary (the message names the vertices).
    """
    return _hessian(*_half_space_args(x, points, normals, d_hat, kappa, weight, dim, vertices))
