r"""Broad phase: every pair of overlapping axis-aligned boxes, in time that grows with the boxes and the pairs.

Two boxes ``[lo_i, hi_i]`` and ``[lo_j, hi_j]`` overlap when, on every axis k,
``lo_ik <= hi_jk`` and ``lo_jk <= hi_ik``. Overlap implies that their centres ``c`` are close in
every axis: ``|c_ik - c_jk| <= h_ik + h_jk``, ``h`` the half-extents. Dividing each axis by
``R_k = max_i h_ik + max_j h_jk`` turns that into a Chebyshev (``p = inf``) ball of radius 1, which
``scipy.spatial.cKDTree`` answers in ``O((n + pairs) log n)``; the exact overlap test then runs on
the pairs it returns. Boxes of very different sizes (a cloth on a ground of two triangles) would
make ``R`` loose for the small ones, so the boxes are split into size classes (a factor 4 in
half-extent per class) and each pair of classes is queried with its own ``R``.

Chosen by measurement on the contact benchmark (``benchmarks/bench_contact.py``: two noisy 64x64
sheets 2 mm apart, 24k edges, boxes inflated by 3 mm, 228k overlapping edge pairs): this tree
query found them in 48 ms, a sort-based uniform hash grid in numpy (sort the cell keys, search the
27 neighbour cells) in 89 ms (and 0.26 s against 0.63 s at 128x128), and sort-and-sweep would
sweep 8.3 million pairs whose boxes overlap on its best axis (a whole column of a sheet) to find
them.

Used by the contact term (``CollisionMesh``) with boxes inflated by ``d_hat``: at positions for the
distance query, and swept over a Newton step (grown by a margin: the pairs are kept for the line
search and the next steps) for continuous collision detection.

Boxes that never move (a static obstacle's, ``FixedBoxes``) are prepared once: their size classes,
and an occupancy grid of the cells they cover (cells of about their typical size, at most
``GRID_CELLS`` per axis) with its prefix sums, so that a query box that shares no occupied cell with
them, a part of a cloth away from the sphere it falls on, is dropped in O(1) before any tree is
built. Measured on chapter 18's cloth on a sphere when ``FixedBoxes`` was written (no benchmark table
keeps it; ``bench_contact.py``'s table 6 is about kept pairs): the trees of the obstacle's boxes cost
under 1% of a query, so they are not kept; the cull is what saves.
"""
import numpy as np
from scipy.spatial import cKDTree

from .. import _validate

CLASS_RATIO = 4.0          # half-extents within one size class differ by at most this factor
# sliding-midpoint trees: built about 3x faster than scipy's default median split, and answer these
# ball queries as fast or faster (measured on the benchmark's sheets and 2D rings)
_TREE = {"balanced_tree": False, "compact_nodes": False}
# up to this many box pairs, every pair is tested at once (a tree's construction costs more)
ALL_PAIRS = 4096
_SLACK = 1.0 + 1e-9        # the tree's radius, a hair above 1 so round-off in the scaling drops no pair
GRID_CELLS = 32            # a FixedBoxes occupancy grid has at most this many cells per axis


def _check_boxes(lo, hi, name):
    lo = _validate.finite_array(lo, f"lo{name}")
    hi = _validate.finite_array(hi, f"hi{name}")
    if lo.ndim != 2 or lo.shape[1] not in (2, 3):
        raise ValueError(f"lo{name}: expected shape (k, dim) with dim 2 or 3, got {lo.shape}")
    if hi.shape != lo.shape:
        raise ValueError(f"hi{name}: expected shape {lo.shape}, like lo{name}, got {hi.shape}")
    if lo.size and not (lo <= hi).all():
        bad = int(np.argmax(~(lo <= hi).all(axis=1)))
        raise ValueError(f"hi{name}: expected hi >= lo on every axis, box {bad} has lo {lo[bad]} and hi {hi[bad]}")
    return lo, hi


def box_pairs(lo, hi, lo_b=None, hi_b=None):
    r"""Index pairs of overlapping axis-aligned boxes, within one set or between two.

    :math:`[l_i, h_i] \cap [l_j, h_j] \neq \emptyset \iff l_{ik} \le h_{jk} \text{ and } l_{jk} \le h_{ik}` on every axis k

    Parameters
    ----------
    lo, hi : (k, dim) float arrays
        Lower and upper corners of the boxes (dim 2 or 3), ``lo <= hi``.
    lo_b, hi_b : (m, dim) float arrays, optional
        A second set of boxes. Without it, pairs within the first set are returned.

    Returns
    -------
    pairs : (p, 2) int array
        Without a second set, every ``(i, j)`` with ``i < j`` whose boxes overlap; with one,
        every ``(i, j)`` with box i of the first set overlapping box j of the second. Boxes that
        only touch count as overlapping.
    """
    lo, hi = _check_boxes(lo, hi, "")
    if lo_b is None and hi_b is None:
        return _self_pairs(lo, hi)
    if lo_b is None or hi_b is None:
        raise ValueError("lo_b, hi_b: expected both corners of the second set of boxes, got only one")
    lo_b, hi_b = _check_boxes(lo_b, hi_b, "_b")
    if lo_b.shape[1] != lo.shape[1]:
        raise ValueError(f"lo_b: expected {lo.shape[1]}D boxes, like lo, got shape {lo_b.shape}")
    return _cross_pairs(lo, hi, lo_b, hi_b)


class FixedBoxes:
    r"""Boxes that never move, prepared once to be paired with many sets of query boxes.

    :math:`\{(i, j) : [l_i, h_i] \cap [L_j, H_j] \neq \emptyset\}`, the query boxes far from every fixed box dropped first

    Parameters
    ----------
    lo, hi : (k, dim) float arrays
        The fixed boxes' corners, finite, ``lo <= hi`` (unchecked: the caller builds them).

    Notes
    -----
    The boxes' size classes are computed once, and so is an occupancy grid: cells of each axis'
    median box extent (coarser where that would exceed ``GRID_CELLS`` cells), marked where some
    fixed box covers them, with prefix sums. A query box overlaps some fixed box only if its cell
    range holds an occupied cell (the cell of the overlap's lowest corner lies in both boxes'
    ranges, the cell index being a monotone function of the coordinate), which eight prefix-sum
    lookups decide.
    """

    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi
        self.groups = _groups(lo, hi) if len(lo) else []
        if not len(lo):
            return
        dim = lo.shape[1]
        self._origin, self._top = lo.min(axis=0), hi.max(axis=0)
        span = self._top - self._origin
        cell = np.maximum(span / GRID_CELLS, 0.5 * np.median(hi - lo, axis=0))
        self._cell = np.where(cell > 0, cell, 1.0)
        self._shape = np.minimum(np.floor(span / self._cell).astype(np.int64) + 1, GRID_CELLS)
        # the fixed boxes' cell ranges summed into a difference array, then integrated: cover counts
        i0, i1 = self._index(lo), self._index(hi) + 1
        diff = np.zeros(tuple(self._shape + 1), dtype=np.int64)
        corners = np.array(np.meshgrid(*[[0, 1]] * dim, indexing="ij")).reshape(dim, -1).T
        for corner in corners:
            idx = np.where(corner, i1, i0)
            sign = -1 if corner.sum() % 2 else 1
            diff += sign * np.bincount(np.ravel_multi_index(idx.T, diff.shape), minlength=diff.size).reshape(diff.shape)
        for axis in range(dim):
            np.cumsum(diff, axis=axis, out=diff)
        occupied = diff[tuple(slice(0, s) for s in self._shape)] > 0
        # prefix sums with a zero plane in front: S[i] = number of occupied cells below index i on every axis
        self._prefix = np.zeros(tuple(self._shape + 1), dtype=np.int64)
        inner = occupied.astype(np.int64)
        for axis in range(dim):
            inner = np.cumsum(inner, axis=axis)
        self._prefix[tuple(slice(1, None) for _ in range(dim))] = inner
        self._corners = corners

    def __len__(self):
        return len(self.lo)

    def _index(self, x):
        """Cell index (q, dim) of points x, clipped to the grid."""
        return np.clip(np.floor((x - self._origin) / self._cell), 0, self._shape - 1).astype(np.int64)

    def near(self, lo, hi):
        """Whether each query box (q, dim) shares an occupied cell with the fixed boxes: (q,) bool (a superset of
        the boxes that overlap one)."""
        if not len(self.lo) or not len(lo):
            return np.zeros(len(lo), dtype=bool)
        inside = ((hi >= self._origin) & (lo <= self._top)).all(axis=1)
        i0, i1 = self._index(lo), self._index(hi) + 1
        count = np.zeros(len(lo), dtype=np.int64)
        for corner in self._corners:
            value = self._prefix[tuple(np.where(corner, i1, i0).T)]
            if corner.sum() % 2 == lo.shape[1] % 2:
                count += value
            else:
                count -= value
        return inside & (count > 0)

    def pairs(self, lo, hi):
        """Index pairs (i, j) of query box i (of lo, hi (q, dim)) overlapping fixed box j: two (p,) int arrays."""
        keep = np.flatnonzero(self.near(lo, hi))
        if not keep.size:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        i, j = _cross_ij(lo[keep], hi[keep], self.lo, self.hi, self.groups)
        return keep[i], j


def _size_classes(half):
    """Class label (k,) of each box by its largest half-extent: factors of CLASS_RATIO apart."""
    size = half.max(axis=1) if half.size else np.zeros(0)
    positive = size > 0
    if not positive.any():
        return np.zeros(size.size, dtype=np.int64)
    smallest = size[positive].min()
    label = np.zeros(size.size, dtype=np.int64)
    label[positive] = np.floor(np.log(size[positive] / smallest) / np.log(CLASS_RATIO)).astype(np.int64)
    return label


def _groups(lo, hi):
    """Per size class: (indices, centres, half-extents) of its boxes."""
    centre, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
    label = _size_classes(half)
    order = np.argsort(label, kind="stable")
    bounds = np.flatnonzero(np.diff(label[order])) + 1
    return [(idx, centre[idx], half[idx]) for idx in np.split(order, bounds) if idx.size]


def _scale(half_a, half_b):
    """Per-axis R_k = max h_a + max h_b (1 on an axis where every box is flat: any positive R is conservative)."""
    R = half_a.max(axis=0) + half_b.max(axis=0)
    return np.where(R > 0, R, 1.0)


def _overlapping(lo_a, hi_a, lo_b, hi_b, i, j):
    """The candidate pairs (i, j) whose boxes overlap, tested one axis at a time on a shrinking set."""
    for k in range(lo_a.shape[1]):
        # contiguous columns: gathering from them is several times faster than lo_a[i, k]
        la, ha = np.ascontiguousarray(lo_a[:, k]), np.ascontiguousarray(hi_a[:, k])
        lb, hb = np.ascontiguousarray(lo_b[:, k]), np.ascontiguousarray(hi_b[:, k])
        keep = (la[i] <= hb[j]) & (lb[j] <= ha[i])
        i, j = i[keep], j[keep]
    return i, j


def _all_pairs(lo_a, hi_a, lo_b, hi_b):
    """Every pair (i, j) of overlapping boxes by one broadcast comparison (a few boxes: a chapter's small scene)."""
    overlap = ((lo_a[:, None] <= hi_b[None]) & (lo_b[None] <= hi_a[:, None])).all(axis=2)
    return np.nonzero(overlap)


def _self_pairs(lo, hi):
    if len(lo) * len(lo) <= ALL_PAIRS:
        i, j = _all_pairs(lo, hi, lo, hi)
        keep = i < j
        return np.column_stack([i[keep], j[keep]]).astype(np.int64)
    groups = _groups(lo, hi)
    found_i, found_j = [], []
    for g, (idx_a, c_a, h_a) in enumerate(groups):
        for idx_b, c_b, h_b in groups[g:]:
            R = _scale(h_a, h_b)
            tree_a = cKDTree(c_a / R, **_TREE)
            if idx_b is idx_a:
                near = tree_a.query_pairs(_SLACK, p=np.inf, output_type="ndarray")
                i, j = near[:, 0], near[:, 1]
            else:
                near = tree_a.sparse_distance_matrix(cKDTree(c_b / R, **_TREE), _SLACK, p=np.inf, output_type="ndarray")
                i, j = near["i"], near["j"]
            found_i.append(_take(idx_a, i, len(lo)))
            found_j.append(_take(idx_b, j, len(lo)))
    i, j = _overlapping(lo, hi, lo, hi, *_concatenate(found_i, found_j))
    return np.column_stack([np.minimum(i, j), np.maximum(i, j)])


def _cross_pairs(lo_a, hi_a, lo_b, hi_b):
    return np.column_stack(_cross_ij(lo_a, hi_a, lo_b, hi_b))


def _cross_ij(lo_a, hi_a, lo_b, hi_b, groups_b=None):
    """Index arrays (i, j) of overlapping boxes of sets a and b (unchecked); groups_b: b's size classes, if known."""
    if len(lo_a) * len(lo_b) <= ALL_PAIRS:
        i, j = _all_pairs(lo_a, hi_a, lo_b, hi_b)
        return i.astype(np.int64, copy=False), j.astype(np.int64, copy=False)
    found_i, found_j = [], []
    if len(lo_a) and len(lo_b):
        groups_b = _groups(lo_b, hi_b) if groups_b is None else groups_b
        for idx_a, c_a, h_a in _groups(lo_a, hi_a):
            for idx_b, c_b, h_b in groups_b:
                R = _scale(h_a, h_b)
                near = cKDTree(c_a / R, **_TREE).sparse_distance_matrix(cKDTree(c_b / R, **_TREE), _SLACK, p=np.inf,
                                                                         output_type="ndarray")
                found_i.append(_take(idx_a, near["i"], len(lo_a)))
                found_j.append(_take(idx_b, near["j"], len(lo_b)))
    return _overlapping(lo_a, hi_a, lo_b, hi_b, *_concatenate(found_i, found_j))


def _take(idx, local, total):
    """Global indices of a class's local indices (no gather when the class holds every box, in order)."""
    return local if idx.size == total else idx[local]


def _concatenate(found_i, found_j):
    if not found_i:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if len(found_i) == 1:
        return found_i[0].astype(np.int64, copy=False), found_j[0].astype(np.int64, copy=False)
    return np.concatenate(found_i).astype(np.int64), np.concatenate(found_j).astype(np.int64)
