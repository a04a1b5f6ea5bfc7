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
from .._small_matrices import cofactor, det, matmul, outer


def _psi(F, mu, lam):
    d = F.shape[0]
    Jdet = det(F)
    logJ = np.log(np.where(Jdet > 0, Jdet, 1.0))
    psi = 0.5 * mu * (np.sum(F * F, axis=(0, 1)) - d) - mu * logJ + 0.5 * lam * logJ ** 2
    return np.where(Jdet > 0, psi, np.inf)


def _cofactor_det(F):
    """cof F and det F = sum_j F_0j cof_0j (Laplace expansion along the first row)."""
    C = cofactor(F)
    return C, (F[0] * C[0]).sum(axis=0)


def _P(F, mu, lam):
    C, Jdet = _cofactor_det(F)
    return mu * F + (lam * np.log(Jdet) - mu) / Jdet * C


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


def _x_upper(upper, F, mu, lam, Gc, GG, svd, psd):
    """Writes the upper entries (u, t) of the element blocks ``L^T dP/dF L`` in closed form, with W = G F^{-1}:
    ``B[(a, i), (b, c)] = mu delta_ic (G G^T)_ab + lam W_ai W_bc + (mu - lam ln J) W_ac W_bi``;
    exact only (``_hyperelastic.hessian`` projects them).

    Component-major (element axis last) like the formulas above; Gc is (d+1, d, t)."""
    q, d, t = Gc.shape
    C, Jdet = _cofactor_det(F)
    W = matmul(Gc, np.swapaxes(C, 0, 1)) / Jdet                        # G F^{-1}, F^{-1} = cof(F)^T / J
    k = mu - lam * np.log(Jdet)
    A, B, I, K = _he.block_layout(q, d)[:4]
    off, diag = _he.split_upper(upper, q, d)
    WA, WB = W[A], W[B]
    np.multiply((lam * WA)[:, :, None], WB[:, None, :], out=off)     # node pair (a, b): entry (i, c)
    off += WB[:, :, None] * (k * WA)[:, None, :]
    Wf = W.reshape(q * d, t)
    np.multiply((lam + k) * Wf[I], Wf[K], out=diag)
    _he.add_identity_upper(upper, mu, GG, q, d)


def _eigenvalues(s, mu, lam):
    d = s.shape[0]
    c = mu - lam * np.log(np.prod(s, axis=0))
    A = lam / outer(s, s)
    A[np.arange(d), np.arange(d)] = (c + lam) / s ** 2 + mu
    ss = np.stack([s[i] * s[j] for i, j in pairs(d)])
    return A, mu + c / ss, mu - c / ss


MATERIAL = _he.register(_he.Material("neo-hookean", _psi, _P, _dPdF, _eigenvalues, positive_det=True,
                                      x_upper=_x_upper))


def neo_hookean_energy_element_F(F, mu, lam):
    r"""Neo-Hookean energy density of every element.

    :math:`\psi(F) = \tfrac{\mu}{2} (\lVert F \rVert_F^2 - d) - \mu \ln J + \tfrac{\lambda}{2} (\ln J)^2`

    Parameters
    ----------
    F : (t, d, d) float array
        Deformation gradients, d 2 or 3.
    mu, lam : float or (t,) / (t, 1) float arrays
        Lamé parameters per element (mu >= 0).

    Returns
    -------
    psi : (t, 1) float array
        No volume weighting; ``+inf`` where det F <= 0.
    """
    return _he.energy_element(MATERIAL, F, mu, lam)


def neo_hookean_gradient_element_F(F, mu, lam):
    r"""First Piola-Kirchhoff stress of every element: (t, d, d).

    :math:`P = \mu F + (\lambda \ln J - \mu) F^{-\top}`

    Arguments as ``neo_hookean_energy_element_F``.

    Raises
    ------
    ValueError
        Naming the elements with det F <= 0.
    """
    return _he.gradient_element(MATERIAL, F, mu, lam)


def neo_hookean_hessian_element_F(F, mu, lam):
    r"""Exact :math:`\partial P / \partial F` of every element: (t, d*d, d*d).

    Row-major F: ``H[e, i*d + j, k*d + l]``; arguments as ``neo_hookean_energy_element_F``.

    Raises
    ------
    ValueError
        Naming the elements with det F <= 0.
    """
    return _he.hessian_element(MATERIAL, F, mu, lam)


def neo_hookean_energy_x(X, J, mu, lam, vol):
    r"""Total neo-Hookean energy of a mesh.

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
        ``+inf`` where det F <= 0.
    """
    return _he.energy_x(MATERIAL, X, J, mu, lam, vol)


def neo_hookean_gradient_x(X, J, mu, lam, vol):
    r"""Gradient of the total energy: (n*d, 1).

    :math:`J^\top \operatorname{vec}(\mathrm{vol}\, P)`; arguments as ``neo_hookean_energy_x``.

    Raises
    ------
    ValueError
        Naming the elements with det F <= 0.
    """
    return _he.gradient_x(MATERIAL, X, J, mu, lam, vol)


def neo_hookean_hessian_x(X, J, mu, lam, vol, *, psd=True):
    r"""Hessian of the total energy: (n*d, n*d) csc_matrix.

    :math:`J^\top \operatorname{blockdiag}(\mathrm{vol}\, \partial P/\partial F) J`; arguments as
    ``neo_hookean_energy_x``. ``psd=True`` (default, keyword-only)
    clamps each element's analytic eigenvalues at 0.

    Raises
    ------
    ValueError
        Naming the elements with det F <= 0.
    """
    return _he.hessian_x(MATERIAL, X, J, mu, lam, vol, psd)
