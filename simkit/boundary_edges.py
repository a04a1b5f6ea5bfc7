"""The boundary edges of a triangle mesh, in the triangles' winding (upstream simkit's name)."""
import numpy as np

from . import _validate

# the edges of triangle (x0, x1, x2), each in its winding
_TRIANGLE_EDGES = ((0, 1), (1, 2), (2, 0))


def boundary_edges(F):
    """Edges that belong to exactly one triangle, oriented as in that triangle.

    Parameters
    ----------
    F : (f, 3) int array
        Triangles.

    Returns
    -------
    E : (b, 2) int array
        Boundary edges ``(a, b)`` in their triangle's winding: for counter-clockwise 2D
        triangles the body lies to the left of ``X[b] - X[a]`` and the outward normal is that
        tangent turned by -90 degrees. Rows in edge-slot order: the boundary edges ``(x0, x1)``
        of the triangles in order, then their ``(x1, x2)``, then their ``(x2, x0)``.
    """
    F = _validate.index_array(F, "F", 3, np.iinfo(np.int64).max)
    directed = np.concatenate([F[:, list(pair)] for pair in _TRIANGLE_EDGES])
    _, inverse, counts = np.unique(np.sort(directed, axis=1), axis=0, return_inverse=True, return_counts=True)
    return directed[counts[inverse.reshape(-1)] == 1]
