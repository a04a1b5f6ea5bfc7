r"""Volume correction for water particles on a MAC grid: particles pushed out of cells denser than at rest.

The pressure projection makes the grid's velocity divergence-free, but particles moved by its
interpolation (forward Euler, quadratic B-splines) still bunch up slowly: the water loses a few
per cent of its volume in a dam break. The correction measures each cell's particle density
relative to rest,

.. math::

    \rho_c = \frac{1}{N_\text{rest}} \sum_p w_{cp}, \qquad e_c = \rho_c - 1\ \text{in interior fluid cells}, 0 elsewhere,

with :math:`w_{cp}` the quadratic B-spline weight of particle p at the centre of cell c and
:math:`N_\text{rest}` the particles per cell at rest (interior: the four neighbours are fluid
too; a cell at the surface or next to a wall is partly empty by nature, and the seeding's noise
is spread both ways so its mean stays), and moves the particles by a displacement
field :math:`\mathbf d = \nabla q` whose divergence is that excess,
:math:`\nabla\cdot\mathbf d = e` in every fluid cell, :math:`q = 0` in the air, no flux through
solid faces: a cell 3 % too dense spreads by 3 % of its area, a sparse one contracts. :math:`\mathbf d` is the gradient
part of any face field with divergence :math:`e` (here the excess summed up each column), taken by
the same sparse projection as the velocity (so water under a solid ceiling, where that sum would
cross the solid, is refused) (``simkit.mpm.mac.pressure_projection`` with
:math:`dt = \rho = 1`); the particles gather it with the staggered G2P, as they gather velocities.
"""
import numpy as np

from .. import checks
from . import mac
from .transfers import p2g


def particle_density(x, dx, cells, per_cell, origin=None):
    r"""Particle density of each cell relative to rest, :math:`\rho_c = \sum_p w_{cp} / N_\text{rest}`.

    Parameters
    ----------
    x : (n, 2) float array
        Particle positions, inside the MAC box's solid border.
    dx : float
    cells : (nx, ny) ints
    per_cell : float
        Particles per cell at rest (> 0).
    origin : (2,) float array, optional
        Lower-left corner of the box.

    Returns
    -------
    density : (nx, ny) float array
        1 in a cell filled as at rest.
    """
    x, dx, cells, origin = mac._particles(x, dx, cells, origin)
    per_cell = checks.positive_scalar(per_cell, "per_cell")
    density, _ = p2g(x, np.zeros_like(x), 1.0 / per_cell, dx, cells, origin=origin + dx / 2)
    return density


def volume_correction(x, dx, solid, per_cell, origin=None):
    r"""Particle displacements :math:`\mathbf d_p` that spread every fluid cell's excess density.

    :math:`\nabla\cdot\mathbf d = \max(\rho_c - 1, 0)` in fluid cells, :math:`\mathbf d = \nabla q`,
    :math:`q = 0` in air cells, no flux through solid faces; gathered with the staggered G2P.

    Parameters
    ----------
    x : (n, 2) float array
    dx : float
    solid : (nx, ny) bool array
        Solid cells (the box's border included).
    per_cell : float
        Particles per cell at rest.
    origin : (2,) float array, optional

    Returns
    -------
    d : (n, 2) float array
        Displacements (length units of x).
    """
    solid = np.asarray(solid, dtype=bool)
    density = particle_density(x, dx, solid.shape, per_cell, origin)
    origin = np.zeros(2) if origin is None else np.asarray(origin, dtype=float)
    fluid = mac.fluid_cells(x, dx, solid, origin)
    interior = fluid.copy()                                     # fluid cells whose four neighbours are fluid
    interior[1:] &= fluid[:-1]
    interior[:-1] &= fluid[1:]
    interior[:, 1:] &= fluid[:, :-1]
    interior[:, :-1] &= fluid[:, 1:]
    excess = np.where(interior, density - 1.0, 0.0)
    nx, ny = solid.shape
    u = np.zeros((nx + 1, ny))
    v = np.zeros((nx, ny + 1))
    v[:, 1:] = np.cumsum(excess, axis=1) * dx                   # divergence(u, v) = excess in every cell
    below_solid = np.zeros((nx, ny + 1), dtype=bool)
    below_solid[:, 1:-1] = fluid[:, :-1] & solid[:, 1:]
    if (v[below_solid] != 0).any():
        raise ValueError("x: water lies under a solid cell above interior water of its column; volume_correction "
                         "supports open tanks only (no solid cell above the water it corrects)")
    u_free, v_free, _ = mac.pressure_projection(u, v, fluid, solid, dx, 1.0, 1.0)
    return mac.staggered_g2p(x, u - u_free, v - v_free, dx, origin)[0]


class VolumeCorrectedMACFluid(mac.MACFluid):
    """``MACFluid`` whose particles are moved by ``volume_correction`` after every substep (positions only).

    Parameters
    ----------
    *args, **kwargs
        As ``MACFluid``.
    per_cell : float
        Particles per cell at rest (keyword, > 0).
    """

    def __init__(self, *args, per_cell, **kwargs):
        super().__init__(*args, **kwargs)
        self.per_cell = checks.positive_scalar(per_cell, "per_cell")

    def substep(self, dt):
        """``MACFluid.substep``, then the volume correction, particles kept off the solid border."""
        super().substep(dt)
        d = volume_correction(self.x, self.dx, self.solid, self.per_cell, self.origin)
        low = self.origin + self.dx
        high = self.origin + (np.asarray(self.cells) - 1) * self.dx
        self.x = np.clip(self.x + d, low, high - 1e-9 * self.dx)
