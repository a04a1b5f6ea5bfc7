r"""Element tier of the 2D hinge angle: one triple's turning angle, gradient and Hessian, plainly.

A hinge of a plane curve is a vertex triple (x0, x1, x2) with the angle at x1. With the edge
vectors ``e1 = x1 - x0`` and ``e2 = x2 - x1``,

    theta = atan2(e1 x e2, e1 . e2),

the signed turning angle (0 for a straight line, > 0 for a left turn). theta is the polar angle
of e2 minus that of e1, and the polar angle ``phi(e)`` of a vector has

    d phi / d e = perp(e) / |e|^2,        d^2 phi / d e^2 = -(e perp(e)^T + perp(e) e^T) / |e|^4,

with ``perp(e) = (-e_y, e_x)``. The node derivatives follow through ``e1 = (-I, I, 0) x`` and
``e2 = (0, -I, I) x`` (Tamstorf and Grinspun 2013 give the same hinge one dimension up).

These functions are the readable reference (the oracle of the tests): ``simkit.dihedral_angles``
and ``simkit.energies.bending_*_x`` compute the same quantities in a fused, faster form
(``simkit._hinge_angle``). Every formula below is written for one hinge; the leading axis of
the corner arrays runs over the hinges by broadcasting. Derivatives are laid out per hinge in
the corner order ``[x0x, x0y, x1x, x1y, x2x, x2y]`` (upstream simkit's compact layout).
"""
import numpy as np

from ._hinge_corners import hinge_corners

_PERP = np.array([[0.0, -1.0], [1.0, 0.0]])          # perp(e) = _PERP @ e, a quarter turn
_FROM_NODES = (np.kron([[-1.0, 1.0, 0.0]], np.eye(2)),  # e1 = x1 - x0 as a (2, 6) map of the triple
               np.kron([[0.0, -1.0, 1.0]], np.eye(2)))  # e2 = x2 - x1


def _polar_gradient(e):
    """d phi / d e of the polar angle of e (..., 2)."""
    return (e @ _PERP.T) / np.sum(e * e, axis=-1, keepdims=True)


def _polar_hessian(e):
    """d^2 phi / d e^2 of the polar angle of e (..., 2): (..., 2, 2)."""
    p = e @ _PERP.T
    ee = np.sum(e * e, axis=-1)[..., None, None]
    return -(e[..., :, None] * p[..., None, :] + p[..., :, None] * e[..., None, :]) / ee ** 2


def _angle(x0, x1, x2):
    e1, e2 = x1 - x0, x2 - x1
    cross = e1[..., 0] * e2[..., 1] - e1[..., 1] * e2[..., 0]
    return np.arctan2(cross, np.sum(e1 * e2, axis=-1))


def _gradient(x0, x1, x2):
    e1, e2 = x1 - x0, x2 - x1
    D1, D2 = _FROM_NODES
    return _polar_gradient(e2) @ D2 - _polar_gradient(e1) @ D1


def _hessian(x0, x1, x2):
    e1, e2 = x1 - x0, x2 - x1
    D1, D2 = _FROM_NODES
    return D2.T @ _polar_hessian(e2) @ D2 - D1.T @ _polar_hessian(e1) @ D1


def dihedral_angles_2d(X, C):
    r"""Signed turning angle of every vertex triple, computed plainly (the reference).

    Parameters
    ----------
    X : (n, 2) float array
        Node positions.
    C : (c, 3) int array
        Triples (x0, x1, x2), the angle sits at x1.

    Returns
    -------
    theta : (c, 1) float array
        :math:`\theta = \operatorname{atan2}(e_1 \times e_2,\ e_1 \cdot e_2)`, ``e1 = x1 - x0``,
        ``e2 = x2 - x1``; equal to ``simkit.dihedral_angles(X, C)``.
    """
    return _angle(*hinge_corners(X, C, 2)).reshape(-1, 1)


def dihedral_angles_2d_gradient_element(X, C):
    r"""Gradient of each triple's turning angle with respect to its three nodes.

    Parameters
    ----------
    X, C : (n, 2) float array, (c, 3) int array
        Positions and triples as for ``dihedral_angles_2d``, no triple with a collapsed edge
        (ValueError otherwise).

    Returns
    -------
    g : (c, 6) float array
        :math:`\partial\theta/\partial(x_0, x_1, x_2) = (-\nabla\phi(e_1),\ \nabla\phi(e_1) -
        \nabla\phi(e_2),\ \nabla\phi(e_2))` with :math:`\nabla\phi(e) = e^\perp / |e|^2`.
    """
    return _gradient(*hinge_corners(X, C, 2))


def dihedral_angles_2d_hessian_element(X, C):
    r"""Hessian of each triple's turning angle with respect to its three nodes (exact, unprojected).

    Parameters
    ----------
    X, C : (n, 2) float array, (c, 3) int array
        Positions and triples as for ``dihedral_angles_2d``, no triple with a collapsed edge
        (ValueError otherwise).

    Returns
    -------
    H : (c, 6, 6) float array
        :math:`D_2^T \nabla^2\phi(e_2) D_2 - D_1^T \nabla^2\phi(e_1) D_1` with ``D_i`` the maps
        from the triple's nodes to its edge vectors and
        :math:`\nabla^2\phi(e) = -(e\,e^{\perp T} + e^\perp e^T)/|e|^4`.
    """
    return _hessian(*hinge_corners(X, C, 2))
