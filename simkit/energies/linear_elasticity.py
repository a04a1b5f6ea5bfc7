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


def linear_elasticity_energy_element_F(F, mu, lam):
    r"""Linear elasticity energy density of every element.

    :math:`\psi(F) = \mu \lVert \varepsilon \rVert_F^2 + \tfrac{\lambda}{2} (\operatorname{tr} \varepsilon)^2, \; \varepsilon = \tfrac12 (F + F^\top) - I`

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


def linear_elasticity_gradient_element_F(F, mu, lam):
    r"""First Piola-Kirchhoff stress of every element: (t, d, d).

    :math:`P = 2 \mu \varepsilon + \lambda \operatorname{tr}(\varepsilon) I`

    Arguments as ``linear_elasticity_energy_element_F``.
    """
    return _he.gradient_element(MATERIAL, F, mu, lam)


def linear_elasticity_hessian_element_F(F, mu, lam):
    r"""Exact :math:`\partial P / \partial F` of every element: (t, d*d, d*d).

    Row-major F: ``H[e, i*d + j, k*d + l]``; arguments as ``linear_elasticity_energy_element_F``.
    """
    return _he.hessian_element(MATERIAL, F, mu, lam)


def linear_elasticity_energy_x(X, J, mu, lam, vol):
    r"""Total linear elasticity energy of a mesh.

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


def linear_elasticity_gradient_x(X, J, mu, lam, vol):
    r"""Gradient of the total energy: (n*d, 1).

    :math:`J^\top \operatorname{vec}(\mathrm{vol}\, P)`; arguments as ``linear_elasticity_energy_x``.
    """
    return _he.gradient_x(MATERIAL, X, J, mu, lam, vol)


def linear_elasticity_hessian_x(X, J, mu, lam, vol, *, psd=True):
    r"""Hessian of the total energy: (n*d, n*d) csc_matrix.

    :math:`J^\top \operatorname{blockdiag}(\mathrm{vol}\, \partial P/\partial F) J`; arguments as
    ``linear_elasticity_energy_x``. ``psd=True`` (default, keyword-only)
    changes nothing (the Hessian is constant and positive semi-definite).
    """
    return _he.hessian_x(MATERIAL, X, J, mu, lam, vol, psd)
