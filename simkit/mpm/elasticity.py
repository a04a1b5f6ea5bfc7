r"""Elastic stresses of MPM particles, as Kirchhoff stress :math:`\tau = P F^\top` (the readable element tier).

An MPM particle of rest volume :math:`V_p` adds to the momentum of grid node i, over a step dt, the
force :math:`-V_p\, \tau_p \nabla w_{ip}`; with quadratic B-splines (MLS-MPM, Hu et al. 2018) this is
the affine term :math:`-dt\, V_p \tfrac{4}{dx^2} \tau_p (x_i - x_p)`. Each material is an energy
density :math:`\psi(F)` and its stress :math:`P = \partial \psi / \partial F`; ``F`` is ``(n, d, d)``,
:math:`J = \det F`, :math:`F = U \Sigma V^\top`.

- Fixed-corotated (Stomakhin et al. 2012), reusing ``simkit.energies.fcr``:
  :math:`\psi = \mu \lVert F - R \rVert_F^2 + \tfrac{\lambda}{2} (J - 1)^2`,
  :math:`\tau = 2 \mu (F - R) F^\top + \lambda (J - 1) J I`.
- Neo-Hookean, reusing ``simkit.energies.neo_hookean``:
  :math:`\psi = \tfrac{\mu}{2} (\lVert F \rVert_F^2 - d) - \mu \ln J + \tfrac{\lambda}{2} (\ln J)^2`,
  :math:`\tau = \mu (F F^\top - I) + \lambda \ln J\, I`.
- Hencky (log strain :math:`\epsilon = \ln \Sigma`, the elasticity of Drucker–Prager sand, Klár et
  al. 2016): :math:`\psi = \mu\, \mathrm{tr}(\epsilon^2) + \tfrac{\lambda}{2} (\mathrm{tr}\, \epsilon)^2`,
  :math:`\tau = U (2 \mu \epsilon + \lambda\, \mathrm{tr}(\epsilon) I) U^\top`.
- A weakly compressible fluid of bulk modulus K, through J alone:
  :math:`\psi = K (J - 1 - \ln J)`, :math:`\tau = K (J - 1) I` (Taichi's mpm88 stress with K = E).

The compiled per-particle versions (``simkit.mpm._material_kernels``) are tested against these.
"""
import numpy as np

from .. import checks
from ..energies import fcr_gradient_element_F, neo_hookean_gradient_element_F


def fixed_corotated_kirchhoff(F, mu, lam):
    r"""Fixed-corotated Kirchhoff stress: :math:`\tau = 2 \mu (F - R) F^\top + \lambda (J - 1) J I`.

    Parameters
    ----------
    F : (n, d, d) float array
        Deformation gradients, d 2 or 3.
    mu, lam : float or (n,) float arrays
        Lamé parameters.

    Returns
    -------
    tau : (n, d, d) float array
    """
    F = _deformations(F)
    return fcr_gradient_element_F(F, mu, lam) @ np.swapaxes(F, 1, 2)


def neo_hookean_kirchhoff(F, mu, lam):
    r"""Neo-Hookean Kirchhoff stress: :math:`\tau = \mu (F F^\top - I) + \lambda \ln J\, I` (J > 0).

    Parameters
    ----------
    F : (n, d, d) float array
        Deformation gradients, d 2 or 3, det F > 0.
    mu, lam : float or (n,) float arrays
        Lamé parameters.

    Returns
    -------
    tau : (n, d, d) float array
    """
    F = _deformations(F)
    return neo_hookean_gradient_element_F(F, mu, lam) @ np.swapaxes(F, 1, 2)


def hencky_energy(F, mu, lam):
    r"""Hencky (log-strain St. Venant–Kirchhoff) energy density:
    :math:`\psi = \mu \sum_a \epsilon_a^2 + \tfrac{\lambda}{2} (\sum_a \epsilon_a)^2`, :math:`\epsilon = \ln \sigma(F)`.

    Parameters
    ----------
    F : (n, d, d) float array
        Deformation gradients, d 2 or 3, det F > 0.
    mu, lam : float or (n,) float arrays
        Lamé parameters.

    Returns
    -------
    psi : (n,) float array
    """
    F = _positive_det(_deformations(F))
    eps = np.log(np.linalg.svd(F, compute_uv=False))
    return mu * np.sum(eps ** 2, axis=1) + 0.5 * lam * np.sum(eps, axis=1) ** 2


def hencky_kirchhoff(F, mu, lam):
    r"""Hencky Kirchhoff stress: :math:`\tau = U (2 \mu \epsilon + \lambda\, \mathrm{tr}(\epsilon) I) U^\top`.

    Parameters
    ----------
    F : (n, d, d) float array
        Deformation gradients, d 2 or 3, det F > 0.
    mu, lam : float or (n,) float arrays
        Lamé parameters.

    Returns
    -------
    tau : (n, d, d) float array
    """
    F = _positive_det(_deformations(F))
    U, s, _ = np.linalg.svd(F)
    eps = np.log(s)
    mu, lam = np.reshape(mu, (-1, 1)), np.reshape(lam, (-1, 1))
    t = 2.0 * mu * eps + lam * eps.sum(axis=1, keepdims=True)
    return (U * t[:, None, :]) @ np.swapaxes(U, 1, 2)


def fluid_energy(F, bulk_modulus):
    r"""Weakly compressible fluid energy density: :math:`\psi = K (J - 1 - \ln J)`, minimal at J = 1.

    Parameters
    ----------
    F : (n, d, d) float array
        Deformation gradients (only J = det F is used), J > 0.
    bulk_modulus : float or (n,) float array
        K; the small-strain pressure is :math:`p = -K (J - 1)`.

    Returns
    -------
    psi : (n,) float array
    """
    J = np.linalg.det(_positive_det(_deformations(F)))
    return bulk_modulus * (J - 1.0 - np.log(J))


def fluid_kirchhoff(F, bulk_modulus):
    r"""Weakly compressible fluid Kirchhoff stress: :math:`\tau = K (J - 1) I`.

    Parameters
    ----------
    F : (n, d, d) float array
        Deformation gradients (only J = det F is used).
    bulk_modulus : float or (n,) float array
        K.

    Returns
    -------
    tau : (n, d, d) float array
    """
    F = _deformations(F)
    J = np.linalg.det(F)
    return (np.reshape(bulk_modulus, (-1, 1, 1)) * (J - 1.0)[:, None, None]) * np.eye(F.shape[1])


def _deformations(F):
    F = checks.finite_array(F, "F")
    if F.ndim != 3 or F.shape[1] != F.shape[2] or F.shape[1] not in (2, 3):
        raise ValueError(f"F: expected (n, d, d) deformation gradients with d 2 or 3, got shape {F.shape}")
    return F


def _positive_det(F):
    J = np.linalg.det(F)
    if (J <= 0).any():
        raise ValueError(f"F: expected det F > 0, found {int((J <= 0).sum())} particles with det F <= 0")
    return F
