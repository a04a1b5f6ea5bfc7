r"""The linear-blend-skinning map from per-weight affine transforms to stacked positions."""
import numpy as np
import scipy.sparse as sps

from . import _validate


def lbs_jacobian(V, W):
    r"""Sparse Jacobian of linear blend skinning: ``x = J z``.

    :math:`x_v = \sum_b W_{vb}\, A_b \begin{bmatrix} V_v \\ 1 \end{bmatrix}`, with ``z`` the
    transforms :math:`A_b` (dim x (dim+1)) stacked as ``z.reshape(k, dim+1, dim)[b] = A_b^T``
    (upstream simkit's order: weight, then homogeneous coordinate, then output component).

    Parameters
    ----------
    V : (n, dim) float array
        Rest positions, dim 2 or 3.
    W : (n, k) float array
        Weight of each of k transforms at each vertex.

    Returns
    -------
    J : (n*dim, k*(dim+1)*dim) scipy.sparse.csc_matrix
        ``J[v*dim + i, (b*(dim+1) + c)*dim + i] = W[v, b] * [V_v, 1][c]``: upstream's matrix
        (``kron(kron(W, 1^T) * kron(1^T, [V, 1]), I_dim)``, which upstream returns dense), without
        its zeros. The identity transforms ``A_b = [I | 0]`` give ``x = (sum_b W_vb) V_v``.
    """
    V = _validate.positions(V, "V", dims=(2, 3))
    n, dim = V.shape
    W = _validate.finite_array(W, "W")
    if W.ndim != 2 or W.shape[0] != n:
        raise ValueError(f"W: expected shape ({n}, k), one row per vertex of V, got {W.shape}")
    k = W.shape[1]
    V1 = np.hstack([V, np.ones((n, 1))])
    # column (b, c, i) holds W[v, b] * V1[v, c] in the rows v*dim + i: built straight in CSC order
    values = W.T[:, None, None, :] * V1.T[None, :, None, :]                     # (k, dim+1, 1, n)
    data = np.broadcast_to(values, (k, dim + 1, dim, n))
    rows = np.arange(n)[None, :] * dim + np.arange(dim)[:, None]                # (dim, n)
    indices = np.broadcast_to(rows, (k, dim + 1, dim, n))
    indptr = np.arange(k * (dim + 1) * dim + 1) * n
    J = sps.csc_matrix((data.reshape(-1), indices.reshape(-1), indptr), shape=(n * dim, k * (dim + 1) * dim))
    J.has_sorted_indices = True
    J.eliminate_zeros()
    return J
