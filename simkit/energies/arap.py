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


def _x_upper(upper, F, mu, lam, Gc, GG, svd, psd):
    """Writes the upper entries (u, t) of the element blocks ``L^T dP/dF L``: every mode but the twists
    has eigenvalue mu, so ``B = mu L^T L + sum_pairs (twist - mu) / 2 w w^T`` with w the x-space twist
    vectors (``_hyperelastic.pair_modes``; twist clamped at 0 with psd). Component-major, Gc (d+1, d, t)."""
    q, d, t = Gc.shape
    U, s, V = svd
    for n, ((i, j), w) in enumerate(zip(_eig.pairs(d), _he.pair_modes(U, V, Gc))):
        twist = mu * (1.0 - 2.0 / (s[i] + s[j]))
        if psd:
            twist = np.maximum(twist, 0.0)
        _he.add_outer_upper(upper, w, 0.5 * (twist - mu), first=n == 0)
    _he.add_identity_upper(upper, mu, GG, q, d)


MATERIAL = _he.register(_he.Material("arap", _psi, _P, None, _eigenvalues, uses_lam=False, x_upper=_x_upper,
                                      x_upper_projects=True))


def arap_energy_element_F(F, mu):
    r"""ARAP energy density of every element.

    :math:`\psi(F) = \tfrac{\mu}{2} \lVert F - R \rVert_F^2`

    Parameters
    ----------
    F : (t, d, d) float array
        Deformation gradients, d 2 or 3.
    mu : float or (t,) / (t, 1) float array
        Shear modulus per element (>= 0).

    Returns
    -------
    psi : (t, 1) float array
        No volume weighting.
    """
    return _he.energy_element(MATERIAL, F, mu, None)


def arap_gradient_element_F(F, mu):
    r"""First Piola-Kirchhoff stress of every element: (t, d, d).

    :math:`P = \mu (F - R)`

    Arguments as ``arap_energy_element_F``.
    """
    return _he.gradient_element(MATERIAL, F, mu, None)


def arap_hessian_element_F(F, mu):
    r"""Exact :math:`\partial P / \partial F` of every element: (t, d*d, d*d).

    Row-major F: ``H[e, i*d + j, k*d + l]``; arguments as ``arap_energy_element_F``.
    """
    return _he.hessian_element(MATERIAL, F, mu, None)


def arap_energy_x(X, J, mu, vol):
    r"""Total ARAP energy of a mesh.

    :math:`E = \sum_e \mathrm{vol}_e\, \psi(F_e)`, :math:`F_e` from ``J x``

    Parameters
    ----------
    X : (n, d) float array
        Current node positions.
    J : (d*d*t, d*n) sparse matrix
        ``simkit.deformation_jacobian`` of the rest mesh.
    mu : float or (t,) / (t, 1) float array
        Shear modulus per element (>= 0).
    vol : float or (t,) / (t, 1) float array
        Rest measure of each element (``simkit.volume``).

    Returns
    -------
    E : float
    """
    return _he.energy_x(MATERIAL, X, J, mu, None, vol)


def arap_gradient_x(X, J, mu, vol):
    r"""Gradient of the total energy: (n*d, 1).

    :math:`J^\top \operatorname{vec}(\mathrm{vol}\, P)`; arguments as ``arap_energy_x``.
    """
    return _he.gradient_x(MATERIAL, X, J, mu, None, vol)


def arap_hessian_x(X, J, mu, vol, *, psd=True):
    r"""Hessian of the total energy: (n*d, n*d) csc_matrix.

    :math:`J^\top \operatorname{blockdiag}(\mathrm{vol}\, \partial P/\partial F) J`; arguments as
    ``arap_energy_x``. ``psd=True`` (default, keyword-only)
    clamps the twist eigenvalues at 0.
    """
    return _he.hessian_x(MATERIAL, X, J, mu, None, vol, psd)
