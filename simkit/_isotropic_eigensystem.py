r"""Analytic eigensystems of isotropic elastic energies (Smith, de Goes and Kim 2019).

An isotropic energy depends on F only through its singular values. With the rotation-variant
SVD ``F = U diag(sigma) V^T`` -- U and V are rotations (``det U = det V = +1``), the singular
values decrease in magnitude and, when ``det F < 0``, the smallest one carries the sign
(``sigma_d < 0``) -- the Hessian ``d^2 psi / dF^2`` has the eigenvectors (as d x d matrices,
flattened row-major like F)

- scaling modes ``U diag(w) V^T``, w an eigenvector of ``A_ij = d^2 psi / d sigma_i d sigma_j``;
- for every pair i < j a flip mode ``U (e_i e_j^T + e_j e_i^T) V^T / sqrt 2`` with eigenvalue
  ``(psi_i - psi_j) / (sigma_i - sigma_j)`` and a twist mode ``U (e_i e_j^T - e_j e_i^T) V^T / sqrt 2``
  with eigenvalue ``(psi_i + psi_j) / (sigma_i + sigma_j)``, where ``psi_i = d psi / d sigma_i``.

Each material writes A and the two ratios in closed form (no division by ``sigma_i - sigma_j``),
so repeated singular values need no special case; projecting the Hessian onto the PSD cone is
clamping these eigenvalues at zero, with no eigensolver on the d^2 x d^2 Hessian.

Layout: component-major, element axis last (``F[i, j]`` is a (t,) array), as in
``simkit._small_matrices``. The SVD is computed here too, by Jacobi sweeps on ``F^T F``
written over components: numpy's batched ``svd`` calls LAPACK once per 3x3 matrix and costs
several times more.
"""
import numpy as np

from ._small_matrices import det, matmul, outer

JACOBI_SWEEPS = 4          # cyclic sweeps for 3x3 (quadratic convergence: round-off after 3 to 4)


def pairs(d):
    """Index pairs (i, j), i < j, in the order materials return flip / twist eigenvalues."""
    return [(0, 1)] if d == 2 else [(0, 1), (0, 2), (1, 2)]


def _sweep(a, V, d):
    """One cyclic sweep of Jacobi rotations on the upper entries `a` (dict (p, q) -> (t,)) and eigenvectors V."""
    for p, q in pairs(d):
        apq = a[p, q]
        theta = a[q, q] - a[p, p]
        two = 2.0 * apq
        # sqrt(theta^2 + two^2) rather than hypot (several times slower here): entries of F^T F
        # beyond 1e150 or below 1e-150 are outside any simulation
        tan = np.copysign(1.0, theta) * two / (np.abs(theta) + np.sqrt(theta * theta + two * two) + _TINY)
        c = 1.0 / np.sqrt(1.0 + tan * tan)
        s = tan * c
        shift = tan * apq
        a[p, p], a[q, q], a[p, q] = a[p, p] - shift, a[q, q] + shift, np.zeros_like(apq)
        for r in range(d):
            if r != p and r != q:
                rp, rq = (min(r, p), max(r, p)), (min(r, q), max(r, q))
                a[rp], a[rq] = c * a[rp] - s * a[rq], s * a[rp] + c * a[rq]
        Vp, Vq = V[:, p], V[:, q]
        V[:, p], V[:, q] = c * Vp - s * Vq, s * Vp + c * Vq


def jacobi_eigh(S):
    """Eigen-decomposition of symmetric (d, d, t) matrices.

    Returns eigenvalues (d, t) and eigenvectors (d, d, t) (columns), unsorted. Cyclic Jacobi
    rotations (Golub and Van Loan's sym.schur2, with ``tan = 2 a_pq sign(theta) / (|theta| +
    sqrt(theta^2 + 4 a_pq^2))``, ``theta = a_qq - a_pp``, which is 0 when a_pq is); one rotation
    is exact in 2D. In 3D, after ``JACOBI_SWEEPS - 1`` sweeps only the matrices whose
    off-diagonal part is not yet below round-off of the diagonal get the last sweep.
    """
    d, t = S.shape[0], S.shape[-1]
    a = {(p, q): S[p, q] for p in range(d) for q in range(p, d)}
    V = np.zeros((d, d, t))
    V[np.arange(d), np.arange(d)] = 1.0
    for _ in range(1 if d == 2 else JACOBI_SWEEPS - 1):
        _sweep(a, V, d)
    if d == 3:
        off = a[0, 1] * a[0, 1] + a[0, 2] * a[0, 2] + a[1, 2] * a[1, 2]
        diag = a[0, 0] * a[0, 0] + a[1, 1] * a[1, 1] + a[2, 2] * a[2, 2]
        rest = np.flatnonzero(~(off <= _EPS2 * diag))
        if rest.size:
            sub = {k: v[rest] for k, v in a.items()}
            W = V[..., rest]
            _sweep(sub, W, d)
            for k, v in sub.items():
                a[k][rest] = v
            V[..., rest] = W
    return np.stack([a[i, i] for i in range(d)]), V


_EPS2 = np.finfo(float).eps ** 2
_TINY = np.finfo(float).tiny


def _unit(y, fallback):
    """Columns of y (d, t) normalized; where one is zero, ``fallback(where)`` supplies it."""
    n = np.sqrt(np.sum(y * y, axis=0))
    zero = np.flatnonzero(n == 0.0)
    if zero.size:
        n[zero] = 1.0
    u = y / n
    if zero.size:
        u[:, zero] = fallback(zero)
    return u


def _cross(a, b):
    return np.stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def _orthogonal_unit(u):
    """A unit vector orthogonal to each unit column of u (3, k)."""
    e = np.zeros_like(u)
    e[np.argmin(np.abs(u), axis=0), np.arange(u.shape[1])] = 1.0
    w = _cross(u, e)
    return w / np.sqrt(np.sum(w * w, axis=0))


def svd_rv(F):
    """Rotation-variant SVD of (d, d, t) matrices: ``F = U diag(sigma) V^T``.

    Returns
    -------
    U, V : (d, d, t) float arrays
        Rotations (det +1); column n of U is ``U[:, n]``.
    sigma : (d, t) float array
        Decreasing in magnitude; only the last may be negative, with the sign of det F.

    V holds the eigenvectors of ``F^T F`` (sorted, last column flipped if det V < 0); the
    columns of U are ``F v_n`` orthonormalized in turn, the last one the cross product (2D: the
    first turned by 90 degrees), so that ``sigma_n = u_n . F v_n`` carries det F's sign.
    A rank-deficient F gets any valid completion of U.
    """
    d, t = F.shape[0], F.shape[-1]
    lam, V = jacobi_eigh(matmul(np.swapaxes(F, 0, 1), F))
    # sort by decreasing eigenvalue with compare-swaps; V, a product of rotations, then has det -1
    # exactly where an odd number of swaps was made
    odd = np.zeros(t, dtype=bool)
    for p, q in ((0, 1), (1, 2), (0, 1)) if d == 3 else ((0, 1),):
        swap = lam[p] < lam[q]
        lam[p], lam[q] = np.where(swap, lam[q], lam[p]), np.where(swap, lam[p], lam[q])
        V[:, p], V[:, q] = np.where(swap, V[:, q], V[:, p]), np.where(swap, V[:, p], V[:, q])
        odd ^= swap
    V[:, d - 1] *= np.where(odd, -1.0, 1.0)
    Y = matmul(F, V)                                      # column n: F v_n
    U = np.empty_like(Y)
    U[:, 0] = _unit(Y[:, 0], lambda where: np.eye(d)[:, :1])
    if d == 2:
        U[0, 1], U[1, 1] = -U[1, 0], U[0, 0]
    else:
        u0, y = U[:, 0], Y[:, 1]
        for _ in range(2):                                # Gram-Schmidt twice: orthogonal to round-off
            y = y - np.sum(u0 * y, axis=0) * u0
        U[:, 1] = _unit(y, lambda where: _orthogonal_unit(u0[:, where]))
        U[:, 2] = _cross(U[:, 0], U[:, 1])
    sigma = np.sum(U * Y, axis=0)
    for n in range(1, d):          # equal singular values may come out in either order by round-off
        sigma[n] = np.copysign(np.minimum(np.abs(sigma[n]), np.abs(sigma[n - 1])), sigma[n])
    return U, sigma, V


def det_derivatives(sigma):
    """Derivatives of ``J = prod(sigma)`` in the singular values (d, t).

    Returns
    -------
    c : (d, t) float array
        ``dJ / dsigma_i``, the product of the other singular values.
    C : (d, d, t) float array
        ``d^2 J / dsigma_i dsigma_j``: 0 on the diagonal, the remaining singular value off it
        (3D) or 1 (2D).
    other : (p, t) float array
        That off-diagonal value for each pair of ``pairs(d)``.
    """
    d, t = sigma.shape
    if d == 2:
        c, other = sigma[::-1].copy(), np.ones((1, t))
    else:
        c = np.stack([sigma[1] * sigma[2], sigma[0] * sigma[2], sigma[0] * sigma[1]])
        other = np.stack([sigma[2], sigma[1], sigma[0]])
    C = np.zeros((d, d, t))
    for n, (i, j) in enumerate(pairs(d)):
        C[i, j] = C[j, i] = other[n]
    return c, C, other


def positive_definite(A):
    """Whether each symmetric A (d, d, t) is positive definite: Sylvester's criterion on the leading minors, (t,)."""
    ok = (A[0, 0] > 0) & (A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0] > 0)
    return ok & (det(A) > 0) if A.shape[0] == 3 else ok


def clamp(A, flip, twist):
    """The eigensystem with every eigenvalue clamped at 0.

    A is projected through its own eigenvectors (``jacobi_eigh``), only where it is not
    positive definite (``positive_definite``; a PSD A is returned unchanged, as a projection
    would, up to round-off).
    """
    bad = np.flatnonzero(~positive_definite(A))
    if bad.size:
        lam, W = jacobi_eigh(A[..., bad])
        A = A.copy()
        A[..., bad] = matmul(W * np.maximum(lam, 0.0)[None], np.swapaxes(W, 0, 1))
    return A, np.maximum(flip, 0.0), np.maximum(twist, 0.0)


def hessian(U, V, A, flip, twist, project=False):
    """F-space Hessian (d*d, d*d, t), row-major F, from the eigensystem; eigenvalues clamped at 0 if `project`.

    A (d, d, t): Hessian in the singular values; flip, twist (p, t): pair-mode eigenvalues in
    ``pairs(d)`` order. Projection clamps the eigenvalues of A (``jacobi_eigh``) and of the pair
    modes. Symmetric to round-off (the assembly uses one triangle).
    """
    d, t = U.shape[0], U.shape[-1]
    if project:
        A, flip, twist = clamp(A, flip, twist)
    Ut, Vt = np.swapaxes(U, 0, 1), np.swapaxes(V, 0, 1)               # rows u_i, v_j
    O = (Ut[:, None, :, None] * Vt[None, :, None, :]).reshape(d, d, d * d, t)   # O[i, j] = u_i v_j^T, flat
    S = O[np.arange(d), np.arange(d)]                                   # scaling directions (d, d*d, t)
    H = (S[:, :, None] * matmul(A, S)[:, None, :]).sum(axis=0)          # S^T A S
    for n, (i, j) in enumerate(pairs(d)):
        f, w = O[i, j] + O[j, i], O[i, j] - O[j, i]                     # sqrt(2) x the flip / twist modes
        H += (0.5 * flip[n]) * outer(f, f) + (0.5 * twist[n]) * outer(w, w)
    return H
