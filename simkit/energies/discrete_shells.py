"""Discrete-shells bending: the 3D (triangle-pair) case of ``simkit.energies.bending``.

Density per interior edge (hinge quad (x0, x1, x2, x3), hinge edge (x1, x2))::

    psi = 1/2 * kappa * (theta - theta0)^2

with theta the signed dihedral angle of ``simkit.dihedral_angles``. These wrappers only
check that the hinges are 3D quads and delegate to the unified ``bending_*_x``.
"""
import numpy as np

from .bending import bending_energy_x, bending_gradient_x, bending_hessian_x


def _check_quads(C):
    shape = np.shape(C)
    if len(shape) != 2 or shape[1] != 4:
        raise ValueError(f"C: discrete shells need 3D hinge quads of shape (c, 4), got shape {shape}")


def discrete_shells_bending_energy(x, C, theta0, kappa):
    """Discrete-shells bending energy.

    Parameters
    ----------
    x : (n*3, 1) float array
        Stacked 3D positions.
    C : (c, 4) int array
        Hinge quads (x0, x1, x2, x3), hinge edge (x1, x2).
    theta0, kappa : (c, 1) or (c,) float arrays
        Rest dihedral angles and bending stiffness (>= 0).

    Returns
    -------
    energy : float
        ``sum_h 1/2 kappa_h (theta_h - theta0_h)^2``.
    """
    _check_quads(C)
    return bending_energy_x(x, C, theta0, kappa)


def discrete_shells_bending_gradient(x, C, theta0, kappa):
    """Gradient of ``discrete_shells_bending_energy``.

    Parameters
    ----------
    x : (n*3, 1) float array
        Stacked 3D positions.
    C : (c, 4) int array
        Hinge quads.
    theta0, kappa : (c, 1) or (c,) float arrays
        Rest angles and stiffness.

    Returns
    -------
    g : (n*3, 1) float array
        ``sum_h kappa_h (theta_h - theta0_h) grad theta_h``.
    """
    _check_quads(C)
    return bending_gradient_x(x, C, theta0, kappa)


def discrete_shells_bending_hessian(x, C, theta0, kappa, *, psd=False):
    """Hessian of ``discrete_shells_bending_energy``.

    Parameters
    ----------
    x : (n*3, 1) float array
        Stacked 3D positions.
    C : (c, 4) int array
        Hinge quads.
    theta0, kappa : (c, 1) or (c,) float arrays
        Rest angles and stiffness.
    psd : bool, optional, keyword-only
        Project each 12x12 hinge block (eigenvalue floor 1e-6); default False (exact).

    Returns
    -------
    H : (n*3, n*3) scipy.sparse.csc_matrix
        ``sum_h kappa_h (grad theta_h grad theta_h^T + (theta_h - theta0_h) hess theta_h)``.
    """
    _check_quads(C)
    return bending_hessian_x(x, C, theta0, kappa, psd=psd)
