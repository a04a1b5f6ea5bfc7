r"""Fixed-corotational (FCR) elasticity (Stomakhin et al. 2012), upstream simkit's scaling.

Density, with R = U V^T from the rotation-variant SVD and J = det F::

    psi(F) = mu ||F - R||_F^2 + lam/2 (J - 1)^2 = mu sum_i (sigma_i - 1)^2 + lam/2 (J - 1)^2
    P(F)   = 2 mu (F - R) + lam (J - 1) cof F

Analytic eigensystem, with ``c_i = dJ/dsigma_i`` and ``s_k`` the singular value outside the
pair (1 in 2D)::

    scaling   A_ii = 2 mu + lam c_i^2,  A_ij = lam c_i c_j + lam (J - 1) s_k
    flip_ij   = 2 mu - lam (J - 1) s_k
    twist_ij  = 2 mu (1 - 2 / (sigma_i + sigma_j)) + lam (J - 1) s_k
"""
import numpy as np

from . import _hyperelastic as _he
from .. import _isotropic_eigensystem as _eig
from .._small_matrices import cofactor, det, matmul, outer


def _psi(F, mu, lam):
    s = _eig.svd_rv(F)[1]
    return mu * np.sum((s - 1.0) ** 2, axis=0) + 0.5 * lam * (det(F) - 1.0) ** 2


def _P(F, mu, lam):
    U, _, V = _eig.svd_rv(F)
    return 2.0 * mu * (F - matmul(U, np.swapaxes(V, 0, 1))) + lam * (det(F) - 1.0) * cofactor(F)


def _eigenvalues(s, mu, lam):
    d = s.shape[0]
    c, C, other = _eig.det_derivatives(s)
    g = lam * (np.prod(s, axis=0) - 1.0)
    A = lam * outer(c, c) + g * C
    A[np.arange(d), np.arange(d)] += 2.0 * mu
    flip = 2.0 * mu - g * other
    twist = np.stack([2.0 * mu * (1.0 - 2.0 / (s[i] + s[j])) for i, j in _eig.pairs(d)]) + g * other
    return A, flip, twist


MATERIAL = _he.register(_he.Material("fcr", _psi, _P, None, _eigenvalues))


def fcr_energy_element_F(F, mu, lam):
    r"""Fixed-corotational energy density of every element.

    :math:`\psi(F) = \mu \lVert F - R \rVert_F^2 + \tfrac{\lambda}{2} (\det F - 1)^2`

    Parameters
    ----------
    F : (t, d, d) float array
        Deformation gradients, d 2 or 3.
    mu, lam : float or (t,) / (t, 1) float arrays
        Lamé parameters per element (mu >= 0).

    Returns
    -------
    psi : (t, 1) float array
        No volume weighting.
    """
    return _he.energy_element(MATERIAL, F, mu, lam)


def fcr_gradient_element_F(F, mu, lam):
    r"""First Piola-Kirchhoff stress of every element: (t, d, d).

    :math:`P = 2 \mu (F - R) + \lambda (J - 1) \operatorname{cof} F`

    Arguments as ``fcr_energy_element_F``.
    """
    return _he.gradient_element(MATERIAL, F, mu, lam)


def fcr_hessian_element_F(F, mu, lam):
    r"""Exact :math:`\partial P / \partial F` of every element: (t, d*d, d*d).

    Row-major F: ``H[e, i*d + j, k*d + l]``; arguments as ``fcr_energy_element_F``.
    """
    return _he.hessian_element(MATERIAL, F, mu, lam)


def fcr_energy_x(X, J, mu, lam, vol):
    r"""Total fixed-corotational energy of a mesh.

    :math:`E = \sum_e \mathrm{vol}_e\, \psi(F_e)`, :math:`F_e` from ``J x``

    Parameters
    ----------
    X : (n, d) float array
        Current node positions.
    J : (d*d*t, d*n) sparse matrix
        ``simkit.deformation_jacobian`` of the rest mesh.
    mu, lam : float or (t,) / (t, 1) float arrays
        Lamé parameters per element (mu >= 0).
    vol : float or (t,) / (t, 1) float array
        Rest measure of each element (``simkit.volume``).

    Returns
    -------
    E : float
    """
    return _he.energy_x(MATERIAL, X, J, mu, lam, vol)


def fcr_gradient_x(X, J, mu, lam, vol):
    r"""Gradient of the total energy: (n*d, 1).

    :math:`J^\top \operatorname{vec}(\mathrm{vol}\, P)`; arguments as ``fcr_energy_x``.
    """
    return _he.gradient_x(MATERIAL, X, J, mu, lam, vol)


def fcr_hessian_x(X, J, mu, lam, vol, *, psd=True):
    r"""Hessian of the total energy: (n*d, n*d) csc_matrix.

    :math:`J^\top \operatorname{blockdiag}(\mathrm{vol}\, \partial P/\partial F) J`; arguments as
    ``fcr_energy_x``. ``psd=True`` (default, keyword-only)
    clamps each element's analytic eigenvalues at 0.
    """
    return _he.hessian_x(MATERIAL, X, J, mu, lam, vol, psd)
