"""Element tier of the hinge angle, either dimension: per-hinge gradients and Hessians of
``simkit.dihedral_angles``, dispatched on the positions' dimension to the plain reference
formulas of ``simkit.dihedral_angles_2d`` (vertex triples) and ``simkit.dihedral_angles_3d``
(quads, Tamstorf and Grinspun 2013)."""
from .dihedral_angles_2d import _gradient as _gradient_2d, _hessian as _hessian_2d
from .dihedral_angles_3d import _derivatives as _derivatives_3d
from ._hinge_corners import hinge_corners


def dihedral_angles_gradient_element(X, C):
    r"""Gradient of every hinge angle with respect to the hinge's own nodes.

    Parameters
    ----------
    X, C : (n, 2) or (n, 3) float array, (c, 3) or (c, 4) int array
        Positions and hinges as for ``simkit.dihedral_angles``; the dimension selects triples or quads.

    Returns
    -------
    g : (c, 6) or (c, 12) float array
        :math:`\partial\theta_h / \partial x_{C_h}`, corners in C's column order.
    """
    corners = hinge_corners(X, C)
    return _gradient_2d(*corners) if len(corners) == 3 else _derivatives_3d(*corners)[0]


def dihedral_angles_hessian_element(X, C):
    r"""Exact Hessian of every hinge angle with respect to the hinge's own nodes.

    Parameters
    ----------
    X, C : (n, 2) or (n, 3) float array, (c, 3) or (c, 4) int array
        Positions and hinges as for ``simkit.dihedral_angles``; the dimension selects triples or quads.

    Returns
    -------
    H : (c, 6, 6) or (c, 12, 12) float array
        :math:`\partial^2\theta_h / \partial x_{C_h}^2`, corners in C's column order.
    """
    corners = hinge_corners(X, C)
    return _hessian_2d(*corners) if len(corners) == 3 else _derivatives_3d(*corners)[1]
