"""Input checks shared by the contact primitives: batched stencils of points and degenerate primitives."""
import numpy as np

from .. import _validate
from ._closest import cross, dot

# A triangle whose |(b - a) x (c - a)|^2 is at most this times |b - a|^2 |c - a|^2 has zero area to
# round-off (the sine of its smallest angle at a is below about 1e-14).
ZERO_AREA = 1e-28


def points(named, dims):
    """The arrays of ``named`` ({name: array}) as finite float (k, dim) arrays of one shape, dim in dims.

    Returns them in order, stacked into one (k, len(named), dim) array.
    """
    arrays, shape = [], None
    for name, value in named.items():
        arr = _validate.real_array(value, name)
        if arr.ndim != 2 or arr.shape[1] not in dims:
            hint = f" (one point: {name}[None])" if arr.ndim == 1 else ""
            raise ValueError(f"{name}: expected k points of shape (k, dim) with dim in {tuple(dims)}, "
                             f"got shape {arr.shape}{hint}")
        if shape is None:
            shape, first = arr.shape, name
        elif arr.shape != shape:
            raise ValueError(f"{name}: expected the shape of {first}, {shape}, got {arr.shape}")
        arrays.append(_validate.finite(arr, name))
    return np.stack(arrays, axis=1)


def nonzero_lengths(a, b, names):
    """Raise ValueError listing the stencils whose edge (a, b) has zero length."""
    e = b - a
    ee = dot(e, e)
    if ee.size and not np.minimum.reduce(ee) > 0:
        bad = np.flatnonzero(ee <= 0)
        raise ValueError(f"{names}: edge of zero length at stencil(s) {bad[:10].tolist()}")


def nonzero_areas(a, b, c, names):
    """Raise ValueError listing the stencils whose triangle (a, b, c) has zero area (to round-off)."""
    e0, e1 = b - a, c - a
    n = cross(e0, e1)
    degenerate = dot(n, n) <= ZERO_AREA * dot(e0, e0) * dot(e1, e1)
    if degenerate.any():
        bad = np.flatnonzero(degenerate)
        raise ValueError(f"{names}: triangle of zero area at stencil(s) {bad[:10].tolist()}")


def positive_distances(closest, what):
    """Raise ValueError listing the stencils at distance 0 (the distance has no derivative there)."""
    d = closest.distance
    if d.size and not np.minimum.reduce(d) > 0:
        bad = np.flatnonzero(d <= 0)
        raise ValueError(f"{what}: the primitives touch (distance 0) at stencil(s) {bad[:10].tolist()}, where the "
                         "distance has no derivative")
