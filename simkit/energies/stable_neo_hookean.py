r"""Stable neo-Hookean elasticity (Smith, de Goes and Kim 2018), in upstream simkit's form.

Density, with :math:`I_C = \lVert F \rVert_F^2`, J = det F and
:math:`\alpha = 1 + \frac{d\,\mu}{(d+1)\lambda}` (so that F = I is stationary)::

    psi(F) = mu/2 (I_C - d) - mu/2 ln(I_C + 1) + lam/2 (J - alpha)^2
    P(F)   = mu (1 - 1/(I_C + 1)) F + lam (J - alpha) cof F

Defined for every F, inverted ones included (``psi(I)`` is a non-zero constant). mu and lam
enter as given (upstream does not re-parametrize them as the paper does), and lam must be
non-zero. Analytic eigensystem, with ``beta = 1 - 1/(I_C + 1)``, ``c_i = dJ/dsigma_i`` and
``s_k`` the singular value outside the pair (1 in 2D)::

    scaling   A_ij = mu beta delta_ij + 2 mu sigma_i sigma_j / (I_C + 1)^2 + lam c_i c_j
                     + lam (J - alpha) s_k (i != j)
    flip_ij   = mu beta - lam (J - alpha) s_k
    twist_ij  = mu beta + lam (J - alpha) s_k
"""
import numpy as np

from . import _hyperelastic as _he
from .. import _isotropic_eigensystem as _eig
from .._small_matrices import cofactor, det, det_hessian


def _alpha(mu, lam, d):
    return 1.0 + d * mu / ((d + 1) * lam)


def _psi(F, mu, lam):
    d = F.shape[-1]
    Ic = np.einsum("kij,kij->k", F, F)
    return 0.5 * mu * (Ic - d) - 0.5 * mu * np.log1p(Ic) + 0.5 * lam * (det(F) - _alpha(mu, lam, d)) ** 2


def _P(F, mu, lam):
    d = F.shape[-1]
    Ic = np.einsum("kij,kij->k", F, F)
    beta = mu * Ic / (Ic + 1.0)
    return beta[:, None, None] * F + (lam * (det(F) - _alpha(mu, lam, d)))[:, None, None] * cofactor(F)


def _dPdF(F, mu, lam):
    k, d = F.shape[0], F.shape[-1]
    Ic = np.einsum("kij,kij->k", F, F)
    f, g = F.reshape(k, -1), cofactor(F).reshape(k, -1)
    H = (2.0 * mu / (Ic + 1.0) ** 2)[:, None, None] * f[:, :, None] * f[:, None, :]
    H += lam[:, None, None] * g[:, :, None] * g[:, None, :]
    H += (lam * (det(F) - _alpha(mu, lam, d)))[:, None, None] * det_hessian(F)
    H += (mu * Ic / (Ic + 1.0))[:, None, None] * np.eye(d * d)
    return H


def _eigensystem(F, mu, lam):
    U, s, V = _eig.svd_rv(F)
    d = F.shape[-1]
    Ic = np.sum(s ** 2, axis=1)
    beta = mu * Ic / (Ic + 1.0)
    c, C, other = _eig.det_derivatives(s)
    g = lam * (np.prod(s, axis=1) - _alpha(mu, lam, d))
    A = ((2.0 * mu / (Ic + 1.0) ** 2)[:, None, None] * s[:, :, None] * s[:, None, :]
         + lam[:, None, None] * c[:, :, None] * c[:, None, :] + g[:, None, None] * C)
    A += beta[:, None, None] * np.eye(d)
    return U, V, A, beta[:, None] - g[:, None] * other, beta[:, None] + g[:, None] * other


MATERIAL = _he.register(_he.Material("stable-neo-hookean", _psi, _P, _dPdF, _eigensystem))


def stable_neo_hookean_energy_element_F(F, mu, lam):
    """Energy density of every element.

    Parameters
    ----------
    F : (t, d, d) float array
        Deformation gradients, d 2 or 3.
    mu, lam : float or (t,) / (t, 1) float arrays
        Lamé parameters per element (mu >= 0, lam != 0).

    Returns
    -------
    psi : (t, 1) float array
        ``mu/2 (I_C - d) - mu/2 ln(I_C + 1) + lam/2 (J - alpha)^2``.
    """
    return _he.energy_element(MATERIAL, F, mu, lam)


def stable_neo_hookean_gradient_element_F(F, mu, lam):
    """First Piola-Kirchhoff stress: (t, d, d)."""
    return _he.gradient_element(MATERIAL, F, mu, lam)


def stable_neo_hookean_hessian_element_F(F, mu, lam):
    """Exact ``dP/dF`` of every element, (t, d*d, d*d), row-major F."""
    return _he.hessian_element(MATERIAL, F, mu, lam)


def stable_neo_hookean_energy_x(X, J, mu, lam, vol):
    """Total energy ``sum_e vol_e psi(F_e)``.

    Parameters
    ----------
    X : (n, d) float array
        Current node positions.
    J : (d*d*t, d*n) sparse matrix
        ``simkit.deformation_jacobian`` of the rest mesh.
    mu, lam : float or (t,) / (t, 1) float arrays
        Lamé parameters.
    vol : float or (t,) / (t, 1) float array
        Rest measure of each element.

    Returns
    -------
    E : float
    """
    return _he.energy_x(MATERIAL, X, J, mu, lam, vol)


def stable_neo_hookean_gradient_x(X, J, mu, lam, vol):
    """Gradient ``J^T vec(vol P)``: (n*d, 1)."""
    return _he.gradient_x(MATERIAL, X, J, mu, lam, vol)


def stable_neo_hookean_hessian_x(X, J, mu, lam, vol, *, psd=True):
    """Hessian (n*d, n*d) csc_matrix; ``psd=True`` clamps each element's analytic eigenvalues at 0."""
    return _he.hessian_x(MATERIAL, X, J, mu, lam, vol, psd)
