r"""Linear (small-strain) elasticity.

Density, with the small strain :math:`\varepsilon = (F + F^T)/2 - I`::

    psi(F) = mu ||eps||_F^2 + lam/2 tr(eps)^2
    P(F)   = 2 mu eps + lam tr(eps) I
    dP/dF  = mu (delta_ik delta_jl + delta_il delta_jk) + lam delta_ij delta_kl

The Hessian is constant and positive semi-definite, so ``psd`` changes nothing. psi is not
rotation invariant: a rigid rotation by an angle theta stores energy (it grows like theta^4
for small theta), which is why large deformations need a corotational or hyperelastic model.
Element tier ``*_element_F(F, mu, lam)``; global tier ``*_x(X, J, mu, lam, vol)``
(see ``simkit.energies.elastic``).
"""
import numpy as np

from . import _hyperelastic as _he


def _strain(F):
    d = F.shape[0]
    eps = 0.5 * (F + np.swapaxes(F, 0, 1))
    for i in range(d):
        eps[i, i] -= 1.0
    return eps, sum(eps[i, i] for i in range(d))


def _psi(F, mu, lam):
    eps, tr = _strain(F)
    return mu * np.sum(eps * eps, axis=(0, 1)) + 0.5 * lam * tr ** 2


def _P(F, mu, lam):
    eps, tr = _strain(F)
    P = 2.0 * mu * eps
    for i in range(F.shape[0]):
        P[i, i] += lam * tr
    return P


def _dPdF(F, mu, lam):
    d = F.shape[0]
    I = np.eye(d)
    sym = (np.einsum("ik,jl->ijkl", I, I) + np.einsum("il,jk->ijkl", I, I)).reshape(d * d, d * d, 1)
    vol = np.einsum("ij,kl->ijkl", I, I).reshape(d * d, d * d, 1)
    return mu * sym + lam * vol


MATERIAL = _he.register(_he.Material("linear-elasticity", _psi, _P, _dPdF))

(linear_elasticity_energy_element_F, linear_elasticity_gradient_element_F, linear_elasticity_hessian_element_F,
 linear_elasticity_energy_x, linear_elasticity_gradient_x, linear_elasticity_hessian_x) = _he.public_tiers(
    MATERIAL, __name__, "linear_elasticity", psi="``mu ||eps||^2 + lam/2 tr(eps)^2``, ``eps = sym(F) - I``",
    P="``2 mu eps + lam tr(eps) I``", psd="changes nothing (the Hessian is constant and PSD)")
