r"""Compiled transfers of one velocity component between particles and its face grid (numba), unchecked.

On a MAC grid each velocity component lives on its own grid of faces, a collocated grid shifted
by half a cell, so each transfer is ``simkit.mpm._kernels``' quadratic B-spline loop for a scalar
q (the component) and the affine row c (the component's gradient, APIC's row of C)::

    m_i += w_ip m_p,   (m q)_i += w_ip m_p (q_p + c_p . (x_i - x_p))              (P2G)
    q_p = sum_i w_ip q_i,   c_p = (4 / dx^2) sum_i w_ip q_i (x_i - x_p)            (G2P)
"""
import numpy as np
from numba import njit

from ._kernels import _weights


@njit(cache=True)
def p2g_component_2d(x, q, m, c, origin, dx, mass, momentum):
    """Scatter into zeroed (nx, ny) mass and momentum of one component's face grid (node i at
    origin + i dx); particles must lie inside."""
    for p in range(x.shape[0]):
        u0 = (x[p, 0] - origin[0]) / dx
        u1 = (x[p, 1] - origin[1]) / dx
        b0 = int(np.floor(u0 - 0.5))
        b1 = int(np.floor(u1 - 0.5))
        f0 = u0 - b0
        f1 = u1 - b1
        w0 = _weights(f0)
        w1 = _weights(f1)
        for i in range(3):
            d0 = (i - f0) * dx
            for j in range(3):
                d1 = (j - f1) * dx
                w = w0[i] * w1[j]
                mass[b0 + i, b1 + j] += w * m[p]
                momentum[b0 + i, b1 + j] += w * m[p] * (q[p] + c[p, 0] * d0 + c[p, 1] * d1)


@njit(cache=True)
def g2p_component_2d(x, field, origin, dx, q, c):
    """Gather (n,) q and (n, 2) c from one component's (nx, ny) face grid."""
    scale = 4.0 / (dx * dx)
    for p in range(x.shape[0]):
        u0 = (x[p, 0] - origin[0]) / dx
        u1 = (x[p, 1] - origin[1]) / dx
        b0 = int(np.floor(u0 - 0.5))
        b1 = int(np.floor(u1 - 0.5))
        f0 = u0 - b0
        f1 = u1 - b1
        w0 = _weights(f0)
        w1 = _weights(f1)
        qp = c0 = c1 = 0.0
        for i in range(3):
            d0 = (i - f0) * dx
            for j in range(3):
                d1 = (j - f1) * dx
                g = w0[i] * w1[j] * field[b0 + i, b1 + j]
                qp += g
                c0 += g * d0
                c1 += g * d1
        q[p] = qp
        c[p, 0] = scale * c0
        c[p, 1] = scale * c1
