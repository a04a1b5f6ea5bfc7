"""A box filled with tetrahedra on a regular grid, six per cube."""
import itertools

import numpy as np

from . import _validate


def _cube_tets():
    """Corner bits (x, y, z) of the 6 tets of the unit cube along its 000-111 diagonal, positive."""
    tets = []
    for perm in itertools.permutations(range(3)):
        corner = np.zeros(3, dtype=int)
        path = [corner.copy()]
        for axis in perm:
            corner[axis] = 1
            path.append(corner.copy())
        P = np.array(path)
        if np.linalg.det((P[1:] - P[0]).astype(float)) < 0:
            P = P[[0, 2, 1, 3]]
        tets.append(P)
    return np.array(tets)                      # (6, 4, 3)


_CUBE_TETS = _cube_tets()


def grid_box(nx, ny, nz, width=1.0, height=1.0, depth=1.0):
    """Regular tetrahedral mesh of the box ``[0, width] x [0, height] x [0, depth]``.

    Each grid cube is split into 6 tetrahedra around its diagonal from the (x-, y-, z-) corner
    to the (x+, y+, z+) corner (the Freudenthal / Kuhn subdivision); neighbouring cubes share
    the same face triangulation, so the mesh is conforming.

    Parameters
    ----------
    nx, ny, nz : int
        Nodes along x, y and z, >= 2 each.
    width, height, depth : float, optional
        Extent along x, y and z (> 0).

    Returns
    -------
    X : (nx*ny*nz, 3) float array
        Node ``i + nx*(j + ny*k)`` sits at ``(width i/(nx-1), height j/(ny-1), depth k/(nz-1))``.
    T : (6 (nx-1)(ny-1)(nz-1), 4) int array
        Tetrahedra, all positively oriented (``det[x1-x0, x2-x0, x3-x0] > 0``), six per cube in
        cube order, each of volume ``cube volume / 6``.
    """
    nx = _validate.integer(nx, "nx", low=2)
    ny = _validate.integer(ny, "ny", low=2)
    nz = _validate.integer(nz, "nz", low=2)
    width = _validate.positive_scalar(width, "width")
    height = _validate.positive_scalar(height, "height")
    depth = _validate.positive_scalar(depth, "depth")
    z, y, x = np.meshgrid(np.linspace(0.0, depth, nz), np.linspace(0.0, height, ny),
                          np.linspace(0.0, width, nx), indexing="ij")
    X = np.column_stack([x.ravel(), y.ravel(), z.ravel()])
    k, j, i = np.meshgrid(np.arange(nz - 1), np.arange(ny - 1), np.arange(nx - 1), indexing="ij")
    base = (i + nx * (j + ny * k)).ravel()
    offset = _CUBE_TETS @ np.array([1, nx, nx * ny])                  # (6, 4) node offsets
    T = (base[:, None, None] + offset[None]).reshape(-1, 4)
    return X, T
