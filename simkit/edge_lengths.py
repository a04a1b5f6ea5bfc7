"""Lengths of the edges of an edge list."""
import numpy as np

from . import _validate


def edge_lengths(X, E):
    r"""Euclidean length of every edge.

    :math:`l_e = \lVert x_i - x_j \rVert` for edge :math:`e = (i, j)`

    Parameters
    ----------
    X : (n, dim) float array
        Node positions.
    E : (m, 2) int array
        Edges as node index pairs.

    Returns
    -------
    l : (m,) float array
        ``|X[E[e, 0]] - X[E[e, 1]]|``.
    """
    X = _validate.positions(X, "X", dims=range(1, 4))
    E = _validate.index_array(E, "E", 2, X.shape[0])
    d = X[E[:, 0]] - X[E[:, 1]]
    return np.sqrt(np.einsum("ij,ij->i", d, d))
