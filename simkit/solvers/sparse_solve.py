r"""The sparse linear solve of a Newton step: ``H u = r`` with H symmetric.

Chosen by measurement (``benchmarks/bench_3d.py``, solver table; figures in
``benchmarks/README.md``): scipy's SuperLU with the symmetric ``MMD_AT_PLUS_A`` column
ordering in symmetric mode, i.e. diagonal pivots preferred (``diag_pivot_thresh``), so the
rows follow the same fill-reducing order as the columns. On the 30,000-unknown cloth
Hessian this fills in 9.2 M entries against 16.4 M for ``spsolve``'s default (COLAMD columns,
partial row pivoting) and factors about twice as fast (10.0 M and about 10% slower with the
same ordering and partial pivoting); the sparse Cholesky factorizations on the package index
were slower here (they ship or link the reference BLAS). It needs nothing beyond scipy.

A symmetric indefinite H (an exact Hessian, ``psd=False``) may need off-diagonal pivots:
every solution is checked by its backward error, and a factorization that breaks down or misses the
check is redone with SuperLU's default partial pivoting, so such an H still gets its exact
Newton step. A singular H raises.
"""
import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla

# a diagonal pivot is kept unless it is below this fraction of its column's largest entry
DIAG_PIVOT_THRESHOLD = 0.01
# normwise backward error ||H u - r|| / (||H|| ||u|| + ||r||) above which the symmetric-mode
# solution is rejected (a stable factorization gives a few machine epsilons)
BACKWARD_ERROR_TOLERANCE = 1e-10


def sparse_solve(H, r):
    r"""Solve a sparse symmetric linear system.

    Parameters
    ----------
    H : (N, N) scipy sparse matrix
        Symmetric, definite or not.
    r : (N,) float array
        Right-hand side.

    Returns
    -------
    u : (N,) float array
        :math:`u = H^{-1} r`.

    Raises
    ------
    RuntimeError
        From SuperLU when H is exactly singular.
    """
    H = sps.csc_matrix(H)
    r = np.asarray(r, dtype=float).reshape(-1)
    try:
        u = spla.splu(H, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=DIAG_PIVOT_THRESHOLD,
                      options={"SymmetricMode": True}).solve(r)
        if np.isfinite(u).all():
            with np.errstate(over="ignore", invalid="ignore"):   # huge entries: the caller checks the step
                scale = spla.norm(H, 1) * np.linalg.norm(u, 1) + np.linalg.norm(r, 1)
                residual = np.linalg.norm(H @ u - r, 1)
            if residual <= BACKWARD_ERROR_TOLERANCE * scale:
                return u
    except RuntimeError:
        pass
    return spla.splu(H).solve(r)
