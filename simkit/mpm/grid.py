r"""The grid step of MPM: node velocities from momentum, gravity, walls and colliders with friction.

After P2G, a node with mass :math:`m_i > 0` moves at

.. math::

    v_i = \frac{(m v)_i}{m_i} + dt\, g ,

(the stress is already in the momentum, as MLS-MPM's affine term), then boundaries change it:

- **Walls**, the ``thickness`` outermost layers of nodes on every face of the grid box, with
  outward normal n: ``"sticky"`` sets :math:`v = 0`; ``"slip"`` removes the normal part,
  :math:`v \leftarrow v - (v \cdot n) n`; ``"separate"`` removes it only when it points out,
  :math:`v \cdot n > 0` (particles may leave the wall but not enter it).
- **Colliders** described by a signed distance :math:`\phi(y)` (negative inside) and its unit
  gradient n: at nodes with :math:`\phi \le 0` and :math:`v_n = v \cdot n < 0`, Coulomb friction of
  coefficient :math:`\mu` acts on the tangential part :math:`v_t = v - v_n n`:

  .. math::

      v \leftarrow \begin{cases} 0 & \lVert v_t \rVert \le -\mu v_n \ \text{(stick)} \\
      v_t \big(1 + \mu v_n / \lVert v_t \rVert\big) & \text{otherwise (slide)} \end{cases}

  ``Plane(point, normal)``, ``Box(lower, upper)`` (a solid axis-aligned box) and
  ``Sphere(center, radius)`` are the colliders here.
"""
from dataclasses import dataclass

import numpy as np

from .. import checks

WALLS = ("sticky", "slip", "separate")


def grid_velocity(mass, momentum, dt=0.0, gravity=None):
    r"""Node velocities :math:`v_i = (m v)_i / m_i + dt\, g`, zero at nodes without mass.

    Parameters
    ----------
    mass : float array of shape ``shape``
    momentum : float array of shape ``shape + (d,)``
    dt : float, optional
        Time step, for gravity.
    gravity : (d,) float array, optional
        Gravitational acceleration.

    Returns
    -------
    velocity : float array of shape ``shape + (d,)``
    """
    mass = checks.finite_array(mass, "mass")
    momentum = checks.finite_array(momentum, "momentum")
    if momentum.shape != mass.shape + (mass.ndim,):
        raise ValueError(f"momentum: expected shape {mass.shape + (mass.ndim,)} for a grid of shape {mass.shape}, "
                         f"got {momentum.shape}")
    g = np.zeros(mass.ndim) if gravity is None else checks.finite_array(gravity, "gravity")
    has_mass = mass > 0
    velocity = np.where(has_mass[..., None], momentum / np.where(has_mass, mass, 1.0)[..., None] + dt * g, 0.0)
    return velocity


def walls(velocity, thickness, condition="separate"):
    """Apply a wall condition on the ``thickness`` outermost node layers of every face, in place.

    Parameters
    ----------
    velocity : float array of shape ``shape + (d,)``
        Node velocities, changed in place.
    thickness : int
        Node layers per face (>= 1).
    condition : str, optional
        ``"sticky"`` (v = 0), ``"slip"`` (no normal velocity) or ``"separate"`` (no velocity into the
        wall).

    Returns
    -------
    velocity : the same array
    """
    if condition not in WALLS:
        raise ValueError(f"condition: expected one of {WALLS}, got {condition!r}")
    thickness = checks.integer(thickness, "thickness", low=1)
    d = velocity.ndim - 1
    for a in range(d):
        low = (slice(None),) * a + (slice(0, thickness),)
        high = (slice(None),) * a + (slice(velocity.shape[a] - thickness, None),)
        for layer, outward in ((low, -1.0), (high, 1.0)):
            block = velocity[layer]
            if condition == "sticky":
                block[...] = 0.0
            elif condition == "slip":
                block[..., a] = 0.0
            else:
                va = block[..., a]
                va[va * outward > 0] = 0.0
    return velocity


def coulomb_friction(v, normal, friction):
    r"""Coulomb friction of velocities against a surface: no velocity into it, tangential part reduced by
    :math:`\mu |v_n|` (stuck when that is more than it has).

    Parameters
    ----------
    v : (m, d) float array
        Velocities relative to the surface.
    normal : (m, d) float array
        Unit outward normals.
    friction : float
        Coefficient :math:`\mu \ge 0`; ``inf`` sticks.

    Returns
    -------
    v : (m, d) float array
        Unchanged where :math:`v \cdot n \ge 0` (separating).
    """
    vn = np.sum(v * normal, axis=-1)
    vt = v - vn[:, None] * normal
    vt_norm = np.linalg.norm(vt, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):        # friction = inf: inf * 0 where the row is kept
        slide = vt * (1.0 + friction * vn / np.where(vt_norm > 0, vt_norm, 1.0))[:, None]
        out = np.where((vt_norm <= -friction * vn)[:, None], 0.0, slide)
    return np.where((vn < 0)[:, None], out, v)


def collide(velocity, dx, collider, friction, origin=None):
    r"""Apply a collider's Coulomb friction to the nodes inside it (:math:`\phi \le 0`), in place.

    Parameters
    ----------
    velocity : float array of shape ``shape + (d,)``
        Node velocities, changed in place.
    dx : float
        Grid spacing.
    collider : Plane, Box or Sphere
    friction : float
        Coulomb coefficient (>= 0; ``inf`` sticks).
    origin : (d,) float array, optional
        Position of node 0.

    Returns
    -------
    velocity : the same array
    """
    friction = float(friction)
    if not friction >= 0:
        raise ValueError(f"friction: expected a coefficient >= 0, got {friction}")
    d = velocity.ndim - 1
    origin = np.zeros(d) if origin is None else np.asarray(origin, dtype=float)
    nodes = origin + dx * np.stack(np.meshgrid(*[np.arange(s) for s in velocity.shape[:-1]], indexing="ij"), axis=-1)
    phi, normal = collider.signed_distance(nodes.reshape(-1, d))
    inside = np.flatnonzero(phi <= 0)
    flat = velocity.reshape(-1, d)
    flat[inside] = coulomb_friction(flat[inside], normal[inside], friction)
    return velocity


@dataclass(frozen=True)
class Plane:
    """The half-space behind a plane through ``point`` with unit outward ``normal``: phi = (y - point) . n."""
    point: tuple
    normal: tuple

    def signed_distance(self, y):
        """phi (m,) and unit outward normals (m, d) at points y (m, d)."""
        n = np.asarray(self.normal, dtype=float)
        n = n / np.linalg.norm(n)
        return (y - np.asarray(self.point, dtype=float)) @ n, np.broadcast_to(n, y.shape)


@dataclass(frozen=True)
class Sphere:
    r"""A solid ball (disk in 2D): :math:`\phi = \lVert y - c \rVert - r`."""
    center: tuple
    radius: float

    def signed_distance(self, y):
        """phi (m,) and unit outward normals (m, d) at points y (m, d)."""
        r = y - np.asarray(self.center, dtype=float)
        length = np.linalg.norm(r, axis=1)
        normal = r / np.where(length > 0, length, 1.0)[:, None]
        normal[length == 0, 0] = 1.0
        return length - self.radius, normal


@dataclass(frozen=True)
class Box:
    r"""A solid axis-aligned box [lower, upper] of centre c and half sizes h:
    :math:`\phi = \lVert \max(q, 0) \rVert + \min(\max_a q_a, 0)`, :math:`q = |y - c| - h` (per axis)."""
    lower: tuple
    upper: tuple

    def signed_distance(self, y):
        """phi (m,) and unit outward normals (m, d) at points y (m, d)."""
        lower, upper = np.asarray(self.lower, dtype=float), np.asarray(self.upper, dtype=float)
        c, h = 0.5 * (lower + upper), 0.5 * (upper - lower)
        r = y - c
        side = np.where(r >= 0, 1.0, -1.0)
        q = np.abs(r) - h
        out = np.maximum(q, 0.0)
        out_len = np.linalg.norm(out, axis=1)
        deepest = np.argmax(q, axis=1)
        phi = out_len + np.minimum(q.max(axis=1), 0.0)
        inside_normal = np.zeros_like(y)
        inside_normal[np.arange(len(y)), deepest] = side[np.arange(len(y)), deepest]
        outside_normal = side * out / np.where(out_len > 0, out_len, 1.0)[:, None]
        return phi, np.where((out_len > 0)[:, None], outside_normal, inside_normal)
