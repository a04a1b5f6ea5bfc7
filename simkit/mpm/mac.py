r"""Incompressible water on a 2D MAC grid: staggered transfers, fluid cells, one pressure projection per step.

The box of ``cells = (nx, ny)`` square cells of side dx has its lower-left corner at ``origin``.
Pressure lives at cell centres, the x velocity u on the vertical faces (face ``(i, j)`` at
``origin + (i dx, (j + 1/2) dx)``, shape ``(nx + 1, ny)``) and the y velocity v on the horizontal
faces (``origin + ((i + 1/2) dx, j dx)``, shape ``(nx, ny + 1)``). Each component's face grid is a
collocated grid shifted by half a cell, so the transfers are the quadratic B-spline ones of
``simkit.mpm.transfers`` per component: P2G
:math:`u_i = \sum_p w_{ip} m_p (v_{p,0} + c_{p} \cdot (x_i - x_p)) / \sum_p w_{ip} m_p` with
:math:`c_p` the first row of APIC's :math:`C_p`, and G2P
:math:`v_{p,0} = \sum_i w_{ip} u_i`, :math:`c_p = \tfrac{4}{dx^2} \sum_i w_{ip} u_i (x_i - x_p)`.

The outer layer of cells is solid, so that every particle's stencils stay on the grids
(particles live in :math:`[\text{origin} + dx, \text{origin} + (\text{cells} - 1)\, dx)`); more solid
cells may be given. A cell is fluid when it holds a particle and is not solid, air otherwise.

**Pressure projection.** Faces touching a solid cell get the solid's velocity, zero. The
pressure p, zero in air cells, makes every fluid cell divergence-free:

.. math::

    u_f \leftarrow u_f^* - \frac{dt}{\rho\, dx} (p_R - p_L), \qquad
    \frac{dt}{\rho\, dx^2} \sum_{\text{non-solid } b} (p_c - p_b) = -\frac{1}{dx}\Big(\sum_{\text{out}} u^* - \sum_{\text{in}} u^*\Big),

one sparse symmetric positive definite system over the fluid cells, assembled from index arrays
and solved once (``simkit.solvers.sparse_solve``). A column at rest gets exactly the hydrostatic
pressure :math:`p = \rho g (y_s - y)`, :math:`y_s` the centre of the first air cell above it. (A
closed box entirely full of fluid, with no air cell, has no unique pressure.)

``MACFluid`` runs the whole step with PIC, APIC or a FLIP blend of velocities.
"""
import numpy as np
import scipy.sparse as sps

from .. import checks
from ..solvers.sparse_solve import sparse_solve
from . import _mac_kernels
from .simulation import record_frames
from .transfers import _fmt, _per_particle

TRANSFERS = ("pic", "apic", "flip")


def face_positions(dx, cells, origin=None):
    """Positions of the u faces ``(nx + 1, ny, 2)`` and the v faces ``(nx, ny + 1, 2)``.

    Parameters
    ----------
    dx : float
    cells : (nx, ny) ints
    origin : (2,) float array, optional
        Lower-left corner of the box.

    Returns
    -------
    xu, xv : float arrays
    """
    dx, cells, origin = _grid(dx, cells, origin)
    nx, ny = cells
    i, j = np.meshgrid(np.arange(nx + 1), np.arange(ny), indexing="ij")
    xu = origin + dx * np.stack([i, j + 0.5], axis=-1)
    i, j = np.meshgrid(np.arange(nx), np.arange(ny + 1), indexing="ij")
    xv = origin + dx * np.stack([i + 0.5, j], axis=-1)
    return xu, xv


def staggered_p2g(x, v, m, dx, cells, C=None, origin=None):
    r"""Scatter particle velocities to the faces of a MAC grid (APIC; PIC when C is None).

    :math:`u_i = \sum_p w_{ip} m_p (v_{p,0} + C_{p,0,:} (x_i - x_p)) / \sum_p w_{ip} m_p`, likewise v.

    Parameters
    ----------
    x : (n, 2) float array
        Particle positions, in [origin + dx, origin + (cells - 1) dx).
    v : (n, 2) float array
    m : float or (n,) float array
        Masses (>= 0).
    dx : float
    cells : (nx, ny) ints
    C : (n, 2, 2) float array, optional
    origin : (2,) float array, optional

    Returns
    -------
    u : (nx + 1, ny) float array
        Zero on faces without mass.
    v : (nx, ny + 1) float array
    u_mass : (nx + 1, ny) float array
    v_mass : (nx, ny + 1) float array
    """
    x, dx, cells, origin = _particles(x, dx, cells, origin)
    n = len(x)
    v = _per_particle(v, "v", (n, 2))
    m = checks.finite_array(m, "m")
    m = np.full(n, float(m)) if m.ndim == 0 else m
    if m.shape != (n,):
        raise ValueError(f"m: expected one mass per particle, shape ({n},), got {m.shape}")
    if (m < 0).any():
        raise ValueError(f"m: expected masses >= 0, found {int((m < 0).sum())} negative")
    C = np.zeros((n, 2, 2)) if C is None else _per_particle(C, "C", (n, 2, 2))
    return _scatter(x, v, m, C, dx, cells, origin)


def staggered_g2p(x, u, v, dx, origin=None):
    r"""Gather particle velocities and APIC matrices from MAC face velocities.

    :math:`v_{p,0} = \sum_i w_{ip} u_i`, :math:`C_{p,0,:} = \tfrac{4}{dx^2} \sum_i w_{ip} u_i (x_i - x_p)^\top`, likewise
    from v.

    Parameters
    ----------
    x : (n, 2) float array
    u : (nx + 1, ny) float array
    v : (nx, ny + 1) float array
    dx : float
    origin : (2,) float array, optional

    Returns
    -------
    vp : (n, 2) float array
    C : (n, 2, 2) float array
    """
    u = checks.finite_array(u, "u")
    if u.ndim != 2:
        raise ValueError(f"u: expected (nx + 1, ny) face velocities, got shape {u.shape}")
    cells = (u.shape[0] - 1, u.shape[1])
    v = _per_particle(v, "v", (cells[0], cells[1] + 1))
    x, dx, cells, origin = _particles(x, dx, cells, origin)
    return _gather(x, u, v, dx, origin)


def fluid_cells(x, dx, solid, origin=None):
    """Cells that hold at least one particle and are not solid.

    Parameters
    ----------
    x : (n, 2) float array
    dx : float
    solid : (nx, ny) bool array
    origin : (2,) float array, optional

    Returns
    -------
    fluid : (nx, ny) bool array
    """
    solid = np.asarray(solid, dtype=bool)
    x, dx, cells, origin = _particles(x, dx, solid.shape, origin)
    return _fluid(x, dx, solid, origin)


def divergence(u, v, dx):
    r"""The discrete divergence of each cell, :math:`(u_{i+1,j} - u_{i,j} + v_{i,j+1} - v_{i,j}) / dx`.

    Parameters
    ----------
    u : (nx + 1, ny) float array
    v : (nx, ny + 1) float array
    dx : float

    Returns
    -------
    div : (nx, ny) float array
    """
    return (np.diff(u, axis=0) + np.diff(v, axis=1)) / dx


def pressure_projection(u, v, fluid, solid, dx, dt, density):
    r"""Make every fluid cell divergence-free by one sparse SPD pressure solve, solid faces at rest.

    Parameters
    ----------
    u : (nx + 1, ny) float array
    v : (nx, ny + 1) float array
    fluid, solid : (nx, ny) bool arrays
        Disjoint; the other cells are air (p = 0).
    dx, dt, density : float

    Returns
    -------
    u : (nx + 1, ny) float array
    v : (nx, ny + 1) float array
    p : (nx, ny) float array
        Zero outside the fluid.

    Raises
    ------
    ValueError
        No fluid cell touches an air cell (the pressure is then determined up to a constant).
    """
    fluid, solid = np.asarray(fluid, dtype=bool), np.asarray(solid, dtype=bool)
    nx, ny = fluid.shape
    u = _per_particle(u, "u", (nx + 1, ny)).copy()
    v = _per_particle(v, "v", (nx, ny + 1)).copy()
    if solid.shape != fluid.shape or (fluid & solid).any():
        raise ValueError(f"fluid, solid: expected disjoint (nx, ny) masks, got shapes {fluid.shape}, {solid.shape}")
    dx, dt, density = (checks.positive_scalar(a, name) for a, name in ((dx, "dx"), (dt, "dt"), (density, "density")))
    _solid_faces(u, v, solid)
    p = np.zeros((nx, ny))
    k = np.flatnonzero(fluid)
    if k.size == 0:
        return u, v, p
    air = ~fluid & ~solid
    touches_air = np.zeros_like(fluid)
    touches_air[1:] |= air[:-1]
    touches_air[:-1] |= air[1:]
    touches_air[:, 1:] |= air[:, :-1]
    touches_air[:, :-1] |= air[:, 1:]
    if not (fluid & touches_air).any():
        raise ValueError("fluid: no fluid cell touches an air cell, so the pressure is undetermined (a closed box "
                         "full of fluid); leave air above the water")
    index = np.full(nx * ny, -1)
    index[k] = np.arange(k.size)
    s = dt / (density * dx * dx)
    rows, cols, vals = [], [], []
    for a_cells, b_cells in _face_pairs(nx, ny):                         # cells a | b across interior faces
        open_face = ~solid.ravel()[a_cells] & ~solid.ravel()[b_cells]
        ia, ib = index[a_cells], index[b_cells]
        for i, j in ((ia, ib), (ib, ia)):
            on = open_face & (i >= 0)
            rows.append(i[on])
            cols.append(i[on])
            vals.append(np.full(on.sum(), s))
            both = on & (j >= 0)
            rows.append(i[both])
            cols.append(j[both])
            vals.append(np.full(both.sum(), -s))
    A = sps.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(k.size,) * 2)
    p.ravel()[k] = sparse_solve(A.tocsc(), -divergence(u, v, dx).ravel()[k])
    # faces between two non-solid cells with fluid on one side take the pressure gradient
    near = np.zeros((nx + 1, ny), dtype=bool)
    near[1:-1] = (fluid[1:] | fluid[:-1]) & ~solid[1:] & ~solid[:-1]
    u[near] -= (dt / (density * dx)) * np.diff(p, axis=0)[near[1:-1]]
    near = np.zeros((nx, ny + 1), dtype=bool)
    near[:, 1:-1] = (fluid[:, 1:] | fluid[:, :-1]) & ~solid[:, 1:] & ~solid[:, :-1]
    v[near] -= (dt / (density * dx)) * np.diff(p, axis=1)[near[:, 1:-1]]
    return u, v, p


class MACFluid:
    r"""Incompressible water as particles on a 2D MAC grid: one pressure projection per substep.

    A substep: staggered P2G (APIC for ``"apic"``), gravity on the faces, fluid cells from the
    particles, the pressure projection, the velocities of faces next to no fluid cell extrapolated
    from their neighbours (two layers, a quadratic stencil's reach: else particles at the surface
    would gather the air's free fall), then G2P: ``"pic"`` takes the new face velocities,
    ``"apic"`` them and the affine matrices, ``"flip"`` blends
    :math:`v_p \leftarrow (1 - \alpha)\, \text{G2P}(u^{n+1}) + \alpha\, (v_p + \text{G2P}(u^{n+1} - u^n))`;
    each particle moves by its new velocity, :math:`x_p \mathrel{+}= dt\, v_p`, and is kept off the
    solid border. The step is limited by :math:`dt \le \text{cfl}\ dx / (\max_p \lVert v_p \rVert + \sqrt{|g|\, dx})`
    (the second term is the speed gained falling one cell).

    Parameters
    ----------
    x : (n, 2) float array
        Particle positions, inside the solid border.
    dx : float
    cells : (nx, ny) ints
    density : float
        Water's density rho (> 0).
    v : (n, 2) float array, optional
    origin : (2,) float array, optional
    gravity : (2,) float array, optional
    transfer : str, optional
        ``"pic"``, ``"apic"`` (default) or ``"flip"``.
    flip : float, optional
        FLIP's share alpha in [0, 1] (default 0.95), for ``"flip"``.
    solid : (nx, ny) bool array, optional
        Solid cells besides the border.
    cfl : float, optional
        Default 1.

    Attributes
    ----------
    x, v : (n, 2) float arrays
    C : (n, 2, 2) float array
    pressure : (nx, ny) float array
        The last projection's pressure.
    fluid, solid : (nx, ny) bool arrays
        The last projection's fluid cells, and the solid cells.
    u, v_face : (nx + 1, ny), (nx, ny + 1) float arrays
        Face velocities after the last projection.
    time : float
    """

    def __init__(self, x, dx, cells, *, density, v=None, origin=None, gravity=None, transfer="apic", flip=0.95,
                 solid=None, cfl=1.0):
        x, self.dx, self.cells, self.origin = _particles(x, dx, cells, origin)
        n = len(x)
        self.x = x.copy()
        self.v = np.zeros((n, 2)) if v is None else _per_particle(v, "v", (n, 2)).copy()
        self.density = checks.positive_scalar(density, "density")
        self.gravity = np.zeros(2) if gravity is None else _per_particle(gravity, "gravity", (2,))
        if transfer not in TRANSFERS:
            raise ValueError(f"transfer: expected one of {TRANSFERS}, got {transfer!r}")
        self.transfer = transfer
        self.flip = checks.real_scalar(flip, "flip")
        if not 0 <= self.flip <= 1:
            raise ValueError(f"flip: expected a share in [0, 1], got {self.flip}")
        border = np.ones(self.cells, dtype=bool)
        border[1:-1, 1:-1] = False
        if solid is not None:
            solid = np.asarray(solid)
            if solid.shape != self.cells:
                raise ValueError(f"solid: expected a bool mask of shape {self.cells}, got {solid.shape}")
            border |= solid.astype(bool)
        self.solid = border
        self.cfl = checks.positive_scalar(cfl, "cfl")
        self.C = np.zeros((n, 2, 2))
        self.mass = np.ones(n)
        self.pressure = np.zeros(self.cells)
        self.fluid = _fluid(self.x, self.dx, self.solid, self.origin)
        self.u, self.v_face = np.zeros((self.cells[0] + 1, self.cells[1])), np.zeros((self.cells[0], self.cells[1] + 1))
        self.time = 0.0

    def max_dt(self):
        """The CFL limit of the next substep."""
        speed = float(np.sqrt((self.v ** 2).sum(axis=1).max())) if len(self.v) else 0.0
        return self.cfl * self.dx / (speed + np.sqrt(np.linalg.norm(self.gravity) * self.dx))

    def substep(self, dt):
        """Advance by one substep of length dt (at most ``max_dt()``; ValueError above it, stating the limit)."""
        dt = checks.positive_scalar(dt, "dt")
        limit = self.max_dt()
        if dt > limit:
            raise ValueError(f"dt: {dt:.6g} is above the CFL limit {limit:.6g} = cfl dx / (max |v| + sqrt(|g| dx))")
        C = self.C if self.transfer == "apic" else np.zeros_like(self.C)
        u0, v0, _, _ = _scatter(self.x, self.v, self.mass, C, self.dx, self.cells, self.origin)
        self.fluid = fluid = _fluid(self.x, self.dx, self.solid, self.origin)
        u, v, self.pressure = pressure_projection(u0 + dt * self.gravity[0], v0 + dt * self.gravity[1], fluid,
                                                  self.solid, self.dx, dt, self.density)
        u, v = _extrapolate_faces(u, v, fluid, self.solid)
        vp, Cp = _gather(self.x, u, v, self.dx, self.origin)
        if self.transfer == "flip":
            change = _gather(self.x, u - u0, v - v0, self.dx, self.origin)[0]
            vp = (1.0 - self.flip) * vp + self.flip * (self.v + change)
        self.v = vp
        self.C = Cp if self.transfer == "apic" else np.zeros_like(Cp)
        low = self.origin + self.dx
        high = self.origin + (np.asarray(self.cells) - 1) * self.dx
        self.x = np.clip(self.x + dt * self.v, low, high - 1e-9 * self.dx)
        self.u, self.v_face = u, v
        self.time += dt

    def run(self, frames, dt, substeps):
        """Positions ``(frames + 1, n, 2)`` at the start and after each frame of ``substeps`` substeps of dt."""
        return record_frames(self, frames, dt, substeps)


def _scatter(x, v, m, C, dx, cells, origin):
    nx, ny = cells
    faces = []
    for a, shape, shift in ((0, (nx + 1, ny), (0.0, 0.5)), (1, (nx, ny + 1), (0.5, 0.0))):
        mass, momentum = np.zeros(shape), np.zeros(shape)
        _mac_kernels.p2g_component_2d(x, np.ascontiguousarray(v[:, a]), m, np.ascontiguousarray(C[:, a, :]),
                                      origin + dx * np.asarray(shift), dx, mass, momentum)
        faces.append((np.where(mass > 0, momentum / np.where(mass > 0, mass, 1.0), 0.0), mass))
    return faces[0][0], faces[1][0], faces[0][1], faces[1][1]


def _gather(x, u, v, dx, origin):
    n = len(x)
    vp, C = np.empty((n, 2)), np.empty((n, 2, 2))
    for a, field, shift in ((0, u, (0.0, 0.5)), (1, v, (0.5, 0.0))):
        q, c = np.empty(n), np.empty((n, 2))
        _mac_kernels.g2p_component_2d(x, np.ascontiguousarray(field), origin + dx * np.asarray(shift), dx, q, c)
        vp[:, a], C[:, a, :] = q, c
    return vp, C


def _extrapolate_faces(u, v, fluid, solid, layers=2):
    """Face velocities with the faces next to no fluid cell (and no solid one) replaced, layer by layer, by the
    mean of their known neighbours in the same face grid."""
    known_u = np.zeros(u.shape, dtype=bool)
    known_u[:-1] |= fluid | solid
    known_u[1:] |= fluid | solid
    known_v = np.zeros(v.shape, dtype=bool)
    known_v[:, :-1] |= fluid | solid
    known_v[:, 1:] |= fluid | solid
    return _extrapolate(u, known_u, layers), _extrapolate(v, known_v, layers)


def _extrapolate(field, known, layers):
    """Unknown entries next to known ones take their mean, ``layers`` times; the rest are zero."""
    field = np.where(known, field, 0.0)
    for _ in range(layers):
        total, count = np.zeros_like(field), np.zeros(field.shape)
        for axis in (0, 1):
            for shift in (1, -1):
                src = [slice(None)] * 2
                dst = [slice(None)] * 2
                src[axis] = slice(0, -1) if shift == 1 else slice(1, None)
                dst[axis] = slice(1, None) if shift == 1 else slice(0, -1)
                total[tuple(dst)] += np.where(known[tuple(src)], field[tuple(src)], 0.0)
                count[tuple(dst)] += known[tuple(src)]
        new = ~known & (count > 0)
        field[new] = total[new] / count[new]
        known = known | new
    return field


def _fluid(x, dx, solid, origin):
    cell = np.floor((x - origin) / dx).astype(np.int64)
    fluid = np.zeros(solid.shape, dtype=bool)
    fluid[cell[:, 0], cell[:, 1]] = True
    return fluid & ~solid


def _solid_faces(u, v, solid):
    """Zero the faces that touch a solid cell, in place."""
    u[:-1][solid] = 0.0
    u[1:][solid] = 0.0
    v[:, :-1][solid] = 0.0
    v[:, 1:][solid] = 0.0


def _face_pairs(nx, ny):
    """Flat indices of the cells on both sides of every interior x face, then every interior y face."""
    cell = np.arange(nx * ny).reshape(nx, ny)
    return ((cell[:-1].ravel(), cell[1:].ravel()), (cell[:, :-1].ravel(), cell[:, 1:].ravel()))


def _grid(dx, cells, origin):
    dx = checks.positive_scalar(dx, "dx")
    if np.ndim(cells) != 1 or len(cells) != 2:
        raise ValueError(f"cells: expected (nx, ny), got {cells!r}")
    cells = tuple(checks.integer(c, "cells", low=3) for c in cells)
    origin = np.zeros(2) if origin is None else _per_particle(origin, "origin", (2,))
    return dx, cells, origin


def _particles(x, dx, cells, origin):
    """Checked particles inside the solid border of a MAC box; ValueError counting the others."""
    x = checks.positions(x, "x", dims=(2,))
    dx, cells, origin = _grid(dx, cells, origin)
    low, high = origin + dx, origin + (np.asarray(cells) - 1) * dx
    outside = ((x < low) | (x >= high)).any(axis=1)
    if outside.any():
        raise ValueError(f"x: {int(outside.sum())} of {len(x)} particles lie outside the box's solid border; a MAC "
                         f"grid of {cells} cells needs every particle in [{_fmt(low)}, {_fmt(high)})")
    return x, dx, cells, origin
