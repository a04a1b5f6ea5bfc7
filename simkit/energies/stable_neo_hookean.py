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

(stable_neo_hookean_energy_element_F, stable_neo_hookean_gradient_element_F, stable_neo_hookean_hessian_element_F,
 stable_neo_hookean_energy_x, stable_neo_hookean_gradient_x, stable_neo_hookean_hessian_x) = _he.public_tiers(
    MATERIAL, __name__, "stable_neo_hookean", psi="``mu/2 (I_C - d) - mu/2 ln(I_C + 1) + lam/2 (J - alpha)^2``",
    P="``mu I_C / (I_C + 1) F + lam (J - alpha) cof F``")
