"""simkit.mpm: particles on a grid (the material point method, PIC and APIC transfers).

Imported on its own (``import simkit.mpm``), not by ``import simkit``: its kernels are compiled
by numba, cached on disk in ``__pycache__`` after the first call.

- Weights: quadratic and cubic B-splines on a uniform grid, ``bspline``, ``stencil_base``,
  ``bspline_stencil`` (``simkit.mpm.weights``, the readable tier).
- Transfers: ``p2g`` and ``g2p`` (``simkit.mpm.transfers``), APIC or PIC on a collocated grid.
"""
from .transfers import g2p, grid_bounds, p2g
from .weights import bspline, bspline_stencil, stencil_base

__all__ = ["bspline", "stencil_base", "bspline_stencil", "p2g", "g2p", "grid_bounds"]
