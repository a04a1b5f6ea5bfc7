"""The elastic energy of a triangle or tetrahedron mesh as an energy term of stacked positions."""
import numpy as np

from .. import _validate
from .._small_matrices import components
from ..deformation_jacobian import deformation_jacobian
from ..energies import _hyperelastic as _he
from ..energies import elastic as _elastic  # noqa: F401  (registers the materials)
from ..volume import volume
from .base import Term


class ElasticEnergy(Term):
    r"""Hyperelastic energy of a mesh, :math:`E(x) = \sum_e \mathrm{vol}_e\, \psi(F_e(x))`.

    Built once from the rest mesh (the deformation Jacobian, rest volumes and material
    parameters are checked and stored); each call only checks that x is a finite column of
    the right length.

    Parameters
    ----------
    X : (n, d) float array
        Rest node positions, d 2 (plane strain) or 3.
    T : (t, d+1) int array
        Positively oriented triangles or tetrahedra (ValueError naming them otherwise).
    mu, lam : float or (t,) / (t, 1) float arrays
        Lamé parameters, e.g. ``simkit.ympr_to_lame(E, nu)``; lam is ignored by 'arap'.
    material : str, optional
        One of ``simkit.energies.elastic.MATERIALS`` (default 'neo-hookean').
    psd : bool, optional, keyword-only
        Whether ``hessian`` projects each element's Hessian onto the PSD cone (default True).

    Attributes
    ----------
    J : (d*d*t, d*n) csc_matrix
        ``simkit.deformation_jacobian(X, T)``.
    vol : (t,) float array
        Rest measures ``simkit.volume(X, T)``.
    mu, lam : (t,) float arrays
    material : str
    n, dim : int
    size : int
        n * d, the number of stacked coordinates.

    Methods take stacked positions x of shape (n*d, 1) (or (n*d,)): ``energy(x)`` -> float
    (``+inf`` for an inverted neo-Hookean element), ``gradient(x)`` -> (n*d, 1),
    ``hessian(x)`` -> (n*d, n*d) csc_matrix.
    """

    def __init__(self, X, T, mu, lam, material="neo-hookean", *, psd=True):
        self._material = _he.material(material)
        self.J = deformation_jacobian(X, T)
        self.vol = volume(X, T)[:, 0]
        self.n, self.dim = np.shape(X)
        self.size = self.n * self.dim
        t = self.vol.size
        self.mu, self.lam = _he.parameters(self._material, mu, lam, t)
        self.material = material
        self.psd = _validate.boolean(psd, "psd")
        self._structure = _he.structure(self.J, self.dim)

    def _F(self, x):
        x = self._x(x)
        return components((self.J @ x).reshape(-1, self.dim, self.dim))

    def energy(self, x):
        """Total elastic energy at stacked positions x (n*d, 1): float."""
        return _he.energy(self._material, self._F(x), self.mu, self.lam, self.vol)

    def gradient(self, x):
        """Gradient (n*d, 1) at stacked positions x."""
        return _he.gradient(self._material, self.J, self._F(x), self.mu, self.lam, self.vol)

    def hessian(self, x):
        """Hessian (n*d, n*d) csc_matrix at stacked positions x (projected if ``psd``)."""
        return _he.hessian(self._material, self._structure, self._F(x), self.mu, self.lam, self.vol, self.psd)
