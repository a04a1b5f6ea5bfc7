"""A rectangle triangulated on a regular grid (2D, for plane-strain finite elements)."""
import numpy as np

from . import _validate
from .grid_sheet import DIAGONALS, grid_sheet


def grid_rectangle(nx, ny, width=1.0, height=1.0, diagonals="alternating"):
    """Regular triangle mesh of the rectangle ``[0, width] x [0, height]``.

    Parameters
    ----------
    nx, ny : int
        Nodes along x and along y, >= 2 each ((nx-1) x (ny-1) cells).
    width, height : float, optional
        Extent along x and y (> 0).
    diagonals : {"alternating", "right", "left"}, optional
        How each cell is split in two: "right" along its (x+, y-) to (x-, y+) diagonal, "left"
        along the other, "alternating" in a checkerboard of both. Same diagonals make linear
        triangles lock more in bending (see the FEM chapter); alternating is the default.

    Returns
    -------
    X : (nx*ny, 2) float array
        Node ``i + nx*j`` sits at ``(width i / (nx-1), height j / (ny-1))``.
    T : (2 (nx-1)(ny-1), 3) int array
        Triangles, all counter-clockwise (positive signed area), two per cell in cell order.
    """
    nx = _validate.integer(nx, "nx", low=2)
    ny = _validate.integer(ny, "ny", low=2)
    width = _validate.positive_scalar(width, "width")
    height = _validate.positive_scalar(height, "height")
    _validate.choice(diagonals, "diagonals", DIAGONALS)
    # the sheet's (x, z) plane is this rectangle's (x, y) plane, seen from the other side
    V, F = grid_sheet(nx, ny, width, height, diagonals)
    return np.ascontiguousarray(V[:, [0, 2]]), np.ascontiguousarray(F[:, [0, 2, 1]])
