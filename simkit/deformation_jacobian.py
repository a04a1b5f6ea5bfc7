"""The constant linear map from stacked node positions to every element's deformation gradient."""
import numpy as np
import scipy.sparse as sps

from . import _validate
from .volume import check_orientation, signed_measures


def shape_gradients(X, T):
    r"""Gradients of the linear shape functions of each simplex, unchecked.

    :math:`F = D_s D_m^{-1} = \sum_a x_a \otimes \nabla N_a`, with
    :math:`D_m = [X_1 - X_0, \dots, X_d - X_0]`

    ``X`` (n, d) and ``T`` (k, d+1) are validated, positively oriented rest simplices.
    Returns ``G`` (k, d+1, d) with ``G[e, a] = grad N_a`` (rows sum to zero).
    """
    Dm = (X[T[:, 1:]] - X[T[:, :1]]).transpose(0, 2, 1)       # columns X_{m+1} - X_0
    Dm_inv = np.linalg.inv(Dm)                                # rows are grad N_1 .. grad N_d
    return np.concatenate([-Dm_inv.sum(axis=1, keepdims=True), Dm_inv], axis=1)


def deformation_jacobian(X, T):
    r"""Sparse operator J with ``(J @ x).reshape(-1, dim, dim)`` = every element's F, row-major.

    :math:`F_{e,ij} = \sum_a x_{T_{ea},i} \, \partial_j N_a`, i.e. :math:`F = D_s D_m^{-1}` for linear
    (P1) triangles in 2D and tetrahedra in 3D.

    Parameters
    ----------
    X : (n, dim) float array
        Rest node positions, dim 2 or 3.
    T : (t, dim+1) int array
        Triangles (dim 2) or tetrahedra (dim 3), positively oriented.

    Returns
    -------
    J : (dim*dim*t, dim*n) scipy.sparse.csc_matrix
        Row ``e*dim*dim + i*dim + j`` holds ``dF_ij/dx`` of element e: ``dim + 1`` entries
        ``grad N_a[j]`` in the columns ``T[e, a]*dim + i``. ``x = X.reshape(-1, 1)`` gives
        ``F = I`` for every element.

    Raises
    ------
    ValueError
        If a simplex is negatively oriented or degenerate (listing the elements).
    """
    X = _validate.positions(X, "X", dims=(2, 3))
    n, dim = X.shape
    T = _validate.index_array(T, "T", dim + 1, n)
    check_orientation(X, T, signed_measures(X, T))
    t = T.shape[0]
    G = shape_gradients(X, T)                                         # (t, dim+1, dim)
    order = np.argsort(T, axis=1, kind="stable")                      # sorted columns within each row
    Ts = np.take_along_axis(T, order, axis=1)
    Gs = np.take_along_axis(G, order[:, :, None], axis=1)
    i = np.arange(dim)
    cols = Ts[:, None, None, :] * dim + i[None, :, None, None]        # (t, i, j, a)
    cols = np.broadcast_to(cols, (t, dim, dim, dim + 1))
    vals = np.broadcast_to(Gs.transpose(0, 2, 1)[:, None, :, :], (t, dim, dim, dim + 1))
    indptr = np.arange(0, t * dim * dim * (dim + 1) + 1, dim + 1)
    J = sps.csr_matrix((vals.reshape(-1), cols.reshape(-1), indptr), shape=(dim * dim * t, dim * n))
    J.has_sorted_indices = True
    return J.tocsc()
