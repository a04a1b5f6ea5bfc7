"""Element tier of the hinge angle, either dimension: per-hinge gradients and Hessians of
``simkit.dihedral_angles``, dispatched on the positions' dimension to the plain reference
formulas of ``simkit.dihedral_angles_2d`` (vertex triples) and ``simkit.dihedral_angles_3d``
(quads, Tamstorf and Grinspun 2013)."""
from .dihedral_angles import _hinge_positions
from .dihedral_angles_2d import dihedral_angles_2d_gradient_element, dihedral_angles_2d_hessian_element
from .dihedral_angles_3d import dihedral_angles_3d_gradient_element, dihedral_angles_3d_hessian_element


def dihedral_angles_gradient_element(X, C):
    r"""Gradient of every hinge angle with respect to the hinge's own nodes.

    Parameters
    ----------
    X : (n, 2) or (n, 3) float array
        Node positions; the dimension selects triples or quads.
    C : (c, 3) or (c, 4) int array
        Hinges as for ``simkit.dihedral_angles``.

    Returns
    -------
    g : (c, 6) or (c, 12) float array
        :math:`\partial\theta_h / \partial x_{C_h}`, corners in C's column order.
    """
    X, C = _hinge_positions(X, C)
    return (dihedral_angles_2d_gradient_element if X.shape[1] == 2 else dihedral_angles_3d_gradient_element)(X, C)


def dihedral_angles_hessian_element(X, C):
    r"""Exact Hessian of every hinge angle with respect to the hinge's own nodes.

    Parameters
    ----------
    X : (n, 2) or (n, 3) float array
        Node positions; the dimension selects triples or quads.
    C : (c, 3) or (c, 4) int array
        Hinges as for ``simkit.dihedral_angles``.

    Returns
    -------
    H : (c, 6, 6) or (c, 12, 12) float array
        :math:`\partial^2\theta_h / \partial x_{C_h}^2`, corners in C's column order.
    """
    X, C = _hinge_positions(X, C)
    return (dihedral_angles_2d_hessian_element if X.shape[1] == 2 else dihedral_angles_3d_hessian_element)(X, C)
