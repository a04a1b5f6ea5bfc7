r"""A z-buffer rasterizer in numpy: for every sample of an image, the nearest triangle or disc.

Everything is in sample units: a sample is the centre :math:`(c + \tfrac12, r + \tfrac12)` of
column c and row r of an (h, w) grid (rows downward), and depth is measured in the same units
along the viewing direction (smaller is nearer). Each primitive is cut into row spans (the
samples of one row it covers), the spans into fragments, and every fragment writes its depth
level and primitive, packed into one uint64 key, into the buffer with ``np.minimum.at``: the
nearest fragment wins per sample whatever order primitives come in, so layers that nearly
touch, or overlap cyclically, are drawn right by construction. Python loops run over chunks of
about a million fragments only.

A triangle is split at its middle corner into two trapezoids, each bounded by two edges; it
covers the samples with ``top <= Y < bottom`` and ``left <= X <= right``. An edge's bound is
computed from its lower-indexed end, so the two triangles sharing it get bit-identical bounds
and leave no crack between them. A disc is a sphere's front half (an impostor): its depth at
a sample is the centre's depth minus the sphere's bulge. ``rasterize(..., samples=)`` decides
only the listed samples, at a cost that follows their number.
"""
import numpy as np

ID_BITS = 24                    # primitives per image: up to 2**24 (16.7 million)
DEPTH_BITS = 62 - ID_BITS       # depth levels over the scene's depth range: 2**38 (2.7e11)
EMPTY = np.iinfo(np.uint64).max  # key of a sample no primitive covers
CHUNK = 1 << 20                 # fragments processed at once (bounds the memory, about 40 MB)


def rasterize(P, F, discs, shape, samples=None):
    """Nearest primitive of every sample: triangles ``0 .. f-1``, then discs ``f .. f+p-1``.

    Parameters
    ----------
    P : (v, 3) float array
        Vertices in sample units: column, row (downward), depth (smaller is nearer).
    F : (f, 3) int array
        Triangles into P, either orientation.
    discs : (p, 4) float array
        Disc centres (column, row, depth) and radii, all in sample units.
    shape : (int, int)
        ``(h, w)`` samples.
    samples : (k,) int array, optional
        Sorted, distinct flat indices ``row * w + column`` of the only samples to decide (each
        primitive's spans are clipped to their runs first, so the cost follows k).

    Returns
    -------
    ids : (h, w) int64 array, or (k,) with ``samples``
        Index of the nearest primitive at each sample, -1 where none covers it.
    """
    h, w = shape
    runs = None if samples is None else _Runs(samples)
    size = h * w if samples is None else len(samples)
    if (len(F) == 0 and len(discs) == 0) or size == 0:
        return np.full((h, w) if samples is None else size, -1, dtype=np.int64)
    depth = np.concatenate([P[F.ravel(), 2], discs[:, 2] - discs[:, 3], discs[:, 2]])
    near, far = float(depth.min()), float(depth.max())
    margin = max(1e-6 * (far - near), 1e-3)               # keeps round-off inside [0, 2**DEPTH_BITS)
    near, far = near - margin, far + margin
    level = (near, (2.0 ** DEPTH_BITS - 1.0) / max(far - near, 1e-300))     # depth -> level = (d - near) * scale
    zbuf = np.full(size, EMPTY, dtype=np.uint64)
    for idx, key in _triangle_fragments(P, F, h, w, level, runs):
        np.minimum.at(zbuf, idx, key)
    for idx, key in _disc_fragments(discs, h, w, len(F), level):
        if runs is not None:
            idx, keep = runs.compact(idx)
            idx, key = idx[keep], key[keep]
        np.minimum.at(zbuf, idx, key)
    ids = (zbuf & np.uint64((1 << ID_BITS) - 1)).astype(np.int64)
    ids[zbuf == EMPTY] = -1
    return ids.reshape(h, w) if samples is None else ids


class _Runs:
    """Maximal runs of consecutive flat sample indices, and where each sample sits in the compact list."""

    def __init__(self, samples):
        samples = np.asarray(samples, dtype=np.int64)
        breaks = np.flatnonzero(np.diff(samples) != 1) + 1
        self.start = samples[np.concatenate([[0], breaks])] if len(samples) else samples
        self.end = samples[np.concatenate([breaks - 1, [len(samples) - 1]])] + 1 if len(samples) else samples
        self.offset = np.concatenate([[0], np.cumsum(self.end - self.start)[:-1]]).astype(np.int64)

    def compact(self, idx):
        """Positions of flat indices in the compact list, and whether each is one of the samples."""
        run = np.maximum(np.searchsorted(self.start, idx, side="right") - 1, 0)
        return self.offset[run] + idx - self.start[run], (idx >= self.start[run]) & (idx < self.end[run])

    def clip(self, start, length):
        """Spans ``[start, start + length)`` cut to the runs: (span of each piece, its first flat index, its
        length, its first compact position)."""
        first = np.searchsorted(self.end, start, side="right")              # first run ending after start
        last = np.searchsorted(self.start, start + length, side="left")     # runs starting before the end
        span, k = _expand(np.maximum(last - first, 0))
        run = first[span] + k
        lo = np.maximum(start[span], self.start[run])
        hi = np.minimum(start[span] + length[span], self.end[run])
        return span, lo, hi - lo, self.offset[run] + lo - self.start[run]


def _keys(level, prim):
    """uint64 keys ``(level << ID_BITS) | prim`` from float levels in [0, 2**DEPTH_BITS)."""
    return (level.astype(np.uint64) << np.uint64(ID_BITS)) | prim.astype(np.uint64)


def _rows(top, bottom, h):
    """First row and row count of the sample rows r with top <= r + 1/2 <= bottom, clipped to [0, h)."""
    first = np.clip(np.ceil(top - 0.5), 0, h).astype(np.int64)
    last = np.clip(np.floor(bottom - 0.5), -1, h - 1).astype(np.int64)
    return first, np.maximum(last - first + 1, 0)


def _expand(counts):
    """(owner, k): for owners 0..len(counts)-1, each repeated counts[i] times with k = 0..counts[i]-1."""
    owner = np.repeat(np.arange(len(counts)), counts)
    k = np.arange(owner.size) - np.repeat(np.cumsum(counts) - counts, counts)
    return owner, k


def _chunks(counts, budget=CHUNK):
    """Slices of consecutive owners whose counts add up to about ``budget`` (at least one owner each)."""
    ends = np.cumsum(counts)
    start = 0
    while start < len(counts):
        base = ends[start - 1] if start else 0
        stop = max(int(np.searchsorted(ends, base + budget, side="right")), start + 1)
        yield slice(start, stop)
        start = stop


def _triangle_fragments(P, F, h, w, level, runs=None):
    """Yield ``(sample index, key)`` fragment arrays, chunk by chunk (``level``: depth to level map;
    with ``runs``, only the samples in them, indexed in their compact order)."""
    if len(F) == 0:
        return
    T = P[F]                                              # (f, 3, 3)
    e1, e2 = T[:, 1] - T[:, 0], T[:, 2] - T[:, 0]
    area2 = e1[:, 0] * e2[:, 1] - e2[:, 0] * e1[:, 1]
    live = np.flatnonzero(np.abs(area2) > 1e-12)          # a triangle seen edge-on covers no sample
    F, T, e1, e2, area2 = F[live], T[live], e1[live], e2[live], area2[live]
    # depth as a plane over the samples: z = zc + gx X + gy Y
    gx = (e1[:, 2] * e2[:, 1] - e2[:, 2] * e1[:, 1]) / area2
    gy = (e2[:, 2] * e1[:, 0] - e1[:, 2] * e2[:, 0]) / area2
    zc = T[:, 0, 2] - gx * T[:, 0, 0] - gy * T[:, 0, 1]
    # corners from top to bottom split the triangle into an upper and a lower trapezoid, each
    # bounded by two edges; rows are half-open, top <= Y < bottom, so a row on an edge shared
    # along a row goes to exactly one triangle and no edge along a row is ever evaluated
    top, mid, bottom = _sort3(F, T[:, :, 1])
    a_long, b_long = _edge_lines(P, top, bottom)
    a_up, b_up = _edge_lines(P, top, mid)
    a_low, b_low = _edge_lines(P, mid, bottom)
    y_top, y_mid, y_bottom = P[top, 1], P[mid, 1], P[bottom, 1]
    long_left = b_long + a_long * y_mid < P[mid, 0]       # the long edge bounds X from below
    rows = [np.clip(np.ceil(y - 0.5), 0, h).astype(np.int64) for y in (y_top, y_mid, y_bottom)]
    first = np.concatenate([rows[0], rows[1]])
    nrows = np.maximum(np.concatenate([rows[1] - rows[0], rows[2] - rows[1]]), 0)
    a_short, b_short = np.concatenate([a_up, a_low]), np.concatenate([b_up, b_low])
    a_long, b_long, left = np.tile(a_long, 2), np.tile(b_long, 2), np.tile(long_left, 2)
    a_lo, b_lo = np.where(left, a_long, a_short), np.where(left, b_long, b_short)
    a_hi, b_hi = np.where(left, a_short, a_long), np.where(left, b_short, b_long)
    owner = np.tile(np.arange(len(F)), 2)
    near, scale = level
    for traps in _chunks(nrows, CHUNK // 8):
        t, k = _expand(nrows[traps])
        t += traps.start
        r = first[t] + k
        yc = r + 0.5
        c0 = np.clip(np.ceil(b_lo[t] + a_lo[t] * yc - 0.5), 0, w).astype(np.int64)
        c1 = np.clip(np.floor(b_hi[t] + a_hi[t] * yc - 0.5), -1, w - 1).astype(np.int64)
        length = np.maximum(c1 - c0 + 1, 0)
        keep = np.flatnonzero(length)
        tri, r, c0, length = owner[t[keep]], r[keep], c0[keep], length[keep]
        start_level = (zc[tri] + gx[tri] * (c0 + 0.5) + gy[tri] * (r + 0.5) - near) * scale
        start, slope, tri = r * w + c0, gx[tri] * scale, live[tri]
        if runs is not None:
            piece, first_index, length, start = runs.clip(start, length)
            slope, tri = slope[piece], tri[piece]
            start_level = start_level[piece] + slope * (first_index - (r * w + c0)[piece])
        for spans in _chunks(length):
            yield _span_fragments(length[spans], start[spans], start_level[spans], slope[spans], tri[spans])


def _sort3(F, key):
    """The columns of F (t, 3) reordered by ascending ``key`` (t, 3), as three (t,) arrays (a sorting network)."""
    a, b, c = F.T
    ka, kb, kc = key.T
    swap = kb < ka
    a, b, ka, kb = np.where(swap, b, a), np.where(swap, a, b), np.where(swap, kb, ka), np.where(swap, ka, kb)
    swap = kc < kb
    b, c, kb = np.where(swap, c, b), np.where(swap, b, c), np.where(swap, kc, kb)
    swap = kb < ka
    return np.where(swap, b, a), np.where(swap, a, b), c


def _edge_lines(P, i, j):
    """Each edge (i, j) as the line X = b + a Y, computed from its lower-indexed end: bit-identical
    for the two triangles that share it, so no sample between them is left out (a = inf along a row)."""
    p, q = np.minimum(i, j), np.maximum(i, j)
    d = P[q, :2] - P[p, :2]
    with np.errstate(divide="ignore", invalid="ignore"):
        a = d[:, 0] / d[:, 1]
        b = P[p, 0] - a * P[p, 1]
    return a, b


def _span_fragments(length, start, level, slope, prim):
    """Fragments of spans: sample ``start + j`` at level ``level + slope j`` for j < length, owned by ``prim``.

    The key of a span's fragment j is ``key0 + dkey j``, with the slope rounded to whole levels
    (an error of at most half a level per column, 1e-8 of a sample's depth: far below any gap a
    picture can show). Both are written as one ``np.repeat`` per quantity plus a running index,
    the offset ``j = i - offset`` folded into the repeated values in wrapping uint64 arithmetic.
    """
    i = np.arange(int(length.sum()))
    offset = np.cumsum(length) - length
    step = np.clip(np.rint(slope), -2.0 ** DEPTH_BITS, 2.0 ** DEPTH_BITS).astype(np.int64) * (1 << ID_BITS)
    step = step.view(np.uint64)
    base = _keys(level, prim) - step * offset.view(np.uint64)
    key = np.repeat(step, length)
    key *= i.view(np.uint64)
    key += np.repeat(base, length)
    return np.repeat(start - offset, length) + i, key


def _disc_fragments(discs, h, w, offset, level):
    """Yield ``(sample index, key)`` fragments of the discs' front hemispheres (primitive ``offset + disc``)."""
    if len(discs) == 0:
        return
    cx, cy, cz, rad = discs.T
    first, nrows = _rows(cy - rad, cy + rad, h)
    s, k = _expand(nrows)
    r = first[s] + k
    dy = r + 0.5 - cy[s]
    half = np.sqrt(np.maximum(rad[s] ** 2 - dy ** 2, 0.0))
    c0 = np.clip(np.ceil(cx[s] - half - 0.5), 0, w).astype(np.int64)
    c1 = np.clip(np.floor(cx[s] + half - 0.5), -1, w - 1).astype(np.int64)
    length = np.maximum(c1 - c0 + 1, 0)
    span, j = _expand(length)
    col = c0[span] + j
    disc = s[span]
    rho2 = (col + 0.5 - cx[disc]) ** 2 + dy[span] ** 2
    depth = cz[disc] - np.sqrt(np.maximum(rad[disc] ** 2 - rho2, 0.0))
    near, scale = level
    yield r[span] * w + col, _keys((depth - near) * scale, offset + disc)


def planes(P, F, values):
    """(f, 3, m) coefficients ``(k, gx, gy)`` of the affine maps ``v(X, Y) = k + gx X + gy Y`` over each
    triangle's screen projection that take the (f, 3, m) corner ``values`` (zero slope when edge-on)."""
    corners = P[F, :2]
    e1, e2 = corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]
    area2 = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]
    area2 = np.where(area2 != 0, area2, np.inf)[:, None]
    d1, d2 = values[:, 1] - values[:, 0], values[:, 2] - values[:, 0]
    gx = (d1 * e2[:, 1:2] - d2 * e1[:, 1:2]) / area2
    gy = (d2 * e1[:, 0:1] - d1 * e2[:, 0:1]) / area2
    k = values[:, 0] - gx * corners[:, 0, 0:1] - gy * corners[:, 0, 1:2]
    return np.stack([k, gx, gy], axis=1)
