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

(neo_hookean_energy_element_F, neo_hookean_gradient_element_F, neo_hookean_hessian_element_F,
 neo_hookean_energy_x, neo_hookean_gradient_x, neo_hookean_hessian_x) = _he.public_tiers(
    MATERIAL, __name__, "neo_hookean", psi="``mu/2 (|F|^2 - d) - mu ln J + lam/2 (ln J)^2``",
    P="``mu F + (lam ln J - mu) F^{-T}``")
