r"""B-spline interpolation weights of particles on a uniform grid (the readable element tier).

Grid node ``i`` (a d-tuple of integers) sits at ``origin + i * dx``. A particle at ``x_p`` in
grid units ``u = (x_p - origin) / dx`` touches the ``k^d`` nodes of its stencil, ``k = 3`` for
quadratic and ``k = 4`` for cubic B-splines, with the tensor-product weight

.. math::

    w_{ip} = \prod_{a=1}^{d} N(u_a - i_a), \qquad
    \nabla w_{ip} = \frac{1}{dx} \Big( N'(u_a - i_a) \prod_{b \ne a} N(u_b - i_b) \Big)_a .

Quadratic: :math:`N(r) = 3/4 - r^2` for :math:`|r| < 1/2`, :math:`(3/2 - |r|)^2 / 2` for
:math:`1/2 \le |r| < 3/2`. Cubic: :math:`|r|^3/2 - r^2 + 2/3` for :math:`|r| < 1`,
:math:`(2 - |r|)^3 / 6` for :math:`1 \le |r| < 2`. Both partition unity,
:math:`\sum_i w_{ip} = 1`, reproduce linear functions, :math:`\sum_i w_{ip} (x_i - x_p) = 0`, and
have the inertia-like tensor :math:`D_p = \sum_i w_{ip} (x_i - x_p)(x_i - x_p)^\top = \tfrac{dx^2}{4} I`
(quadratic) or :math:`\tfrac{dx^2}{3} I` (cubic), which APIC's affine matrix divides by.

The compiled transfers (``simkit.mpm.transfers``) inline the quadratic formulas; the tests
check them against this tier.
"""
import numpy as np

from .. import checks

ORDERS = {2: 3, 3: 4}      # B-spline order -> stencil width k


def bspline(r, order=2):
    r"""The 1D B-spline kernel :math:`N(r)` and its derivative :math:`N'(r)`.

    Parameters
    ----------
    r : float array, any shape
        Signed distance from the node, in cells.
    order : int, optional
        2 (quadratic, support :math:`|r| < 3/2`) or 3 (cubic, support :math:`|r| < 2`).

    Returns
    -------
    N, dN : float arrays of r's shape
    """
    r = checks.finite_array(r, "r")
    order = _order(order)
    a = np.abs(r)
    s = np.sign(r)
    if order == 2:
        N = np.where(a < 0.5, 0.75 - a ** 2, np.where(a < 1.5, 0.5 * (1.5 - a) ** 2, 0.0))
        dN = np.where(a < 0.5, -2.0 * r, np.where(a < 1.5, -s * (1.5 - a), 0.0))
    else:
        N = np.where(a < 1.0, 0.5 * a ** 3 - a ** 2 + 2.0 / 3.0, np.where(a < 2.0, (2.0 - a) ** 3 / 6.0, 0.0))
        dN = np.where(a < 1.0, 1.5 * a * r - 2.0 * r, np.where(a < 2.0, -0.5 * s * (2.0 - a) ** 2, 0.0))
    return N, dN


def stencil_base(x, dx, origin=None, order=2):
    r"""The lowest node of each particle's stencil: :math:`\lfloor u - 1/2 \rfloor` (quadratic) or
    :math:`\lfloor u \rfloor - 1` (cubic), :math:`u = (x - \text{origin}) / dx`.

    Parameters
    ----------
    x : (n, d) float array
        Particle positions, d 2 or 3.
    dx : float
        Grid spacing (> 0).
    origin : (d,) float array, optional
        Position of node 0 (zeros by default).
    order : int, optional
        2 or 3.

    Returns
    -------
    base : (n, d) int array
    """
    x, dx, origin = _positions_grid(x, dx, origin)
    u = (x - origin) / dx
    return (np.floor(u - 0.5) if _order(order) == 2 else np.floor(u) - 1).astype(np.int64)


def bspline_stencil(x, dx, origin=None, order=2):
    r"""Every particle's stencil nodes, weights :math:`w_{ip}` and gradients :math:`\nabla w_{ip}`.

    Parameters
    ----------
    x : (n, d) float array
        Particle positions, d 2 or 3.
    dx : float
        Grid spacing (> 0).
    origin : (d,) float array, optional
        Position of node 0 (zeros by default).
    order : int, optional
        2 (quadratic, 3^d nodes) or 3 (cubic, 4^d nodes).

    Returns
    -------
    nodes : (n, k^d, d) int array
        Integer node indices, the last axis varying fastest (C order over the stencil).
    w : (n, k^d) float array
        :math:`w_{ip} = \prod_a N(u_a - i_a)`.
    grad : (n, k^d, d) float array
        :math:`\nabla w_{ip}`, in inverse length units.
    """
    x, dx, origin = _positions_grid(x, dx, origin)
    order = _order(order)
    k = ORDERS[order]
    n, d = x.shape
    base = stencil_base(x, dx, origin, order)
    offsets = np.stack(np.meshgrid(*[np.arange(k)] * d, indexing="ij"), axis=-1).reshape(-1, d)   # (k^d, d)
    nodes = base[:, None, :] + offsets[None, :, :]
    r = (x - origin)[:, None, :] / dx - nodes                           # (n, k^d, d), in cells
    N, dN = bspline(r, order)
    w = np.prod(N, axis=2)
    grad = np.empty_like(r)
    for a in range(d):                                                   # d <= 3 axes
        grad[:, :, a] = dN[:, :, a] * np.prod(np.delete(N, a, axis=2), axis=2) / dx
    return nodes, w, grad


def _order(order):
    order = checks.integer(order, "order")
    if order not in ORDERS:
        raise ValueError(f"order: expected 2 (quadratic) or 3 (cubic), got {order}")
    return order


def _positions_grid(x, dx, origin):
    x = checks.positions(x, "x")
    dx = checks.positive_scalar(dx, "dx")
    origin = np.zeros(x.shape[1]) if origin is None else checks.finite_array(origin, "origin")
    if origin.shape != (x.shape[1],):
        raise ValueError(f"origin: expected shape ({x.shape[1]},) for {x.shape[1]}D particles, got {origin.shape}")
    return x, dx, origin
