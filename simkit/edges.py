"""Unique undirected edges of a triangle or tetrahedron mesh."""
import numpy as np

from . import _validate

# local vertex pairs of each simplex edge, by vertices per simplex
_SIMPLEX_EDGES = {3: np.array([[0, 1], [1, 2], [2, 0]]),
                  4: np.array([[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]])}


def edges(T):
    """Every edge of a simplex mesh, once.

    Parameters
    ----------
    T : (k, 3) or (k, 4) int array
        Triangles or tetrahedra.

    Returns
    -------
    E : (m, 2) int array
        Undirected edges, smaller vertex index first, rows in lexicographic order (upstream
        simkit's and libigl's order). The springs of a cloth are ``E``.
    """
    T = _validate.index_array(T, "T", (3, 4), np.iinfo(np.int64).max)
    pairs = np.sort(T[:, _SIMPLEX_EDGES[T.shape[1]]].reshape(-1, 2), axis=1)
    return np.unique(pairs, axis=0)
