"""simkit.mpm: particles on a grid (the material point method, PIC and APIC transfers).

Imported on its own (``import simkit.mpm``), not by ``import simkit``: its kernels are compiled
by numba and cached on disk in ``__pycache__`` after the first call.

- Weights: quadratic and cubic B-splines on a uniform grid, ``bspline``, ``stencil_base``,
  ``bspline_stencil`` (``simkit.mpm.weights``, the readable tier).
- Transfers: ``p2g`` and ``g2p`` (``simkit.mpm.transfers``), APIC or PIC on a collocated grid.
- The grid step (``simkit.mpm.grid``): ``grid_velocity``, ``walls``, ``coulomb_friction``,
  ``collide`` and the colliders ``Plane``, ``Box``, ``Sphere``.
- Materials: the Kirchhoff stresses of ``simkit.mpm.elasticity``, the return maps of
  ``simkit.mpm.plasticity``, and the material records ``Fluid``, ``FixedCorotated``,
  ``NeoHookean``, ``Snow``, ``Sand`` (``simkit.mpm.materials``).
- The loop: ``MPM`` (``simkit.mpm.simulation``), explicit MLS-MPM substeps with a CFL-limited step.
- Incompressible water on a 2D MAC grid (``simkit.mpm.mac``): ``staggered_p2g``, ``staggered_g2p``,
  ``face_positions``, ``fluid_cells``, ``divergence``, ``pressure_projection`` and the loop
  ``MACFluid`` (PIC, APIC or FLIP).
"""
from .elasticity import (fixed_corotated_kirchhoff, fluid_energy, fluid_kirchhoff, hencky_energy, hencky_kirchhoff,
                         neo_hookean_kirchhoff)
from .grid import Box, Plane, Sphere, collide, coulomb_friction, grid_velocity, walls
from .mac import (MACFluid, divergence, face_positions, fluid_cells, pressure_projection, staggered_g2p,
                  staggered_p2g)
from .materials import FixedCorotated, Fluid, NeoHookean, Sand, Snow
from .plasticity import (drucker_prager_alpha, drucker_prager_return_map, drucker_prager_yield,
                         plane_strain_friction_angle, snow_hardening, snow_return_map)
from .simulation import MPM
from .transfers import g2p, grid_bounds, p2g
from .weights import bspline, bspline_stencil, stencil_base

__all__ = [
    "bspline", "stencil_base", "bspline_stencil", "p2g", "g2p", "grid_bounds",
    "grid_velocity", "walls", "coulomb_friction", "collide", "Plane", "Box", "Sphere",
    "fixed_corotated_kirchhoff", "neo_hookean_kirchhoff", "hencky_energy", "hencky_kirchhoff", "fluid_energy",
    "fluid_kirchhoff", "snow_return_map", "snow_hardening", "drucker_prager_alpha", "plane_strain_friction_angle",
    "drucker_prager_yield", "drucker_prager_return_map",
    "Fluid", "FixedCorotated", "NeoHookean", "Snow", "Sand", "MPM",
    "face_positions", "staggered_p2g", "staggered_g2p", "fluid_cells", "divergence", "pressure_projection", "MACFluid",
]
