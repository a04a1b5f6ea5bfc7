r"""Exact interpenetration tests of 2D bodies given by their boundary segments.

Two bodies interpenetrate when a boundary segment of one crosses or touches a boundary segment
of the other (closed segments sharing a point), or when a vertex of one lies strictly inside the
other: inside the region its boundary segments enclose by the even-odd rule, the case of one
body swallowed whole that no crossing reveals. Both tests are made of orientation predicates

.. math:: \operatorname{orient}(a, b, c) = \operatorname{sign}\,\big((b - a) \times (c - a)\big)

and exact comparisons of coordinates, decided exactly by ``simkit.contact._orient`` (the 3D
tests' predicates: a floating-point filter, exact integer arithmetic where it cannot decide). No
distance, tolerance or barrier enters, so the answer does not depend on the contact model whose
states it checks.

The broad phase is the 3D tests' grid of boxes (``simkit.contact.intersections``), one group
per state: segments are tested only against segments whose boxes overlap theirs; a vertex only
against the bodies whose box holds it, and there its even-odd count runs over the body's
segments whose boxes meet the ray from the vertex towards +x, cut at the body's box. For m
segments spread over a scene the work grows like m, not m^2
(``benchmarks/bench_intersections.py``).
"""
import numpy as np

from .. import _validate
from ._orient import orient2d
from .intersections import _box_pairs, _segment_meets_segment_2d


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

    :math:`c_t = k_t + l_t`, the intersecting segment pairs and the vertices inside another body in state t

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
        0 where the bodies are apart.
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
    T = P.shape[0]
    empty = np.zeros((0, 3), dtype=np.int64)
    if len(S) == 0 or T == 0:
        return empty, empty
    m = len(S)
    A, B = P[:, S[:, 0]].reshape(-1, 2), P[:, S[:, 1]].reshape(-1, 2)     # (T m, 2): segment s of state t at t m + s
    lo, hi = np.minimum(A, B), np.maximum(A, B)
    state = np.repeat(np.arange(T), m)
    seg_body = np.tile(labels[S[:, 0]], T)
    return (_segment_pairs(A, B, lo, hi, state, seg_body, m),
            _vertices_inside(P, tested, labels, A, B, lo, hi, seg_body, m))


def _cell(lo, hi):
    """The grid's cell size for segments: twice the median segment's box (measured faster than once in 2D)."""
    return 2.0 * float(np.median((hi - lo).max(axis=1)))


def _segment_pairs(A, B, lo, hi, state, seg_body, m):
    """(state, i, j), i < j: segments of different bodies that share a point, per state."""
    ia, ib = _box_pairs(lo, hi, state, h=_cell(lo, hi))
    keep = seg_body[ia] != seg_body[ib]
    ia, ib = ia[keep], ib[keep]
    hit = _segment_meets_segment_2d(A[ia], B[ia], A[ib], B[ib])
    found = np.column_stack([state[ia], ia % m, ib % m])[hit]
    return found[np.lexsort(found.T[::-1])]


def _vertices_inside(P, tested, labels, A, B, lo, hi, seg_body, m):
    """(state, vertex, body): tested vertices strictly inside a body other than their own (even-odd rule)."""
    T, n = P.shape[:2]
    n_bodies = int(labels.max()) + 1
    # every body's box in every state: (state, body) at state * n_bodies + body, empty boxes for absent bodies
    owner = np.repeat(np.arange(T), m) * n_bodies + seg_body
    box_lo = np.full((T * n_bodies, 2), np.inf)
    box_hi = np.full((T * n_bodies, 2), -np.inf)
    np.minimum.at(box_lo, owner, lo)
    np.maximum.at(box_hi, owner, hi)
    present = np.flatnonzero(np.isfinite(box_lo[:, 0]))
    # the tested vertices against the boxes that hold them, on a grid of the bodies' size
    V = P[:, tested].reshape(-1, 2)
    v_state = np.repeat(np.arange(T), len(tested))
    extent = (box_hi[present] - box_lo[present]).max(axis=1)
    iv, ib = _box_pairs(V, V, v_state, box_lo[present], box_hi[present], present // n_bodies,
                        h=float(np.median(extent)))
    k = present[ib]                                         # (state, body) of each candidate
    v = tested[iv % len(tested)]
    keep = (k % n_bodies) != labels[v]
    iv, k, v = iv[keep], k[keep], v[keep]
    # each candidate's ray from the vertex towards +x, cut at the body's box, against that body's segments
    p = V[iv]
    ray_hi = np.column_stack([box_hi[k, 0], p[:, 1]])
    ir, js = _box_pairs(p, ray_hi, k, lo, hi, owner, h=_cell(lo, hi))
    p, a, b = p[ir], A[js], B[js]
    o = orient2d(a, b, p)
    straddles = (a[:, 1] > p[:, 1]) != (b[:, 1] > p[:, 1])
    crosses = straddles & np.where(b[:, 1] > a[:, 1], o > 0, o < 0)   # the ray meets the segment right of p
    on = (o == 0) & ((np.minimum(a, b) <= p) & (p <= np.maximum(a, b))).all(axis=1)
    odd = np.bincount(ir, weights=crosses, minlength=len(k)) % 2 == 1
    odd &= np.bincount(ir, weights=on, minlength=len(k)) == 0          # on a boundary is not strictly inside
    found = np.column_stack([k // n_bodies, v, k % n_bodies])[odd]
    return found[np.lexsort(found.T[::-1])]
