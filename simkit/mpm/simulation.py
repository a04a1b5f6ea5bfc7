r"""An explicit MLS-MPM simulation a chapter runs in one line: particles, a material, a grid, walls.

One substep of length dt (Hu et al. 2018's moving least squares MPM, APIC transfers, quadratic
B-splines), with :math:`\tau_p` the Kirchhoff stress of the particle's material:

.. math::

    m_i = \sum_p w_{ip} m_p, \qquad
    (m v)_i = \sum_p w_{ip} \Big(m_p v_p + \big(m_p C_p - dt\, V_p \tfrac{4}{dx^2} \tau_p\big)(x_i - x_p)\Big)

    v_i = (m v)_i / m_i + dt\, g \quad \text{then walls and colliders}

    v_p = \sum_i w_{ip} v_i, \quad C_p = \tfrac{4}{dx^2} \sum_i w_{ip} v_i (x_i - x_p)^\top, \quad
    x_p \mathrel{+}= dt\, v_p, \quad F_p \leftarrow (I + dt\, C_p) F_p

and the material's plastic projection of :math:`F_p` (``simkit.mpm.plasticity``).

The step is explicit, so it is stable only below a CFL limit: information must not cross more
than a cell per step, :math:`dt \le \text{cfl}\ dx / (c + \max_p \lVert v_p \rVert)` with c the
material's wave speed (``sqrt(K / rho)`` for a fluid, ``sqrt((lam + 2 mu) / rho)`` for a solid). A
larger step raises ValueError stating the limit.
"""
import numpy as np

from .. import checks
from . import _kernels, _material_kernels, _step_kernels
from .grid import WALLS, collide
from .materials import Fluid, Sand, Snow, _Elastic
from .transfers import _fmt, _particles_on_grid, _per_particle, grid_bounds

TRANSFERS = ("apic", "pic", "flip")


class MPM:
    r"""Particles of one material on a uniform grid, advanced by explicit MLS-MPM substeps.

    Parameters
    ----------
    x : (n, d) float array
        Initial particle positions, d 2 or 3, inside the grid (``simkit.mpm.grid_bounds``).
    material : Fluid, FixedCorotated, NeoHookean, Snow or Sand
    dx : float
        Grid spacing.
    shape : tuple of d ints
        Grid nodes per axis; node i sits at ``origin + i * dx``.
    density : float
        Rest density rho (> 0); a particle's mass is ``density * volume``.
    volume : float or (n,) float array
        Rest volume of each particle (> 0), e.g. the area it samples in 2D.
    v : (n, d) float array, optional
        Initial velocities (zero by default).
    origin : (d,) float array, optional
    gravity : (d,) float array, optional
        Zero by default.
    walls : str, optional
        ``"sticky"``, ``"slip"`` or ``"separate"`` (default) on the grid box's faces.
    wall_thickness : int, optional
        Node layers of each wall (default 3).
    colliders : sequence of (collider, friction) pairs, optional
        ``simkit.mpm.Plane``, ``Box`` or ``Sphere`` with a Coulomb coefficient.
    cfl : float, optional
        The CFL number of the step limit (default 0.9).
    transfer : str, optional
        ``"apic"`` (default), ``"pic"`` (P2G without the affine term) or ``"flip"``: the particle
        velocity becomes :math:`(1 - \alpha)\, \text{G2P}(v^{n+1}) + \alpha\, (v_p + \text{G2P}(v^{n+1} - v^n))`,
        :math:`v^n` the grid velocity of P2G alone. All three update F with G2P's velocity gradient C.
    flip : float, optional
        FLIP's share alpha in [0, 1] (default 0.95), for ``"flip"``.

    Attributes
    ----------
    x, v : (n, d) float arrays
        Positions and velocities.
    C : (n, d, d) float array
        APIC's affine velocity matrices.
    F : (n, d, d) float array
        Elastic deformation gradients.
    Jp : (n,) float array
        Plastic volume ratios (snow's hardening reads them).
    mass, volume : (n,) float arrays
    time : float
    """

    def __init__(self, x, material, dx, shape, *, density, volume, v=None, origin=None, gravity=None,
                 walls="separate", wall_thickness=3, colliders=(), cfl=0.9, transfer="apic", flip=0.95):
        if not isinstance(material, (Fluid, _Elastic)):
            raise TypeError(f"material: expected a simkit.mpm material (Fluid, FixedCorotated, NeoHookean, Snow, "
                            f"Sand), got {type(material).__name__}")
        x, self.dx, self.shape, self.origin = _particles_on_grid(x, dx, shape, origin)
        n, d = x.shape
        self.x = x.copy()
        self.v = np.zeros((n, d)) if v is None else _per_particle(v, "v", (n, d)).copy()
        self.material = material
        self.density = checks.positive_scalar(density, "density")
        volume = checks.finite_array(volume, "volume")
        self.volume = np.full(n, float(volume)) if volume.ndim == 0 else volume.copy()
        if self.volume.shape != (n,):
            raise ValueError(f"volume: expected one volume per particle, shape ({n},), got {self.volume.shape}")
        if (self.volume <= 0).any():
            raise ValueError(f"volume: expected volumes > 0, found {int((self.volume <= 0).sum())} not positive")
        self.mass = self.density * self.volume
        self.gravity = np.zeros(d) if gravity is None else checks.finite_array(gravity, "gravity")
        if self.gravity.shape != (d,):
            raise ValueError(f"gravity: expected shape ({d},), got {self.gravity.shape}")
        if walls not in WALLS:
            raise ValueError(f"walls: expected one of {WALLS}, got {walls!r}")
        self.walls = walls
        self.wall_thickness = checks.integer(wall_thickness, "wall_thickness", low=0)
        self.colliders = [(c, float(mu)) for c, mu in colliders]
        for c, mu in self.colliders:
            if not hasattr(c, "signed_distance"):
                raise TypeError(f"colliders: expected (collider, friction) pairs, got a {type(c).__name__}")
            if not mu >= 0:
                raise ValueError(f"colliders: expected friction coefficients >= 0, got {mu}")
        self.cfl = checks.positive_scalar(cfl, "cfl")
        if transfer not in TRANSFERS:
            raise ValueError(f"transfer: expected one of {TRANSFERS}, got {transfer!r}")
        self.transfer = transfer
        self.flip = checks.real_scalar(flip, "flip")
        if not 0 <= self.flip <= 1:
            raise ValueError(f"flip: expected a share in [0, 1], got {self.flip}")
        self._no_affine = np.zeros((n, d, d))
        self.C = np.zeros((n, d, d))
        self.F = np.broadcast_to(np.eye(d), (n, d, d)).copy()
        self.Jp = np.ones(n)
        self.time = 0.0
        self._params = material.params
        self._speed = float(np.sqrt((self.v ** 2).sum(axis=1).max())) if n else 0.0
        self._A = np.empty((n, d, d))
        self._grid_mass = np.zeros(self.shape)
        self._momentum = np.zeros(self.shape + (d,))
        self._velocity = np.zeros(self.shape + (d,))
        self._wall_entries = _step_kernels.wall_entries(self.shape, self.wall_thickness)
        self._wall_code = WALLS.index(walls)

    def wave_speed(self):
        """The material's wave speed c at the particles' present state."""
        if isinstance(self.material, Snow):
            return self.material.wave_speed(self.density, Jp_min=float(self.Jp.min()))
        return self.material.wave_speed(self.density)

    def max_dt(self):
        r"""The CFL limit of the next substep: :math:`\text{cfl}\; dx / (c + \max_p \lVert v_p \rVert)`.

        The speed is the one the last substep computed (the initial one before any), so velocities
        assigned to ``v`` in between count from the substep after next."""
        return self.cfl * self.dx / (self.wave_speed() + self._speed)

    def substep(self, dt):
        """Advance the particles by one explicit MLS-MPM substep of length dt.

        Parameters
        ----------
        dt : float
            Time step, at most ``max_dt()``.

        Raises
        ------
        ValueError
            dt above the CFL limit, or particles that left the grid (the state is then unchanged).
        """
        dt = checks.positive_scalar(dt, "dt")
        limit = self.max_dt()
        if dt > limit:
            raise ValueError(f"dt: {dt:.6g} is above the CFL limit {limit:.6g} = cfl dx / (c + max |v|) "
                             f"(cfl {self.cfl:g}, dx {self.dx:g}, wave speed {self.wave_speed():.6g}, "
                             f"max |v| {self._speed:.6g})")
        self._transfer(dt)
        self.time += dt

    def run(self, frames, dt, substeps):
        """Record the positions of ``frames`` frames, each ``substeps`` substeps of length dt after the last.

        Parameters
        ----------
        frames : int
            Frames to record after the initial state.
        dt : float
            Substep length.
        substeps : int
            Substeps per frame.

        Returns
        -------
        x : (frames + 1, n, d) float array
            Positions at time ``time`` (before) and after each frame.
        """
        return record_frames(self, frames, dt, substeps)

    def _transfer(self, dt):
        """P2G, the grid step, G2P and the particles' update (a 2D fluid with APIC: two fused particle passes)."""
        kind, d = self.material.kind, self.x.shape[1]
        fluid = isinstance(self.material, Fluid)
        C = self.C if self.transfer == "apic" else self._no_affine            # PIC and FLIP scatter v_p alone
        self._grid_mass.fill(0.0)
        self._momentum.fill(0.0)
        if d == 2 and fluid:
            outside = _step_kernels.p2g_fluid_2d(self._params[0], dt, self.x, self.v, self.mass, self.volume, C,
                                                 self.F, self.origin, self.dx, self._grid_mass, self._momentum)
        else:
            _step_kernels.affine_momentum(kind, self._params, dt, self.dx, self.mass, self.volume, C, self.F,
                                          self.Jp, self._A)
            outside = (_kernels.p2g_2d if d == 2 else _kernels.p2g_3d)(self.x, self.v, self.mass, self._A, self.origin,
                                                                      self.dx, self._grid_mass, self._momentum)
        if outside:
            low, high = grid_bounds(self.dx, self.shape, self.origin)
            raise ValueError(f"x: {outside} of {len(self.x)} particles left the grid at time {self.time:g}; quadratic "
                             f"B-splines need every particle in [{_fmt(low)}, {_fmt(high)}) (make the grid larger "
                             f"or the walls thicker)")
        _step_kernels.grid_update(self._grid_mass.reshape(-1), self._momentum.reshape(-1, d), dt, self.gravity,
                                  *self._wall_entries, self._wall_code, self._velocity.reshape(-1, d))
        for collider, friction in self.colliders:
            collide(self._velocity, self.dx, collider, friction, self.origin)
        if d == 2 and self.transfer != "flip":
            self._speed = _step_kernels.g2p_advance_2d(fluid, dt, self.x, self._velocity, self.origin, self.dx,
                                                       self.v, self.C, self.F)
        else:
            g2p = _kernels.g2p_2d if d == 2 else _kernels.g2p_3d
            if self.transfer == "flip":
                # v_p <- (1 - alpha) G2P(v^{n+1}) + alpha (v_p + G2P(v^{n+1} - v^n)), v^n the velocity of P2G alone
                mass, momentum = np.zeros(self.shape), np.zeros(self.shape + (d,))
                (_kernels.p2g_2d if d == 2 else _kernels.p2g_3d)(self.x, self.v, self.mass, self._no_affine,
                                                                 self.origin, self.dx, mass, momentum)
                old = np.where(mass[..., None] > 0, momentum / np.where(mass > 0, mass, 1.0)[..., None], 0.0)
                change, unused = np.empty_like(self.v), np.empty_like(self.C)
                g2p(self.x, self._velocity - old, self.origin, self.dx, change, unused)
                flip_v = self.v + change
            g2p(self.x, self._velocity, self.origin, self.dx, self.v, self.C)
            if self.transfer == "flip":
                self.v = (1.0 - self.flip) * self.v + self.flip * flip_v
            self._speed = _step_kernels.advance(fluid, dt, self.x, self.v, self.C, self.F)
        if isinstance(self.material, (Snow, Sand)):
            _material_kernels.projections(kind, self._params, self.F, self.Jp)


def record_frames(sim, frames, dt, substeps):
    """Positions ``(frames + 1, n, d)`` of a particle simulation `sim` (``x`` and ``substep(dt)``): the
    current state, then the state after each frame of `substeps` substeps of length dt."""
    frames = checks.integer(frames, "frames", low=0)
    substeps = checks.integer(substeps, "substeps", low=1)
    out = np.empty((frames + 1,) + sim.x.shape)
    out[0] = sim.x
    for f in range(frames):
        for _ in range(substeps):
            sim.substep(dt)
        out[f + 1] = sim.x
    return out
