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
from .._small_matrices import cofactor, det, det_hessian, outer


def _alpha(mu, lam, d):
    return 1.0 + d * mu / ((d + 1) * lam)


def _psi(F, mu, lam):
    d = F.shape[0]
    Ic = np.sum(F * F, axis=(0, 1))
    return 0.5 * mu * (Ic - d) - 0.5 * mu * np.log1p(Ic) + 0.5 * lam * (det(F) - _alpha(mu, lam, d)) ** 2


def _P(F, mu, lam):
    d = F.shape[0]
    Ic = np.sum(F * F, axis=(0, 1))
    return mu * Ic / (Ic + 1.0) * F + lam * (det(F) - _alpha(mu, lam, d)) * cofactor(F)


def _dPdF(F, mu, lam):
    d, t = F.shape[0], F.shape[-1]
    Ic = np.sum(F * F, axis=(0, 1))
    f, g = F.reshape(d * d, t), cofactor(F).reshape(d * d, t)
    H = 2.0 * mu / (Ic + 1.0) ** 2 * outer(f, f) + lam * outer(g, g)
    H += lam * (det(F) - _alpha(mu, lam, d)) * det_hessian(F)
    H[np.arange(d * d), np.arange(d * d)] += mu * Ic / (Ic + 1.0)
    return H


def _eigenvalues(s, mu, lam):
    d = s.shape[0]
    Ic = np.sum(s * s, axis=0)
    beta = mu * Ic / (Ic + 1.0)
    c, C, other = _eig.det_derivatives(s)
    g = lam * (np.prod(s, axis=0) - _alpha(mu, lam, d))
    A = 2.0 * mu / (Ic + 1.0) ** 2 * outer(s, s) + lam * outer(c, c) + g * C
    A[np.arange(d), np.arange(d)] += beta
    return A, beta - g * other, beta + g * other


MATERIAL = _he.register(_he.Material("stable-neo-hookean", _psi, _P, _dPdF, _eigenvalues, nonzero_lam=True))


def stable_neo_hookean_energy_element_F(F, mu, lam):
    r"""Stable neo-Hookean energy density of every element.

    :math:`\psi(F) = \tfrac{\mu}{2} (I_C - d) - \tfrac{\mu}{2} \ln(I_C + 1) + \tfrac{\lambda}{2} (J - \alpha)^2`

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


def stable_neo_hookean_gradient_element_F(F, mu, lam):
    r"""First Piola-Kirchhoff stress of every element: (t, d, d).

    :math:`P = \mu \tfrac{I_C}{I_C + 1} F + \lambda (J - \alpha) \operatorname{cof} F`

    Arguments as ``stable_neo_hookean_energy_element_F``.
    """
    return _he.gradient_element(MATERIAL, F, mu, lam)


def stable_neo_hookean_hessian_element_F(F, mu, lam):
    r"""Exact :math:`\partial P / \partial F` of every element: (t, d*d, d*d).

    Row-major F: ``H[e, i*d + j, k*d + l]``; arguments as ``stable_neo_hookean_energy_element_F``.
    """
    return _he.hessian_element(MATERIAL, F, mu, lam)


def stable_neo_hookean_energy_x(X, J, mu, lam, vol):
    r"""Total stable neo-Hookean energy of a mesh.

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


def stable_neo_hookean_gradient_x(X, J, mu, lam, vol):
    r"""Gradient of the total energy: (n*d, 1).

    :math:`J^\top \operatorname{vec}(\mathrm{vol}\, P)`; arguments as ``stable_neo_hookean_energy_x``.
    """
    return _he.gradient_x(MATERIAL, X, J, mu, lam, vol)


def stable_neo_hookean_hessian_x(X, J, mu, lam, vol, *, psd=True):
    r"""Hessian of the total energy: (n*d, n*d) csc_matrix.

    :math:`J^\top \operatorname{blockdiag}(\mathrm{vol}\, \partial P/\partial F) J`; arguments as
    ``stable_neo_hookean_energy_x``. ``psd=True`` (default, keyword-only)
    clamps each element's analytic eigenvalues at 0.
    """
    return _he.hessian_x(MATERIAL, X, J, mu, lam, vol, psd)
