r"""Analytic eigensystems of isotropic elastic energies (Smith, de Goes and Kim 2019).

An isotropic energy depends on F only through its singular values. With the rotation-variant
SVD ``F = U diag(sigma) V^T`` (``det U = det V = +1``; when ``det F < 0`` the sign sits on the
smallest singular value, so ``sigma_d`` may be negative) the Hessian ``d^2 psi / dF^2`` has
the eigenvectors, written as d x d matrices (flattened row-major, like F),

- scaling modes ``U diag(w) V^T``, with w an eigenvector of the d x d matrix
  ``A_ij = d^2 psi / d sigma_i d sigma_j``;
- for every pair i < j a flip mode ``U (e_i e_j^T + e_j e_i^T) V^T / sqrt 2`` with eigenvalue
  ``(psi_i - psi_j) / (sigma_i - sigma_j)`` and a twist mode ``U (e_i e_j^T - e_j e_i^T) V^T / sqrt 2``
  with eigenvalue ``(psi_i + psi_j) / (sigma_i + sigma_j)`` (``psi_i = d psi / d sigma_i``).

Each material writes these two ratios in closed form (no division by ``sigma_i - sigma_j``),
so repeated singular values need no special case. Projecting the Hessian onto the PSD cone
is then clamping these eigenvalues at zero: no eigensolver on the d^2 x d^2 Hessian.
"""
import numpy as np

# index pairs (i, j), i < j, in the order the materials return flip / twist eigenvalues
PAIRS = {2: np.array([[0, 1]]), 3: np.array([[0, 1], [0, 2], [1, 2]])}
# index k of the remaining singular value of each pair (3D)
OTHER = np.array([2, 1, 0])


def svd_rv(F):
    """Rotation-variant SVD of (k, d, d) matrices.

    Returns
    -------
    U, V : (k, d, d) float arrays
        Rotations (det +1) with ``F = U diag(sigma) V^T``.
    sigma : (k, d) float array
        Singular values in decreasing order of magnitude; the last one carries the sign of
        det F.
    """
    U, sigma, Vt = np.linalg.svd(F)
    V = np.swapaxes(Vt, -1, -2).copy()
    sigma = sigma.copy()
    for M in (U, V):
        neg = np.linalg.det(M) < 0
        M[neg, :, -1] *= -1.0
        sigma[neg, -1] *= -1.0
    return U, sigma, V


def modes(U, V):
    """Flattened row-major mode matrices: scaling (k, d, d*d), flip and twist (k, p, d*d)."""
    k, d = U.shape[0], U.shape[-1]
    outer = np.einsum("kai,kbj->kijab", U, V).reshape(k, d, d, d * d)     # u_i v_j^T
    pairs = PAIRS[d]
    a, b = outer[:, pairs[:, 0], pairs[:, 1]], outer[:, pairs[:, 1], pairs[:, 0]]
    scaling = outer[:, np.arange(d), np.arange(d)]
    return scaling, (a + b) / np.sqrt(2.0), (a - b) / np.sqrt(2.0)


def hessian(U, V, A, flip, twist, project=False):
    """Assemble ``d^2 psi / dF^2`` (k, d*d, d*d) from its eigensystem; clamp eigenvalues at 0 if `project`.

    A : (k, d, d) scaling Hessian; flip, twist : (k, p) eigenvalues of the pair modes.
    """
    scaling, fl, tw = modes(U, V)
    lam_s, W = np.linalg.eigh(A)
    if project:
        lam_s, flip, twist = np.maximum(lam_s, 0.0), np.maximum(flip, 0.0), np.maximum(twist, 0.0)
    Q = np.concatenate([np.einsum("kmi,kmn->kni", scaling, W), fl, tw], axis=1)   # (k, d*d, d*d) rows
    lam = np.concatenate([lam_s, flip, twist], axis=1)
    H = np.einsum("kmi,km,kmj->kij", Q, lam, Q)
    return 0.5 * (H + np.swapaxes(H, 1, 2))


def det_derivatives(sigma):
    """First and second derivatives of ``J = prod(sigma)`` in the singular values.

    Returns
    -------
    c : (k, d) float array
        ``dJ / dsigma_i`` (the product of the other singular values).
    C : (k, d, d) float array
        ``d^2 J / dsigma_i dsigma_j``: 0 on the diagonal, the remaining singular value off it
        (3D) or 1 (2D).
    other : (k, p) float array
        The off-diagonal value of C for each pair of ``PAIRS``.
    """
    k, d = sigma.shape
    if d == 2:
        c = sigma[:, ::-1].copy()
        other = np.ones((k, 1))
    else:
        c = np.stack([sigma[:, 1] * sigma[:, 2], sigma[:, 0] * sigma[:, 2], sigma[:, 0] * sigma[:, 1]], axis=1)
        other = sigma[:, OTHER]
    C = np.zeros((k, d, d))
    pairs = PAIRS[d]
    C[:, pairs[:, 0], pairs[:, 1]] = other
    C[:, pairs[:, 1], pairs[:, 0]] = other
    return c, C, other
