r"""As-rigid-as-possible (ARAP) elasticity: the distance of F to its closest rotation.

Density, with the rotation R = U V^T of the rotation-variant SVD ``F = U diag(sigma) V^T``::

    psi(F) = mu/2 ||F - R||_F^2 = mu/2 sum_i (sigma_i - 1)^2
    P(F)   = mu (F - R)

Analytic eigensystem of ``dP/dF`` (exact and ``psd=True`` alike): scaling modes ``mu``, flip
modes ``mu``, twist modes ``mu (1 - 2 / (sigma_i + sigma_j))``, which is negative when the
element is compressed enough (``sigma_i + sigma_j < 2``); R is not differentiable where
``sigma_i + sigma_j = 0``. ARAP has no ``lam``: ``arap_*`` take ``mu`` only (upstream's
signature); ``elastic_*(..., material='arap')`` accept and ignore ``lam``.
"""
import numpy as np

from . import _hyperelastic as _he
from .. import _isotropic_eigensystem as _eig
from .._small_matrices import matmul


def _psi(F, mu, lam):
    s = _eig.svd_rv(F)[1]
    return 0.5 * mu * np.sum((s - 1.0) ** 2, axis=0)


def _P(F, mu, lam):
    U, _, V = _eig.svd_rv(F)
    return mu * (F - matmul(U, np.swapaxes(V, 0, 1)))


def _eigenvalues(s, mu, lam):
    d, t = s.shape
    A = np.zeros((d, d, t))
    A[np.arange(d), np.arange(d)] = mu
    flip = np.broadcast_to(mu, (len(_eig.pairs(d)), t))
    twist = np.stack([mu * (1.0 - 2.0 / (s[i] + s[j])) for i, j in _eig.pairs(d)])
    return A, flip, twist


MATERIAL = _he.register(_he.Material("arap", _psi, _P, None, _eigenvalues, uses_lam=False))


def arap_energy_element_F(F, mu):
    """Energy density ``mu/2 ||F - R||^2`` of every element.

    Parameters
    ----------
    F : (t, d, d) float array
        Deformation gradients, d 2 or 3.
    mu : float or (t,) / (t, 1) float array
        Shear modulus per element (>= 0).

    Returns
    -------
    psi : (t, 1) float array
    """
    return _he.energy_element(MATERIAL, F, mu, None)


def arap_gradient_element_F(F, mu):
    """First Piola-Kirchhoff stress ``P = mu (F - R)``: (t, d, d)."""
    return _he.gradient_element(MATERIAL, F, mu, None)


def arap_hessian_element_F(F, mu):
    """Exact ``dP/dF`` from the analytic eigensystem: (t, d*d, d*d), row-major F."""
    return _he.hessian_element(MATERIAL, F, mu, None)


def arap_energy_x(X, J, mu, vol):
    """Total energy ``sum_e vol_e psi(F_e)``.

    Parameters
    ----------
    X : (n, d) float array
        Current node positions.
    J : (d*d*t, d*n) sparse matrix
        ``simkit.deformation_jacobian`` of the rest mesh.
    mu : float or (t,) / (t, 1) float array
        Shear modulus.
    vol : float or (t,) / (t, 1) float array
        Rest measure of each element.

    Returns
    -------
    E : float
    """
    return _he.energy_x(MATERIAL, X, J, mu, None, vol)


def arap_gradient_x(X, J, mu, vol):
    """Gradient ``J^T vec(vol P)``: (n*d, 1)."""
    return _he.gradient_x(MATERIAL, X, J, mu, None, vol)


def arap_hessian_x(X, J, mu, vol, *, psd=True):
    """Hessian (n*d, n*d) csc_matrix; ``psd=True`` clamps the twist eigenvalues at 0."""
    return _he.hessian_x(MATERIAL, X, J, mu, None, vol, psd)
