r"""The materials an MPM simulation (``simkit.mpm.MPM``) takes: parameters checked once, formulas elsewhere.

Each is a small frozen record; its stress is in ``simkit.mpm.elasticity``, its return map in
``simkit.mpm.plasticity``, and the compiled per-particle versions in
``simkit.mpm._material_kernels``. Young's modulus E and Poisson's ratio nu give the Lamé
parameters by ``simkit.ympr_to_lame``.

- ``Fluid(bulk_modulus)``: :math:`\tau = K (J - 1) I` (Taichi's mpm88 with K = E).
- ``FixedCorotated(E, nu)`` and ``NeoHookean(E, nu)``: elastic solids.
- ``Snow(E, nu, theta_c, theta_s, hardening)``: fixed-corotated with Stomakhin et al.'s (2013)
  clamped singular values and hardening :math:`e^{\xi (1 - J_P)}`.
- ``Sand(E, nu, friction_angle)``: Hencky elasticity and the Drucker–Prager return map of Klár et
  al. (2016); ``friction_angle`` in degrees. ``Sand.plane_strain_angle`` is the Mohr–Coulomb angle
  the cone gives in 2D (``plasticity.plane_strain_friction_angle``).
"""
from dataclasses import dataclass

import numpy as np

from .. import checks
from ..ympr_to_lame import ympr_to_lame
from . import _material_kernels as _mk
from .plasticity import drucker_prager_alpha, plane_strain_friction_angle


@dataclass(frozen=True)
class Fluid:
    """A weakly compressible fluid of bulk modulus K (Pa): tau = K (J - 1) I."""
    bulk_modulus: float

    def __post_init__(self):
        checks.positive_scalar(self.bulk_modulus, "bulk_modulus")

    kind = _mk.FLUID

    @property
    def params(self):
        return np.array([float(self.bulk_modulus)])

    def wave_speed(self, density):
        """sqrt(K / rho): the speed of sound, which limits the explicit step."""
        return float(np.sqrt(self.bulk_modulus / density))


@dataclass(frozen=True)
class _Elastic:
    E: float
    nu: float

    def __post_init__(self):
        ympr_to_lame(self.E, self.nu)                                     # checks E > 0, nu in (-1, 1/2)

    @property
    def lame(self):
        mu, lam = ympr_to_lame(self.E, self.nu)
        return float(mu), float(lam)

    @property
    def params(self):
        return np.array(self.lame)

    def wave_speed(self, density):
        """sqrt((lam + 2 mu) / rho): the P-wave speed, which limits the explicit step."""
        mu, lam = self.lame
        return float(np.sqrt((lam + 2.0 * mu) / density))


@dataclass(frozen=True)
class FixedCorotated(_Elastic):
    """Fixed-corotated elasticity (Stomakhin et al. 2012) of Young's modulus E and Poisson's ratio nu."""
    kind = _mk.FIXED_COROTATED


@dataclass(frozen=True)
class NeoHookean(_Elastic):
    """Neo-Hookean elasticity of Young's modulus E and Poisson's ratio nu."""
    kind = _mk.NEO_HOOKEAN


@dataclass(frozen=True)
class Snow(_Elastic):
    """Snow (Stomakhin et al. 2013): fixed-corotated, singular values clamped to [1 - theta_c, 1 + theta_s],
    Lamé parameters hardened by exp(hardening (1 - J_P))."""
    theta_c: float = 2.5e-2
    theta_s: float = 7.5e-3
    hardening: float = 10.0
    kind = _mk.SNOW

    def __post_init__(self):
        super().__post_init__()
        checks.positive_scalar(self.theta_c, "theta_c")
        checks.positive_scalar(self.theta_s, "theta_s")
        if self.theta_c >= 1:
            raise ValueError(f"theta_c: expected a critical compression below 1, got {self.theta_c}")
        checks.real_scalar(self.hardening, "hardening")

    @property
    def params(self):
        return np.array(self.lame + (self.theta_c, self.theta_s, self.hardening), dtype=float)

    def wave_speed(self, density, Jp_min=1.0):
        """The P-wave speed at the hardest state reached, exp(hardening (1 - Jp_min)) times stiffer."""
        return super().wave_speed(density) * float(np.exp(0.5 * self.hardening * (1.0 - Jp_min)))


@dataclass(frozen=True)
class Sand(_Elastic):
    """Drucker–Prager sand (Klár et al. 2016): Hencky elasticity and a cone of friction angle in degrees."""
    friction_angle: float = 30.0
    kind = _mk.SAND

    def __post_init__(self):
        super().__post_init__()
        phi = checks.real_scalar(self.friction_angle, "friction_angle")
        if not 0 <= phi < 90:
            raise ValueError(f"friction_angle: expected degrees in [0, 90), got {phi}")

    @property
    def alpha(self):
        """The cone's slope, sqrt(2/3) 2 sin(phi) / (3 - sin(phi))."""
        return float(drucker_prager_alpha(np.radians(self.friction_angle)))

    @property
    def plane_strain_angle(self):
        """The Mohr–Coulomb friction angle, in degrees, of this cone in 2D: sin(phi_eff) = sqrt(2) alpha."""
        return float(np.degrees(plane_strain_friction_angle(self.alpha)))

    @property
    def params(self):
        return np.array(self.lame + (self.alpha,), dtype=float)
