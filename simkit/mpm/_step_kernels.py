r"""Compiled pieces of one MLS-MPM substep (numba), unchecked; ``simkit.mpm.simulation`` calls them in order.

1. ``affine_momentum``: each particle's affine momentum matrix, APIC's plus the stress's impulse
   (MLS-MPM, Hu et al. 2018, quadratic B-splines)::

       A_p = m_p C_p - dt V_p (4 / dx^2) tau_p

2. P2G (``simkit.mpm._kernels``) scatters ``m_p v_p + A_p (x_i - x_p)``.
3. ``grid_update``: ``v_i = (m v)_i / m_i + dt g`` and the walls (the numpy tier is
   ``simkit.mpm.grid``).
4. G2P (``simkit.mpm._kernels``) gathers ``v_p`` and ``C_p``.
5. ``advance``: ``x_p += dt v_p``, ``F_p <- (I + dt C_p) F_p`` (a fluid's F then forgets shear).
6. ``_material_kernels.projections``: the plastic projection of snow and sand.

For a fluid in 2D, ``p2g_fluid_2d`` fuses 1 and 2, and ``g2p_advance_2d`` fuses 4 and 5, so each
substep reads the particles twice instead of four times (the tests hold them to the unfused
pieces). Only the solids' kernels (1 and 6) call an SVD, so a fluid run never compiles one
(numba's first SVD compiles for seconds).
"""
import numpy as np
from numba import njit

from . import _kernels, _material_kernels as _mk

STICKY, SLIP, SEPARATE = 0, 1, 2
# the hot loops may reassociate sums and fuse multiply-adds (about 20 % faster); no flag assumes finite values
FASTMATH = {"contract", "reassoc", "nsz", "arcp"}


@njit(cache=True)
def _particle_affine(kind, params, scale, m, vol, C, F, Jp, tau, A):
    """One particle's A = m C - scale V tau into A (d, d), scale = dt 4 / dx^2 (the fluid written out)."""
    d = F.shape[0]
    if kind == _mk.FLUID:
        pressure = scale * vol * params[0] * (_mk.det(F) - 1.0)
        for a in range(d):
            for b in range(d):
                A[a, b] = m * C[a, b]
            A[a, a] -= pressure
        return
    _mk.kirchhoff(kind, params, F, Jp, tau)
    for a in range(d):
        for b in range(d):
            A[a, b] = m * C[a, b] - scale * vol * tau[a, b]


@njit(cache=True)
def affine_momentum(kind, params, dt, dx, m, vol, C, F, Jp, A):
    """A_p = m_p C_p - dt V_p (4 / dx^2) tau_p for every particle, into A (n, d, d)."""
    d = F.shape[1]
    tau = np.empty((d, d))
    scale = dt * 4.0 / (dx * dx)
    for p in range(F.shape[0]):
        _particle_affine(kind, params, scale, m[p], vol[p], C[p], F[p], Jp[p], tau, A[p])


@njit(cache=True, fastmath=FASTMATH)
def grid_update(mass, momentum, dt, gravity, wall_node, wall_axis, wall_side, condition, velocity):
    """Node velocities from flat (N,) mass and (N, d) momentum into (N, d) velocity, then the walls: entry k
    is node ``wall_node[k]`` on the face normal to ``wall_axis[k]`` with outward sign ``wall_side[k]``
    (``wall_entries``), under STICKY, SLIP or SEPARATE."""
    d = momentum.shape[1]
    for node in range(mass.shape[0]):
        if mass[node] > 0:
            for a in range(d):
                velocity[node, a] = momentum[node, a] / mass[node] + dt * gravity[a]
        else:
            for a in range(d):
                velocity[node, a] = 0.0
    for k in range(wall_node.shape[0]):
        node, a = wall_node[k], wall_axis[k]
        if condition == STICKY:
            for b in range(d):
                velocity[node, b] = 0.0
        elif condition == SLIP or velocity[node, a] * wall_side[k] > 0:
            velocity[node, a] = 0.0


def wall_entries(shape, thickness):
    """The wall nodes of a grid: flat (C-order) node index, face axis and outward sign (-1 or 1) of each of
    the ``thickness`` outer layers of every face (a node near a corner appears once per face)."""
    nodes, axes, sides = [], [], []
    index = np.indices(shape).reshape(len(shape), -1)
    flat = np.arange(index.shape[1])
    for a, n in enumerate(shape):
        for side, on in ((-1, index[a] < thickness), (1, index[a] >= n - thickness)):
            nodes.append(flat[on])
            axes.append(np.full(on.sum(), a))
            sides.append(np.full(on.sum(), float(side)))
    return np.concatenate(nodes), np.concatenate(axes), np.concatenate(sides)


@njit(cache=True)
def advance(fluid, dt, x, v, C, F):
    """x += dt v and F <- (I + dt C) F for every particle (a fluid's F <- J^(1/d) I); returns max |v_p|."""
    n, d = x.shape
    G = np.empty((d, d))
    speed2 = 0.0
    for p in range(n):
        s = 0.0
        for a in range(d):
            x[p, a] += dt * v[p, a]
            s += v[p, a] * v[p, a]
        speed2 = max(speed2, s)
        if fluid:                                       # F <- J^(1/d) I with J = det(I + dt C) det F, written out
            for a in range(d):
                for b in range(d):
                    G[a, b] = dt * C[p, a, b]
                G[a, a] += 1.0
            J = _mk.det(G) * _mk.det(F[p])
            r = np.sqrt(J) if d == 2 else np.cbrt(J)
            for a in range(d):
                for b in range(d):
                    F[p, a, b] = r if a == b else 0.0
            continue
        for a in range(d):
            for b in range(d):
                t = F[p, a, b]
                for c in range(d):
                    t += dt * C[p, a, c] * F[p, c, b]
                G[a, b] = t
        F[p] = G
    return np.sqrt(speed2)


@njit(cache=True, fastmath=FASTMATH)
def p2g_fluid_2d(bulk_modulus, dt, x, v, m, vol, C, F, origin, dx, mass, momentum):
    """A fluid's ``affine_momentum`` and ``_kernels.p2g_2d`` in one pass over the particles (each read once);
    returns how many particles were skipped outside the grid."""
    nx, ny = mass.shape
    scale = dt * 4.0 / (dx * dx)
    outside = 0
    for p in range(x.shape[0]):
        u0 = (x[p, 0] - origin[0]) / dx
        u1 = (x[p, 1] - origin[1]) / dx
        b0 = int(np.floor(u0 - 0.5))
        b1 = int(np.floor(u1 - 0.5))
        if b0 < 0 or b1 < 0 or b0 + 2 >= nx or b1 + 2 >= ny:
            outside += 1
            continue
        # A = m C - scale V K (J - 1) I
        pressure = scale * vol[p] * bulk_modulus * (F[p, 0, 0] * F[p, 1, 1] - F[p, 0, 1] * F[p, 1, 0] - 1.0)
        a00 = m[p] * C[p, 0, 0] - pressure
        a01 = m[p] * C[p, 0, 1]
        a10 = m[p] * C[p, 1, 0]
        a11 = m[p] * C[p, 1, 1] - pressure
        f0 = u0 - b0
        f1 = u1 - b1
        w0 = _kernels._weights(f0)
        w1 = _kernels._weights(f1)
        mv0 = m[p] * v[p, 0]
        mv1 = m[p] * v[p, 1]
        for i in range(3):
            d0 = (i - f0) * dx
            for j in range(3):
                d1 = (j - f1) * dx
                w = w0[i] * w1[j]
                mass[b0 + i, b1 + j] += w * m[p]
                momentum[b0 + i, b1 + j, 0] += w * (mv0 + a00 * d0 + a01 * d1)
                momentum[b0 + i, b1 + j, 1] += w * (mv1 + a10 * d0 + a11 * d1)
    return outside


@njit(cache=True, fastmath=FASTMATH)
def g2p_advance_2d(fluid, dt, x, velocity, origin, dx, v, C, F):
    """``_kernels.g2p_2d`` and ``advance`` in one pass over the particles; returns max |v_p|."""
    scale = 4.0 / (dx * dx)
    speed2 = 0.0
    for p in range(x.shape[0]):
        u0 = (x[p, 0] - origin[0]) / dx
        u1 = (x[p, 1] - origin[1]) / dx
        b0 = int(np.floor(u0 - 0.5))
        b1 = int(np.floor(u1 - 0.5))
        f0 = u0 - b0
        f1 = u1 - b1
        w0 = _kernels._weights(f0)
        w1 = _kernels._weights(f1)
        v0 = v1 = c00 = c01 = c10 = c11 = 0.0
        for i in range(3):
            d0 = (i - f0) * dx
            for j in range(3):
                d1 = (j - f1) * dx
                w = w0[i] * w1[j]
                g0 = velocity[b0 + i, b1 + j, 0]
                g1 = velocity[b0 + i, b1 + j, 1]
                v0 += w * g0
                v1 += w * g1
                c00 += w * g0 * d0
                c01 += w * g0 * d1
                c10 += w * g1 * d0
                c11 += w * g1 * d1
        v[p, 0] = v0
        v[p, 1] = v1
        c00 *= scale
        c01 *= scale
        c10 *= scale
        c11 *= scale
        C[p, 0, 0] = c00
        C[p, 0, 1] = c01
        C[p, 1, 0] = c10
        C[p, 1, 1] = c11
        x[p, 0] += dt * v0
        x[p, 1] += dt * v1
        speed2 = max(speed2, v0 * v0 + v1 * v1)
        # F <- (I + dt C) F
        f00, f01, f10, f11 = F[p, 0, 0], F[p, 0, 1], F[p, 1, 0], F[p, 1, 1]
        F[p, 0, 0] = f00 + dt * (c00 * f00 + c01 * f10)
        F[p, 0, 1] = f01 + dt * (c00 * f01 + c01 * f11)
        F[p, 1, 0] = f10 + dt * (c10 * f00 + c11 * f10)
        F[p, 1, 1] = f11 + dt * (c10 * f01 + c11 * f11)
        if fluid:                                                       # F <- J^(1/2) I, written out
            r = np.sqrt(F[p, 0, 0] * F[p, 1, 1] - F[p, 0, 1] * F[p, 1, 0])
            F[p, 0, 0] = r
            F[p, 1, 1] = r
            F[p, 0, 1] = 0.0
            F[p, 1, 0] = 0.0
    return np.sqrt(speed2)
