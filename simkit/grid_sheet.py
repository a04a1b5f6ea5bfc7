"""A flat rectangular sheet triangulated on a regular grid."""
import numpy as np

from . import _validate

DIAGONALS = ("alternating", "right", "left")


def grid_sheet(nx, nz, width=1.0, depth=1.0, diagonals="alternating"):
    """Regular triangle mesh of a ``width`` x ``depth`` sheet lying flat in the plane y = 0.

    Parameters
    ----------
    nx, nz : int
        Nodes along x and along z, >= 2 each.
    width, depth : float, optional
        Extent along x and z (> 0); the sheet spans ``[0, width] x {0} x [0, depth]``.
    diagonals : {"alternating", "right", "left"}, optional
        How each grid cell is split in two: "right" along its (x+, z-) to (x-, z+) diagonal,
        "left" along the other, "alternating" in a checkerboard of both (the most isotropic).

    Returns
    -------
    V : (nx*nz, 3) float array
        Node ``i + nx*k`` sits at ``(width i / (nx-1), 0, depth k / (nz-1))``.
    F : (2 (nx-1)(nz-1), 3) int array
        Triangles oriented so that every normal points along +y (up, the opposite of
        ``simkit.gravity_force``'s default pull).
    """
    nx = _validate.iteration_count(nx, "nx")
    nz = _validate.iteration_count(nz, "nz")
    if nx < 2 or nz < 2:
        raise ValueError(f"nx, nz: expected at least 2 nodes along each side, got ({nx}, {nz})")
    width = _validate.positive_scalar(width, "width")
    depth = _validate.positive_scalar(depth, "depth")
    if diagonals not in DIAGONALS:
        raise ValueError(f"diagonals: expected one of {DIAGONALS}, got {diagonals!r}")
    x, z = np.meshgrid(np.linspace(0.0, width, nx), np.linspace(0.0, depth, nz))
    V = np.column_stack([x.ravel(), np.zeros(nx * nz), z.ravel()])
    i, k = np.meshgrid(np.arange(nx - 1), np.arange(nz - 1))
    p00 = (i + nx * k).ravel()
    p10, p01, p11 = p00 + 1, p00 + nx, p00 + nx + 1
    right = np.stack([np.column_stack([p00, p01, p10]), np.column_stack([p10, p01, p11])], axis=1)
    left = np.stack([np.column_stack([p00, p11, p10]), np.column_stack([p00, p01, p11])], axis=1)
    use_left = {"right": False, "left": True}.get(diagonals, ((i + k) % 2 == 1).ravel())
    F = np.where(np.reshape(use_left, (-1, 1, 1)), left, right).reshape(-1, 3)
    return V, F
