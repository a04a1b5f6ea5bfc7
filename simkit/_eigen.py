r"""The lowest eigenpairs of a symmetric generalized eigenproblem ``A b = e M b``.

Shared by ``linear_modal_analysis`` and ``skinning_eigenmodes``. ``A`` is symmetric positive
semi-definite (a stiffness or a Laplacian, possibly with rigid or constant null vectors) and
``M`` a positive diagonal (lumped) mass, or, for a constrained problem, a symmetric positive
semi-definite block matrix.

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

from .solvers import sparse_solve as _ss

# problems with at most this many unknowns go to dense LAPACK (faster there, and exact for any k)
DENSE_SIZE = 300


def relative_shift(A, M):
    """A negative shift far below A's smallest non-zero eigenvalue: ``-1e-8`` times ``mean(diag A / diag M)``.

    ``diag A / diag M`` estimates the top of the spectrum; the lowest non-zero eigenvalue of a
    mesh operator is at most about 1e-6 of that only on meshes of about a million elements
    along a side, so the shift keeps ``A - sigma M`` definite without slowing Lanczos.
    """
    a, m = A.diagonal(), M.diagonal()
    keep = m > 0
    scale = float(np.mean(a[keep] / m[keep])) if keep.any() else 1.0
    return -1e-8 * (scale if scale > 0 else 1.0)


def _factorization(S):
    """``S^{-1}`` as a LinearOperator, S sparse symmetric (Cholesky when it is definite and large)."""
    S = sps.csc_matrix(S)
    S.sum_duplicates()
    S.sort_indices()
    if _ss.cvxopt is not None and S.shape[0] >= _ss.CHOLESKY_MIN_SIZE:
        chol = _ss._cholesky(S)
        if chol is not None:
            return spla.LinearOperator(S.shape, matvec=chol.solve, dtype=float)
    lu = spla.splu(S, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=_ss.DIAG_PIVOT_THRESHOLD,
                   options={"SymmetricMode": True})
    return spla.LinearOperator(S.shape, matvec=lu.solve, dtype=float)


def _normalize_signs(B):
    """Flip each column so that its entry of largest magnitude (the first such) is positive."""
    rows = np.argmax(np.abs(B), axis=0)
    signs = np.where(B[rows, np.arange(B.shape[1])] < 0, -1.0, 1.0)
    return B * signs


def lowest_eigenpairs(A, M, k, sigma, C=None):
    r"""The k smallest eigenvalues of ``A b = e M b`` (subject to ``C b = 0``) and M-orthonormal eigenvectors.

    Parameters
    ----------
    A, M : (N, N) scipy sparse matrices
        Symmetric; M positive definite (on the null space of C), ``A - sigma M`` non-singular there.
    k : int
        1 <= k <= N - rank(C) (checked by the caller).
    sigma : float
        Shift below the wanted eigenvalues (the ones nearest it are returned).
    C : (m, N) scipy sparse matrix, optional
        Linear constraints on every eigenvector: a saddle-point problem
        ``[[A, C^T], [C, 0]] [b; l] = e [[M, 0], [0, 0]] [b; l]`` (dense: the problem restricted to
        C's null space).

    Returns
    -------
    E : (k,) float array
        Eigenvalues, ascending.
    B : (N, k) float array
        :math:`A B = M B \operatorname{diag}(E)`, :math:`B^\top M B = I`; each column's largest
        entry positive.
    """
    N = A.shape[0]
    m = 0 if C is None else C.shape[0]
    if N <= DENSE_SIZE or k >= N - m - 1:
        Z = np.eye(N) if C is None else scipy.linalg.null_space(C.toarray())
        E, Y = scipy.linalg.eigh(Z.T @ (A @ Z), Z.T @ (M @ Z), subset_by_index=[0, k - 1])
        B = Z @ Y
    else:
        if C is not None:
            zero = sps.csc_matrix((m, m))
            A = sps.bmat([[A, C.T], [C, zero]], format="csc")
            M = sps.block_diag([M, zero], format="csc")
        v0 = np.random.default_rng(0).standard_normal(A.shape[0])
        E, B = spla.eigsh(A, k=k, M=M, sigma=sigma, which="LM", OPinv=_factorization(A - sigma * M), v0=v0)
        order = np.argsort(E, kind="stable")
        E, B = E[order], B[:N, order]
    return E, _normalize_signs(B)
