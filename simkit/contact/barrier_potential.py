r"""The IPC barrier potential of a collision set: energy, gradient, Hessian (exact or Gauss-Newton), friction frame.

Each collision k of a ``Collisions`` set has a stencil of q vertices, a distance ``d_k`` with
gradient ``g_k = c_k (x) n_k`` (closest-point coefficients c times the unit normal n, by the
envelope theorem), a weight ``w_k`` and, for mollified edge-edge pairs, a mollifier ``m_k``
(1 otherwise). With ``b`` the IPC barrier (``simkit.energies.ipc_barrier_energy``)::

    E = kappa sum_k w_k m_k b(d_k)
    grad E = kappa sum_k w_k (m_k b'(d_k) g_k + b(d_k) grad m_k)

Exact Hessian (``psd=False``), each stencil's block::

    kappa w [ m (b'' g g^T + b' hess d) + b' (grad m g^T + g grad m^T) + b hess m ]

``hess d`` from ``simkit.contact``'s distance kinds. It is indefinite (``b' < 0`` times the
distance's curvature).

Positive semi-definite Hessian (``psd=True``, the default): the Gauss-Newton matrix of the
composition ``psi(d, m) = kappa w m b(d)``. With ``J = [grad d; grad m]``::

    H_k = J^T [hess psi]_+ J,     hess psi = kappa w [[m b'', b'], [b', 0]]

where ``[.]_+`` clamps the 2x2 matrix's negative eigenvalue to 0 (it has exactly one
non-negative eigenvalue, ``lambda = (a + sqrt(a^2 + 4 beta^2)) / 2`` with ``a = kappa w m b''``,
``beta = kappa w b'``). Without the mollifier (``m = 1``, ``grad m = 0``) this is
``kappa w b''(d) g g^T``. The terms dropped are the first-order ones, ``b' hess d`` and
``b hess m``. For a point-point stencil it is exactly the eigenvalue clamp of the exact block
(there ``hess d = (I - n n^T) (x) [[1, -1], [-1, 1]] / d`` is orthogonal to ``g`` and
``b' hess d`` is negative semi-definite); for the other stencils it drops the coupling of the
normal's rotation, of relative size ``d / L`` (L the primitives' size). Every block is rank one,
``v v^T``, so the Hessian is assembled as ``W W^T`` with one sparse column ``v`` per collision:
no dense 12x12 blocks, no eigensolver, no sort. (Up to ``FEW_COLLISIONS`` collisions, a small
scene's, the blocks go through ``simkit._assembly``'s cached pattern instead: cheaper there.)

Projected exact Hessian (``psd="project"``): each stencil's exact block with its negative
eigenvalues clamped to 0, IPC's projected Newton. It keeps ``b' hess d``, the stiffness against
turning a face or an edge into a point that rests a hair above it, which the Gauss-Newton matrix
drops: where bodies rest on each other and turn (a pile), Newton's steps with the Gauss-Newton
matrix keep trying to turn them and the CCD filter cuts every step short, while the projected
blocks converge. Without the mollifier a block is ``kappa w U M U^T`` with ``U = [g, Phi]``
(the distance's Hessian factored as ``Phi K Phi^T``, ``simkit.contact._closest``) and
``M = diag(b'', b' K)``, of rank 5 at most: with ``U = Q R`` its eigenpairs are those of the 5x5
``R M R^T``, rotated by Q, so the clamp costs a batched QR and a 5x5 eigensolver instead of a
12x12 one. The mollified edge pairs' extra terms raise the rank; their 12x12 blocks are clamped
directly.

Friction: each collision's lagged normal force is ``lambda = -kappa w m b'(d) >= 0``, its
tangent plane is orthogonal to n, and its relative tangential displacement is
``T^T sum_a c_a dx_a`` (``simkit.energies.friction``).
"""
import numpy as np
import scipy.sparse as sps

from .. import _assembly

FEW_COLLISIONS = 128       # at most this many: dense blocks through a cached pattern; more: the product W W^T
from ..energies.friction import FrictionFrame, _tangent_basis
from ..energies.ipc_barrier import _b, _d2b, _db
from .edge_edge_distance import _edge_edge
from .edge_edge_mollifier import _edge_edge_mollifier
from .point_edge_distance import _point_edge
from .point_point_distance import _point_point
from .point_triangle_distance import _point_triangle

PROJECTED = "project"      # psd= value of the projected exact Hessian

_CLASSIFIERS = {"point-point": _point_point, "point-edge": _point_edge, "point-triangle": _point_triangle,
                "edge-edge": _edge_edge, "edge-edge (mollified)": _edge_edge}


def _distance_gradient(g):
    """g = c (x) n, (k, q*dim)."""
    k, q = g.coefficients.shape
    return (g.coefficients[:, :, None] * g.normal[:, None, :]).reshape(k, q * g.normal.shape[1])


def _mollifier_values(collisions, g, order):
    """m (k,) and, by order, grad m (k, 12) and hess m (k, 12, 12) of a mollified group."""
    return _edge_edge_mollifier(collisions.X[g.nodes], g.eps_x, order)


def energy(collisions, d_hat, kappa):
    r"""Barrier energy of a collision set.

    :math:`E = \kappa \sum_k w_k m_k\, b(d_k)`

    Parameters
    ----------
    collisions : Collisions
    d_hat, kappa : float
        Activation distance and stiffness, > 0.

    Returns
    -------
    E : float
    """
    total = 0.0
    for g in collisions.groups:
        b = _b(g.distance, d_hat)
        if g.eps_x is not None:
            b = b * _mollifier_values(collisions, g, 0)[0]
        total += float(g.weight @ b)
    return kappa * total


def gradient(collisions, d_hat, kappa):
    r"""Gradient of ``energy`` with respect to the stacked positions.

    :math:`\nabla E = \kappa \sum_k w_k \big(m_k b'(d_k)\, c_k \otimes n_k + b(d_k) \nabla m_k\big)`

    Returns
    -------
    g : (n*dim, 1) float array
    """
    collisions.require_free()
    X = collisions.X
    values, dofs = [], []
    for g in collisions.groups:
        scale = kappa * g.weight * _db(g.distance, d_hat)
        local = _distance_gradient(g)
        if g.eps_x is None:
            local = scale[:, None] * local
        else:
            m, dm = _mollifier_values(collisions, g, 1)[:2]
            local = (scale * m)[:, None] * local + (kappa * g.weight * _b(g.distance, d_hat))[:, None] * dm
        values.append(local.reshape(-1))
        dofs.append(_assembly.node_dofs(g.nodes, X.shape[1]).reshape(-1))
    if not values:
        return np.zeros((X.size, 1))
    return _assembly.assemble_vector(np.concatenate(values), np.concatenate(dofs), X.size)


def _gauss_newton_columns(collisions, g, d_hat, kappa):
    """One column v per collision of a group, (k, q*dim): its block is v v^T."""
    grad_d = _distance_gradient(g)
    if g.eps_x is None:
        return np.sqrt(kappa * g.weight * _d2b(g.distance, d_hat))[:, None] * grad_d
    m, dm = _mollifier_values(collisions, g, 1)[:2]
    a = kappa * g.weight * m * _d2b(g.distance, d_hat)
    beta = kappa * g.weight * _db(g.distance, d_hat)
    lam = 0.5 * (a + np.sqrt(a * a + 4.0 * beta * beta))
    theta = 0.5 * np.arctan2(2.0 * beta, a)             # eigenvector (cos, sin) of [[a, beta], [beta, 0]] for lam
    return np.sqrt(lam)[:, None] * (np.cos(theta)[:, None] * grad_d + np.sin(theta)[:, None] * dm)


def _few_blocks(columns, dofs, N):
    """The blocks v v^T of a small collision set, padded to one stencil size, through a cached assembly pattern.

    A chapter's small scene keeps the same stencils over many Newton iterations, so the pattern
    (``simkit._assembly``, cached on the dofs) is built once; scipy's sparse product would cost
    more than the arithmetic.
    """
    p = max([d.shape[1] for d in dofs], default=0)
    blocks, padded = [], []
    for v, d in zip(columns, dofs):
        pad = p - d.shape[1]
        v = np.concatenate([v, np.zeros((len(v), pad))], axis=1)
        blocks.append(v[:, :, None] * v[:, None, :])
        padded.append(np.concatenate([d, np.repeat(d[:, :1], pad, axis=1)], axis=1))
    if not blocks:
        return sps.csc_matrix((N, N))
    return _assembly.assemble_matrix(np.concatenate(blocks), np.concatenate(padded), N)


def hessian(collisions, d_hat, kappa, psd=True):
    r"""Hessian of ``energy``: Gauss-Newton (positive semi-definite) or exact.

    :math:`H = \sum_k J_k^\top [\nabla^2 \psi_k]_+ J_k` (``psd``), else :math:`\sum_k \kappa w_k [m (b'' g g^\top + b' \nabla^2 d) + b' (\nabla m\, g^\top + g \nabla m^\top) + b \nabla^2 m]`

    Parameters
    ----------
    collisions : Collisions
    d_hat, kappa : float
    psd : bool or "project", optional
        Gauss-Newton (True, the default), the exact Hessian (False), or the exact blocks with
        their negative eigenvalues clamped to 0 ("project"); see the module docstring.

    Returns
    -------
    H : (n*dim, n*dim) scipy.sparse.csc_matrix
        With sorted indices and no duplicates.
    """
    collisions.require_free()
    X = collisions.X
    N, dim = X.size, X.shape[1]
    if psd is True:
        columns = [_gauss_newton_columns(collisions, g, d_hat, kappa) for g in collisions.groups]
        dofs = [_assembly.node_dofs(g.nodes, dim) for g in collisions.groups]
        if len(collisions) <= FEW_COLLISIONS:
            return _few_blocks(columns, dofs, N)
        sizes = np.concatenate([np.full(len(c), c.shape[1]) for c in columns])
        indptr = np.concatenate([[0], np.cumsum(sizes)])
        Wt = sps.csr_matrix((np.concatenate([c.reshape(-1) for c in columns]),
                             np.concatenate([d.reshape(-1) for d in dofs]), indptr), shape=(len(sizes), N))
        H = Wt.T @ Wt                             # W (CSC) times W^T: CSC, indices unsorted
        # H is symmetric, so its CSC arrays read as CSR are H again; converting that to CSC is a
        # counting sort that leaves every column's indices sorted (cheaper than sorting them)
        return sps.csr_matrix((H.data, H.indices, H.indptr), shape=H.shape).tocsc()
    H = sps.csc_matrix((N, N))
    for g in collisions.groups:
        if psd == PROJECTED:
            B = _projected_blocks(collisions, g, d_hat, kappa)
        else:
            B = _exact_blocks(collisions, g, d_hat, kappa)
            B = 0.5 * (B + B.transpose(0, 2, 1))             # exactly symmetric (the products round differently)
        H = H + _assembly.assemble_matrix(B, _assembly.node_dofs(g.nodes, dim), N)
    return H.tocsc()


def _clamped(C):
    """Symmetric blocks C (k, r, r) with their negative eigenvalues set to 0 (unchecked)."""
    lam, V = np.linalg.eigh(0.5 * (C + C.transpose(0, 2, 1)))
    return (V * np.maximum(lam, 0.0)[:, None, :]) @ V.transpose(0, 2, 1)


def _projected_blocks(collisions, g, d_hat, kappa):
    """The exact blocks (k, q*dim, q*dim) with their negative eigenvalues clamped to 0."""
    if g.eps_x is not None:
        return _clamped(_exact_blocks(collisions, g, d_hat, kappa))
    closest = _CLASSIFIERS[g.name](collisions.X[g.nodes], 2, dense=False)
    Phi, K = closest.factors
    d, scale = closest.distance, kappa * g.weight
    U = np.concatenate([closest.gradient[:, :, None], Phi], axis=2)           # (k, q*dim, 5)
    M = np.zeros((len(d), 5, 5))
    M[:, 0, 0] = scale * _d2b(d, d_hat)
    M[:, 1:, 1:] = (scale * _db(d, d_hat))[:, None, None] * K
    Q, R = np.linalg.qr(U)                                    # the block is Q (R M R^T) Q^T
    lam, V = np.linalg.eigh(R @ M @ R.transpose(0, 2, 1))
    QV = Q @ V
    return (QV * np.maximum(lam, 0.0)[:, None, :]) @ QV.transpose(0, 2, 1)


def _exact_blocks(collisions, g, d_hat, kappa):
    closest = _CLASSIFIERS[g.name](collisions.X[g.nodes], 2)
    d, gd, Hd = closest.distance, closest.gradient, closest.hessian
    b, db, d2b = _b(d, d_hat), _db(d, d_hat), _d2b(d, d_hat)
    scale = (kappa * g.weight)[:, None, None]
    if g.eps_x is None:
        return scale * (d2b[:, None, None] * gd[:, :, None] * gd[:, None, :] + db[:, None, None] * Hd)
    m, dm, Hm = _mollifier_values(collisions, g, 2)
    outer = dm[:, :, None] * gd[:, None, :]
    return scale * (m[:, None, None] * (d2b[:, None, None] * gd[:, :, None] * gd[:, None, :] + db[:, None, None] * Hd)
                    + db[:, None, None] * (outer + outer.transpose(0, 2, 1)) + b[:, None, None] * Hm)


def friction_frame(collisions, d_hat, kappa):
    r"""The lagged friction frame of a collision set (``simkit.energies.friction``).

    :math:`\lambda_k = -\kappa w_k m_k b'(d_k)`, :math:`T_k \perp n_k`, coefficients :math:`c_k`

    Returns
    -------
    frame : FrictionFrame
        One contact per collision; stencils shorter than the longest are padded with their
        first vertex at coefficient 0.
    """
    collisions.require_free()
    X = collisions.X
    dim = X.shape[1]
    q = max([g.nodes.shape[1] for g in collisions.groups], default=dim + 1)
    nodes, coefficients, normals, force = [], [], [], []
    for g in collisions.groups:
        k, qg = g.nodes.shape
        pad = q - qg
        nodes.append(np.concatenate([g.nodes, np.repeat(g.nodes[:, :1], pad, axis=1)], axis=1))
        coefficients.append(np.concatenate([g.coefficients, np.zeros((k, pad))], axis=1))
        normals.append(g.normal)
        lam = -kappa * g.weight * _db(g.distance, d_hat)
        if g.eps_x is not None:
            lam = lam * _mollifier_values(collisions, g, 0)[0]
        force.append(lam)
    if not nodes:
        return FrictionFrame(np.zeros((0, q), dtype=np.int64), np.zeros((0, q)), np.zeros((0, dim, dim - 1)),
                             np.zeros(0), X.copy())
    normal = np.concatenate(normals)
    return FrictionFrame(np.concatenate(nodes), np.concatenate(coefficients), _tangent_basis(normal),
                         np.concatenate(force), X.copy())
