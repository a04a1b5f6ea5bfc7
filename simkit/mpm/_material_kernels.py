r"""Compiled per-particle materials: Kirchhoff stress and plastic projection (numba), unchecked.

One particle at a time, the formulas of ``simkit.mpm.elasticity`` and ``simkit.mpm.plasticity``
(the readable tiers the tests hold these to). A material is a kind code and a parameter vector
``params`` (``simkit.mpm.materials`` builds them):

- FLUID: ``(K,)``, :math:`\tau = K (J - 1) I`; the projection forgets shear, :math:`F \leftarrow J^{1/d} I`
  (the stress depends on J alone; a fluid has no rest shape).
- FIXED_COROTATED: ``(mu, lam)``.
- NEO_HOOKEAN: ``(mu, lam)``.
- SNOW: ``(mu0, lam0, theta_c, theta_s, hardening)``; fixed-corotated with hardened Lamé parameters.
- SAND: ``(mu, lam, alpha)``; Hencky elasticity, Drucker–Prager projection.
"""
import numpy as np
from numba import njit

FLUID, FIXED_COROTATED, NEO_HOOKEAN, SNOW, SAND = 0, 1, 2, 3, 4


@njit(cache=True)
def det(F):
    """det F of a 2 x 2 or 3 x 3 matrix, written out (LAPACK's per-call cost is more than the arithmetic)."""
    if F.shape[0] == 2:
        return F[0, 0] * F[1, 1] - F[0, 1] * F[1, 0]
    return (F[0, 0] * (F[1, 1] * F[2, 2] - F[1, 2] * F[2, 1]) - F[0, 1] * (F[1, 0] * F[2, 2] - F[1, 2] * F[2, 0])
            + F[0, 2] * (F[1, 0] * F[2, 1] - F[1, 1] * F[2, 0]))


@njit(cache=True)
def _compose(U, s, Vt, out):
    """out = U diag(s) Vt, written out (numba's matrix product compiles slowly and allocates)."""
    d = U.shape[0]
    for a in range(d):
        for b in range(d):
            t = 0.0
            for c in range(d):
                t += U[a, c] * s[c] * Vt[c, b]
            out[a, b] = t


@njit(cache=True)
def _abt(A, B, out):
    """out = A B^T, written out."""
    d = A.shape[0]
    for a in range(d):
        for b in range(d):
            t = 0.0
            for c in range(d):
                t += A[a, c] * B[b, c]
            out[a, b] = t


@njit(cache=True)
def _svd_rotation_variant(F):
    """F = U diag(s) V^T with U, V rotations (the smallest singular value takes det F's sign)."""
    U, s, Vt = np.linalg.svd(F)
    d = F.shape[0]
    if det(U) < 0:
        U[:, d - 1] *= -1.0
        s[d - 1] *= -1.0
    if det(Vt) < 0:
        Vt[d - 1, :] *= -1.0
        s[d - 1] *= -1.0
    return U, s, Vt


@njit(cache=True)
def _fixed_corotated(F, mu, lam, tau):
    """tau = 2 mu (F - R) F^T + lam (J - 1) J I, R = U V^T."""
    d = F.shape[0]
    U, s, Vt = _svd_rotation_variant(F)
    R = np.empty((d, d))
    _compose(U, np.ones(d), Vt, R)
    _abt(F - R, F, tau)
    J = det(F)
    for a in range(d):
        for b in range(d):
            tau[a, b] *= 2.0 * mu
        tau[a, a] += lam * (J - 1.0) * J


@njit(cache=True)
def kirchhoff(kind, params, F, Jp, tau):
    """One particle's Kirchhoff stress into tau (d, d); Jp is its plastic volume ratio (snow)."""
    d = F.shape[0]
    if kind == FLUID:
        J = det(F)
        tau[:, :] = 0.0
        for a in range(d):
            tau[a, a] = params[0] * (J - 1.0)
    elif kind == FIXED_COROTATED:
        _fixed_corotated(F, params[0], params[1], tau)
    elif kind == NEO_HOOKEAN:
        J = det(F)
        _abt(F, F, tau)
        for a in range(d):
            for b in range(d):
                tau[a, b] *= params[0]
            tau[a, a] += -params[0] + params[1] * np.log(J)
    elif kind == SNOW:
        h = np.exp(params[4] * (1.0 - Jp))
        _fixed_corotated(F, params[0] * h, params[1] * h, tau)
    else:                                                               # SAND: Hencky
        U, s, Vt = np.linalg.svd(F)
        tr = 0.0
        for a in range(d):
            tr += np.log(s[a])
        t = np.empty(d)
        for a in range(d):
            t[a] = 2.0 * params[0] * np.log(s[a]) + params[1] * tr
        _compose(U, t, U.T.copy(), tau)


@njit(cache=True)
def project(kind, params, F, Jp):
    """Replace F (d, d) by its elastic part after the plastic projection, in place; returns the new Jp."""
    d = F.shape[0]
    if kind == FLUID:
        r = det(F) ** (1.0 / d)
        F[:, :] = 0.0
        for a in range(d):
            F[a, a] = r
        return Jp
    if kind == SNOW:
        U, s, Vt = np.linalg.svd(F)
        ratio = 1.0
        changed = False
        for a in range(d):
            c = min(max(s[a], 1.0 - params[2]), 1.0 + params[3])
            if c != s[a]:
                changed = True
            ratio *= s[a] / c
            s[a] = c
        if changed:
            _compose(U, s, Vt, F)
            return Jp * ratio
        return Jp
    if kind == SAND:
        mu, lam, alpha = params[0], params[1], params[2]
        U, s, Vt = np.linalg.svd(F)
        eps = np.log(s)
        tr = eps.sum()
        dev = eps - tr / d
        dev_norm = np.sqrt(np.sum(dev * dev))
        if tr > 0:                                                      # tension: the cone's tip
            _compose(U, np.ones(d), Vt, F)
            return Jp
        dgamma = dev_norm + (d * lam + 2.0 * mu) / (2.0 * mu) * tr * alpha
        if dgamma > 0:
            _compose(U, np.exp(tr / d + (1.0 - dgamma / dev_norm) * dev), Vt, F)
    return Jp


@njit(cache=True)
def stresses(kind, params, F, Jp, tau):
    """Every particle's Kirchhoff stress: F (n, d, d), Jp (n,) into tau (n, d, d)."""
    for p in range(F.shape[0]):
        kirchhoff(kind, params, F[p], Jp[p], tau[p])


@njit(cache=True)
def projections(kind, params, F, Jp):
    """Every particle's plastic projection, in place."""
    for p in range(F.shape[0]):
        Jp[p] = project(kind, params, F[p], Jp[p])
