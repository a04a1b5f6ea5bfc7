"""Quadratic penalty pinning selected nodes to target positions."""
import numpy as np
import scipy.sparse as sps

from . import _validate


def dirichlet_penalty(bI, y, nv, gamma):
    """Quadratic form of a soft pin: ``1/2 x^T Q x + b^T x = gamma/2 |x[pinned] - y|^2 + const``.

    Parameters
    ----------
    bI : (k,) int array
        Pinned node indices, in [0, nv).
    y : (k, dim) float array
        Target position of each pinned node; dim is taken from here.
    nv : int
        Number of nodes (x has nv * dim rows, node-major).
    gamma : float
        Penalty stiffness, > 0.

    Returns
    -------
    Q : (nv*dim, nv*dim) scipy.sparse.csc_matrix
        ``gamma * S^T S`` with S selecting the pinned degrees of freedom.
    b : (nv*dim, 1) float array
        ``-gamma * S^T y`` (y flattened node-major); the dropped constant is ``gamma/2 |y|^2``.
    """
    nv = _validate.iteration_count(nv, "nv")
    bI = _validate.index_vector(bI, "bI", nv)
    y = _validate.positions(y, "y", dims=range(1, 4))
    if y.shape[0] != bI.shape[0]:
        raise ValueError(f"y: expected one row per pinned node ({bI.shape[0]}), got {y.shape[0]}")
    gamma = _validate.positive_scalar(gamma, "gamma")
    dim = y.shape[1]
    dofs = (bI[:, None] * dim + np.arange(dim)).reshape(-1)
    ndof = nv * dim
    Q = sps.coo_matrix((np.full(dofs.size, gamma), (dofs, dofs)), shape=(ndof, ndof)).tocsc()
    b = -gamma * np.bincount(dofs, weights=y.reshape(-1), minlength=ndof)
    return Q, b.reshape(-1, 1)
