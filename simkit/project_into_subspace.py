r"""Least-squares projection of a full-space vector into a subspace, in a mass norm."""
import numpy as np
import scipy.linalg
import scipy.sparse as sps

from . import _validate
from .solvers.sparse_solve import sparse_solve

# reduced systems up to this size are solved densely (a sparse B^T M B of a subspace is nearly full)
DENSE_SIZE = 2000


def project_into_subspace(y, B, M=None, BMB=None, BMy=None):
    r"""The coordinates z of the point of the subspace ``B z`` nearest to y in the M-norm.

    :math:`z = \arg\min_z \tfrac12 \lVert B z - y \rVert_M^2`, i.e. :math:`(B^\top M B)\, z = B^\top M y`

    Parameters
    ----------
    y : (N, 1) or (N,) float array
        The full-space vector (e.g. stacked positions or displacements).
    B : (N, r) float array or scipy sparse matrix
        Subspace basis, full column rank.
    M : (N, N) sparse or dense matrix, optional
        Symmetric positive definite norm (e.g. the mass matrix); default the identity.
    BMB : (r, r) matrix, optional
        Precomputed ``B^T M B`` (to project many vectors).
    BMy : (r, 1) or (r,) float array, optional
        Precomputed ``B^T M y`` (then y is not read).

    Returns
    -------
    z : (r, 1) float array
        The subspace coordinates (``B z`` is y itself when y lies in the subspace).
    """
    if not sps.issparse(B):
        B = _validate.finite_array(B, "B")
    if B.ndim != 2:
        raise ValueError(f"B: expected a basis of shape (N, r), got {B.shape}")
    N, r = B.shape
    if M is not None:
        M = _validate.square_matrix(M, "M", N)
    if BMy is None:
        y = _validate.stacked(y, "y", N)
        BMy = B.T @ (y if M is None else M @ y)
    BMy = _validate.stacked(np.asarray(BMy.todense() if sps.issparse(BMy) else BMy), "BMy", r)
    if BMB is None:
        BMB = B.T @ (B if M is None else M @ B)
    BMB = _validate.square_matrix(BMB, "BMB", r)
    if sps.issparse(BMB) and r > DENSE_SIZE:
        return sparse_solve(BMB, BMy[:, 0]).reshape(-1, 1)
    A = BMB.toarray() if sps.issparse(BMB) else np.asarray(BMB, dtype=float)
    try:
        return scipy.linalg.solve(A, BMy, assume_a="pos").reshape(-1, 1)
    except np.linalg.LinAlgError:
        raise ValueError("B: the basis is rank deficient in the M-norm (B^T M B is not positive definite)") from None
