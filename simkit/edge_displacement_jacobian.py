"""The edge-difference operator of an edge list."""
import numpy as np
import scipy.sparse as sps

from . import _validate


def edge_displacement_jacobian(X, E):
    r"""Sparse operator mapping node values to edge differences (upstream simkit's sign).

    :math:`(J u)_e = u_i - u_j` for edge :math:`e = (i, j)`

    Parameters
    ----------
    X : (n, dim) float array
        Node positions (only n is used).
    E : (m, 2) int array
        Edges as node index pairs (i, j).

    Returns
    -------
    J : (m, n) scipy.sparse.csc_matrix
        +1 on ``E[:, 0]`` and -1 on ``E[:, 1]`` in each row, so ``J @ X`` gives
        ``X[E[:, 0]] - X[E[:, 1]]``. ``kron(J, eye(dim))`` maps stacked positions x to
        stacked edge vectors.
    """
    X = _validate.positions(X, "X", dims=range(1, 4))
    E = _validate.index_array(E, "E", 2, X.shape[0])
    m = E.shape[0]
    rows = np.repeat(np.arange(m), 2)
    vals = np.tile([1.0, -1.0], m)
    return sps.coo_matrix((vals, (rows, E.reshape(-1))), shape=(m, X.shape[0])).tocsc()
