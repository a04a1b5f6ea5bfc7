r"""Neo-Hookean elasticity (the Sifakis-Barbic course notes' form).

Density, with :math:`I_C = \lVert F \rVert_F^2` and :math:`J = \det F > 0`::

    psi(F) = mu/2 (I_C - d) - mu ln J + lam/2 (ln J)^2
    P(F)   = mu F + (lam ln J - mu) F^{-T}
    dP/dF  = mu delta_ik delta_jl + lam F^{-T}_ij F^{-T}_kl + (mu - lam ln J) F^{-T}_il F^{-T}_kj

Inverted or degenerate elements (``det F <= 0``): the energy is ``+inf`` (so a line search
rejects the step) and the gradient and Hessian raise ValueError naming the elements; upstream
simkit returns NaN there.

Analytic eigensystem (``psd=True``), in the signed singular values sigma of F::

    scaling   A_ii = mu + (mu + lam (1 - ln J)) / sigma_i^2,  A_ij = lam / (sigma_i sigma_j)
    flip_ij   = mu + (mu - lam ln J) / (sigma_i sigma_j)
    twist_ij  = mu - (mu - lam ln J) / (sigma_i sigma_j)
"""
import numpy as np

from . import _hyperelastic as _he
from .._isotropic_eigensystem import pairs
from .._small_matrices import cofactor, det, outer


def _psi(F, mu, lam):
    d = F.shape[0]
    Jdet = det(F)
    logJ = np.log(np.where(Jdet > 0, Jdet, 1.0))
    psi = 0.5 * mu * (np.sum(F * F, axis=(0, 1)) - d) - mu * logJ + 0.5 * lam * logJ ** 2
    return np.where(Jdet > 0, psi, np.inf)


def _P(F, mu, lam):
    Jdet = det(F)
    return mu * F + (lam * np.log(Jdet) - mu) / Jdet * cofactor(F)


def _dPdF(F, mu, lam):
    d, t = F.shape[0], F.shape[-1]
    Jdet = det(F)
    g = (cofactor(F) / Jdet).reshape(d * d, t)                      # F^{-T}, row-major
    Finv_T = g.reshape(d, d, t)
    # K[(i, j), (k, l)] = F^{-T}_il F^{-T}_kj
    K = (Finv_T[:, None, None, :] * np.swapaxes(Finv_T, 0, 1)[None, :, :, None]).reshape(d * d, d * d, t)
    H = lam * outer(g, g) + (mu - lam * np.log(Jdet)) * K
    H[np.arange(d * d), np.arange(d * d)] += mu
    return H


def _eigenvalues(s, mu, lam):
    d = s.shape[0]
    c = mu - lam * np.log(np.prod(s, axis=0))
    A = lam / outer(s, s)
    A[np.arange(d), np.arange(d)] = (c + lam) / s ** 2 + mu
    ss = np.stack([s[i] * s[j] for i, j in pairs(d)])
    return A, mu + c / ss, mu - c / ss


MATERIAL = _he.register(_he.Material("neo-hookean", _psi, _P, _dPdF, _eigenvalues, positive_det=True))


def neo_hookean_energy_element_F(F, mu, lam):
    """Energy density of every element.

    Parameters
    ----------
    F : (t, d, d) float array
        Deformation gradients, d 2 or 3.
    mu, lam : float or (t,) / (t, 1) float arrays
        Lamé parameters per element (mu >= 0).

    Returns
    -------
    psi : (t, 1) float array
        ``mu/2 (|F|^2 - d) - mu ln J + lam/2 (ln J)^2``; ``+inf`` where ``det F <= 0``.
    """
    return _he.energy_element(MATERIAL, F, mu, lam)


def neo_hookean_gradient_element_F(F, mu, lam):
    """First Piola-Kirchhoff stress ``P = mu F + (lam ln J - mu) F^{-T}``: (t, d, d); ValueError if det F <= 0."""
    return _he.gradient_element(MATERIAL, F, mu, lam)


def neo_hookean_hessian_element_F(F, mu, lam):
    """Exact ``dP/dF`` of every element, (t, d*d, d*d), row-major F; ValueError if det F <= 0."""
    return _he.hessian_element(MATERIAL, F, mu, lam)


def neo_hookean_energy_x(X, J, mu, lam, vol):
    """Total energy ``sum_e vol_e psi(F_e)`` (``+inf`` if an element is inverted).

    Parameters
    ----------
    X : (n, d) float array
        Current node positions.
    J : (d*d*t, d*n) sparse matrix
        ``simkit.deformation_jacobian`` of the rest mesh.
    mu, lam : float or (t,) / (t, 1) float arrays
        Lamé parameters.
    vol : float or (t,) / (t, 1) float array
        Rest measure of each element (``simkit.volume``).

    Returns
    -------
    E : float
    """
    return _he.energy_x(MATERIAL, X, J, mu, lam, vol)


def neo_hookean_gradient_x(X, J, mu, lam, vol):
    """Gradient ``J^T vec(vol P)``: (n*d, 1). ValueError naming the inverted elements, if any."""
    return _he.gradient_x(MATERIAL, X, J, mu, lam, vol)


def neo_hookean_hessian_x(X, J, mu, lam, vol, *, psd=True):
    """Hessian (n*d, n*d) csc_matrix; ``psd=True`` clamps each element's analytic eigenvalues at 0."""
    return _he.hessian_x(MATERIAL, X, J, mu, lam, vol, psd)
