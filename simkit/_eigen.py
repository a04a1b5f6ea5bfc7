r"""The lowest eigenpairs of a symmetric generalized eigenproblem ``A b = e M b`` with a lumped M.

Shared by ``linear_modal_analysis`` and ``skinning_eigenmodes``. ``A`` is symmetric positive
semi-definite (a stiffness or a Laplacian, possibly with rigid or constant null vectors) and
``M = diag(m)`` a positive lumped mass.

Large problems use ARPACK's symmetric Lanczos (``scipy.sparse.linalg.eigsh``) in shift-invert
mode about ``sigma``: every iteration applies ``(A - sigma M)^{-1}``, factorized once. With
``sigma`` below the spectrum ``A - sigma M`` is positive definite, so the factorization is the
project's sparse Cholesky (CHOLMOD from ``cvxopt``, its symbolic analysis cached on the
pattern, ``simkit.solvers.sparse_solve``), or SuperLU when that is not installed, the system is
small or it is indefinite (a saddle point). The start vector is seeded, so results repeat run
to run. Small problems (``DENSE_SIZE`` unknowns or fewer, or k close to N) are solved densely
with LAPACK's ``eigh``.
"""
import numpy as np
import scipy.linalg
import scipy.sparse as sps
import scipy.sparse.linalg as spla

from . import _validate
from .solvers import sparse_solve as _ss

# problems with at most this many unknowns go to dense LAPACK (faster there, and exact for any k)
DENSE_SIZE = 300
# ARPACK's relative accuracy of the Ritz values: eigen-residuals come out at most about 1e-13
# relative to ||A|| ||b|| (tests/test_*eigenmodes*.py check 1e-10), with about a fifth fewer
# solves than 0 (machine precision)
LANCZOS_TOL = 1e-10


def free_dofs(bI, n, dim, name="bI"):
    """Indices of the stacked degrees of freedom of the nodes not in `bI` (checked: indices in [0, n))."""
    if bI is None:
        return np.arange(n * dim)
    bI = _validate.index_vector(bI, name, n)
    keep = np.ones(n, dtype=bool)
    keep[bI] = False
    return (np.flatnonzero(keep)[:, None] * dim + np.arange(dim)).reshape(-1)


def mode_count(k, available, what):
    """k as an int in [1, available]; ValueError saying how many `what` there are."""
    k = _validate.integer(k, "k")
    if k < 1:
        raise ValueError(f"k: expected at least 1 mode, got {k}")
    if k > available:
        raise ValueError(f"k: expected at most {available} modes, the number of {what}, got {k}")
    return k


def relative_shift(A, m):
    """A negative shift far below A's smallest non-zero eigenvalue: ``-1e-8`` times ``mean(diag A / m)``.

    ``diag A / m`` estimates the top of the spectrum; the lowest non-zero eigenvalue of a mesh
    operator is at most about 1e-6 of that only on meshes of about a million elements along a
    side, so the shift keeps ``A - sigma M`` definite without slowing Lanczos.
    """
    a = A.diagonal()
    keep = m > 0
    scale = float(np.mean(a[keep] / m[keep])) if keep.any() else 1.0
    return -1e-8 * (scale if scale > 0 else 1.0)


def _inverse(S):
    """``v -> S^{-1} v`` for S sparse symmetric (Cholesky when it is definite and large, else SuperLU)."""
    S = sps.csc_matrix(S)
    S.sum_duplicates()
    S.sort_indices()
    if _ss.cvxopt is not None and S.shape[0] >= _ss.CHOLESKY_MIN_SIZE:
        chol = _ss._cholesky(S)
        if chol is not None:
            return chol.solve
    return spla.splu(S, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=_ss.DIAG_PIVOT_THRESHOLD,
                     options={"SymmetricMode": True}).solve


def _normalize_signs(B):
    """Flip each column so that its entry of largest magnitude (the first such) is positive."""
    rows = np.argmax(np.abs(B), axis=0)
    signs = np.where(B[rows, np.arange(B.shape[1])] < 0, -1.0, 1.0)
    return B * signs


def _start_vector(N):
    return np.random.default_rng(0).standard_normal(N)


def lowest_eigenpairs(A, m, k, sigma, C=None):
    r"""The k smallest eigenvalues of ``A b = e M b``, ``M = diag(m)`` (subject to ``C b = 0``), and M-orthonormal b.

    Parameters
    ----------
    A : (N, N) scipy sparse matrix
        Symmetric, ``A - sigma M`` positive definite (on the null space of C).
    m : (N,) float array
        Positive lumped masses.
    k : int
        1 <= k <= N - rank(C) (checked by the caller).
    sigma : float
        Shift below the wanted eigenvalues (the ones nearest it are returned).
    C : (c, N) scipy sparse matrix, optional
        Linear constraints on every eigenvector, solved as the saddle point
        ``[[A, C^T], [C, 0]] [b; l] = e [[M, 0], [0, 0]] [b; l]`` (dense: the problem restricted
        to C's null space).

    Returns
    -------
    E : (k,) float array
        Eigenvalues, ascending.
    B : (N, k) float array
        :math:`A B = M B \operatorname{diag}(E)`, :math:`B^\top M B = I`; each column's largest
        entry positive.

    Notes
    -----
    Unconstrained, Lanczos runs on the standard problem of :math:`M^{-1/2} A M^{-1/2}` (the lumped
    M is diagonal), whose shift-invert operator is :math:`M^{1/2} (A - \sigma M)^{-1} M^{1/2}`:
    ARPACK then needs no products with M.
    """
    N = A.shape[0]
    nc = 0 if C is None else C.shape[0]
    if N <= DENSE_SIZE or k >= N - nc - 1:
        Z = np.eye(N) if C is None else scipy.linalg.null_space(C.toarray())
        E, Y = scipy.linalg.eigh(Z.T @ (A @ Z), (Z.T * m) @ Z, subset_by_index=[0, k - 1])
        return E, _normalize_signs(Z @ Y)
    if C is None:
        solve = _inverse(A - sigma * sps.diags(m))
        root = np.sqrt(m)
        shift_invert = spla.LinearOperator((N, N), matvec=lambda v: root * solve(root * v), dtype=float)
        # in shift-invert mode ARPACK reads A only for its shape
        E, Y = spla.eigsh(shift_invert, k=k, sigma=sigma, which="LM", OPinv=shift_invert, v0=_start_vector(N),
                          tol=LANCZOS_TOL)
        B = Y / root[:, None]
    else:
        zero = sps.csc_matrix((nc, nc))
        A = sps.bmat([[A, C.T], [C, zero]], format="csc")
        M = sps.diags(np.concatenate([m, np.zeros(nc)]), format="csc")
        OPinv = spla.LinearOperator(A.shape, matvec=_inverse(A - sigma * M), dtype=float)
        E, B = spla.eigsh(A, k=k, M=M, sigma=sigma, which="LM", OPinv=OPinv, v0=_start_vector(N + nc),
                          tol=LANCZOS_TOL)
        B = B[:N]
    order = np.argsort(E, kind="stable")
    return E[order], _normalize_signs(B[:, order])
