"""Hinges of a triangle mesh: every interior edge with the apexes of its two triangles."""
import numpy as np

from . import _validate


def hinge_quads(F):
    """Interior edges of an oriented triangle mesh as hinge quads ``(e0, e1, o0, o1)``.

    Parameters
    ----------
    F : (f, 3) int array
        Triangles, consistently oriented (every interior edge is traversed once in each
        direction).

    Returns
    -------
    C : (c, 4) int array
        One row per interior edge, in the order of ``simkit.edges(F)``: the edge ``(e0, e1)``
        with ``e0 < e1``, then the apex ``o0`` of the triangle ``(e0, e1, o0)`` and the apex
        ``o1`` of the triangle ``(e1, e0, o1)``. This is the hinge order of
        ``simkit.dihedral_angles`` and ``simkit.energies.bending_*_x`` in 3D: with it the
        dihedral angle is positive where the surface bends away from its normals.
    """
    F = _validate.index_array(F, "F", 3, np.iinfo(np.int64).max)
    if (F[:, [0, 1, 2]] == F[:, [1, 2, 0]]).any():
        bad = np.flatnonzero((F[:, [0, 1, 2]] == F[:, [1, 2, 0]]).any(axis=1))[0]
        raise ValueError(f"F: triangle {bad} repeats a vertex: {F[bad].tolist()}")
    # half-edges a -> b of each triangle (a, b, c), with the apex c opposite them
    src = F.reshape(-1)
    dst = F[:, [1, 2, 0]].reshape(-1)
    apex = F[:, [2, 0, 1]].reshape(-1)
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    order = np.lexsort((src > dst, hi, lo))          # by edge, the half-edge lo -> hi first
    lo, hi, forward, apex = lo[order], hi[order], (src < dst)[order], apex[order]
    new_edge = np.ones(lo.size, dtype=bool)
    new_edge[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
    start = np.flatnonzero(new_edge)
    count = np.diff(np.append(start, lo.size))
    if (count > 2).any():
        e = start[np.argmax(count > 2)]
        raise ValueError(f"F: edge ({lo[e]}, {hi[e]}) is shared by {count.max()} triangles; "
                         "hinges need a manifold mesh (at most two triangles per edge)")
    start = start[count == 2]
    if not (forward[start] & ~forward[start + 1]).all():
        e = start[np.argmin(forward[start] & ~forward[start + 1])]
        raise ValueError(f"F: the two triangles at edge ({lo[e]}, {hi[e]}) traverse it in the same "
                         "direction; orient the mesh consistently")
    return np.column_stack([lo[start], hi[start], apex[start], apex[start + 1]])
