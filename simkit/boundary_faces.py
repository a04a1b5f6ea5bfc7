"""The boundary triangles of a tetrahedral mesh, oriented outwards (for rendering a solid)."""
import numpy as np

from . import _validate

# faces of a positively oriented tet (x0, x1, x2, x3), each counter-clockwise seen from outside
_TET_FACES = np.array([[1, 2, 3], [0, 3, 2], [0, 1, 3], [0, 2, 1]])


def boundary_faces(T):
    """Triangles that belong to exactly one tetrahedron, with outward normals.

    Parameters
    ----------
    T : (k, 4) int array
        Positively oriented tetrahedra (as ``grid_box`` makes them; ``volume`` checks it).

    Returns
    -------
    F : (f, 3) int array
        Boundary triangles, ordered so that ``cross(x1 - x0, x2 - x0)`` points out of the
        solid; rows sorted by their sorted vertex triples.
    """
    T = _validate.index_array(T, "T", 4, np.iinfo(np.int64).max)
    faces = T[:, _TET_FACES].reshape(-1, 3)
    _, first, counts = np.unique(np.sort(faces, axis=1), axis=0, return_index=True, return_counts=True)
    return faces[first[counts == 1]]
