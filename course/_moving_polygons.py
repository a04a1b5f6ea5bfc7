"""Polygons that an animation moves in place: one array behind every path of a PolyCollection.

``PolyCollection.set_verts`` builds a new Path per polygon each time it is called: for a mesh
of a few thousand triangles, several milliseconds per frame of a video. ``movable_polygons``
makes the collection's paths views of one array once; an animation then writes the frame's
vertices into that array, and the collection draws them with the same vertices and codes, so
the same pixels.
"""
import numpy as np


def movable_polygons(faces):
    """Make the paths of a PolyCollection of equal closed polygons views into one array, and return it.

    Parameters
    ----------
    faces : matplotlib.collections.PolyCollection
        Polygons of k corners each, given to it as an (f, k, 2) array (``set_verts`` closes each
        with its first corner again).

    Returns
    -------
    corners : (f, k + 1, 2) float array
        The paths' vertices: write ``corners[:, :k]`` and ``corners[:, k] = corners[:, 0]`` to
        move the polygons, then draw.
    """
    paths = faces.get_paths()
    corners = np.array([path.vertices for path in paths], dtype=float)
    # a Path keeps a float64 array as given: each path's vertices are a view of its row
    faces.set_verts_and_codes(corners, np.broadcast_to(paths[0].codes, corners.shape[:2]))
    return corners
