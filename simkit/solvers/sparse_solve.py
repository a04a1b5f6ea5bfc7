r"""The sparse linear solve of a Newton step: ``H u = r`` with H symmetric.

Chosen by measurement (``benchmarks/bench_step.py`` and ``benchmarks/bench_3d.py``, solver
tables in ``benchmarks/README.md``):

- From ``CHOLESKY_MIN_SIZE`` unknowns up, a sparse Cholesky factorization, CHOLMOD (supernodal,
  AMD ordering, OpenBLAS) from the ``cvxopt`` wheel, when it is installed (the optional
  ``fast`` extra; the course's lock file pins it). Its ordering and symbolic factorization
  depend only on the sparsity pattern and are kept (``_cholesky``, cached on the pattern), so
  every later Newton iteration and time step with the same pattern pays the numeric
  factorization and two triangular solves only: at the 2,700 unknowns of a 30 x 30 cloth that
  is about 5 ms against 21 ms for SuperLU below (CPU time, same run). A matrix that is not
  positive definite (an exact Hessian, ``psd=False``) makes CHOLMOD stop, and the solve
  continues with SuperLU.
- Otherwise scipy's SuperLU with the symmetric ``MMD_AT_PLUS_A`` column ordering in symmetric
  mode, i.e. diagonal pivots preferred (``diag_pivot_thresh``), so the rows follow the same
  fill-reducing order as the columns: on the 30,000-unknown cloth Hessian 9.2 M entries of
  fill against 16.4 M for ``spsolve``'s default (COLAMD columns, partial row pivoting), and
  about twice as fast. Small systems (chapter 011's 42 unknowns) always take this path: there
  Python overhead dominates, and their printed iterates stay bit for bit what they were.

Every solution is checked by its componentwise (Oettli-Prager) backward error
``max_i |H u - r|_i / (|H| |u| + |r|)_i``: each row is measured against its own scale, so a
1e10 penalty row cannot hide a residual as large as the solution on a soft cloth row, as the
normwise ``||H u - r|| / (||H|| ||u|| + ||r||)`` would. A solution that misses the check gets
one step of iterative refinement with the same factorization (one more pair of triangular
solves); if it still misses it, or the factorization breaks down, the system is refactored
with SuperLU's default partial pivoting (a symmetric indefinite H, an exact Hessian with
``psd=False``, may need off-diagonal pivots), refined once the same way. A singular H raises.
"""
import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla

from .._cache import ArrayKeyedCache

try:
    import cvxopt
    import cvxopt.cholmod
except ImportError:      # the optional ``fast`` extra is not installed: SuperLU only
    cvxopt = None

# systems with at least this many unknowns use the Cholesky path (when cvxopt is installed)
CHOLESKY_MIN_SIZE = 1000

# a diagonal pivot is kept unless it is below this fraction of its column's largest entry
DIAG_PIVOT_THRESHOLD = 0.01
# componentwise backward error above which a solution is refined, then refactored (a stable
# factorization gives a few machine epsilons)
BACKWARD_ERROR_TOLERANCE = 1e-10


def componentwise_backward_error(H, u, r):
    r"""Oettli-Prager backward error :math:`\max_i |H u - r|_i / (|H| |u| + |r|)_i` (0/0 counts as 0).

    Parameters
    ----------
    H : (N, N) scipy sparse matrix
    u, r : (N,) float arrays

    Returns
    -------
    omega : float
        The smallest relative perturbation of each entry of H and r that makes u exact; inf
        for a non-finite u.
    """
    if not np.isfinite(u).all():
        return np.inf
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        residual = np.abs(H @ u - r)
        scale = abs(H) @ np.abs(u) + np.abs(r)
        ratio = np.where(residual == 0, 0.0, residual / scale)
    return float(ratio.max(initial=0.0))


def _refined(lu, H, r):
    """Solve with the factorization lu; one step of iterative refinement if the check misses."""
    u = lu.solve(r)
    if componentwise_backward_error(H, u, r) <= BACKWARD_ERROR_TOLERANCE:
        return u, True
    with np.errstate(over="ignore", invalid="ignore"):
        u = u + lu.solve(r - H @ u)
    return u, componentwise_backward_error(H, u, r) <= BACKWARD_ERROR_TOLERANCE


class _Cholesky:
    """CHOLMOD's symbolic factorization of one sparsity pattern, and the lower-triangle gather of H's data."""

    def __init__(self, H):
        N = H.shape[0]
        cols = np.repeat(np.arange(N), np.diff(H.indptr))
        self.lower = np.flatnonzero(H.indices >= cols)
        self.matrix = cvxopt.spmatrix(cvxopt.matrix(H.data[self.lower]),
                                      cvxopt.matrix(H.indices[self.lower].astype(np.int64)),
                                      cvxopt.matrix(cols[self.lower].astype(np.int64)), (N, N))
        self.factor = cvxopt.cholmod.symbolic(self.matrix, uplo="L")

    def factorize(self, H):
        """Numeric factorization of H (this pattern); False when H is not positive definite."""
        self.matrix.V = cvxopt.matrix(H.data[self.lower])
        try:
            cvxopt.cholmod.numeric(self.matrix, self.factor)
        except ArithmeticError:
            return False
        return self

    def solve(self, r):
        b = cvxopt.matrix(r)
        cvxopt.cholmod.solve(self.factor, b)
        return np.asarray(b).reshape(-1)


_cholesky_patterns = ArrayKeyedCache()


def _cholesky(H):
    """The cached ``_Cholesky`` of H's pattern, numerically factorized; None if H is not definite."""
    chol = _cholesky_patterns.get((H.shape[0],), (H.indptr, H.indices), lambda: _Cholesky(H))
    return chol.factorize(H) or None


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
        :math:`u = H^{-1} r`, with componentwise backward error below ``BACKWARD_ERROR_TOLERANCE``
        unless H is (numerically) singular.

    Raises
    ------
    RuntimeError
        From SuperLU when H is exactly singular.
    """
    H = sps.csc_matrix(H)
    if not H.has_canonical_format:
        H = H.copy()
        H.sum_duplicates()
    r = np.asarray(r, dtype=float).reshape(-1)
    if cvxopt is not None and H.shape[0] >= CHOLESKY_MIN_SIZE:
        chol = _cholesky(H)
        if chol is not None:
            u, ok = _refined(chol, H, r)
            if ok:
                return u
    try:
        lu = spla.splu(H, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=DIAG_PIVOT_THRESHOLD,
                       options={"SymmetricMode": True})
        u, ok = _refined(lu, H, r)
        if ok:
            return u
    except RuntimeError:
        pass
    return _refined(spla.splu(H), H, r)[0]
