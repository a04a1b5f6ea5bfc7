"""Measure of each simplex (length, area or volume), refusing negatively oriented elements."""
import numpy as np

from . import _validate
from .massmatrix import simplex_measures


def signed_measures(X, T):
    r"""Signed area of 2D triangles or signed volume of tetrahedra, unchecked.

    :math:`|t|_\pm = \det[x_1 - x_0, \dots, x_d - x_0] / d!`

    ``X`` (n, d) and ``T`` (k, d+1) are already validated; the result is (k,).
    """
    e = X[T[:, 1:]] - X[T[:, :1]]                        # (k, d, d): row m is x_{m+1} - x_0
    if T.shape[1] == 3:
        return 0.5 * (e[:, 0, 0] * e[:, 1, 1] - e[:, 0, 1] * e[:, 1, 0])
    return np.einsum("ij,ij->i", e[:, 0], np.cross(e[:, 1], e[:, 2])) / 6.0


def check_orientation(X, T, signed, name="T"):
    """ValueError naming the elements of T that are negatively oriented or degenerate.

    A simplex is degenerate when its measure is below 1e-12 times its longest edge to the
    power d (d = dimension), so that the check does not depend on units.
    """
    d = T.shape[1] - 1
    e = X[T[:, 1:]] - X[T[:, :1]]
    scale = np.max(np.einsum("kmi,kmi->km", e, e), axis=1) ** (0.5 * d)
    bad = signed <= 1e-12 * scale
    if not bad.any():
        return
    which = np.flatnonzero(bad)
    shown = ", ".join(str(i) for i in which[:10]) + (", ..." if which.size > 10 else "")
    negative = signed[which] < 0
    kind = ("negatively oriented (signed measure < 0)" if negative.all() else
            "degenerate (zero measure)" if not negative.any() else "negatively oriented or degenerate")
    hint = ("; a negatively oriented simplex is fixed by swapping two of its vertices "
            "(T[:, [1, 2]] = T[:, [2, 1]] for those rows)" if negative.any() else "")
    raise ValueError(f"{name}: expected positively oriented simplices, found {which.size} of {T.shape[0]} "
                     f"{kind}: elements [{shown}]{hint}")


def volume(X, T):
    r"""Length, area or volume of every simplex.

    :math:`|t| = \det[x_1 - x_0, \dots, x_d - x_0] / d!` for full-dimensional simplices
    (triangles in 2D, tetrahedra in 3D), which must be positively oriented; edges and
    triangles in 3D have no orientation and get their unsigned measure.

    Parameters
    ----------
    X : (n, dim) float array
        Rest node positions, dim in 1..3.
    T : (k, s) int array
        Simplices: s = 2 (edges), 3 (triangles), 4 (tetrahedra; dim 3).

    Returns
    -------
    vol : (k, 1) float array
        Measure of each simplex (upstream simkit's shape).

    Raises
    ------
    ValueError
        If a triangle in 2D or a tetrahedron is negatively oriented or degenerate (upstream
        returns a negative tet volume); the message lists the elements.
    """
    X = _validate.positions(X, "X", dims=range(1, 4))
    T = _validate.index_array(T, "T", (2, 3, 4), X.shape[0])
    if T.shape[1] - 1 == X.shape[1] and X.shape[1] in (2, 3):
        signed = signed_measures(X, T)
        check_orientation(X, T, signed)
        return signed.reshape(-1, 1)
    return simplex_measures(X, T).reshape(-1, 1)
