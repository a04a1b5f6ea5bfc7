r"""Cubature elements and non-negative weights fitted to reduced forces (An, Kim and James 2008).

A cubature replaces the elastic energy's sum over every element by a weighted sum over a few,
:math:`\sum_e \mathrm{vol}_e\, \psi_e \approx \sum_{c} w_c\, \psi_{e_c}`. Here the elements and
weights are chosen for what a reduced simulation needs, its reduced forces: on training poses
:math:`z_p` the cubature's reduced force

.. math::
    f_w(z_p) = \sum_c w_c\, g_{e_c}(z_p), \qquad g_e(z) = (J_e B)^\top \operatorname{vec} P(F_e(z)),

is fitted to the exact one, :math:`f(z_p) = \sum_e \mathrm{vol}_e\, g_e(z_p)`, in the relative
least-squares sense, with :math:`w \ge 0` (an energy with negative weights is not bounded below):

.. math::
    \min_{w \ge 0}\ \frac{1}{s} \sum_{p=1}^{s} \frac{\lVert f_w(z_p) - f(z_p) \rVert^2}{\lVert f(z_p) \rVert^2} .

The elements are chosen greedily (An et al.'s greedy cubature): the residual of the current fit
is scored against every element's normalized force column, :math:`\rho_e = g_e \cdot r / \lVert g_e \rVert`,
the best-scoring elements join, and the weights of all chosen ones are refitted by non-negative
least squares (Lawson and Hanson, ``scipy.optimize.nnls``); elements whose weight drops to zero
leave. The score of every element is one pass over the mesh:
:math:`\sum_p \langle P_e(z_p), F_e(B r_p) \rangle`, the stresses of the training poses against the
deformation gradients of the residual's displacement field, so no matrix of all the elements'
columns is ever formed.
"""
import numpy as np
import scipy.linalg as sla
import scipy.sparse as sps
from scipy.optimize import nnls

from . import _validate
from ._small_matrices import components, det, stacked
from .deformation_jacobian import deformation_jacobian
from .energies import _hyperelastic as _he
from .energies import elastic as _elastic  # noqa: F401  (registers the materials)
from .volume import volume

# elements whose basis rows J_e B are formed at a time (the columns' norms, the chosen columns)
CHUNK = 1024
# elements joining per greedy round: one, then one more per GROWTH already chosen. An et al. add one
# per round; each round scores every element (a pass over the mesh), and on the benchmark's bar
# these batches reached the same force errors (within 15 %) in half the rounds of GROWTH = 8
GROWTH = 4
# a training pose whose largest stress is below this fraction of the largest Lame parameter is
# skipped: a rest or rigid pose, where every element's force vanishes and any weights reproduce it
ZERO_STRESS = 1e-8
# digits of the best score to which the greedy round compares the elements' scores (round-off below them)
SCORE_DIGITS = 9
# relative ridge of the chosen columns' Gram matrix before its Cholesky factor (near-equal columns)
RIDGE = 1e-12


def optimized_cubature(X, T, B, Z, k, mu, lam, material="neo-hookean", *, x0=None, tolerance=1e-3):
    r"""Choose at most k elements and weights >= 0 that reproduce the reduced forces of training poses.

    :math:`\min_{w \ge 0} \frac1s \sum_p \lVert \sum_c w_c g_{e_c}(z_p) - f(z_p) \rVert^2 / \lVert f(z_p) \rVert^2`,
    :math:`g_e(z) = (J_e B)^\top \operatorname{vec} P(F_e(B z + x_0))`, :math:`f = \sum_e \mathrm{vol}_e g_e`
    (An, Kim and James 2008: greedy choice of the elements, NNLS weights).

    Parameters
    ----------
    X : (n, d) float array
        Rest node positions, d 2 (plane strain) or 3.
    T : (t, d+1) int array
        Positively oriented triangles or tetrahedra: the candidate elements.
    B : (n*d, r) float array or scipy sparse matrix
        The subspace basis of ``x = B z + x0``.
    Z : (r, s) float array
        Training poses, one per column (an (r,) vector is one pose), e.g. from
        ``simkit.modal_training_poses``; none may invert an element of a material that needs
        det F > 0. Poses whose exact reduced force vanishes (rest, rigid motions) are skipped.
    k : int
        Largest number of cubature elements, 1 <= k <= t.
    mu, lam : float or (t,) / (t, 1) float arrays
        Lame parameters, as ``simkit.terms.ReducedElasticEnergy``'s.
    material : str, optional
        One of ``simkit.energies.elastic.MATERIALS`` (default 'neo-hookean').
    x0 : (n*d, 1) float array, optional, keyword-only
        Offset of the map (default zero).
    tolerance : float, optional, keyword-only
        Stop as soon as the root-mean-square relative force error over the training poses is
        below it (default 1e-3), or at k elements.

    Returns
    -------
    cI : (c,) int array
        The cubature elements, ascending indices into T, c <= k.
    cW : (c,) float array
        Their weights, > 0: ``ReducedElasticEnergy(X, T, B, mu, lam, material, x0=x0, cI=cI, cW=cW)``.
    """
    X = _validate.positions(X, "X", dims=(2, 3))
    n, d = X.shape
    T = _validate.index_array(T, "T", d + 1, n)
    t = T.shape[0]
    mat = _he.material(material)
    mu, lam = _he.parameters(mat, mu, lam, t)
    B = _basis(B, n * d)
    r = B.shape[1]
    Z = _validate.finite_array(Z, "Z")
    if Z.ndim == 1:
        Z = Z[:, None]
    if Z.ndim != 2 or Z.shape[0] != r or Z.shape[1] < 1:
        raise ValueError(f"Z: expected training poses of shape ({r}, s), one column of the {r} coordinates per pose, "
                         f"got {np.shape(Z)}")
    k = _validate.integer(k, "k")
    if not 1 <= k <= t:
        raise ValueError(f"k: expected between 1 and the {t} elements, got {k}")
    x0 = np.zeros((n * d, 1)) if x0 is None else _validate.stacked(x0, "x0", n * d)
    tolerance = _validate.positive_scalar(tolerance, "tolerance")
    J = deformation_jacobian(X, T).tocsr()
    fit = _Fit(mat, J, B, d, t, mu, lam, volume(X, T)[:, 0], Z, x0)
    return fit.greedy(k, tolerance)


def _basis(B, N):
    """B as a finite csr_matrix or float ndarray of shape (N, r), r >= 1."""
    if sps.issparse(B):
        B = sps.csr_matrix(B, dtype=float)
        _validate.finite(B.data, "B")
    else:
        B = _validate.finite_array(B, "B")
    if B.ndim != 2 or B.shape[0] != N or B.shape[1] < 1:
        raise ValueError(f"B: expected a basis of shape ({N}, r), one row per stacked coordinate of X, got {B.shape}")
    return B


class _Fit:
    """The training data of the fit: every element's stresses at every pose, normalized by the pose's force."""

    def __init__(self, mat, J, B, d, t, mu, lam, vol, Z, x0):
        self.J, self.B, self.d, self.t = J, B, d, t
        dd, s = d * d, Z.shape[1]
        F = J @ (B @ Z + x0)                                             # (t*d*d, s)
        P = np.empty((t, dd, s))
        for p in range(s):                                               # a few poses, every element each
            Fp = components(F[:, p].reshape(t, d, d))
            if mat.positive_det and not np.all(det(Fp) > 0):
                raise ValueError(f"Z: training pose {p} inverts {int(np.sum(~(det(Fp) > 0)))} elements (det F <= 0), "
                                 f"where {mat.name} is undefined; use smaller poses")
            P[:, :, p] = stacked(mat.P(Fp, mu, lam)).reshape(t, dd)
        force = np.asarray(B.T @ (J.T @ (P * vol[:, None, None]).reshape(t * dd, s)))    # exact f(z_p), (r, s)
        norms = np.linalg.norm(force, axis=0)
        kept = (np.abs(P).max(axis=(0, 1)) > ZERO_STRESS * max(np.abs(mu).max(), np.abs(lam).max())) & (norms > 0)
        if not kept.any():
            raise ValueError("Z: every training pose has a zero reduced force (rest or rigid poses); the fit needs "
                             "deformed poses")
        self.P = np.ascontiguousarray(P[:, :, kept] / norms[kept])      # (t, d*d, s'), the force normalization
        self.b = force[:, kept] / norms[kept]                            # (r, s'), unit columns
        self.column_norms = np.sqrt(np.concatenate([self.squared_norms(np.arange(c, min(c + CHUNK, t)))
                                                    for c in range(0, t, CHUNK)]))

    def basis_rows(self, elements):
        """``J_e B`` of the elements: (m, d*d, r)."""
        dd = self.d * self.d
        JB = self.J[(elements[:, None] * dd + np.arange(dd)).reshape(-1)] @ self.B
        return (JB.toarray() if sps.issparse(JB) else np.asarray(JB)).reshape(elements.size, dd, -1)

    def columns(self, elements):
        """The normalized force columns g_e(z_p) / |f(z_p)| of the elements, stacked by pose: (r*s', m)."""
        g = np.matmul(np.swapaxes(self.P[elements], 1, 2), self.basis_rows(elements))    # (m, s', r)
        return g.reshape(elements.size, -1).T

    def squared_norms(self, elements):
        """Squared norms of the elements' columns, from the Gram matrices of their rows J_e B: (m,)."""
        JB = self.basis_rows(elements)
        P = self.P[elements]
        return (np.matmul(np.matmul(JB, np.swapaxes(JB, 1, 2)), P) * P).sum(axis=(1, 2))

    def scores(self, residual):
        """Every element's normalized column against the residual (r, s'): (t,)."""
        dd = self.d * self.d
        gradients = (self.J @ np.asarray(self.B @ residual)).reshape(self.t, dd, -1)   # F_e of each B r_p
        return np.einsum("eip,eip->e", self.P, gradients) / self.column_norms

    def greedy(self, k, tolerance):
        b = self.b.T.reshape(-1)                                         # stacked by pose, as columns()
        scale = np.linalg.norm(b)
        chosen, weights, A = np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros((b.size, 0))
        residual, left = self.b, np.ones(self.t, dtype=bool)
        while chosen.size < k:
            score = np.where(left, self.scores(residual), -np.inf)
            count = min(1 + chosen.size // GROWTH, k - chosen.size)
            new = _best(score, count)
            new = new[score[new] > 0]
            if new.size == 0:
                break
            left[new] = False                                            # tried once: never offered again
            chosen, A = np.concatenate([chosen, new]), np.hstack([A, self.columns(new)])
            weights = _nonnegative_least_squares(A, b)
            kept = weights > 0
            chosen, weights, A = chosen[kept], weights[kept], A[:, kept]
            rest = b - A @ weights
            residual = rest.reshape(-1, self.b.shape[0]).T
            if np.linalg.norm(rest) < tolerance * scale:
                break
        order = np.argsort(chosen)
        return chosen[order], weights[order]


def _best(score, count):
    """Indices of the `count` highest scores, read to SCORE_DIGITS digits of the best, ties to the lower index.

    A symmetric mesh has elements whose scores are equal but for round-off, which BLAS threads or
    another CPU order differently: reading the scores to fewer digits makes the choice the same
    everywhere.
    """
    top = np.max(score)
    key = np.round(score / top, SCORE_DIGITS) if top > 0 else score
    return np.lexsort((np.arange(score.size), -key))[:count]


def _nonnegative_least_squares(A, b):
    """argmin ||A w - b|| over w >= 0, through the Cholesky factor R of A^T A: ``nnls(R, R^-T A^T b)`` (same minimizer,
    a square system of the few columns instead of the many rows)."""
    G = A.T @ A
    G[np.diag_indices_from(G)] += RIDGE * np.trace(G) / G.shape[0]
    R = sla.cholesky(G)
    w, _ = nnls(R, sla.solve_triangular(R, A.T @ b, trans="T"), maxiter=50 * G.shape[0])
    return w
