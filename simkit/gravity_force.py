"""Weight of the lumped node masses."""
import numpy as np

from . import _validate
from .massmatrix import lumped_masses


def gravity_force(X, T, a=-9.8, rho=1):
    """Gravity force on every node, acting along axis 1 (y).

    Parameters
    ----------
    X : (n, dim) float array
        Node positions, dim >= 2.
    T : (k, s) int array
        Simplices carrying the mass (edges, triangles or tetrahedra).
    a : float, optional
        Signed acceleration along axis 1 (default -9.8, downwards).
    rho : float or (k,) float array, optional
        Density per unit measure.

    Returns
    -------
    f : (n, dim) float array
        ``f[i] = m_i * a * e_y`` with ``m_i`` the lumped mass (see ``massmatrix``).
    """
    X = _validate.positions(X, "X", dims=(2, 3))
    a = _validate.real_scalar(a, "a")
    f = np.zeros_like(X)
    f[:, 1] = a * lumped_masses(X, T, rho)
    return f
