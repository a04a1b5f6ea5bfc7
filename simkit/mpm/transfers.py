r"""Particle-to-grid and grid-to-particle transfers on a collocated grid: PIC and APIC (Jiang et al. 2015).

Quadratic B-spline weights :math:`w_{ip}` (``simkit.mpm.weights``); grid node ``i`` sits at
``origin + i * dx``. A particle p carries mass :math:`m_p`, velocity :math:`v_p` and, for APIC,
an affine velocity matrix :math:`C_p`, so that :math:`v(y) \approx v_p + C_p (y - x_p)` near it.

.. math::

    m_i = \sum_p w_{ip} m_p, \qquad
    (m v)_i = \sum_p w_{ip} m_p \big(v_p + C_p (x_i - x_p)\big)              \quad \text{(P2G)}

    v_p = \sum_i w_{ip} v_i, \qquad
    C_p = \frac{4}{dx^2} \sum_i w_{ip} v_i (x_i - x_p)^\top                \quad \text{(G2P)}

PIC is ``C = 0``. Both transfers conserve linear momentum; APIC also conserves angular momentum,
a particle's being :math:`m_p\, x_p \times v_p` plus, in 2D, the affine part
:math:`m_p \tfrac{dx^2}{4} (C_{10} - C_{01})`. The loops are compiled (``simkit.mpm._kernels``).
"""
import numpy as np

from .. import checks
from . import _kernels


def p2g(x, v, m, dx, shape, C=None, origin=None):
    r"""Scatter particle mass and momentum to the grid (APIC; PIC when ``C`` is None).

    :math:`m_i = \sum_p w_{ip} m_p`, :math:`(mv)_i = \sum_p w_{ip} m_p (v_p + C_p (x_i - x_p))`.

    Parameters
    ----------
    x : (n, d) float array
        Particle positions, d 2 or 3; each particle's 3^d stencil must lie in the grid.
    v : (n, d) float array
        Particle velocities.
    m : float or (n,) float array
        Particle masses (>= 0).
    dx : float
        Grid spacing (> 0).
    shape : tuple of d ints
        Grid nodes along each axis (>= 3).
    C : (n, d, d) float array, optional
        Affine velocity matrices (APIC); None for PIC.
    origin : (d,) float array, optional
        Position of node 0 (zeros by default).

    Returns
    -------
    mass : float array of shape ``shape``
    momentum : float array of shape ``shape + (d,)``
    """
    x, dx, shape, origin = _particles_on_grid(x, dx, shape, origin)
    n, d = x.shape
    v = _per_particle(v, "v", (n, d))
    m = checks.finite_array(m, "m")
    if m.ndim == 0:
        m = np.full(n, float(m))
    if m.shape != (n,):
        raise ValueError(f"m: expected one mass per particle, shape ({n},), got {m.shape}")
    if (m < 0).any():
        raise ValueError(f"m: expected masses >= 0, found {int((m < 0).sum())} negative (min {m.min()})")
    A = np.zeros((n, d, d)) if C is None else _per_particle(C, "C", (n, d, d)) * m[:, None, None]
    mass = np.zeros(shape)
    momentum = np.zeros(shape + (d,))
    (_kernels.p2g_2d if d == 2 else _kernels.p2g_3d)(x, v, m, A, origin, dx, mass, momentum)
    return mass, momentum


def g2p(x, velocity, dx, origin=None):
    r"""Gather APIC's particle velocity and affine matrix from a grid velocity field.

    :math:`v_p = \sum_i w_{ip} v_i`, :math:`C_p = \tfrac{4}{dx^2} \sum_i w_{ip} v_i (x_i - x_p)^\top`.

    Parameters
    ----------
    x : (n, d) float array
        Particle positions, d 2 or 3; each particle's 3^d stencil must lie in the grid.
    velocity : float array of shape ``shape + (d,)``
        Grid node velocities.
    dx : float
        Grid spacing (> 0).
    origin : (d,) float array, optional
        Position of node 0 (zeros by default).

    Returns
    -------
    v : (n, d) float array
    C : (n, d, d) float array
        PIC uses ``v`` alone.
    """
    velocity = checks.finite_array(velocity, "velocity")
    d = np.shape(x)[-1] if np.ndim(x) == 2 else None
    if d is None or velocity.ndim != d + 1 or velocity.shape[-1] != d:
        raise ValueError(f"velocity: expected a grid of d-vectors, shape shape + (d,) with d = x.shape[1], "
                         f"got {velocity.shape} for x of shape {np.shape(x)}")
    x, dx, shape, origin = _particles_on_grid(x, dx, velocity.shape[:-1], origin)
    n = x.shape[0]
    v = np.empty((n, d))
    C = np.empty((n, d, d))
    (_kernels.g2p_2d if d == 2 else _kernels.g2p_3d)(x, velocity, origin, dx, v, C)
    return v, C


def grid_bounds(dx, shape, origin):
    r"""The box :math:`[\text{origin} + dx/2,\ \text{origin} + (\text{shape} - 3/2)\, dx)` a particle must lie in
    for its quadratic stencil to stay on the grid.

    Parameters
    ----------
    dx : float
    shape : tuple of d ints
    origin : (d,) float array

    Returns
    -------
    low, high : (d,) float arrays
    """
    origin = np.asarray(origin, dtype=float)
    return origin + 0.5 * dx, origin + (np.asarray(shape) - 1.5) * dx


def _per_particle(a, name, expected):
    arr = checks.finite_array(a, name)
    if arr.shape != expected:
        raise ValueError(f"{name}: expected shape {expected}, got {arr.shape}")
    return arr


def _grid_shape(shape, d):
    if np.ndim(shape) != 1 or len(shape) != d:
        raise ValueError(f"shape: expected {d} node counts for {d}D particles, got {shape!r}")
    shape = tuple(checks.integer(s, "shape") for s in shape)
    if min(shape) < 3:
        raise ValueError(f"shape: expected at least 3 nodes along every axis (a quadratic stencil), got {shape}")
    return shape


def _particles_on_grid(x, dx, shape, origin):
    """Checked positions, spacing, grid shape and origin; ValueError if a particle's stencil leaves the grid."""
    x = checks.positions(x, "x")
    d = x.shape[1]
    dx = checks.positive_scalar(dx, "dx")
    shape = _grid_shape(shape, d)
    origin = np.zeros(d) if origin is None else checks.finite_array(origin, "origin")
    if origin.shape != (d,):
        raise ValueError(f"origin: expected shape ({d},), got {origin.shape}")
    low, high = grid_bounds(dx, shape, origin)
    base = np.floor((x - origin) / dx - 0.5)                  # the kernels' own test, in the same arithmetic
    outside = ((base < 0) | (base + 2 >= np.asarray(shape))).any(axis=1)
    if outside.any():
        raise ValueError(f"x: {int(outside.sum())} of {x.shape[0]} particles lie outside the grid; quadratic "
                         f"B-splines need every particle in [{_fmt(low)}, {_fmt(high)}) (the grid's nodes span "
                         f"[{_fmt(origin)}, {_fmt(origin + (np.asarray(shape) - 1) * dx)}])")
    return x, dx, shape, origin


def _fmt(a):
    return "(" + ", ".join(f"{float(t):.6g}" for t in a) + ")"
