"""Signed hinge angles: turning angles of 2D polylines, dihedral angles of 3D triangle pairs."""
import numpy as np

from . import _validate
from ._hinge_angle import hinges


def _hinge_positions(X, C, name_X="X", name_C="C"):
    """Validate (X, C) as 2D triples or 3D quads; return (X (n, dim), C (c, dim + 1))."""
    X = _validate.positions(X, name_X, dims=(2, 3))
    q = 3 if X.shape[1] == 2 else 4
    C = _validate.index_array(C, name_C, (3, 4), X.shape[0])
    if C.shape[1] != q:
        raise ValueError(f"{name_C}: {X.shape[1]}D positions need hinges with {q} vertices "
                         f"(shape (c, {q})), got shape {C.shape}")
    return X, C


def dihedral_angles(X, C):
    r"""Signed angle of every hinge; the dimension is inferred from X.

    Parameters
    ----------
    X : (n, 2) or (n, 3) float array
        Node positions.
    C : (c, 3) or (c, 4) int array
        2D: triples (x0, x1, x2), the angle sits at the middle vertex x1.
        3D: quads (e0, e1, o0, o1) of two triangles (e0, e1, o0) and (e1, e0, o1) sharing the
        hinge edge (e0, e1), with o0 and o1 their apexes (``simkit.hinge_quads`` builds them;
        upstream simkit orders the same quad (o0, e0, e1, o1)).

    Returns
    -------
    theta : (c, 1) float array
        2D: :math:`\theta = \operatorname{atan2}(e_1 \times e_2,\ e_1 \cdot e_2)` with
        ``e1 = x1 - x0``, ``e2 = x2 - x1`` (0 for a straight line, > 0 for a left turn).
        3D: :math:`\theta = \operatorname{atan2}(\hat e \cdot (n_1 \times n_2),\ n_1 \cdot n_2)`
        with ``e = e1 - e0`` and the triangle normals ``n1 = e x (o0 - e0)``,
        ``n2 = (o1 - e0) x e``: 0 for a flat quad, beta when triangle (e1, e0, o1) is rotated by
        beta about the axis e (right-hand rule). On a consistently oriented mesh theta > 0 where
        the surface bends away from its normals (e.g. everywhere on a sheet rolled onto a
        cylinder with outward normals).
    """
    X, C = _hinge_positions(X, C)
    return hinges(np.ascontiguousarray(X.T), C).theta.reshape(-1, 1)
