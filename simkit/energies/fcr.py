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

(fcr_energy_element_F, fcr_gradient_element_F, fcr_hessian_element_F,
 fcr_energy_x, fcr_gradient_x, fcr_hessian_x) = _he.public_tiers(
    MATERIAL, __name__, "fcr", psi="``mu ||F - R||^2 + lam/2 (det F - 1)^2``",
    P="``2 mu (F - R) + lam (J - 1) cof F``")
