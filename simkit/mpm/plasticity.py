r"""Plastic return maps of MPM particles: snow and Drucker–Prager sand (the readable element tier).

Both split :math:`F = F_E F_P` and keep the elastic part inside a yield surface, working on the
singular values of the trial elastic deformation :math:`F_E = U \Sigma V^\top`.

**Snow** (Stomakhin et al. 2013): clamp each singular value to
:math:`[1 - \theta_c, 1 + \theta_s]`; the plastic volume ratio :math:`J_P` takes the rest,
:math:`J_P \leftarrow J_P \prod_a \sigma_a / \prod_a \hat\sigma_a`, and the Lamé parameters harden as
:math:`\mu = \mu_0 e^{\xi (1 - J_P)}`, :math:`\lambda = \lambda_0 e^{\xi (1 - J_P)}` (elasticity:
fixed-corotated).

**Drucker–Prager sand** (Klár et al. 2016), in log strain :math:`\epsilon = \ln \Sigma` with Hencky
elasticity, :math:`\tau = U (2 \mu \epsilon + \lambda\, \mathrm{tr}(\epsilon) I) U^\top`. The yield
surface of a cohesionless material is the cone

.. math::

    y(\tau) = \lVert \operatorname{dev} \tau \rVert_F + \alpha\, \mathrm{tr}\, \tau \le 0, \qquad
    \alpha = \sqrt{\tfrac{2}{3}}\, \frac{2 \sin\phi}{3 - \sin\phi},

the cone through Mohr–Coulomb's compression corners in 3D. The return map keeps
:math:`\mathrm{tr}\,\epsilon` and shrinks the deviatoric strain :math:`\hat\epsilon` by

.. math::

    \delta\gamma = \lVert \hat\epsilon \rVert + \frac{d \lambda + 2 \mu}{2 \mu}\, \mathrm{tr}(\epsilon)\, \alpha ;

:math:`\delta\gamma \le 0` is inside (untouched), :math:`\mathrm{tr}\,\epsilon > 0` is tension and
returns to the cone's tip :math:`\epsilon = 0`, and otherwise
:math:`\epsilon \leftarrow \epsilon - \delta\gamma\, \hat\epsilon / \lVert \hat\epsilon \rVert`, which lands
on :math:`y = 0`.

**In 2D** the same cone is a plane-strain Mohr–Coulomb criterion of another angle: with
principal stresses :math:`\tau_1, \tau_2`, :math:`\lVert \operatorname{dev} \tau \rVert_F = |\tau_1 - \tau_2| / \sqrt 2`,
so :math:`y = 0` reads :math:`|\tau_1 - \tau_2| = -\sqrt 2\, \alpha (\tau_1 + \tau_2)`, Mohr–Coulomb with
:math:`\sin \phi_\text{eff} = \sqrt 2\, \alpha` (``plane_strain_friction_angle``): 30° gives 27.5°.
"""
import numpy as np

from .. import checks
from .elasticity import _deformations


def snow_return_map(F, theta_c, theta_s):
    r"""Clamp the singular values of trial elastic deformations to :math:`[1 - \theta_c, 1 + \theta_s]`.

    Parameters
    ----------
    F : (n, d, d) float array
        Trial elastic deformation gradients.
    theta_c, theta_s : float
        Critical compression and stretch (Stomakhin et al. 2013: 2.5e-2 and 7.5e-3).

    Returns
    -------
    F_E : (n, d, d) float array
        :math:`U \hat\Sigma V^\top`; F itself where no singular value leaves the interval.
    ratio : (n,) float array
        :math:`\prod_a \sigma_a / \prod_a \hat\sigma_a`, the factor the plastic volume :math:`J_P` takes.
    """
    F = _deformations(F)
    theta_c = checks.positive_scalar(theta_c, "theta_c")
    theta_s = checks.positive_scalar(theta_s, "theta_s")
    U, s, Vt = np.linalg.svd(F)
    clamped = np.clip(s, 1.0 - theta_c, 1.0 + theta_s)
    inside = np.all(clamped == s, axis=1)
    F_E = np.where(inside[:, None, None], F, (U * clamped[:, None, :]) @ Vt)
    return F_E, np.where(inside, 1.0, np.prod(s, axis=1) / np.prod(clamped, axis=1))


def snow_hardening(mu0, lam0, hardening, Jp):
    r"""Hardened Lamé parameters: :math:`(\mu, \lambda) = (\mu_0, \lambda_0)\, e^{\xi (1 - J_P)}`.

    Parameters
    ----------
    mu0, lam0 : float
        Lamé parameters of undeformed snow.
    hardening : float
        :math:`\xi` (Stomakhin et al. 2013: 10).
    Jp : (n,) float array
        Plastic volume ratios.

    Returns
    -------
    mu, lam : (n,) float arrays
    """
    h = np.exp(hardening * (1.0 - checks.finite_array(Jp, "Jp")))
    return mu0 * h, lam0 * h


def drucker_prager_alpha(friction_angle):
    r""":math:`\alpha = \sqrt{2/3}\; 2 \sin\phi / (3 - \sin\phi)`, the cone through Mohr–Coulomb's compression corners.

    Parameters
    ----------
    friction_angle : float or float array
        :math:`\phi` in radians, in [0, pi/2).

    Returns
    -------
    alpha : float or float array
    """
    s = np.sin(checks.finite_array(friction_angle, "friction_angle"))
    return np.sqrt(2.0 / 3.0) * 2.0 * s / (3.0 - s)


def plane_strain_friction_angle(alpha):
    r"""The Mohr–Coulomb angle a 2D Drucker–Prager cone really gives: :math:`\sin \phi_\text{eff} = \sqrt 2\, \alpha`.

    Parameters
    ----------
    alpha : float or float array
        The cone's slope, in [0, 1/sqrt(2)].

    Returns
    -------
    phi_eff : float or float array
        Radians.
    """
    alpha = checks.finite_array(alpha, "alpha")
    if (alpha < 0).any() or (alpha > np.sqrt(0.5)).any():
        raise ValueError(f"alpha: expected values in [0, 1/sqrt(2)] (a real angle), got {alpha}")
    return np.arcsin(np.sqrt(2.0) * alpha)


def drucker_prager_yield(tau, alpha):
    r"""The yield function :math:`y(\tau) = \lVert \operatorname{dev} \tau \rVert_F + \alpha\, \mathrm{tr}\, \tau` (admissible: y <= 0).

    Parameters
    ----------
    tau : (n, d, d) float array
        Kirchhoff stresses.
    alpha : float
        The cone's slope (``drucker_prager_alpha``).

    Returns
    -------
    y : (n,) float array
    """
    tau = checks.finite_array(tau, "tau")
    d = tau.shape[1]
    tr = np.trace(tau, axis1=1, axis2=2)
    dev = tau - tr[:, None, None] / d * np.eye(d)
    return np.linalg.norm(dev, axis=(1, 2)) + alpha * tr


def drucker_prager_return_map(F, mu, lam, alpha):
    r"""Project trial elastic deformations onto the Drucker–Prager cone in log strain (Klár et al. 2016).

    Parameters
    ----------
    F : (n, d, d) float array
        Trial elastic deformation gradients, det F > 0.
    mu, lam : float
        Lamé parameters (Hencky elasticity).
    alpha : float
        The cone's slope (``drucker_prager_alpha``).

    Returns
    -------
    F_E : (n, d, d) float array
        :math:`U e^{\epsilon'} V^\top`; F itself where F is inside the cone.
    """
    F = _deformations(F)
    mu = checks.positive_scalar(mu, "mu")
    lam = checks.real_scalar(lam, "lam")
    U, s, Vt = np.linalg.svd(F)
    if (s <= 0).any():
        raise ValueError("F: expected nonsingular deformation gradients")
    d = F.shape[1]
    eps = np.log(s)
    tr = eps.sum(axis=1)
    dev = eps - tr[:, None] / d
    dev_norm = np.linalg.norm(dev, axis=1)
    dgamma = dev_norm + (d * lam + 2.0 * mu) / (2.0 * mu) * tr * alpha
    tension = tr > 0
    shrink = np.where(tension, 0.0, 1.0 - dgamma / np.where(dev_norm > 0, dev_norm, 1.0))
    projected = tr[:, None] / d + np.where(tension[:, None], -tr[:, None] / d, shrink[:, None] * dev)
    inside = ~tension & (dgamma <= 0)
    return np.where(inside[:, None, None], F, (U * np.exp(projected)[:, None, :]) @ Vt)
