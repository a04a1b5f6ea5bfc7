r"""PIC and FLIP velocity transfers for ``simkit.mpm.MPM``, which is APIC: the schemes chapter 020 compares.

All three schemes scatter with the same stress term and move the particles with the gathered grid
velocity :math:`v_p^\text{PIC} = \sum_i w_{ip} v_i^{n+1}`; they differ in what a particle keeps for
the next step (Jiang et al. 2015; Stomakhin et al. 2013):

- **APIC**: :math:`v_p^\text{PIC}` and the affine matrix :math:`C_p`, scattered as
  :math:`m_p (v_p + C_p (x_i - x_p))`.
- **PIC**: :math:`v_p^\text{PIC}` alone (:math:`C_p = 0` in the next scatter); the gathered
  :math:`C_p`, the velocity gradient, still updates :math:`F_p`.
- **FLIP** of ratio :math:`\beta`: the grid's *change* of velocity added to the particle's own,
  blended with PIC,

  .. math::

      v_p \leftarrow \beta \Big(v_p + \sum_i w_{ip} (v_i^{n+1} - \hat v_i^n)\Big) + (1 - \beta)\, v_p^\text{PIC},

  with :math:`\hat v_i^n = \sum_p w_{ip} m_p v_p / m_i` the grid velocity of the scatter before the
  stress and gravity act (and :math:`C_p = 0` in the scatter, as in PIC).
"""
import numpy as np

from .. import checks
from . import _kernels
from .simulation import MPM

SCHEMES = ("apic", "pic", "flip")


class BlendedMPM(MPM):
    r"""``simkit.mpm.MPM`` with a choice of transfer: ``"apic"`` (MPM's own), ``"pic"`` or ``"flip"``.

    Parameters
    ----------
    x, material, dx, shape : as ``MPM``
    transfer : str, optional
        ``"apic"`` (default), ``"pic"`` or ``"flip"``.
    flip_ratio : float, optional
        :math:`\beta` in [0, 1] of the FLIP blend (default 0.95; 0 is PIC).
    **kwargs
        ``MPM``'s keyword arguments (density, volume, v, origin, gravity, walls, ...).

    Attributes
    ----------
    C : (n, d, d) float array
        APIC's affine matrices; for PIC and FLIP the last gathered velocity gradients, which the next
        scatter does not use.
    """

    def __init__(self, x, material, dx, shape, *, transfer="apic", flip_ratio=0.95, **kwargs):
        if transfer not in SCHEMES:
            raise ValueError(f"transfer: expected one of {SCHEMES}, got {transfer!r}")
        flip_ratio = checks.real_scalar(flip_ratio, "flip_ratio")
        if not 0.0 <= flip_ratio <= 1.0:
            raise ValueError(f"flip_ratio: expected a blend in [0, 1], got {flip_ratio}")
        super().__init__(x, material, dx, shape, **kwargs)
        self.transfer = transfer
        self.flip_ratio = flip_ratio

    def angular_momentum(self):
        r"""Total angular momentum about the origin in 2D: :math:`\sum_p m_p (x_p \times v_p)`, plus APIC's
        affine part :math:`m_p \tfrac{dx^2}{4} (C_{10} - C_{01})` (not carried by PIC or FLIP)."""
        if self.x.shape[1] != 2:
            raise ValueError("angular_momentum: implemented for 2D particles")
        L = np.sum(self.mass * (self.x[:, 0] * self.v[:, 1] - self.x[:, 1] * self.v[:, 0]))
        if self.transfer == "apic":
            L += np.sum(self.mass * 0.25 * self.dx ** 2 * (self.C[:, 1, 0] - self.C[:, 0, 1]))
        return float(L)

    def _transfer(self, dt):
        if self.transfer == "apic":
            return super()._transfer(dt)
        self.C.fill(0.0)                                   # PIC and FLIP scatter no affine momentum
        if self.transfer == "flip":
            x_old, v_old = self.x.copy(), self.v.copy()
            mass = np.zeros(self.shape)
            momentum = np.zeros(self.shape + (self.x.shape[1],))
            p2g = _kernels.p2g_2d if self.x.shape[1] == 2 else _kernels.p2g_3d
            p2g(self.x, self.v, self.mass, self.C, self.origin, self.dx, mass, momentum)
            has_mass = (mass > 0)[..., None]
            before = np.where(has_mass, momentum / np.where(has_mass, mass[..., None], 1.0), 0.0)
        super()._transfer(dt)                              # moves x with v_PIC, F with the gradient C
        if self.transfer == "flip":
            change = np.empty_like(self.v)
            gradient = np.empty_like(self.C)
            g2p = _kernels.g2p_2d if self.x.shape[1] == 2 else _kernels.g2p_3d
            g2p(x_old, self._velocity - before, self.origin, self.dx, change, gradient)
            self.v = self.flip_ratio * (v_old + change) + (1.0 - self.flip_ratio) * self.v
            self._speed = float(np.sqrt((self.v ** 2).sum(axis=1).max()))
