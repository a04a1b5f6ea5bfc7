r"""Exact intersection tests of 3D triangle meshes (and edges): does a state pass through itself?

Independent of any distance or barrier: the answer comes from signs of determinants, decided
exactly (``simkit.contact._orient``: a floating-point filter, exact integer arithmetic where it
cannot decide), so it is never wrong for the floats given.

**An edge and a triangle** (closed sets) meet when, with :math:`o(\cdot)` the exact orientation

- p and q are not strictly on one side of the triangle's plane,
  :math:`o(a, b, c, p)\, o(a, b, c, q) \le 0`, and the line pq passes through the closed
  triangle, :math:`o(p, q, a, b)`, :math:`o(p, q, b, c)`, :math:`o(p, q, c, a)` all :math:`\ge 0` or
  all :math:`\le 0`; or
- the segment lies in the triangle's plane (both orientations 0) and meets it there: the test
  is then done in 2D, in the coordinate plane onto which the triangle projects largest, as
  "an end point inside the triangle, or the segment crossing or touching one of its edges"
  with exact 2D orientations.

So touching counts (a vertex exactly on a face is an intersection), and exact degeneracy is
decided exactly, not by a tolerance. **Two triangles** meet exactly when an edge of one meets the
other (the two closed triangles' common points include a point of an edge).

**A mesh state** x (n, 3) with faces (f, 3) and optional extra edges (rods, codimensional
edges) intersects itself when some edge meets some face that shares no vertex with it (pairs
that share a vertex touch there by construction; an edge piercing a face next to it is not
seen, as in the IPC Toolkit). The edges tested are the faces' edges and the given ones;
``bodies`` labels restrict the test to pairs of different bodies. A broad phase keeps the work
proportional to the near pairs: the boxes of edges and faces are hashed into a uniform grid of
the typical box size (the rare boxes much larger than that, a ground triangle, are tested
against every box of the other kind), and each pair of overlapping boxes is listed once, in the
cell that holds the lowest corner of their overlap.
"""
import numpy as np

from .. import _validate
from ._closest import cross, dot
from ._orient import orient2d, orient3d
from ._stencil import ZERO_AREA, points

BIG_BOX_CELLS = 64         # boxes covering more grid cells than this skip the grid
CHUNK_PRIMITIVES = 5_000  # count_intersections takes as many frames at once as hold this many edges and faces


# ---------------------------------------------------------------------------------------------
# element predicates (batched over stencils)
# ---------------------------------------------------------------------------------------------

def _segment_meets_segment_2d(p, q, u, v):
    """Closed 2D segments pq and uv share a point (k,) bool, exactly."""
    d1, d2 = orient2d(p, q, u), orient2d(p, q, v)
    d3, d4 = orient2d(u, v, p), orient2d(u, v, q)

    def on(x, s0, s1):                         # x, collinear with s0 s1, lies on the segment
        return ((np.minimum(s0, s1) <= x) & (x <= np.maximum(s0, s1))).all(axis=1)
    proper = (d1 * d2 < 0) & (d3 * d4 < 0)
    return (proper | ((d1 == 0) & on(u, p, q)) | ((d2 == 0) & on(v, p, q)) | ((d3 == 0) & on(p, u, v))
            | ((d4 == 0) & on(q, u, v)))


def _point_in_triangle_2d(x, a, b, c, turn):
    """x in the closed 2D triangle abc of orientation ``turn`` (k,) (nonzero), exactly."""
    return ((orient2d(a, b, x) * turn >= 0) & (orient2d(b, c, x) * turn >= 0) & (orient2d(c, a, x) * turn >= 0))


def _coplanar_meet(p, q, a, b, c):
    """Segments pq lying in the planes of their triangles abc meet them (k,) bool, exactly, in 2D."""
    n = np.abs(cross(b - a, c - a))
    drop = np.argmax(n, axis=1)                                    # the triangle projects largest here
    keep = np.array([[1, 2], [0, 2], [0, 1]])[drop]
    p2, q2, a2, b2, c2 = (np.take_along_axis(v, keep, axis=1) for v in (p, q, a, b, c))
    turn = orient2d(a2, b2, c2)
    return (_point_in_triangle_2d(p2, a2, b2, c2, turn) | _point_in_triangle_2d(q2, a2, b2, c2, turn)
            | _segment_meets_segment_2d(p2, q2, a2, b2) | _segment_meets_segment_2d(p2, q2, b2, c2)
            | _segment_meets_segment_2d(p2, q2, c2, a2))


def _edge_triangle(p, q, a, b, c):
    """Closed segments pq meet closed triangles abc (k,) bool, exactly; triangles of non-zero area."""
    sp, sq = orient3d(a, b, c, p), orient3d(a, b, c, q)
    meet = np.zeros(p.shape[0], dtype=bool)
    crossing = sp * sq <= 0
    coplanar = (sp == 0) & (sq == 0)
    i = np.flatnonzero(crossing & ~coplanar)
    if i.size:
        o1, o2, o3 = orient3d(p[i], q[i], a[i], b[i]), orient3d(p[i], q[i], b[i], c[i]), orient3d(p[i], q[i], c[i], a[i])
        meet[i] = ((o1 >= 0) & (o2 >= 0) & (o3 >= 0)) | ((o1 <= 0) & (o2 <= 0) & (o3 <= 0))
    j = np.flatnonzero(coplanar)
    if j.size:
        meet[j] = _coplanar_meet(p[j], q[j], a[j], b[j], c[j])
    return meet


def _nonzero_areas(a, b, c, what):
    n = cross(b - a, c - a)
    degenerate = dot(n, n) <= ZERO_AREA * dot(b - a, b - a) * dot(c - a, c - a)
    if degenerate.any():
        raise ValueError(f"{what}: triangle(s) of zero area at {np.flatnonzero(degenerate)[:10].tolist()}")


def edge_triangle_intersect(p, q, a, b, c):
    r"""Whether segments meet triangles, pair by pair, exactly (touching counts).

    :math:`[p, q] \cap \triangle abc \ne \emptyset`, decided by exact orientation signs

    Parameters
    ----------
    p, q : (k, 3) float arrays
        The segments' end points.
    a, b, c : (k, 3) float arrays
        The triangles' corners, of non-zero area.

    Returns
    -------
    meet : (k,) bool array
    """
    X = points({"p": p, "q": q, "a": a, "b": b, "c": c}, (3,))
    _nonzero_areas(X[:, 2], X[:, 3], X[:, 4], "a, b, c")
    return _edge_triangle(*X.transpose(1, 0, 2))


def triangle_triangle_intersect(a0, a1, a2, b0, b1, b2):
    r"""Whether triangles meet, pair by pair, exactly (touching counts; a shared vertex is a meeting).

    :math:`\triangle a_0 a_1 a_2 \cap \triangle b_0 b_1 b_2 \ne \emptyset` iff an edge of one meets the other

    Parameters
    ----------
    a0, a1, a2 : (k, 3) float arrays
        First triangles' corners, of non-zero area.
    b0, b1, b2 : (k, 3) float arrays
        Second triangles' corners, of non-zero area.

    Returns
    -------
    meet : (k,) bool array
    """
    X = points({"a0": a0, "a1": a1, "a2": a2, "b0": b0, "b1": b1, "b2": b2}, (3,))
    _nonzero_areas(X[:, 0], X[:, 1], X[:, 2], "a0, a1, a2")
    _nonzero_areas(X[:, 3], X[:, 4], X[:, 5], "b0, b1, b2")
    k = X.shape[0]
    A, B = X[:, :3], X[:, 3:]
    ends = np.array([[0, 1], [1, 2], [2, 0]])
    # the six edge-triangle tests of every pair, as one batch of 6k
    p = np.concatenate([A[:, ends[:, 0]], B[:, ends[:, 0]]], axis=1).reshape(-1, 3)
    q = np.concatenate([A[:, ends[:, 1]], B[:, ends[:, 1]]], axis=1).reshape(-1, 3)
    tri = np.concatenate([np.repeat(B[:, None], 3, axis=1), np.repeat(A[:, None], 3, axis=1)], axis=1).reshape(-1, 3, 3)
    return _edge_triangle(p, q, tri[:, 0], tri[:, 1], tri[:, 2]).reshape(k, 6).any(axis=1)


# ---------------------------------------------------------------------------------------------
# the broad phase: overlapping boxes of two sets, grouped (one group per state), 2D or 3D
# ---------------------------------------------------------------------------------------------

def _box_pairs(lo_a, hi_a, group_a, lo_b=None, hi_b=None, group_b=None, h=None):
    """Index pairs (ia, ib) of boxes of sets A and B in the same group whose closed boxes overlap.

    Boxes are (k, dim) corners, dim 2 or 3. Without set B, the pairs within set A, each once
    (``ia < ib``). ``h`` is the grid's cell size (default: the median extent of all the boxes, the
    typical primitive's size)."""
    empty = np.zeros(0, dtype=np.int64)
    self_pairs = lo_b is None
    if self_pairs:
        lo_b, hi_b, group_b = lo_a, hi_a, group_a
    if not (len(lo_a) and len(lo_b)):
        return empty, empty
    scale = float(np.abs(np.concatenate([lo_a, hi_a, lo_b, hi_b])).max())
    if h is None:
        h = float(np.median(np.concatenate([hi_a - lo_a] if self_pairs else [hi_a - lo_a, hi_b - lo_b]).max(axis=1)))
    h = max(h, 1e-12 * scale, 1e-300)
    lo_a, hi_a = lo_a / h, hi_a / h                                 # grid cells of size 1
    lo_b, hi_b = (lo_a, hi_a) if self_pairs else (lo_b / h, hi_b / h)
    ca0, ca1 = np.floor(lo_a).astype(np.int64), np.floor(hi_a).astype(np.int64)
    cb0, cb1 = (ca0, ca1) if self_pairs else (np.floor(lo_b).astype(np.int64), np.floor(hi_b).astype(np.int64))
    big_a = (ca1 - ca0 + 1).prod(axis=1) > BIG_BOX_CELLS
    big_b = big_a if self_pairs else (cb1 - cb0 + 1).prod(axis=1) > BIG_BOX_CELLS
    if self_pairs:
        pairs = [_grid_self_pairs(ca0, ca1, group_a, ~big_a, lo_a)]
    else:
        pairs = [_grid_pairs(ca0, ca1, group_a, ~big_a, cb0, cb1, group_b, ~big_b, lo_a, lo_b)]
    # the few big boxes against every box of the other set in their group (big-big once), a chunk at a time
    for big, others, group_big, group_others, flip in (
            (np.flatnonzero(big_a), np.arange(len(lo_b)), group_a, group_b, False),
            (np.flatnonzero(big_b), np.flatnonzero(~big_a), group_b, group_a, True)):
        if self_pairs and flip:
            break                                                  # small-big pairs: found as big-small
        if not (big.size and others.size):
            continue
        others = others[np.argsort(group_others[others], kind="stable")]
        sorted_groups = group_others[others]
        start = np.searchsorted(sorted_groups, group_big[big], side="left")
        count = np.searchsorted(sorted_groups, group_big[big], side="right") - start
        bounds = np.searchsorted(np.cumsum(count), np.arange(0, count.sum(), 2_000_000), side="right")
        for lo_k, hi_k in zip(bounds, np.r_[bounds[1:], big.size]):
            c, s = count[lo_k:hi_k], start[lo_k:hi_k]
            i = np.repeat(big[lo_k:hi_k], c)
            j = others[np.arange(c.sum()) - np.repeat(np.cumsum(c) - c, c) + np.repeat(s, c)]
            if self_pairs:                                         # each pair once, big-big too
                keep = (i != j) & (big_b[j] <= (i < j))
                i, j = np.minimum(i[keep], j[keep]), np.maximum(i[keep], j[keep])
            pairs.append((j, i) if flip else (i, j))
    ia = np.concatenate([p[0] for p in pairs])
    ib = np.concatenate([p[1] for p in pairs])
    keep = group_a[ia] == group_b[ib]
    ia, ib = ia[keep], ib[keep]
    for axis in range(lo_a.shape[1]):              # one axis at a time, on contiguous columns, a shrinking set
        la, ha = np.ascontiguousarray(lo_a[:, axis]), np.ascontiguousarray(hi_a[:, axis])
        lb, hb = np.ascontiguousarray(lo_b[:, axis]), np.ascontiguousarray(hi_b[:, axis])
        keep = (la[ia] <= hb[ib]) & (lb[ib] <= ha[ia])
        ia, ib = ia[keep], ib[keep]
    return ia, ib


def _expand(c0, c1, which):
    """Every grid cell (N, dim) covered by the boxes ``which``, and the box of each."""
    span = c1[which] - c0[which] + 1
    count = span.prod(axis=1)
    box = np.repeat(which, count)
    j = np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
    cell = c0[box].copy()
    for axis in range(span.shape[1]):                  # j's digits in the mixed radix of the spans
        s = np.repeat(span[:, axis], count)
        cell[:, axis] += j % s
        j = j // s
    return cell, box


def _cell_keys(cells, groups):
    """One integer per (group, cell) for each of the cell arrays (N_i, dim) and group arrays (N_i,), in common."""
    origin = np.min([c.min(axis=0) for c in cells], axis=0)
    size = np.max([c.max(axis=0) for c in cells], axis=0) - origin + 1
    keys = []
    for cell, group in zip(cells, groups):
        flat = group.astype(np.int64)
        for axis in range(cell.shape[1]):
            flat = flat * size[axis] + (cell[:, axis] - origin[axis])
        keys.append(flat)
    return keys


def _grid_pairs(ca0, ca1, group_a, small_a, cb0, cb1, group_b, small_b, lo_a, lo_b):
    """Pairs of small boxes sharing a grid cell, each listed once: in the cell of its overlap's lowest corner."""
    cell_a, box_a = _expand(ca0, ca1, np.flatnonzero(small_a))
    cell_b, box_b = _expand(cb0, cb1, np.flatnonzero(small_b))
    if not (len(box_a) and len(box_b)):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    key_a, key_b = _cell_keys([cell_a, cell_b], [group_a[box_a], group_b[box_b]])
    order = np.argsort(key_b, kind="stable")
    key_b, box_b_sorted = key_b[order], box_b[order]
    start = np.searchsorted(key_b, key_a, side="left")
    count = np.searchsorted(key_b, key_a, side="right") - start
    entry_a = np.repeat(np.arange(len(box_a)), count)
    entry_b = np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count) + np.repeat(start, count)
    ia, ib = box_a[entry_a], box_b_sorted[entry_b]
    once = _lowest_corner_cell(lo_a, lo_b, ia, ib, cell_a, entry_a)
    return ia[once], ib[once]


def _grid_self_pairs(c0, c1, group, small, lo):
    """Pairs (i, j), i < j, of small boxes of one set sharing a grid cell, each once (as ``_grid_pairs``)."""
    cell, box = _expand(c0, c1, np.flatnonzero(small))
    if not len(box):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    key, = _cell_keys([cell], [group[box]])
    order = np.argsort(key, kind="stable")
    key, box, cell = key[order], box[order], cell[order]
    # every entry with each later entry of its cell
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    sizes = np.diff(np.r_[starts, key.size])
    later = np.repeat(starts + sizes, sizes) - np.arange(key.size) - 1
    first = np.repeat(np.arange(key.size), later)
    second = np.arange(later.sum()) - np.repeat(np.cumsum(later) - later, later) + first + 1
    i, j = box[first], box[second]
    once = _lowest_corner_cell(lo, lo, i, j, cell, first)
    return np.minimum(i[once], j[once]), np.maximum(i[once], j[once])


def _lowest_corner_cell(lo_a, lo_b, ia, ib, cell, entry):
    """Whether the lowest corner of the overlap of boxes ia and ib lies in the cell ``cell[entry]`` (k,) bool."""
    once = np.ones(len(ia), dtype=bool)
    for axis in range(cell.shape[1]):
        corner = np.maximum(np.ascontiguousarray(lo_a[:, axis])[ia], np.ascontiguousarray(lo_b[:, axis])[ib])
        once &= np.floor(corner) == np.ascontiguousarray(cell[:, axis])[entry]
    return once


# ---------------------------------------------------------------------------------------------
# mesh states
# ---------------------------------------------------------------------------------------------

def _mesh_args(x, faces, edges, bodies, stacked):
    X = _validate.real_array(x, "states" if stacked else "x")
    hint = " (2D bodies: simkit.contact.intersections_2d and count_intersections_2d)" if X.shape[-1:] == (2,) else ""
    if stacked:
        if X.ndim != 3 or X.shape[2] != 3:
            raise ValueError(f"states: expected (N, n, 3) positions, got {X.shape}{hint}")
    elif X.ndim != 2 or X.shape[1] != 3:
        raise ValueError(f"x: expected (n, 3) positions, got {X.shape}{hint}")
    _validate.finite(X, "states" if stacked else "x")
    n = X.shape[-2]
    F = _validate.index_array(faces, "faces", 3, n)
    E = F[:, [[0, 1], [1, 2], [2, 0]]].reshape(-1, 2)
    if edges is not None:
        extra = _validate.index_array(edges, "edges", 2, n)
        if extra.size and (extra[:, 0] == extra[:, 1]).any():
            raise ValueError(f"edges: edge {int(np.argmax(extra[:, 0] == extra[:, 1]))} joins a node to itself")
        E = np.concatenate([E, extra])
    E = np.unique(np.sort(E, axis=1), axis=0)
    labels = None
    if bodies is not None:
        labels = _validate.body_labels(bodies, n)
        mixed = (labels[F] != labels[F[:, :1]]).any(axis=1)
        if mixed.any():
            raise ValueError(f"bodies: face {int(np.argmax(mixed))} joins nodes of different bodies")
        mixed = labels[E[:, 0]] != labels[E[:, 1]]
        if mixed.any():
            raise ValueError(f"bodies: edge {E[int(np.argmax(mixed))].tolist()} joins nodes of different bodies")
    if F.size:
        Y = X.reshape(-1, n, 3)
        a, b, c = (Y[:, F[:, i]].reshape(-1, 3) for i in range(3))
        n_ = cross(b - a, c - a)
        degenerate = dot(n_, n_) <= ZERO_AREA * dot(b - a, b - a) * dot(c - a, c - a)
        if degenerate.any():
            bad = np.unique(np.flatnonzero(degenerate) % len(F))
            raise ValueError(f"x: face(s) {bad[:10].tolist()} of zero area; the intersection test needs "
                             "non-degenerate triangles")
    return X.reshape(-1, n, 3), F, E, labels


def _intersecting(Y, F, E, labels):
    """(state, edge, face) index triples of intersecting pairs in the states Y (N, n, 3)."""
    N, n, _ = Y.shape
    state_e, state_f = np.repeat(np.arange(N), len(E)), np.repeat(np.arange(N), len(F))
    pe = Y[:, E].reshape(-1, 2, 3)
    pf = Y[:, F].reshape(-1, 3, 3)
    # element-wise over the corners: several times faster than reducing along the short axis
    lo_f = np.minimum(np.minimum(pf[:, 0], pf[:, 1]), pf[:, 2])
    hi_f = np.maximum(np.maximum(pf[:, 0], pf[:, 1]), pf[:, 2])
    ia, ib = _box_pairs(np.minimum(pe[:, 0], pe[:, 1]), np.maximum(pe[:, 0], pe[:, 1]), state_e, lo_f, hi_f, state_f)
    e, f = ia % len(E), ib % len(F)
    shared = (E[e, :, None] == F[f, None, :]).any(axis=(1, 2))
    keep = ~shared if labels is None else ~shared & (labels[E[e, 0]] != labels[F[f, 0]])
    ia, ib, e, f = ia[keep], ib[keep], e[keep], f[keep]
    meet = _edge_triangle(pe[ia, 0], pe[ia, 1], pf[ib, 0], pf[ib, 1], pf[ib, 2])
    return state_e[ia[meet]], e[meet], f[meet]


def edge_face_intersections(x, faces, edges=None, *, bodies=None):
    r"""The edges that pass through faces of a 3D mesh state, exactly.

    :math:`\{(e, f) : e \cap f \ne \emptyset,\ e \text{ and } f \text{ share no vertex}\}`

    Parameters
    ----------
    x : (n, 3) float array
        Positions.
    faces : (f, 3) int array
        Triangles, of non-zero area in x.
    edges : (e, 2) int array, optional
        Extra edges to test (rods, codimensional edges); the faces' edges are always tested and
        repeats are ignored.
    bodies : (n,) int array, optional, keyword-only
        Body label per node (constant on every face and edge): only pairs of different bodies
        are tested (default: every pair, so a mesh passing through itself counts).

    Returns
    -------
    pairs : (m, 3) int array
        Rows ``(i, j, f)``: the edge from node i to node j (i < j) meets face f, ordered by face
        then edge.
    """
    Y, F, E, labels = _mesh_args(x, faces, edges, bodies, stacked=False)
    _, e, f = _intersecting(Y, F, E, labels)
    order = np.lexsort((E[e, 1], E[e, 0], f))
    return np.column_stack([E[e[order]], f[order]]).astype(np.int64)


def has_intersections(x, faces, edges=None, *, bodies=None):
    r"""Whether a 3D mesh state passes through itself (an edge through a face it does not touch), exactly.

    :math:`\exists (e, f) : e \cap f \ne \emptyset` over edge-face pairs sharing no vertex

    Parameters
    ----------
    x : (n, 3) float array
    faces : (f, 3) int array
    edges : (e, 2) int array, optional
    bodies : (n,) int array, optional, keyword-only
        As ``edge_face_intersections``.

    Returns
    -------
    bool
    """
    Y, F, E, labels = _mesh_args(x, faces, edges, bodies, stacked=False)
    return bool(len(_intersecting(Y, F, E, labels)[0]))


def count_intersections(states, faces, edges=None, *, bodies=None):
    r"""The number of intersecting edge-face pairs in each of N mesh states, a batch of frames at a time.

    :math:`c_s = |\{(e, f) : e \cap f \ne \emptyset \text{ in state } s\}|` (``edge_face_intersections`` per state)

    Parameters
    ----------
    states : (N, n, 3) float array
        The states of a run (e.g. the frames saved to ``results/<chapter>/<scene>.npz``).
    faces : (f, 3) int array
    edges : (e, 2) int array, optional
    bodies : (n,) int array, optional, keyword-only
        As ``edge_face_intersections``.

    Returns
    -------
    counts : (N,) int array
        0 for a state free of intersections.
    """
    Y, F, E, labels = _mesh_args(states, faces, edges, bodies, stacked=True)
    counts = np.zeros(len(Y), dtype=np.int64)
    per_chunk = max(1, CHUNK_PRIMITIVES // max(1, len(E) + len(F)))     # bounded memory for long runs
    for start in range(0, len(Y), per_chunk):
        chunk = Y[start:start + per_chunk]
        counts[start:start + len(chunk)] = np.bincount(_intersecting(chunk, F, E, labels)[0], minlength=len(chunk))
    return counts
