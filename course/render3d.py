r"""Depth-correct pictures of 3D scenes: a z-buffer renderer for the course's 3D figures and videos.

A painter's algorithm (``course.mesh3d``, matplotlib's 3D Axes) sorts whole triangles by one
depth each, which fails where layers nearly touch: cloth folded onto itself a few millimetres
apart, cloth on a sphere, solids in a pile. Here every sample is decided on its own: the
z-buffer of ``course._raster`` keeps, per sample, the surface nearest to the camera, so the
nearer layer hides the farther one whatever the triangles' sizes and order.

One sample per pixel, at its centre, decides most of the picture. Where the picture jumps
between neighbouring pixels (a silhouette, a layer over another, a crease between flat faces, a
pin), those pixels alone are sampled again ``supersample`` x ``supersample`` times and averaged:
anti-aliasing at a small fraction of the cost of supersampling everything.

A scene is a list of ``Surface`` objects (a cloth, a sphere, the boundary of a solid, a ground),
each with its own colours, seen by the fixed orthographic camera of ``course.mesh3d``
(``View``). Shading is two-sided Blinn-Phong, :math:`c = b\,(k_a + k_d \max(n \cdot \ell, 0)) +
k_s \max(n \cdot h, 0)^p` with :math:`b` the front or back colour of the side the camera sees,
under a light fixed to the camera (``Lighting``), evaluated at each triangle's corners and
interpolated across it (Gouraud). Mesh edges, when asked for, darken the samples within half a
line width of their triangle's border, so they are depth-tested too. Pins are balls of a fixed
size on screen, hidden by what lies in front of them. ``render_scene`` returns pixels;
``course.scene3d`` puts them into figures and videos.
"""
from typing import NamedTuple

import numpy as np

from simkit import checks

from . import _raster
from ._inputs import _indices, _points, _scene_limits, _states
from ._public import public
from .mesh3d import _rgb, _screen_limits, _triangles, view_basis
from .style import CLOTH_BACK, CLOTH_FRONT, DENSITY, DPI, PIN_C

#: float : mesh edges are drawn in the colour of their surface times this factor.
LINE_SHADE = 0.55
#: float : a pin's white rim, as a fraction of its radius.
PIN_RIM = 0.28


@public
class Lighting(NamedTuple):
    r"""Two-sided Blinn-Phong shading under one light fixed to the camera.

    A point of base colour :math:`b` (front or back) with unit normal :math:`n`, turned towards
    the camera, gets :math:`c = b\,(k_a + k_d \max(n \cdot \ell, 0)) + k_s \max(n \cdot h, 0)^p`,
    with :math:`\ell` the light direction and :math:`h` the unit half-vector between it and the
    direction to the camera.

    Parameters
    ----------
    ambient, diffuse, specular : float
        :math:`k_a`, :math:`k_d`, :math:`k_s`.
    shininess : float
        :math:`p`.
    direction : (3,) float
        Towards the light, in camera axes (right, up, towards the camera); need not be unit.
    """

    ambient: float = 0.42
    diffuse: float = 0.58
    specular: float = 0.12
    shininess: float = 30.0
    direction: tuple = (-0.45, 0.75, 1.0)


LIGHTING = Lighting()
"""Lighting : the default light, above and to the left of the camera."""


def _colors(color, f, name):
    """(f, 3) RGB per face from one matplotlib colour or an (f, 3) array of RGB values in [0, 1]."""
    if isinstance(color, np.ndarray) and color.ndim == 2:
        rgb = checks.finite_array(color, name)
        if rgb.shape != (f, 3) or rgb.min() < 0.0 or rgb.max() > 1.0:
            raise ValueError(f"{name}: expected a colour or an ({f}, 3) array of RGB values in [0, 1] "
                             f"(one per face), got shape {rgb.shape}")
        return rgb
    return np.broadcast_to(_rgb(color, name), (f, 3))


@public
class Surface:
    """A triangle mesh of a scene: its positions (fixed or per frame), its colours and marks.

    Parameters
    ----------
    X : (n, 3) or (T, n, 3) float array
        Node positions (y up): fixed, or one set per frame.
    F : (f, 3) int array
        Triangles; a triangle's front is the side its normal ``(X1-X0) x (X2-X0)`` points to
        (``simkit.boundary_faces`` orients a solid's surface outwards).
    front, back : colour, or (f, 3) float array, default ``CLOTH_FRONT``, ``CLOTH_BACK``
        Base colour of each side: one matplotlib colour, or RGB in [0, 1] per face (several
        bodies in one mesh).
    smooth : bool, default False
        Shade each corner by its node's normal (the area-weighted mean of the faces around it)
        instead of the face's own: a smooth cloth or sphere; solids keep their flat faces.
    edge_width : float, default 0
        Width of the drawn mesh edges in points (0: none).
    pins : (p,) int array, optional
        Nodes marked as ``PIN_C`` balls.
    pin_size : float, default 5
        Diameter of a pin in points.
    fit : bool, default True
        Whether automatic limits enclose this surface (False for a large ground or backdrop).

    Attributes
    ----------
    states : (T, n, 3) float array
        Positions per frame (T = 1 for a fixed surface).
    F : (f, 3) int array
    front, back : (f, 3) float array
        RGB per face.
    smooth, edge_width, pins, pin_size, fit
        As given (checked).
    closed : bool
        Whether every piece of the mesh is closed, consistently oriented and faces outwards (a
        sphere, the boundary of solids): its faces turned away from the camera are hidden behind
        its own, so they are not rasterized at all.
    """

    def __init__(self, X, F, front=CLOTH_FRONT, back=CLOTH_BACK, smooth=False, edge_width=0.0, pins=None,
                 pin_size=5.0, fit=True):
        X = checks.real_array(X, "X")
        self.states = _states(X, "X", dim=3) if X.ndim == 3 else _points(X, "X", dim=3)[None]
        n = self.states.shape[1]
        self.F = _triangles(F, n)
        f = self.F.shape[0]
        self.front, self.back = _colors(front, f, "front"), _colors(back, f, "back")
        self.smooth = checks.boolean(smooth, "smooth")
        self.edge_width = _non_negative(edge_width, "edge_width")
        self.pins = _indices(pins if pins is not None else [], n, "pins")
        self.pin_size = checks.positive_scalar(pin_size, "pin_size")
        self.fit = checks.boolean(fit, "fit")
        self.closed = _closed_outwards(self.states[0], self.F)

    @property
    def n_frames(self):
        """int : frames of the positions (1 for a fixed surface)."""
        return self.states.shape[0]

    def __repr__(self):
        return f"Surface({self.states.shape[1]} nodes, {self.F.shape[0]} triangles, {self.n_frames} frames)"


def _closed_outwards(X, F):
    """True when every piece of the mesh is closed, consistently oriented and faces outwards: then a
    face turned away from the camera always lies behind a face of its own piece, and need not be drawn."""
    directed = np.concatenate([F[:, [0, 1]], F[:, [1, 2]], F[:, [2, 0]]])
    n = int(F.max()) + 1
    code = directed[:, 0] * n + directed[:, 1]
    reverse = directed[:, 1] * n + directed[:, 0]
    code_sorted = np.sort(code)
    if np.any(code_sorted[1:] == code_sorted[:-1]):
        return False                                           # an edge used twice the same way
    twin = np.searchsorted(code_sorted, reverse)
    if np.any(code_sorted[np.minimum(twin, len(code) - 1)] != reverse):
        return False                                           # a border edge: an open piece
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    f = len(F)
    face_of = np.tile(np.arange(f), 3)
    edge_face = face_of[np.argsort(code)][twin]               # the face across each directed edge
    _, piece = connected_components(coo_matrix((np.ones(3 * f), (face_of, edge_face)), shape=(f, f)))
    volume = np.einsum("ij,ij->i", X[F[:, 0]], np.cross(X[F[:, 1]], X[F[:, 2]]))     # 6 x signed volume
    return bool(np.all(np.bincount(piece, volume) > 0))


def _non_negative(value, name):
    value = checks.real_scalar(value, name)
    if value < 0:
        raise ValueError(f"{name}: expected a value >= 0, got {value:g}")
    return value


def _scene(scene, name="scene"):
    """A non-empty list of Surface (one Surface alone is accepted)."""
    if isinstance(scene, Surface):
        return [scene]
    if not isinstance(scene, (list, tuple)) or not scene or not all(isinstance(s, Surface) for s in scene):
        raise TypeError(f"{name}: expected a Surface or a non-empty list of Surface objects, got {scene!r:.80}")
    return list(scene)


class _Compiled:
    """A scene's surfaces merged into one mesh: what does not change over frames is gathered once."""

    def __init__(self, surfaces):
        counts = np.array([s.states.shape[1] for s in surfaces])
        offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
        frames = {s.n_frames for s in surfaces} - {1}
        if len(frames) > 1:
            raise ValueError(f"scene: expected every moving surface to have the same number of frames, "
                             f"got {sorted(frames)}")
        self.n_frames = frames.pop() if frames else 1
        self.surfaces = surfaces
        self.F = np.concatenate([s.F + o for s, o in zip(surfaces, offsets)])
        self.front = np.concatenate([s.front for s in surfaces])
        self.back = np.concatenate([s.back for s in surfaces])
        self.smooth = np.concatenate([np.full(len(s.F), s.smooth) for s in surfaces])
        # faces of one look (colours, smooth shading) get one label: a border between two of them is no jump
        look = np.column_stack([self.front, self.back, self.smooth])
        self.look = np.unique(look, axis=0, return_inverse=True)[1].reshape(-1)
        self.look[~self.smooth] = -1 - np.arange(np.count_nonzero(~self.smooth))   # flat faces: each its own
        self.edge_width = np.concatenate([np.full(len(s.F), s.edge_width) for s in surfaces])
        self.pins = np.concatenate([s.pins + o for s, o in zip(surfaces, offsets)]).astype(np.int64)
        self.pin_size = np.concatenate([np.full(len(s.pins), s.pin_size) for s in surfaces])
        self.closed = np.concatenate([np.full(len(s.F), s.closed) for s in surfaces])

    def positions(self, frame):
        """(n, 3) positions of every surface at ``frame`` (a fixed surface at its only one)."""
        return np.concatenate([s.states[min(frame, s.n_frames - 1)] for s in self.surfaces])


def scene_limits(scenes, view=None, pad=0.04):
    """Screen-space limits enclosing every frame of every surface (with ``fit``) of one or several scenes.

    Parameters
    ----------
    scenes : Surface, list of Surface, or list of such lists
    view : View, optional
        Camera; ``VIEW_3D`` when None.
    pad : float, default 0.04
        Margin, relative to the larger extent.

    Returns
    -------
    lims : ((xmin, xmax), (ymin, ymax))
    """
    panels = _panels(scenes)
    points = [s.states.reshape(-1, 3) for scene in panels for s in scene if s.fit]
    if not points:
        raise ValueError("scenes: expected at least one surface with fit=True to set the limits")
    return _screen_limits(np.concatenate(points), view_basis(view), pad=pad)


def _panels(scenes, name="scenes"):
    """A list of scenes (lists of Surface) from a Surface, a list of Surface or a list of such lists."""
    if isinstance(scenes, (list, tuple)) and scenes and all(isinstance(s, (list, tuple)) for s in scenes):
        return [_scene(s, f"{name}[{k}]") for k, s in enumerate(scenes)]
    return [_scene(scenes, name)]


def render_scene(scene, size, view=None, lims=None, frame=0, dpi=DENSITY * DPI, supersample=3, lighting=None):
    """Render a scene into pixels: every pixel shows the surface nearest to the camera.

    Parameters
    ----------
    scene : Surface or list of Surface
    size : (int, int)
        ``(width, height)`` of the image in pixels.
    view : View, optional
        Camera; ``VIEW_3D`` when None.
    lims : ((xmin, xmax), (ymin, ymax)), optional
        Screen-space window (``scene_limits``), mapped onto the whole image; the scene's own
        limits when None. Keep its aspect equal to the image's, or the picture stretches.
    frame : int, default 0
        Frame of the moving surfaces.
    dpi : float, default ``DENSITY * DPI``
        Pixels per inch: converts edge widths and pin sizes from points to pixels.
    supersample : int, default 3
        Samples per pixel along each axis where the picture jumps (silhouettes, overlaps,
        creases, pins), averaged; 1 samples each pixel at its centre only (no anti-aliasing).
    lighting : Lighting, optional
        ``LIGHTING`` when None.

    Returns
    -------
    rgba : (height, width, 4) uint8 array
        Row 0 at the top; alpha is the fraction of each pixel's samples covered by a surface.
    """
    compiled = _Compiled(_scene(scene))
    width, height = (checks.integer(v, "size", low=1) for v in _pair(size, "size"))
    frame = checks.integer(frame, "frame", low=0)
    if frame >= compiled.n_frames:
        raise ValueError(f"frame: expected a frame in [0, {compiled.n_frames}), got {frame}")
    lims = _scene_limits(lims) or scene_limits(scene, view)
    return _render(compiled, frame, (width, height), view_basis(view), lims,
                   checks.positive_scalar(dpi, "dpi") / 72.0, checks.integer(supersample, "supersample", low=1),
                   _lighting(lighting))


def _pair(value, name):
    if not isinstance(value, (tuple, list, np.ndarray)) or len(value) != 2:
        raise ValueError(f"{name}: expected a pair (width, height), got {value!r}")
    return value


def _lighting(lighting):
    if lighting is None:
        return LIGHTING
    if not isinstance(lighting, Lighting):
        raise TypeError(f"lighting: expected a Lighting, got {type(lighting).__name__}")
    direction = checks.finite_array(lighting.direction, "lighting.direction")
    if direction.shape != (3,) or not np.any(direction):
        raise ValueError(f"lighting.direction: expected a non-zero (3,) vector, got {lighting.direction!r}")
    return lighting


def _render(compiled, frame, size, basis, lims, px_per_pt, ss, lighting):
    """The unchecked renderer: (height, width, 4) uint8 RGBA of one frame."""
    width, height = size
    (x0, x1), (y0, y1) = lims
    sx, sy = width / (x1 - x0), height / (y1 - y0)
    X = compiled.positions(frame)
    S = X @ basis.T                                        # right, up, towards the camera
    P = np.column_stack([(S[:, 0] - x0) * sx, (y1 - S[:, 1]) * sy, -S[:, 2] * sx])     # in pixels
    F = compiled.F
    discs = np.column_stack([P[compiled.pins], 0.5 * compiled.pin_size * px_per_pt])
    area_normal = np.cross(X[F[:, 1]] - X[F[:, 0]], X[F[:, 2]] - X[F[:, 0]])     # length: twice the area
    facing = area_normal @ basis[2] >= 0.0
    drawn = np.flatnonzero(facing | ~compiled.closed)       # a closed surface's far side is hidden anyway
    ids = _subset_ids(_raster.rasterize(P, F[drawn], discs, (height, width)), drawn, len(F), len(discs))
    shade = _Shader(compiled, X, P, area_normal, facing, basis, lighting, px_per_pt, discs)
    # one sample at the centre of each covered pixel; the rest is background: black, transparent
    flat_ids = ids.reshape(-1)
    pixels = np.flatnonzero(flat_ids >= 0)
    out = np.zeros(height * width, dtype=np.uint32)         # RGBA bytes, one word per pixel
    out[pixels] = _rgba_words(_sample_centres(shade, flat_ids[pixels], pixels, width), 255)
    # where the picture jumps (a silhouette, a layer over another, a crease between flat faces, a pin),
    # the pixel is resampled ss x ss times and averaged; elsewhere one sample at its centre is exact
    if ss > 1:
        rows, cols = _jumps(ids, compiled, facing)
        i, j = np.divmod(np.arange(ss * ss), ss)
        flat = ((rows[:, None] * ss + i) * (width * ss) + cols[:, None] * ss + j).ravel()
        order = np.argsort(flat, kind="stable")
        near = drawn[_near(F[drawn], P, rows, cols, (height, width))]     # only faces near a jump matter
        found = _raster.rasterize(P * ss, F[near], discs * ss, (height * ss, width * ss), samples=flat[order])
        sub = np.empty(flat.shape, dtype=np.int64)
        sub[order] = _subset_ids(found, near, len(F), len(discs))
        sub = sub.reshape(len(rows), ss * ss)
        offset = ((np.arange(ss) + 0.5) / ss).astype(np.float32)
        covered = sub >= 0
        colors = shade(sub, cols[:, None] + np.tile(offset, ss), rows[:, None] + np.repeat(offset, ss), 1.0 / ss)
        rgb = (colors * covered[..., None]).sum(axis=1) / np.maximum(covered.sum(axis=1), 1)[:, None]
        out[rows * width + cols] = _rgba_words(rgb, np.rint(covered.mean(axis=1) * 255.0))
    return out.view(np.uint8).reshape(height, width, 4)


def _sample_centres(shade, ids, pixels, width):
    """(k, 3) colours of the flat pixel indices ``pixels`` (k,) sampled at their centres, showing ``ids``."""
    row, col = np.divmod(pixels, width)
    return shade(ids, col.astype(np.float32) + np.float32(0.5), row.astype(np.float32) + np.float32(0.5))


def _rgba_words(rgb, alpha):
    """(k,) uint32 words holding the RGBA bytes of (k, 3) float colours in [0, 1] and alpha (0..255, scalar or (k,))."""
    rgba = np.empty((len(rgb), 4), dtype=np.uint8)
    rgba[:, :3] = np.rint(np.clip(rgb, 0.0, 1.0) * 255.0)
    rgba[:, 3] = alpha
    return rgba.view(np.uint32).reshape(-1)


def _subset_ids(ids, faces, f, pins):
    """Ids from a rasterization of ``F[faces]`` and the pins, mapped back to the scene's (-1 stays)."""
    back = np.concatenate([faces, f + np.arange(pins), [-1]])
    return back[ids]                        # id -1 picks the last entry, -1


def _jumps(ids, compiled, facing):
    """Rows and columns of the pixels whose colour jumps to a neighbour's (right or below): different
    primitives that are not one smooth surface, i.e. share no node, face different sides, are shaded
    flat, or differ in colour; background and pins always jump."""
    f = len(compiled.F)
    jump = np.zeros(ids.shape, dtype=bool)
    for axis in (1, 0):
        a, b = (ids[:, :-1], ids[:, 1:]) if axis == 1 else (ids[:-1], ids[1:])
        i, j = np.nonzero(a != b)
        p, q = a[i, j], b[i, j]
        k = np.flatnonzero((p >= 0) & (p < f) & (q >= 0) & (q < f))
        fp, fq = compiled.F[p[k]], compiled.F[q[k]]
        shared = np.zeros(len(k), dtype=bool)
        for u in range(3):
            for v in range(3):
                shared |= fp[:, u] == fq[:, v]
        smooth = np.zeros(len(p), dtype=bool)
        smooth[k] = shared & (facing[p[k]] == facing[q[k]]) & (compiled.look[p[k]] == compiled.look[q[k]])
        i, j = i[~smooth], j[~smooth]
        jump[i, j] = True
        jump[i + (axis == 0), j + (axis == 1)] = True
    jump |= ids >= f
    return np.nonzero(jump)


def _near(F, P, rows, cols, shape):
    """Faces whose pixel bounding box holds one of the pixels (rows, cols): a summed-area table of them."""
    h, w = shape
    table = np.zeros((h + 1, w + 1), dtype=np.int32)
    np.add.at(table, (rows + 1, cols + 1), 1)
    table = table.cumsum(axis=0).cumsum(axis=1)
    corners = P[F, :2]
    c0 = np.clip(np.floor(corners[..., 0].min(axis=1)), 0, w).astype(np.int64)
    c1 = np.clip(np.floor(corners[..., 0].max(axis=1)) + 1, 0, w).astype(np.int64)
    r0 = np.clip(np.floor(corners[..., 1].min(axis=1)), 0, h).astype(np.int64)
    r1 = np.clip(np.floor(corners[..., 1].max(axis=1)) + 1, 0, h).astype(np.int64)
    return np.flatnonzero(table[r1, c1] - table[r0, c1] - table[r1, c0] + table[r0, c0] > 0)


def _unit(v):
    length = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(length > 0, length, 1.0)


class _Shader:
    """Colour of any samples of one frame, from the id of what they show and their position.

    Over a triangle, the Gouraud colour and the distances to its three edges are affine in the
    sample's position: each is one plane ``k + gx X + gy Y`` per face, computed once per frame.
    """

    def __init__(self, compiled, X, P, area_normal, facing, basis, lighting, px_per_pt, discs):
        F = compiled.F
        self.f = len(F)
        colors = _corner_colors(compiled, X, area_normal, facing, basis, lighting)
        self.colors = _padded_planes(_raster.planes(P, F, colors), 0.0)
        self.lines = None
        if np.any(compiled.edge_width > 0):
            corners = P[F, :2]
            e1, e2 = corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]
            area2 = np.abs(e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0])
            edge = np.linalg.norm(corners[:, [2, 0, 1]] - corners[:, [1, 2, 0]], axis=2)      # opposite corner i
            # distance to edge i in pixels: barycentric b_i times the triangle's height over edge i
            height = area2[:, None] / np.where(edge > 0, edge, 1.0)
            self.lines = _padded_planes(_raster.planes(P, F, height[:, :, None] * np.eye(3)), np.inf)
            self.half = np.append(0.5 * compiled.edge_width * px_per_pt, 0.0).astype(np.float32)
        self.discs = discs[:, [0, 1, 3]] if len(discs) else None

    def __call__(self, ids, col, row, footprint=1.0):
        """(..., 3) float32 colours of the samples showing ``ids`` (any shape) at ``(col, row)``, each
        standing for a square ``footprint`` pixels wide (1: a pixel; 1/ss: a subsample)."""
        face = np.where(ids < 0, self.f, np.minimum(ids, self.f))        # row f: nothing, or a pin
        rgb = _evaluate(self.colors, face, col, row)
        if self.lines is not None:
            dist = _evaluate(self.lines, face, col, row)
            d = np.minimum(np.minimum(dist[..., 0], dist[..., 1]), dist[..., 2])
            half = self.half[face]
            # the part of the sample's box, across the edge, that the line [-half, half] covers
            r = 0.5 * footprint
            cover = np.clip((np.minimum(half, d + r) - np.maximum(-half, d - r)) / footprint, 0.0, 1.0)
            rgb *= (1.0 - (1.0 - np.float32(LINE_SHADE)) * cover)[..., None]
        if self.discs is not None:
            pin = np.nonzero(ids >= self.f)
            if pin[0].size:
                rgb[pin] = _pin_colors(self.discs[ids[pin] - self.f], np.broadcast_to(col, ids.shape)[pin],
                                       np.broadcast_to(row, ids.shape)[pin])
        return rgb


def _padded_planes(planes, empty):
    """Per-face planes (f, 3, m) as three float32 (f + 1, m) tables k, gx, gy; row f is ``empty``, flat."""
    pad = np.zeros((3, 1, planes.shape[2]))
    pad[0] = empty
    return tuple(np.append(planes[:, i], pad[i], axis=0).astype(np.float32) for i in range(3))


def _evaluate(planes, face, col, row):
    """(..., m) float32 values ``k + gx col + gy row`` of the planes of ``face`` (any shape)."""
    k, gx, gy = planes
    out = np.take(k, face, axis=0)
    slope = np.take(gx, face, axis=0)
    slope *= col[..., None]
    out += slope
    slope = np.take(gy, face, axis=0)
    slope *= row[..., None]
    out += slope
    return out


def _corner_colors(compiled, X, area_normal, facing, basis, lighting):
    """(f, 3, 3) shaded RGB at each triangle's corners, for the side the camera sees (Gouraud shading)."""
    F = compiled.F
    toward = basis[2]
    normal = np.repeat(_unit(area_normal)[:, None], 3, axis=1)                    # (f, 3 corners, 3)
    if compiled.smooth.any():
        node_normal = _unit(np.stack([np.bincount(F.ravel(), np.repeat(area_normal[:, c], 3), len(X))
                                      for c in range(3)], axis=1))
        normal[compiled.smooth] = node_normal[F[compiled.smooth]]
    normal *= np.where(facing, 1.0, -1.0)[:, None, None]                          # the side the camera sees
    light = _unit(np.asarray(lighting.direction, dtype=float) @ basis)
    half = _unit(light + toward)
    base = np.where(facing[:, None], compiled.front, compiled.back)[:, None]
    color = base * (lighting.ambient + lighting.diffuse * np.clip(normal @ light, 0.0, None))[..., None]
    return color + lighting.specular * np.clip(normal @ half, 0.0, None)[..., None] ** lighting.shininess


def _pin_colors(discs, col, row):
    """(k, 3) colour of samples on pins (discs (k, 3): column, row, radius): ``PIN_C`` shaded as a ball, white rim."""
    rho = np.hypot(col - discs[:, 0], row - discs[:, 1]) / discs[:, 2]
    ball = _rgb(PIN_C, "PIN_C") * (0.75 + 0.25 * np.sqrt(np.clip(1.0 - rho ** 2, 0.0, 1.0)))[:, None]
    return np.where((rho > 1.0 - PIN_RIM)[:, None], 1.0, ball)
