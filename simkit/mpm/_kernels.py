r"""Compiled particle-grid transfers with quadratic B-splines (numba, serial per-particle loops).

Unchecked: the public functions validate once and call these. Each loop is the equation it
implements, one particle at a time, with :math:`u = (x_p - \text{origin}) / dx`, the stencil's
lowest node :math:`b = \lfloor u - 1/2 \rfloor`, :math:`f = u - b \in [1/2, 3/2)` and the weights of
the nodes b, b+1, b+2 along an axis (``simkit.mpm.weights`` is the readable tier)::

    N0 = (3/2 - f)^2 / 2,   N1 = 3/4 - (f - 1)^2,   N2 = (f - 1/2)^2 / 2

P2G scatters mass and momentum, with ``A_p`` the particle's affine momentum matrix
(``m_p C_p`` for APIC, plus the stress term of an MPM step)::

    m_i += w_ip m_p,    (m v)_i += w_ip (m_p v_p + A_p (x_i - x_p))

G2P gathers velocity and APIC's affine matrix (``D_p = dx^2/4 I`` for quadratic splines)::

    v_p = sum_i w_ip v_i,    C_p = (4 / dx^2) sum_i w_ip v_i (x_i - x_p)^T

A scatter in parallel would race (numba's ``prange`` has no atomic add), so the loops are
serial; at 8,192 particles one substep is already faster than Taichi's two threads.
"""
import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _weights(f):
    """Quadratic B-spline weights of the nodes b, b+1, b+2 for the offset f = u - b in [1/2, 3/2)."""
    return (0.5 * (1.5 - f) ** 2, 0.75 - (f - 1.0) ** 2, 0.5 * (f - 0.5) ** 2)


@njit(cache=True)
def p2g_2d(x, v, m, A, origin, dx, mass, momentum):
    """Scatter into zeroed (nx, ny) mass and (nx, ny, 2) momentum; returns how many particles were skipped
    because their stencil leaves the grid."""
    nx, ny = mass.shape
    outside = 0
    for p in range(x.shape[0]):
        u0 = (x[p, 0] - origin[0]) / dx
        u1 = (x[p, 1] - origin[1]) / dx
        b0 = int(np.floor(u0 - 0.5))
        b1 = int(np.floor(u1 - 0.5))
        if b0 < 0 or b1 < 0 or b0 + 2 >= nx or b1 + 2 >= ny:
            outside += 1
            continue
        f0 = u0 - b0
        f1 = u1 - b1
        w0 = _weights(f0)
        w1 = _weights(f1)
        mv0 = m[p] * v[p, 0]
        mv1 = m[p] * v[p, 1]
        for i in range(3):
            d0 = (i - f0) * dx                              # x_i - x_p
            for j in range(3):
                d1 = (j - f1) * dx
                w = w0[i] * w1[j]
                mass[b0 + i, b1 + j] += w * m[p]
                momentum[b0 + i, b1 + j, 0] += w * (mv0 + A[p, 0, 0] * d0 + A[p, 0, 1] * d1)
                momentum[b0 + i, b1 + j, 1] += w * (mv1 + A[p, 1, 0] * d0 + A[p, 1, 1] * d1)
    return outside


@njit(cache=True)
def g2p_2d(x, velocity, origin, dx, v, C):
    """Gather into (n, 2) v and (n, 2, 2) C from an (nx, ny, 2) grid velocity (particles inside the grid)."""
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
        C[p, 0, 0] = scale * c00
        C[p, 0, 1] = scale * c01
        C[p, 1, 0] = scale * c10
        C[p, 1, 1] = scale * c11


@njit(cache=True)
def p2g_3d(x, v, m, A, origin, dx, mass, momentum):
    """3D ``p2g_2d``: zeroed (nx, ny, nz) mass and (nx, ny, nz, 3) momentum; returns the skipped count."""
    nx, ny, nz = mass.shape
    outside = 0
    d = np.empty(3)
    for p in range(x.shape[0]):
        u0 = (x[p, 0] - origin[0]) / dx
        u1 = (x[p, 1] - origin[1]) / dx
        u2 = (x[p, 2] - origin[2]) / dx
        b0 = int(np.floor(u0 - 0.5))
        b1 = int(np.floor(u1 - 0.5))
        b2 = int(np.floor(u2 - 0.5))
        if b0 < 0 or b1 < 0 or b2 < 0 or b0 + 2 >= nx or b1 + 2 >= ny or b2 + 2 >= nz:
            outside += 1
            continue
        f0 = u0 - b0
        f1 = u1 - b1
        f2 = u2 - b2
        w0 = _weights(f0)
        w1 = _weights(f1)
        w2 = _weights(f2)
        for i in range(3):
            d[0] = (i - f0) * dx
            for j in range(3):
                d[1] = (j - f1) * dx
                for k in range(3):
                    d[2] = (k - f2) * dx
                    w = w0[i] * w1[j] * w2[k]
                    mass[b0 + i, b1 + j, b2 + k] += w * m[p]
                    for a in range(3):
                        momentum[b0 + i, b1 + j, b2 + k, a] += w * (
                            m[p] * v[p, a] + A[p, a, 0] * d[0] + A[p, a, 1] * d[1] + A[p, a, 2] * d[2])
    return outside


@njit(cache=True)
def g2p_3d(x, velocity, origin, dx, v, C):
    """3D ``g2p_2d``: (n, 3) v and (n, 3, 3) C from an (nx, ny, nz, 3) grid velocity."""
    scale = 4.0 / (dx * dx)
    d = np.empty(3)
    for p in range(x.shape[0]):
        u0 = (x[p, 0] - origin[0]) / dx
        u1 = (x[p, 1] - origin[1]) / dx
        u2 = (x[p, 2] - origin[2]) / dx
        b0 = int(np.floor(u0 - 0.5))
        b1 = int(np.floor(u1 - 0.5))
        b2 = int(np.floor(u2 - 0.5))
        f0 = u0 - b0
        f1 = u1 - b1
        f2 = u2 - b2
        w0 = _weights(f0)
        w1 = _weights(f1)
        w2 = _weights(f2)
        v[p, :] = 0.0
        C[p, :, :] = 0.0
        for i in range(3):
            d[0] = (i - f0) * dx
            for j in range(3):
                d[1] = (j - f1) * dx
                for k in range(3):
                    d[2] = (k - f2) * dx
                    w = w0[i] * w1[j] * w2[k]
                    for a in range(3):
                        g = velocity[b0 + i, b1 + j, b2 + k, a]
                        v[p, a] += w * g
                        for c in range(3):
                            C[p, a, c] += w * g * d[c]
        for a in range(3):
            for c in range(3):
                C[p, a, c] *= scale
