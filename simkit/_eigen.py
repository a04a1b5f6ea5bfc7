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

The returned basis is canonical, the same on every machine to round-off (``canonical_basis``):
an eigensolver returns each eigenvector with an arbitrary sign, and a cluster of equal
eigenvalues (a symmetric mesh's pairs, an unclamped body's rigid motions) in an arbitrary
orthonormal basis of its eigenspace, and LAPACK and ARPACK choose differently with the BLAS
thread count or kernel. Each cluster's basis is therefore replaced by one computed from its
eigenspace alone, and each column's sign fixed by a rule on its entries.
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
# consecutive eigenvalues closer than CLUSTER_RTOL times the larger (plus ZERO_RTOL times the operator's scale,
# so that null vectors computed as round-off join) form one cluster: round-off splits an exactly degenerate
# eigenvalue by up to about 1e-10 relative (a pair of tests/test_canonical_eigenbasis.py's free bar, 7e-11)
CLUSTER_RTOL = 1e-6
ZERO_RTOL = 1e-10
# seed of the probe vectors whose projections span each cluster's canonical basis
PROBE_SEED = 20260
# entries of a column within this fraction of its largest magnitude tie in the sign rule (mirror images)
SIGN_RTOL = 1e-6


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


def operator_scale(A, m):
    """``mean(diag A / m)``, the order of the largest eigenvalues of ``A b = e diag(m) b`` (1 if not positive)."""
    a = A.diagonal()
    keep = m > 0
    scale = float(np.mean(a[keep] / m[keep])) if keep.any() else 1.0
    return scale if scale > 0 else 1.0


def relative_shift(A, m):
    """A negative shift far below A's smallest non-zero eigenvalue: ``-1e-7 * operator_scale(A, m)``.

    ``diag A / m`` estimates the top of the spectrum, and the lowest non-zero eigenvalue of a mesh
    operator is a small fraction of it (on the benchmark's 4 m bars of 16k and 50k tetrahedra
    5e-5 and 2e-5 for the stiffness, 5e-4 and 2.5e-4 for the Laplacian): the shift keeps
    ``A - sigma M`` definite without slowing Lanczos. With null vectors (rigid motions, the
    constant) the factor's condition number is about ``1 / 1e-7``, and round-off in its solves
    moves the other eigenvectors by about 1e-11 (3e-10 with 1e-8: ``tests/test_canonical_eigenbasis.py``).
    """
    return -1e-7 * operator_scale(A, m)


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


def clusters(E, scale):
    """Where the clusters of ascending eigenvalues E start and end (exclusive): (c,) int arrays each.

    A cluster is a maximal run of consecutive eigenvalues whose gaps are at most
    ``CLUSTER_RTOL`` times the larger magnitude plus ``ZERO_RTOL * scale`` (``scale`` of the order of
    the largest eigenvalues, so that null vectors computed as round-off form one cluster at 0).
    """
    E = np.asarray(E, dtype=float)
    joined = np.diff(E) <= CLUSTER_RTOL * np.maximum(np.abs(E[:-1]), np.abs(E[1:])) + ZERO_RTOL * scale
    starts = np.flatnonzero(np.r_[True, ~joined])
    return starts, np.r_[starts[1:], E.size]


def probes(N, c):
    """The first c probe vectors of length N, standard normal from ``PROBE_SEED``: (N, c); column j is the same for any c."""
    return np.random.default_rng(PROBE_SEED).standard_normal((c, N)).T


def canonical_basis(E, B, MB, k, scale):
    r"""The first k eigenvectors in a basis fixed by their eigenspaces alone: the same on every machine to round-off.

    Within each cluster of c eigenvalues (``clusters``) the solver's columns :math:`B_c` are some
    M-orthonormal basis of the eigenspace S. They are replaced by the M-orthonormalized projections
    onto S of the probes :math:`p_1, \dots, p_c` (``probes``), in order (Gram-Schmidt): with
    :math:`(M B_c)^\top [p_1 \dots p_c] = Q R` that is :math:`B_c Q`, and any other M-orthonormal basis
    :math:`B_c G` of S (G orthogonal) gives :math:`G^\top Q` for Q, so the same :math:`B_c Q`. When k cuts
    a cluster, its first columns are kept: the orthonormalized projections of the first probes, a
    subspace of S that S alone decides. Then every column's sign is fixed (``normalize_signs``).

    Parameters
    ----------
    E : (K,) float array
        Ascending eigenvalues, K >= k; the cluster holding ``E[k-1]`` ends before ``E[K-1]``, or
        every eigenvalue of the problem is in E.
    B : (N, K) float array
        Their M-orthonormal eigenvectors, in the solver's basis.
    MB : (N, K) float array
        ``M @ B``.
    k : int
        Columns returned.
    scale : float
        The order of the operator's largest eigenvalues (for the cluster at 0).

    Returns
    -------
    B : (N, k) float array
    """
    starts, ends = clusters(E, scale)
    canonical = np.array(B[:, :k])
    multiple = np.flatnonzero((ends - starts > 1) & (starts < k))
    if multiple.size:
        P = probes(B.shape[0], int(np.max(ends[multiple] - starts[multiple])))
        for s, e in zip(starts[multiple], ends[multiple]):          # a few clusters, each a small QR
            Q, _ = np.linalg.qr(MB[:, s:e].T @ P[:, :e - s])
            kept = min(e, k) - s
            canonical[:, s:s + kept] = B[:, s:e] @ Q[:, :kept]
    return normalize_signs(canonical)


def normalize_signs(B):
    """Flip each column so that its entry of largest magnitude is positive.

    Entries within ``SIGN_RTOL`` of the largest magnitude tie (on a symmetric mesh a mode's extremes
    are mirror images, equal but for round-off), and the first of them decides: the rule then reads
    the same entry whatever round-off the solver added.
    """
    magnitude = np.abs(B)
    rows = np.argmax(magnitude >= (1 - SIGN_RTOL) * magnitude.max(axis=0), axis=0)
    return B * np.where(B[rows, np.arange(B.shape[1])] < 0, -1.0, 1.0)


def dense_eigenpairs(A, M):
    """Every eigenpair of the dense symmetric-definite pair ``A v = e M v``: E (r,) ascending, V (r, r) M-orthonormal,
    in the canonical basis (``canonical_basis``). Raises ``numpy.linalg.LinAlgError`` when M is not positive definite."""
    E, V = scipy.linalg.eigh(A, M)
    scale = float(np.abs(E).max()) or 1.0
    return E, canonical_basis(E, V, M @ V, E.size, scale)


def _start_vector(N):
    return np.random.default_rng(0).standard_normal(N)


class _Eigensolver:
    """``solver(k) -> (E, B)``: the k lowest eigenpairs, ascending and M-orthonormal in the solver's own basis and
    signs; every call shares one factorization (dense LAPACK for small problems or k close to their size)."""

    def __init__(self, A, m, sigma, C):
        self.A, self.m, self.sigma, self.C = A, m, sigma, C
        self.N, self.nc = A.shape[0], 0 if C is None else C.shape[0]
        self._null_space = self._shift_invert = self._saddle = None

    def __call__(self, k):
        if self.N <= DENSE_SIZE or k >= self.N - self.nc - 1:
            return self.dense(k)
        E, B = self.unconstrained(k) if self.C is None else self.constrained(k)
        order = np.argsort(E, kind="stable")
        return E[order], B[:, order]

    def dense(self, k):
        A, m, C, N = self.A, self.m, self.C, self.N
        if self._null_space is None:
            self._null_space = np.eye(N) if C is None else scipy.linalg.null_space(C.toarray())
        Z = self._null_space
        E, Y = scipy.linalg.eigh(Z.T @ (A @ Z), (Z.T * m) @ Z, subset_by_index=[0, k - 1])
        return E, Z @ Y

    def unconstrained(self, k):
        N, root = self.N, np.sqrt(self.m)
        if self._shift_invert is None:
            solve = _inverse(self.A - self.sigma * sps.diags(self.m))
            self._shift_invert = spla.LinearOperator((N, N), matvec=lambda v: root * solve(root * v), dtype=float)
        # in shift-invert mode ARPACK reads A only for its shape
        E, Y = spla.eigsh(self._shift_invert, k=k, sigma=self.sigma, which="LM", OPinv=self._shift_invert,
                          v0=_start_vector(N), tol=LANCZOS_TOL)
        return E, Y / root[:, None]

    def constrained(self, k):
        N, nc = self.N, self.nc
        if self._saddle is None:
            saddle = sps.bmat([[self.A, self.C.T], [self.C, sps.csc_matrix((nc, nc))]], format="csc")
            M = sps.diags(np.concatenate([self.m, np.zeros(nc)]), format="csc")
            OPinv = spla.LinearOperator(saddle.shape, matvec=_inverse(saddle - self.sigma * M), dtype=float)
            self._saddle = saddle, M, OPinv
        saddle, M, OPinv = self._saddle
        E, B = spla.eigsh(saddle, k=k, M=M, sigma=self.sigma, which="LM", OPinv=OPinv, v0=_start_vector(N + nc),
                          tol=LANCZOS_TOL)
        return E, B[:N]


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
        :math:`A B = M B \operatorname{diag}(E)`, :math:`B^\top M B = I`, in the canonical basis
        (``canonical_basis``): within a cluster of eigenvalues equal to ``CLUSTER_RTOL`` the
        orthonormalized projections of fixed probe vectors, each column's largest entry positive.

    Notes
    -----
    One eigenpair more than k is computed, and more while the k-th eigenvalue's cluster goes on,
    so that a cluster k cuts is known whole. Unconstrained, Lanczos runs on the standard problem
    of :math:`M^{-1/2} A M^{-1/2}` (the lumped M is diagonal), whose shift-invert operator is
    :math:`M^{1/2} (A - \sigma M)^{-1} M^{1/2}`: ARPACK then needs no products with M.
    """
    available = A.shape[0] - (0 if C is None else C.shape[0])
    scale = operator_scale(A, m)
    eigenpairs = _Eigensolver(A, m, sigma, C)
    want = min(k + 1, available)
    while True:
        E, B = eigenpairs(want)
        starts, ends = clusters(E, scale)
        if want == available or ends[np.searchsorted(starts, k - 1, side="right") - 1] < want:
            break
        want = min(available, want + 2 * (want - k))              # the k-th eigenvalue's cluster goes on
    return E[:k], canonical_basis(E, B, m[:, None] * B, k, scale)
