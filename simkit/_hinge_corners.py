"""The one argument check of the plain hinge-angle element tier (``dihedral_angles_2d``, ``_3d``,
``_element``): valid positions and hinges, and no hinge without a derivative (a collapsed edge in
2D, a collapsed flap in 3D). Returns the hinges' corner positions for the unchecked kernels.

"Collapsed" is the fast path's own test (``simkit._hinge_angle``'s ``degenerate``, one relative
tolerance, ``SLIVER_TOLERANCE``): a hinge the fast path clamps to zero derivatives is exactly a
hinge the element tier refuses.
"""
import numpy as np

from ._hinge_angle import SLIVER_TOLERANCE, hinges
from .dihedral_angles import _hinge_positions


def hinge_corners(X, C, dim=None):
    """Validated corners of the hinges C on the positions X: (x0, x1, x2) in 2D, (e0, e1, o0, o1) in 3D,
    each (c, dim). `dim` (2 or 3) requires that dimension; None infers it from X."""
    X, C = _hinge_positions(X, C)
    if dim is not None and X.shape[1] != dim:
        raise ValueError(f"X: the {dim}D element tier needs (n, {dim}) positions, got shape {X.shape}")
    geometry = hinges(np.ascontiguousarray(X.T), C)
    geometry.derived()
    if geometry.degenerate.any():
        k = int(np.argmax(geometry.degenerate))
        if X.shape[1] == 2:
            raise ValueError(f"C: hinge {k} has a collapsed edge (shorter than {SLIVER_TOLERANCE:g} times the "
                             "hinge's size); its angle has no derivative")
        apex = 2 if not geometry.A0[k] > SLIVER_TOLERANCE ** 2 * geometry.ee[k] ** 2 else 3
        raise ValueError(f"C: hinge {k} has a collapsed flap (apex C[:, {apex}] within {SLIVER_TOLERANCE:g} edge "
                         "lengths of the edge line, or a zero-length edge); its angle has no derivative")
    return tuple(X[C[:, k]] for k in range(C.shape[1]))
