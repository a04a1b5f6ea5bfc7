"""Hinge bending energy: 2D polylines (vertex triples) and 3D triangle pairs (quads).

Density per hinge, in its signed hinge angle theta (``simkit.dihedral_angles``)::

    psi(theta) = 1/2 * kappa * (theta - theta0)^2

``theta - theta0`` is wrapped into (-pi, pi], so a hinge whose angle crosses the branch cut
of atan2 keeps a continuous energy. The total is ``E(x) = sum_h psi(theta_h(x))``.

Hessian
-------
Exact, per hinge: ``kappa grad(theta) grad(theta)^T + kappa (theta - theta0) hess(theta)``
(closed forms in ``simkit._hinge_angle``). ``psd=True`` projects each hinge block (6x6 in 2D,
12x12 in 3D) with an eigenvalue floor of 1e-6. The translations are an exact null space of
every block, so the projection works on the translation-free part (4x4 in 2D, 9x9 in 3D, see
``_ReducedFrame``) and gives the translations the floor: 2D in closed form (below), 3D with
the batched eigensolver of ``psd_project``.

2D closed-form projection: with corners centred (c) and W the 90-degree rotation of every
node, ``theta`` is invariant under translations, rotations and scaling, hence
``hess(theta) c = -g`` and ``hess(theta) W c = W g`` (g = grad theta). In the orthonormal
basis (c, Wc, g, Wg)/norms of the complement of the translations, the block reads
``[[0, 0, -A, 0], [0, 0, 0, A], [-A, 0, P, Q], [0, A, Q, R]]``: diagonalising the 2x2 ``[[P, Q],
[Q, R]]`` (eigenpairs mu, w) leaves two 2x2 problems ``[[0, A], [A, mu]]`` on
``span(-w0 c + w1 Wc, w0 g + w1 Wg)``, and the translations have eigenvalue 0. All six
eigenpairs therefore come from 2x2 rotations, which equals ``psd_project`` to round-off.

Degenerate hinge (a collapsed edge or flap)
-------------------------------------------
The angle is undefined: theta takes atan2's value (0 for a zero-length 2D edge) in the
energy, and the hinge contributes zero gradient and a zero Hessian block (``1e-6 I`` when
projected, as ``psd_project`` of a zero block).
"""
import numpy as np

from .. import _assembly, _validate
from .._hinge_angle import hinge_angle_derivatives, hinge_angles, hinge_frame
from ..psd_project import EIGENVALUE_FLOOR, psd_project


class _ReducedFrame:
    """Constants of a hinge frame with the translations taken out.

    The node block of a hinge is ``L^T By L = V Bt V^T`` with ``G = L L^T``,
    ``V = L^T G^{-1/2}`` (orthonormal columns spanning everything but the translations) and
    ``Bt = G^{1/2} By G^{1/2}``; the translations ``I - V V^T`` have eigenvalue 0.
    """

    def __init__(self, dim):
        L, _ = hinge_frame(dim)
        lam, Q = np.linalg.eigh(L @ L.T)
        self.g_half = (Q * np.sqrt(lam)) @ Q.T
        self.g_inv_half = (Q / np.sqrt(lam)) @ Q.T
        self.to_reduced = np.kron(self.g_half, self.g_half)
        V = L.T @ self.g_inv_half
        # maps [vec(S), 1] to vec(V S V^T + floor (I - V V^T)): node block plus floored translations
        self.to_nodes = np.vstack([np.kron(V, V).T, EIGENVALUE_FLOOR * (np.eye(L.shape[1]) - V @ V.T).reshape(1, -1)])


_FRAMES = {2: _ReducedFrame(2), 3: _ReducedFrame(3)}


def _angle_difference(theta, theta0):
    return np.remainder(theta - theta0 + np.pi, 2.0 * np.pi) - np.pi


def _psi(theta, theta0, kappa):
    return 0.5 * kappa * _angle_difference(theta, theta0) ** 2


def _dpsi(theta, theta0, kappa):
    return kappa * _angle_difference(theta, theta0)


def _element_args(theta, theta0, kappa):
    theta = _validate.finite(np.asarray(theta, dtype=float).reshape(-1), "theta")
    c = theta.size
    return theta, _validate.element_values(theta0, "theta0", c), _validate.element_param(kappa, "kappa", c)


def bending_energy_element_theta(theta, theta0, kappa):
    """Per-hinge bending energy.

    Parameters
    ----------
    theta : (c, 1) or (c,) float array
        Current hinge angles.
    theta0 : (c, 1) or (c,) float array
        Rest hinge angles (a scalar is broadcast).
    kappa : (c, 1) or (c,) float array
        Bending stiffness, >= 0 (a scalar is broadcast).

    Returns
    -------
    psi : (c, 1) float array
        ``1/2 kappa wrap(theta - theta0)^2``.
    """
    return _psi(*_element_args(theta, theta0, kappa)).reshape(-1, 1)


def bending_gradient_element_theta(theta, theta0, kappa):
    """Per-hinge derivative of the bending energy with respect to theta.

    Parameters
    ----------
    theta, theta0 : (c, 1) or (c,) float arrays
        Current and rest hinge angles.
    kappa : (c, 1) or (c,) float array
        Bending stiffness, >= 0.

    Returns
    -------
    dpsi : (c, 1) float array
        ``kappa wrap(theta - theta0)``.
    """
    return _dpsi(*_element_args(theta, theta0, kappa)).reshape(-1, 1)


def bending_hessian_element_theta(theta, theta0, kappa):
    """Per-hinge second derivative of the bending energy with respect to theta.

    Parameters
    ----------
    theta, theta0 : (c, 1) or (c,) float arrays
        Current and rest hinge angles (the density is quadratic in theta).
    kappa : (c, 1) or (c,) float array
        Bending stiffness, >= 0.

    Returns
    -------
    d2psi : (c, 1) float array
        ``kappa``.
    """
    return _element_args(theta, theta0, kappa)[2].reshape(-1, 1)


def _args(x, C, theta0, kappa):
    """Validate; return (C, corners P (c, q, dim), theta0 (c,), kappa (c,), N = n * dim)."""
    C_arr = np.asarray(C)
    q = C_arr.shape[1] if C_arr.ndim == 2 else 0
    if q not in (3, 4):
        raise ValueError(f"C: expected hinge triples (c, 3) in 2D or quads (c, 4) in 3D, got shape {C_arr.shape}")
    X = _validate.node_positions(x, q - 1, "x", dims=(q - 1,))
    n, dim = X.shape
    C = _validate.index_array(C, "C", q, n)
    c = C.shape[0]
    theta0 = _validate.element_values(theta0, "theta0", c, what="hinge")
    kappa = _validate.element_param(kappa, "kappa", c, what="hinge")
    return C, X[C], theta0, kappa, n * dim


def bending_energy_x(x, C, theta0, kappa):
    """Total bending energy; 2D (C triples) or 3D (C quads), inferred from C.

    Parameters
    ----------
    x : (n*dim, 1) float array
        Stacked positions, node-major (dim = 2 for triples, 3 for quads); (n, dim)
        positions are accepted too, as upstream simkit.
    C : (c, 3) or (c, 4) int array
        Hinges, as for ``simkit.dihedral_angles``.
    theta0 : (c, 1) or (c,) float array
        Rest angles.
    kappa : (c, 1) or (c,) float array
        Bending stiffness of each hinge, >= 0.

    Returns
    -------
    energy : float
        ``sum_h 1/2 kappa_h (theta_h - theta0_h)^2``.
    """
    _, P, theta0, kappa, _ = _args(x, C, theta0, kappa)
    return float(_psi(hinge_angles(P), theta0, kappa).sum())


def bending_gradient_x(x, C, theta0, kappa):
    """Gradient of ``bending_energy_x``.

    Parameters
    ----------
    x : (n*dim, 1) float array
        Stacked positions.
    C : (c, 3) or (c, 4) int array
        Hinges.
    theta0, kappa : (c, 1) or (c,) float arrays
        Rest angles and stiffness.

    Returns
    -------
    g : (n*dim, 1) float array
        ``sum_h kappa_h (theta_h - theta0_h) grad theta_h``.
    """
    C, P, theta0, kappa, N = _args(x, C, theta0, kappa)
    theta, g, _, _ = hinge_angle_derivatives(P, order=1)
    L, _ = hinge_frame(P.shape[2])
    dofs = _assembly.node_dofs(C, P.shape[2])
    return _assembly.assemble_vector(_dpsi(theta, theta0, kappa)[:, None] * (g @ L), dofs, N)


def _hinge_blocks(P, theta0, kappa, psd):
    """Per-hinge Hessian blocks (c, q*dim, q*dim) in corner order, exact or projected.

    The blocks are formed in edge-vector coordinates y (``By``, (c, ny, ny)) and mapped to the
    corners with one matrix product; projected blocks go through the reduced frame, where 2D
    uses the closed form and 3D the batched eigensolver on (ny, ny) = (9, 9) blocks.
    """
    theta, g, H, degenerate = hinge_angle_derivatives(P, order=2)
    dim = P.shape[2]
    L, LL = hinge_frame(dim)
    c, ny = g.shape
    nx = L.shape[1]
    By = H
    By *= _dpsi(theta, theta0, kappa)[:, None, None]
    By += (kappa[:, None] * g)[:, :, None] * g[:, None, :]
    if not psd:
        return (By.reshape(c, ny * ny) @ LL).reshape(c, nx, nx)
    frame = _FRAMES[dim]
    augmented = np.empty((ny * ny + 1, c))
    np.matmul(frame.to_reduced.T, By.reshape(c, ny * ny).T, out=augmented[:-1])
    augmented[-1] = 1.0
    if dim == 2:
        _project_2d(augmented[:-1].reshape(4, 4, c), P, g, frame)
    else:
        augmented[:-1] = psd_project(augmented[:-1].T.reshape(c, ny, ny)).reshape(c, ny * ny).T
    out = (augmented.T @ frame.to_nodes).reshape(c, nx, nx)
    out[degenerate] = EIGENVALUE_FLOOR * np.eye(nx)
    return out


def _unit_rows(v):
    """Normalize the columns of a (4, c) array of 4-vectors stored one per column."""
    norm = np.sqrt(np.einsum("ik,ik->k", v, v))
    return v / np.where(norm > 0, norm, 1.0)


def _rotate_rows(v):
    """Rotate both 2D halves of each 4-vector column of (4, c) by +90 degrees: (x, y) -> (-y, x)."""
    return np.stack([-v[1], v[0], -v[3], v[2]])


def _apply(B, v):
    """(4, c) products ``B_k v_k`` of the (4, 4, c) matrices B with the (4, c) vectors v."""
    return B[:, 0] * v[0] + B[:, 1] * v[1] + B[:, 2] * v[2] + B[:, 3] * v[3]


def _eig2(p, q, r):
    """Eigen-decomposition of symmetric 2x2 [[p, q], [q, r]] without trigonometry.

    Returns (larger, smaller, cos t, sin t): (cos t, sin t) is the eigenvector of the larger
    eigenvalue and (-sin t, cos t) of the smaller, ``t = atan2(q, (p - r)/2) / 2``. The
    half-angle formulas take the square root only of the non-cancelling ``1 +- cos 2t``.
    """
    half = 0.5 * (p - r)
    radius = np.hypot(half, q)
    mid = 0.5 * (p + r)
    flat = radius == 0
    safe = np.where(flat, 1.0, radius)
    cos2 = np.where(flat, 1.0, half / safe)
    sin2 = np.where(flat, 0.0, q / safe)
    upper = cos2 >= 0
    cos_t = np.sqrt(0.5 * (1.0 + np.where(upper, cos2, -cos2)))
    cos_t, sin_t = (np.where(upper, cos_t, 0.5 * np.abs(sin2) / cos_t),
                    np.where(upper, 0.5 * sin2 / cos_t, np.copysign(cos_t, sin2)))
    return mid + radius, mid - radius, cos_t, sin_t


def _project_2d(Bt, P, gy, frame):
    """Project the reduced 2D hinge blocks Bt (4, 4, c) in place, in closed form.

    The basis (c, Wc, g, Wg) of the module docstring has reduced coordinates
    ``G^{-1/2} L u``, so the eigen-decomposition happens on 4-vectors (stored one per column,
    hinges along the last axis), and ``psd(Bt) = Bt + sum_a (max(lambda_a, floor) - lambda_a)
    v_a v_a^T``. Of each pair ``[[0, A], [A, mu]]`` the smaller eigenvalue is <= 0 (the product
    is -A^2) and always corrected; the larger one only where it is below the floor.
    """
    c = Bt.shape[2]
    flat = Bt.reshape(16, c)
    u1 = _unit_rows(frame.g_inv_half @ (P[:, 1:] - P[:, :-1]).reshape(c, 4).T)
    u3 = _unit_rows(frame.g_half @ gy.T)
    u2, u4 = _rotate_rows(u1), _rotate_rows(u3)
    Bu4 = _apply(Bt, u4)
    A = np.einsum("ik,ik->k", u2, Bu4)
    mu_big, mu_small, cw, sw = _eig2(np.einsum("ik,ik->k", u3, _apply(Bt, u3)),
                                     np.einsum("ik,ik->k", u3, Bu4), np.einsum("ik,ik->k", u4, Bu4))
    for mu, w0, w1 in ((mu_big, cw, sw), (mu_small, -sw, cw)):
        lam_big, lam_small, cs, ss = _eig2(np.zeros_like(mu), A, mu)
        a = w1 * u2 - w0 * u1
        b = w0 * u3 + w1 * u4
        v = (cs * b - ss * a) * np.sqrt(EIGENVALUE_FLOOR - lam_small)
        flat += (v[:, None] * v[None, :]).reshape(16, c)
        low = np.flatnonzero(lam_big < EIGENVALUE_FLOOR)
        if low.size:
            v = (cs[low] * a[:, low] + ss[low] * b[:, low]) * np.sqrt(EIGENVALUE_FLOOR - lam_big[low])
            flat[:, low] += (v[:, None] * v[None, :]).reshape(16, low.size)


def bending_hessian_x(x, C, theta0, kappa, *, psd=False):
    """Hessian of ``bending_energy_x``.

    Parameters
    ----------
    x : (n*dim, 1) float array
        Stacked positions.
    C : (c, 3) or (c, 4) int array
        Hinges.
    theta0, kappa : (c, 1) or (c,) float arrays
        Rest angles and stiffness.
    psd : bool, optional, keyword-only
        Project each hinge block onto eigenvalues >= 1e-6 (default False: exact Hessian).

    Returns
    -------
    H : (n*dim, n*dim) scipy.sparse.csc_matrix
        ``sum_h kappa_h (grad theta_h grad theta_h^T + (theta_h - theta0_h) hess theta_h)``.
    """
    psd = _validate.boolean(psd, "psd")
    C, P, theta0, kappa, N = _args(x, C, theta0, kappa)
    return _assembly.element_pattern(C, P.shape[2], N).matrix(_hinge_blocks(P, theta0, kappa, psd))
