"""The one argument check of the plain hinge-angle element tier (``dihedral_angles_2d``, ``_3d``,
``_element``): valid positions and hinges, and no hinge without a derivative (a collapsed edge in
2D, a collapsed flap in 3D). Returns the hinges' corner positions for the unchecked kernels."""
import numpy as np

from .dihedral_angles import _hinge_positions

DEGENERATE_TOL = 1e-12   # an edge (2D) or flap height (3D) below this fraction of the hinge's size has no angle


def hinge_corners(X, C, dim=None):
    """Validated corners of the hinges C on the positions X: (x0, x1, x2) in 2D, (e0, e1, o0, o1) in 3D,
    each (c, dim). `dim` (2 or 3) requires that dimension; None infers it from X."""
    X, C = _hinge_positions(X, C)
    if dim is not None and X.shape[1] != dim:
        raise ValueError(f"X: the {dim}D element tier needs (n, {dim}) positions, got shape {X.shape}")
    corners = tuple(X[C[:, k]] for k in range(C.shape[1]))
    (_check_triples if X.shape[1] == 2 else _check_quads)(*corners)
    return corners


def _check_triples(x0, x1, x2):
    l1, l2 = np.linalg.norm(x1 - x0, axis=1), np.linalg.norm(x2 - x1, axis=1)
    bad = np.minimum(l1, l2) <= DEGENERATE_TOL * np.maximum(l1, l2)
    if bad.any():
        raise ValueError(f"C: hinge {int(np.argmax(bad))} has a collapsed edge (length ratio below "
                         f"{DEGENERATE_TOL:g}); its angle has no derivative")


def _check_quads(e0, e1, o0, o1):
    e = e1 - e0
    ee = np.sum(e * e, axis=1)
    for k, o in ((2, o0), (3, o1)):
        doubled_area = np.linalg.norm(np.cross(e, o - e0), axis=1)
        bad = doubled_area <= DEGENERATE_TOL * np.maximum(ee, np.sum((o - e0) ** 2, axis=1))
        if bad.any():
            raise ValueError(f"C: hinge {int(np.argmax(bad))} has a collapsed flap (apex C[:, {k}] on the "
                             f"edge line, or a zero-length edge); its angle has no derivative")
