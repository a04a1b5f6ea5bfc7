"""Weight of the lumped node masses."""
import numpy as np

from . import _validate
from .massmatrix import lumped_masses


def gravity_force(X, T, a=-9.8, rho=1):
    r"""Gravity force on every node, acting along axis 1 (y).

    :math:`f_i = m_i \, a \, e_y`, with :math:`m_i` the lumped mass of ``massmatrix``

    Parameters
    ----------
    X : (n, dim) float array
        Node positions, dim >= 2.
    T : (k, s) int array
        Simplices carrying the mass (edges, triangles or tetrahedra).
    a : float, optional
        Signed acceleration along axis 1 (default -9.8, downwards).
    rho : float or (k,) / (k, 1) float array, optional
        Density per unit measure, >= 0.

    Returns
    -------
    f : (n, dim) float array
        Zero except column 1.
    """
    X = _validate.positions(X, "X", dims=(2, 3))
    a = _validate.real_scalar(a, "a")
    f = np.zeros_like(X)
    f[:, 1] = a * lumped_masses(X, T, rho)
    return f
