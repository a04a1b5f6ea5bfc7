r"""A mass-spring body built from a mesh: its potential (springs and gravity) and its lumped mass.

The springs are the strain-normalized ``SpringEnergy`` on the mesh's edges, with ``vol = l0``
so that ``ym`` is a force per unit strain (``EA`` of a rod, ``Y`` times the spacing of cloth):
spring e pulls with ``ym (l_e - l0_e) / l0_e``. The mass is ``simkit.massmatrix``'s lumping of
the mesh's simplices, gravity ``simkit.gravity_force`` of the same mass.
"""
import numpy as np
import scipy.sparse as sps

from .. import _validate
from ..edge_displacement_jacobian import edge_displacement_jacobian
from ..edge_lengths import edge_lengths
from ..edges import edges
from ..gravity_force import gravity_force
from ..massmatrix import massmatrix
from .base import Sum
from .gravity import Gravity
from .springs import SpringEnergy


class SpringBody(Sum):
    r"""The potential of a mass-spring body, springs + gravity, carrying its lumped mass matrix.

    :math:`\Psi(x) = \sum_e l_{0,e}\, \tfrac12 Y \big(\tfrac{l_e - l_{0,e}}{l_{0,e}}\big)^2 - f_g^\top x`, :math:`f_g` = ``gravity_force(X, T, a, rho)``

    Parameters
    ----------
    X : (n, dim) float array
        Rest positions, dim 2 or 3.
    T : (t, s) int array
        The simplices whose measure carries the mass: edges (s = 2), triangles or tetrahedra.
    E : (m, 2) int array, optional
        The springs (default: ``simkit.edges(T)``, or T itself when T holds edges).
    ym : float or (m,) float array, keyword-only
        Stiffness Y of each spring as a force per unit strain, >= 0.
    rho : float, optional, keyword-only
        Mass per unit length, area or volume of T (default 1).
    a : float, optional, keyword-only
        Acceleration of gravity along y (default -9.8).

    Attributes
    ----------
    X : (n, dim) float array
    n, dim : int
    mass : (n,) float array
        Lumped mass of each node.
    M : (n*dim, n*dim) csc_matrix
        The diagonal mass matrix of the stacked coordinates.
    springs : SpringEnergy
    gravity : Gravity
    terms : (springs, gravity)

    Notes
    -----
    A body is a ``Sum``: ``body + contact + friction`` is a scene's potential, and
    ``simkit.integrators.simulate(potential, body.M, body.X.reshape(-1, 1), h, steps)`` runs it.
    Several bodies are one body on their merged mesh (``simkit.combine_meshes``).
    """

    def __init__(self, X, T, E=None, *, ym, rho=1.0, a=-9.8):
        self.X = _validate.positions(X, "X")
        self.n, self.dim = self.X.shape
        T = np.asarray(T)
        if E is None:
            E = T if T.ndim == 2 and T.shape[1] == 2 else edges(T)
        mass = massmatrix(self.X, T, rho=rho)
        self.mass = np.asarray(mass.diagonal(), dtype=float)
        self.M = sps.kron(sps.diags(self.mass), sps.eye(self.dim), format="csc")
        J = sps.kron(edge_displacement_jacobian(self.X, E), sps.eye(self.dim), format="csc")
        l0 = edge_lengths(self.X, E).reshape(-1, 1)
        self.springs = SpringEnergy(J, ym, l0.copy(), l0)
        self.gravity = Gravity(gravity_force(self.X, T, a=a, rho=rho))
        super().__init__(self.springs, self.gravity)
