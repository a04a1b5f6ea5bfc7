r"""Exact interpenetration tests of 2D bodies given by their boundary segments.

Two bodies interpenetrate when a boundary segment of one crosses or touches a boundary segment
of the other (closed segments sharing a point), or when a vertex of one lies strictly inside the
other: inside the region its boundary segments enclose by the even-odd rule, the case of one
body swallowed whole that no crossing reveals. Both tests are made of orientation predicates

.. math:: \operatorname{orient}(a, b, c) = \operatorname{sign}\,\big((b - a) \times (c - a)\big)

and exact comparisons of coordinates. Each predicate is evaluated exactly: a floating-point
determinant decides the sign whenever it exceeds Shewchuk's error bound (nearly always), and
exact rational arithmetic on the float inputs (``fractions.Fraction``) decides the rest. No
distance, tolerance or barrier enters, so the answer does not depend on the contact model whose
states it checks.

Broad phase: the segments' bounding boxes are binned on a uniform grid (cells about twice the
typical segment's size, grown until the boxes occupy at most ``MAX_CELLS_PER_SEGMENT`` cells per
box on average); only segments sharing a cell are tested against each other. A vertex is tested
only against the bodies whose bounding box holds it (the bodies' boxes binned the same way), its
even-odd count taken along the ray from it towards +x over those bodies' segments in its
horizontal strip of the segment grid. For m segments spread over a scene the work grows like m,
not m^2 (``benchmarks/bench_intersections.py``).
"""
from fractions import Fraction

import numpy as np

from . import _validate

_EPS = 2.0 ** -53
_CCW_BOUND = (3.0 + 16.0 * _EPS) * _EPS     # Shewchuk's ccwerrboundA: |det| above it * |terms| has the right sign
_TINY = 1e-250                              # products this small may have underflowed: decided exactly
MAX_CELLS_PER_SEGMENT = 8


def intersections_2d(X, S, bodies=None):
    r"""Which boundary segments of different bodies intersect, and which vertices lie inside another body.

    Closed segments intersect when they share a point; a vertex lies inside a body when the ray
    from it towards +x crosses the body's boundary segments an odd number of times and it is on
    none of them. Exact (orientation predicates): see the module's docstring.

    Parameters
    ----------
    X : (n, 2) float array
        Vertex positions.
    S : (m, 2) int array
        Boundary segments (vertex index pairs); both ends of a segment belong to one body.
    bodies : (n,) int array, optional
        Body label of every vertex. Default: each connected component of the segments is a
        body (a body with a hole then needs its labels) and only vertices on segments are tested.

    Returns
    -------
    segment_pairs : (k, 2) int array
        Indices ``i < j`` into S of every intersecting pair of segments of different bodies,
        sorted.
    inside : (l, 2) int array
        ``(vertex, body)``: every vertex strictly inside a body other than its own, sorted (the body
        is the vertex's label, or the component's index when `bodies` is None).
    """
    X = _validate.positions(X, "X", dims=(2,))
    S, labels, tested = _check_topology(S, bodies, X.shape[0])
    pairs, inside = _intersections(X[None], S, labels, tested)
    return pairs[:, 1:], inside[:, 1:]


def count_intersections_2d(states, S, bodies=None):
    r"""Number of intersections in every state of a run: ``intersections_2d`` on each, batched.

    Parameters
    ----------
    states : (T, n, 2) float array
        Vertex positions of T states (one ``X`` each).
    S : (m, 2) int array
        Boundary segments, the same in every state.
    bodies : (n,) int array, optional
        Body label of every vertex (see ``intersections_2d``).

    Returns
    -------
    counts : (T,) int array
        :math:`k_t + l_t`: intersecting segment pairs plus vertices inside another body, per state
        (0 where the bodies are apart).
    """
    states = _validate.finite_array(states, "states")
    if states.ndim != 3 or states.shape[2] != 2:
        raise ValueError(f"states: expected shape (T, n, 2), got {states.shape}")
    S, labels, tested = _check_topology(S, bodies, states.shape[1])
    pairs, inside = _intersections(states, S, labels, tested)
    return (np.bincount(pairs[:, 0], minlength=len(states)) + np.bincount(inside[:, 0], minlength=len(states)))


def _check_topology(S, bodies, n):
    """(S, labels 0..B-1 per vertex, tested vertices) after checking S and the bodies."""
    S = _validate.index_array(S, "S", 2, n)
    if bodies is None:
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        graph = coo_matrix((np.ones(len(S)), (S[:, 0], S[:, 1])), shape=(n, n))
        component = connected_components(graph, directed=False)[1]
        ids = np.unique(component[S[:, 0]])                          # the components that have segments
        labels = np.searchsorted(ids, component).clip(0, max(len(ids) - 1, 0))
        tested = np.unique(S)                                        # vertices on no segment: not tested
        return S, labels.astype(np.int64), tested
    arr = np.asarray(bodies)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"bodies: expected an integer label per vertex, got dtype {arr.dtype}")
    if arr.shape != (n,):
        raise ValueError(f"bodies: expected shape ({n},), one label per vertex, got {arr.shape}")
    labels = np.unique(arr, return_inverse=True)[1].reshape(-1).astype(np.int64)
    mixed = np.flatnonzero(labels[S[:, 0]] != labels[S[:, 1]])
    if mixed.size:
        k = mixed[0]
        raise ValueError(f"S: segment {k} joins vertices {S[k, 0]} and {S[k, 1]} of different bodies "
                         f"({arr[S[k, 0]]} and {arr[S[k, 1]]}); expected each segment inside one body")
    return S, labels, np.arange(n)


def _intersections(P, S, labels, tested):
    """Batched kernel: P (T, n, 2) checked. Returns (state, i, j) segment pairs and (state, vertex, body)."""
    T, n = P.shape[:2]
    empty = np.zeros((0, 3), dtype=np.int64)
    if len(S) == 0 or T == 0:
        return empty, empty
    m = len(S)
    A, B = P[:, S[:, 0]], P[:, S[:, 1]]                              # (T, m, 2) segment ends
    lo, hi = np.minimum(A, B), np.maximum(A, B)
    origin = np.minimum(lo.min(axis=(0, 1)), P[:, tested].min(axis=(0, 1)))
    h = _cell_size(lo, hi, origin)
    seg_body = labels[S[:, 0]]
    pairs = _segment_pairs(A, B, lo, hi, origin, h, seg_body)
    inside = _vertices_inside(P, tested, labels, A, B, lo, hi, origin, h, seg_body)
    return pairs, inside


def _cell_size(lo, hi, origin):
    """Grid spacing: about twice the mean box size, doubled until the boxes cover few cells."""
    extent = (hi - lo).max(axis=-1)
    scene = float((hi.max(axis=(0, 1)) - origin).max())
    h = max(2.0 * float(extent.mean()), scene * 2.0 ** -20, 1e-300)
    while True:
        cells = _cells(lo, hi, origin, h)
        if np.prod(cells[1] - cells[0] + 1, axis=-1).sum() <= MAX_CELLS_PER_SEGMENT * lo.shape[0] * lo.shape[1]:
            return h
        h *= 2.0


def _cells(lo, hi, origin, h):
    """(first, last) integer cell of each box along each axis; monotone in the coordinates."""
    return np.floor((lo - origin) / h).astype(np.int64), np.floor((hi - origin) / h).astype(np.int64)


def _expand(starts, counts):
    """For groups [starts, starts + counts): (group index, position) of every member, concatenated."""
    total = int(counts.sum())
    group = np.repeat(np.arange(len(counts)), counts)
    offset = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    return group, np.repeat(starts, counts) + offset


def _register(first, last, width):
    """Entries of every box in every cell it covers, sorted by cell: (key, box's segment, box's state).

    first, last: (T, m, 2) cell ranges (column, row) of the boxes of T states; the key of a cell is
    (state, row, column) flattened with `width` (largest column, largest row)."""
    m = first.shape[1]
    span = last - first + 1
    count = np.prod(span, axis=-1).reshape(-1)
    box, k = _expand(np.zeros(count.size, dtype=np.int64), count)     # k: the cell's number within the box
    sx = span[..., 0].reshape(-1)[box]
    cx = first[..., 0].reshape(-1)[box] + k % sx
    cy = first[..., 1].reshape(-1)[box] + k // sx
    key = ((box // m) * (width[1] + 1) + cy) * (width[0] + 1) + cx
    order = np.argsort(key, kind="stable")
    return key[order], (box % m)[order], (box // m)[order]


def _segment_pairs(A, B, lo, hi, origin, h, seg_body):
    """(state, i, j), i < j: segments of different bodies that share a point, per state."""
    T, m = A.shape[:2]
    first, last = _cells(lo, hi, origin, h)
    width = last.max(axis=(0, 1))
    key, seg, st = _register(first, last, width)
    # every pair of entries within one cell
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    sizes = np.diff(np.r_[starts, key.size])
    rank = np.arange(key.size) - np.repeat(starts, sizes)
    after = np.repeat(sizes, sizes) - 1 - rank                         # later entries in the same cell
    e1, e2 = _expand(np.arange(key.size) + 1, after)                 # e1: the entry, e2: one after it
    i, j, t = seg[e1], seg[e2], st[e1]
    i, j = np.minimum(i, j), np.maximum(i, j)
    keep = seg_body[i] != seg_body[j]
    keep &= np.all(lo[t, i] <= hi[t, j], axis=-1) & np.all(lo[t, j] <= hi[t, i], axis=-1)
    code = np.unique((t[keep] * m + i[keep]) * m + j[keep])            # each pair once, however many cells
    t, i, j = code // (m * m), (code // m) % m, code % m
    hit = _segments_meet(A[t, i], B[t, i], A[t, j], B[t, j])
    return np.column_stack([t, i, j])[hit]


def _segments_meet(p1, p2, q1, q2):
    """Do the closed segments p1p2 and q1q2 share a point? Exact; (k, 2) arrays -> (k,) bool."""
    d1, d2 = _orient(q1, q2, p1), _orient(q1, q2, p2)
    d3, d4 = _orient(p1, p2, q1), _orient(p1, p2, q2)
    meet = (d1 * d2 < 0) & (d3 * d4 < 0)
    meet |= (d1 == 0) & _within(p1, q1, q2)
    meet |= (d2 == 0) & _within(p2, q1, q2)
    meet |= (d3 == 0) & _within(q1, p1, p2)
    meet |= (d4 == 0) & _within(q2, p1, p2)
    return meet


def _within(p, a, b):
    """p inside the closed bounding box of a and b (for p on the line ab: p on the segment)."""
    return np.all((np.minimum(a, b) <= p) & (p <= np.maximum(a, b)), axis=-1)


def _vertices_inside(P, tested, labels, A, B, lo, hi, origin, h, seg_body):
    """(state, vertex, body): tested vertices strictly inside a body other than their own (even-odd rule).

    A vertex is only tested against the bodies whose bounding box holds it (a grid of the bodies'
    boxes), and only against those bodies' segments in its horizontal strip of the segment grid."""
    T, m = A.shape[:2]
    n_bodies = int(seg_body.max()) + 1
    order = np.argsort(seg_body, kind="stable")
    firsts = np.flatnonzero(np.r_[True, np.diff(seg_body[order]) != 0])
    present = seg_body[order][firsts]                                  # bodies that have segments
    box_lo = np.minimum.reduceat(lo[:, order], firsts, axis=1)          # (T, bodies, 2)
    box_hi = np.maximum.reduceat(hi[:, order], firsts, axis=1)
    # (state, vertex, body) with the vertex in the body's box
    hb = _cell_size(box_lo, box_hi, origin)
    first, last = _cells(box_lo, box_hi, origin, hb)
    width = last.max(axis=(0, 1))
    key, box, _ = _register(first, last, width)
    V = P[:, tested]
    cell = np.floor((V - origin) / hb).astype(np.int64)
    inside_grid = np.all(cell <= width, axis=-1)
    vkey = np.where(inside_grid, (np.arange(T)[:, None] * (width[1] + 1) + cell[..., 1]) * (width[0] + 1)
                    + cell[..., 0], -1).reshape(-1)
    start = np.searchsorted(key, vkey, side="left")
    which, entry = _expand(start, np.searchsorted(key, vkey, side="right") - start)
    t, v, k = which // len(tested), tested[which % len(tested)], box[entry]
    p = P[t, v]
    keep = (present[k] != labels[v]) & np.all((box_lo[t, k] <= p) & (p <= box_hi[t, k]), axis=-1)
    t, v, k, p = t[keep], v[keep], k[keep], p[keep]
    # each (vertex, body) meets the body's segments in the vertex's strip: keys (state, row, body)
    rows_first, rows_last = _cells(lo, hi, origin, h)
    rows = int(rows_last[..., 1].max())
    body_of = np.broadcast_to(np.searchsorted(present, seg_body), (T, m))
    key, seg, _ = _register(np.stack([body_of, rows_first[..., 1]], axis=-1),
                            np.stack([body_of, rows_last[..., 1]], axis=-1), np.array([len(present) - 1, rows]))
    row = np.floor((p[:, 1] - origin[1]) / h).astype(np.int64)
    pkey = np.where(row <= rows, (t * (rows + 1) + row) * len(present) + k, -1)
    start = np.searchsorted(key, pkey, side="left")
    which, entry = _expand(start, np.searchsorted(key, pkey, side="right") - start)
    t, v, s, p = t[which], v[which], seg[entry], p[which]
    a, b = A[t, s], B[t, s]
    o = _orient(a, b, p)
    straddles = (a[:, 1] > p[:, 1]) != (b[:, 1] > p[:, 1])
    crosses = straddles & np.where(b[:, 1] > a[:, 1], o > 0, o < 0)    # the ray meets the segment right of p
    on = (o == 0) & _within(p, a, b)
    code = (t * P.shape[1] + v) * n_bodies + seg_body[s]
    odd = np.unique(code[crosses], return_counts=True)
    inside = np.setdiff1d(odd[0][odd[1] % 2 == 1], code[on])            # on a boundary is not strictly inside
    t, rest = inside // (P.shape[1] * n_bodies), inside % (P.shape[1] * n_bodies)
    return np.column_stack([t, rest // n_bodies, rest % n_bodies])


def _orient(a, b, c):
    """Exact sign of (b - a) x (c - a) for (k, 2) arrays: (k,) int array of -1, 0, 1 (Shewchuk's orient2d)."""
    left = (a[:, 0] - c[:, 0]) * (b[:, 1] - c[:, 1])
    right = (a[:, 1] - c[:, 1]) * (b[:, 0] - c[:, 0])
    det = left - right
    sign = np.sign(det).astype(np.int64)
    # opposite signs (or a zero) cannot cancel: the sign of det is exact; otherwise it must clear the bound
    unsure = (np.sign(left) == np.sign(right)) & (left != 0) & (np.abs(det) <= _CCW_BOUND * (np.abs(left) + np.abs(right)))
    unsure |= ((np.abs(left) < _TINY) & (left != 0)) | ((np.abs(right) < _TINY) & (right != 0))
    unsure |= ~(np.isfinite(left) & np.isfinite(right) & np.isfinite(det))     # overflow: huge coordinates
    for k in np.flatnonzero(unsure):
        ax, ay, bx, by, cx, cy = (Fraction(float(v)) for v in (*a[k], *b[k], *c[k]))
        exact = (ax - cx) * (by - cy) - (ay - cy) * (bx - cx)
        sign[k] = (exact > 0) - (exact < 0)
    return sign
