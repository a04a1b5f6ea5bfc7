r"""The contact topology of a mesh, checked once: its points, edges and faces, and which pairs may touch.

A ``CollisionMesh`` is what the contact term keeps between calls. From it, each Newton iterate
asks for the candidate pairs near positions X (``candidates``) or swept by a step
(``swept_candidates``): in 3D point-face pairs (a vertex and a triangle) and edge-edge pairs, in
2D point-edge pairs (a vertex and a boundary segment). A pair is never a candidate when

- its primitives share a vertex (adjacent: their distance is 0 by construction);
- ``bodies`` is given and both primitives belong to the same body (no self-contact there);
- every vertex of both primitives is ``fixed`` (two parts of a static obstacle: they never
  move, so their distance never changes; the broad phase does not even look at such pairs).

The broad phase pairs axis-aligned boxes (``simkit.contact.broad_phase``): for the distance
query, each face or edge box inflated by the activation distance and each point as a degenerate
box; for a step, the boxes of each primitive at the start and end of the step together (linear
motion stays in them). The moving primitives' boxes are paired with each other at every query; the
fixed primitives' boxes (a static obstacle's) are built once per inflation as ``FixedBoxes`` and
reused while the fixed vertices stay put, so a query only pairs them with the moving boxes near them.

A Newton solve asks many times about nearby positions: the distance at each point of a line
search, the swept boxes of each step. So a step (``swept_candidates(X0, X1, keep=d_hat)``) keeps
the list of pairs that can come within ``d_hat`` while every vertex stays in a region, its box
over the step grown by ``KEEP_MARGIN * d_hat``; the queries inside that region test only the
listed pairs' boxes, and a step that leaves it builds a new list (a Verlet list). On chapter 18's
cloth on a sphere this cuts the broad-phase queries from 429 to 63 in 30 time steps. Pairs come
sorted (by point, then target; by edge, then edge) whichever way they were found, so a result
does not depend on the broad phase's order, and sums over them round alike.

``intersections(X)`` lists the edge-face pairs (2D: segment pairs) of the same candidates that
pass through each other, exactly: what the contact term checks at the start of a time step.
"""
import numpy as np

from .. import _validate
from .broad_phase import FixedBoxes, _cross_ij, _self_pairs
from .intersections import _edge_triangle, _segment_meets_segment_2d

# A rest triangle whose |(b - a) x (c - a)|^2 is at most this times |b - a|^2 |c - a|^2 has zero area.
ZERO_AREA = 1e-28
# A mesh with at most this many point-target and edge-edge pairs in all (a chapter's small scene) lists them
# once, and each query tests those pairs' boxes directly: cheaper there than building any tree.
SMALL_SCENE_PAIRS = 4096
# swept_candidates(..., keep) keeps the pairs of a region: each vertex's box over the step grown by this times keep
KEEP_MARGIN = 1.0


def _labels(bodies, n):
    labels = np.asarray(bodies)
    if labels.shape not in ((n,), (n, 1)) or labels.dtype == bool or not np.issubdtype(labels.dtype, np.integer):
        raise ValueError(f"bodies: expected one integer label per vertex, shape ({n},), got shape {labels.shape} "
                         f"of dtype {labels.dtype}")
    return labels.reshape(n).astype(np.int64)


def _points(points, n):
    P = _validate.index_vector(points, "points", n)
    unique = np.unique(P)
    if unique.size != P.size:
        raise ValueError(f"points: expected distinct vertex indices, got {P.size - unique.size} repeated")
    return unique


def _fixed_mask(fixed, n):
    if fixed is None:
        return np.zeros(n, dtype=bool)
    arr = np.asarray(fixed)
    if arr.dtype == bool:
        if arr.shape not in ((n,), (n, 1)):
            raise ValueError(f"fixed: expected a boolean mask of shape ({n},) or vertex indices, got shape {arr.shape}")
        return arr.reshape(n).copy()
    mask = np.zeros(n, dtype=bool)
    mask[_validate.index_vector(arr, "fixed", n)] = True
    return mask


def _check_edges(X, edges):
    n = X.shape[0]
    E = _validate.index_array(edges, "edges", 2, n)
    loop = E[:, 0] == E[:, 1]
    if loop.any():
        i = int(np.argmax(loop))
        raise ValueError(f"edges: edge {i} joins vertex {E[i, 0]} to itself (zero length)")
    e = X[E[:, 1]] - X[E[:, 0]]
    length2 = np.einsum("ij,ij->i", e, e)
    if E.size and not np.minimum.reduce(length2) > 0:
        bad = np.flatnonzero(length2 <= 0)
        raise ValueError(f"edges: zero rest length at edge(s) {bad[:10].tolist()} "
                         f"(vertices {[tuple(int(v) for v in E[i]) for i in bad[:3]]})")
    key = np.sort(E, axis=1)
    unique, count = np.unique(key, axis=0, return_counts=True)
    if (count > 1).any():
        raise ValueError(f"edges: edge {tuple(int(v) for v in unique[np.argmax(count > 1)])} is listed more than once")
    return E, length2


def _check_faces(X, faces, E):
    n = X.shape[0]
    F = _validate.index_array(faces, "faces", 3, n)
    a, b, c = X[F[:, 0]], X[F[:, 1]], X[F[:, 2]]
    e0, e1 = b - a, c - a
    nrm = np.cross(e0, e1)
    area2 = np.einsum("ij,ij->i", nrm, nrm)
    flat = area2 <= ZERO_AREA * np.einsum("ij,ij->i", e0, e0) * np.einsum("ij,ij->i", e1, e1)
    if flat.any():
        bad = np.flatnonzero(flat)
        raise ValueError(f"faces: zero rest area at triangle(s) {bad[:10].tolist()} "
                         f"(vertices {[tuple(int(v) for v in F[i]) for i in bad[:3]]})")
    face_edges = np.sort(F[:, [[0, 1], [1, 2], [2, 0]]].reshape(-1, 2), axis=1)
    listed = np.sort(E, axis=1)
    m = max(n, 1)
    missing = ~np.isin(face_edges[:, 0] * m + face_edges[:, 1], listed[:, 0] * m + listed[:, 1])
    if missing.any():
        i = int(np.argmax(missing))
        raise ValueError(f"edges: expected every edge of every face, edge {tuple(int(v) for v in face_edges[i])} of "
                         f"face {i // 3} is missing (simkit.edges(faces) lists them)")
    return F


def _free_edges(E, F, n):
    """(m,) bool: which edges of E (m, 2) are an edge of no face of F (f, 3)."""
    m = max(n, 1)
    listed = np.sort(E, axis=1)
    face_edges = np.sort(F[:, [[0, 1], [1, 2], [2, 0]]].reshape(-1, 2), axis=1)
    return ~np.isin(listed[:, 0] * m + listed[:, 1], face_edges[:, 0] * m + face_edges[:, 1])


class CollisionMesh:
    r"""The contact primitives of a mesh and the pairs of them that may touch, checked once.

    :math:`\text{candidates} = \{(p, f) : p \notin f\} \cup \{(e, e') : e \cap e' = \emptyset\}` (3D), :math:`\{(p, e) : p \notin e\}` (2D), minus same-body and fixed-fixed pairs

    Parameters
    ----------
    X : (n, dim) float array
        Rest positions, dim 2 or 3.
    edges : (m, 2) int array
        In 3D every edge of every face, plus any free edges (rods); in 2D the boundary segments.
        No zero-length edge, none listed twice.
    faces : (f, 3) int array, optional
        Triangles (3D only), of non-zero rest area.
    points : (p,) int array, optional
        The vertices that meet the faces (3D) or the segments (2D) as points: distinct indices
        (default: every vertex of an edge or a face). A vertex on no edge, a free particle, is a
        point only when listed.
    bodies : (n,) int array, optional
        A body label per vertex: primitives of one body never form a pair (default: any two
        non-adjacent primitives may, so a body can touch itself). Each edge and face lies in one body.
    fixed : (n,) bool array or (k,) int array, optional
        Vertices that never move (a static obstacle); pairs with every vertex fixed are skipped.

    Attributes
    ----------
    n, dim : int
    points : (p,) int array
        The vertices that can touch faces (3D) or segments (2D), sorted: ``points`` as given, or
        every vertex of an edge or a face.
    edges, faces : int arrays
        As given (faces (0, 3) when absent).
    rest_length2 : (m,) float array
        Squared rest length of each edge (the edge-edge mollifier's scale).
    free_edges : (m,) bool array
        The edges on no face (3D rods; all False in 2D). Their end points also meet the other free
        edges of their edge pairs as points (``simkit.contact.build_collisions``).
    is_point : (n,) bool array
        Whether each vertex is one of ``points``.
    fixed : (n,) bool array
    """

    def __init__(self, X, edges, faces=None, *, points=None, bodies=None, fixed=None):
        X = _validate.positions(X, "X")
        self.n, self.dim = X.shape
        self.edges, self.rest_length2 = _check_edges(X, edges)
        if faces is not None and self.dim == 2:
            raise ValueError("faces: expected None in 2D (the boundary segments are the edges), got faces")
        self.faces = np.zeros((0, 3), dtype=np.int64) if faces is None else _check_faces(X, faces, self.edges)
        self.points = (np.unique(np.concatenate([self.edges.reshape(-1), self.faces.reshape(-1)])) if points is None
                       else _points(points, self.n))
        self.fixed = _fixed_mask(fixed, self.n)
        self.free_edges = _free_edges(self.edges, self.faces, self.n) if self.dim == 3 else np.zeros(len(self.edges),
                                                                                                     dtype=bool)
        self.is_point = np.zeros(self.n, dtype=bool)
        self.is_point[self.points] = True
        self.bodies = None if bodies is None else _labels(bodies, self.n)
        if self.bodies is not None:
            for name, T in (("edges", self.edges), ("faces", self.faces)):
                mixed = (self.bodies[T] != self.bodies[T[:, :1]]).any(axis=1)
                if mixed.any():
                    raise ValueError(f"bodies: {name[:-1]} {int(np.argmax(mixed))} joins vertices of different bodies "
                                     f"{sorted(set(self.bodies[T[np.argmax(mixed)]].tolist()))}")
        # the primitives each candidate is tested against: faces in 3D, segments in 2D
        self._targets = self.faces if self.dim == 3 else self.edges
        # moving primitives (some vertex not fixed) and fixed ones, as indices and as vertex-index arrays
        moving = {"points": ~self.fixed[self.points], "targets": ~self.fixed[self._targets].all(axis=1),
                  "edges": ~self.fixed[self.edges].all(axis=1)}
        self._moving = {name: np.flatnonzero(m) for name, m in moving.items()}
        self._still = {name: np.flatnonzero(~m) for name, m in moving.items()}
        vertices = {"points": self.points, "targets": self._targets, "edges": self.edges}
        self._moving_vertices = {name: vertices[name][i] for name, i in self._moving.items()}
        self._still_vertices = {name: vertices[name][i] for name, i in self._still.items()}
        self._fixed_vertices = np.flatnonzero(self.fixed)
        self._fixed_boxes = {}         # inflation -> (fixed vertices' positions, their FixedBoxes), built once
        self._every = self._every_pair() if self._pair_count() <= SMALL_SCENE_PAIRS else None
        self._kept = None              # (lo, hi, keep, pairs): swept_candidates' kept pairs and their region
        self._columns = {name: [np.ascontiguousarray(c) for c in T.T] for name, T in (("targets", self._targets),
                                                                                     ("edges", self.edges))}
        self._point_index = np.zeros(self.n, dtype=np.int64)      # vertex id -> its row in points
        self._point_index[self.points] = np.arange(len(self.points))

    def __repr__(self):
        return (f"CollisionMesh({self.n} vertices in {self.dim}D, {len(self.points)} points, {len(self.edges)} edges, "
                f"{len(self.faces)} faces, {int(self.fixed.sum())} fixed)")

    def candidates(self, X, inflation):
        """Candidate pairs near positions X (n, dim): primitives whose boxes come within `inflation`.

        Taken from the kept pairs (``swept_candidates``' `keep`) when X lies inside their region:
        the same pairs, in the same order, without a broad-phase query.

        Returns
        -------
        point_target : (k, 2) int array
            (vertex index, face index) in 3D, (vertex index, edge index) in 2D, sorted by vertex, then target.
        edge_edge : (l, 2) int array
            (edge index, edge index), first < second, sorted; empty in 2D.
        """
        kept = self._kept
        if kept is not None and kept[2] == inflation and _inside(X, X, kept[0], kept[1]):
            return self._overlapping_pairs(X, X, inflation, *kept[3])
        return self._pairs(X, X, inflation)

    def swept_candidates(self, X0, X1, keep=None):
        """Candidate pairs of a linear step from X0 to X1 (n, dim): primitives whose swept boxes overlap.

        Parameters
        ----------
        X0, X1 : (n, dim) float arrays
            The step's start and end.
        keep : float, optional
            An inflation (the activation distance) for later queries. The mesh then keeps a list of
            the pairs that can come within `keep` while each moving vertex stays in a region: its
            box over the step, grown by ``KEEP_MARGIN * keep``. Later steps inside that region
            (a Newton solve's next iterations), and ``candidates(X, keep)`` of any X inside it (the
            points of a line search), pick their pairs from the list instead of querying the broad
            phase; a step that leaves it builds a new one. A primitive's box at such an X, or over
            such a step, lies inside its box over the region, so no pair is missed.

        Returns
        -------
        point_target, edge_edge : as ``candidates``.
        """
        if keep is None:
            return self._pairs(X0, X1, 0.0)
        kept = self._kept
        if kept is None or kept[2] != keep or not _inside(X0, X1, kept[0], kept[1]):
            # no margin for the fixed vertices: they stay put (or move as X0 -> X1 says)
            margin = np.where(self.fixed, 0.0, KEEP_MARGIN * keep)[:, None]
            lo, hi = np.minimum(X0, X1) - margin, np.maximum(X0, X1) + margin
            kept = self._kept = (lo, hi, keep, self._pairs(lo, hi, keep))
        return self._overlapping_pairs(X0, X1, 0.0, *kept[3])

    def intersections(self, X):
        r"""The primitives that pass through each other at positions X (n, dim), exactly (touching counts).

        :math:`\{(e, f) : e \cap f \neq \emptyset\}` (3D: an edge and a face), :math:`\{(e, e') : e \cap e' \neq \emptyset\}` (2D: two segments), over the candidate pairs

        Only pairs that could be candidates are tested: none that share a vertex, lie in one body
        or have every vertex fixed. ``simkit.contact.intersections`` decides each pair exactly.

        Returns
        -------
        pairs : (k, 2) int array
            (edge index, face index) in 3D; (edge index, edge index), first < second, in 2D.
        """
        fixed = self._fixed(X, X, 0.0)
        t_lo, t_hi = self._boxes(X, X, "targets", 0.0, 0.0)
        if self.dim == 2:
            pairs = self._filter_edge_edge(np.column_stack(self._self("targets", t_lo, t_hi, fixed)))
            E = self.edges
            meet = _segment_meets_segment_2d(X[E[pairs[:, 0], 0]], X[E[pairs[:, 0], 1]], X[E[pairs[:, 1], 0]],
                                             X[E[pairs[:, 1], 1]])
            return pairs[meet]
        e_lo, e_hi = self._boxes(X, X, "edges", 0.0, 0.0)
        e, f = self._cross("edges", e_lo, e_hi, "targets", t_lo, t_hi, fixed)
        E, F = self.edges[e], self.faces[f]
        keep = ~(E[:, :, None] == F[:, None, :]).any(axis=(1, 2))
        if self.bodies is not None:
            keep &= self.bodies[E[:, 0]] != self.bodies[F[:, 0]]
        e, f, E, F = e[keep], f[keep], E[keep], F[keep]
        meet = _edge_triangle(X[E[:, 0]], X[E[:, 1]], X[F[:, 0]], X[F[:, 1]], X[F[:, 2]])
        return np.column_stack([e[meet], f[meet]])

    def _cross(self, a, a_lo, a_hi, b, b_lo, b_hi, fixed):
        """Index arrays (i, j) of primitives of kinds a and b whose boxes overlap, none with both fixed: the moving
        ones' boxes (a_lo, a_hi) and (b_lo, b_hi) with each other and with the other kind's fixed boxes."""
        i, j = _cross_ij(a_lo, a_hi, b_lo, b_hi)
        found_a, found_b = [self._moving[a][i]], [self._moving[b][j]]
        if fixed is not None:
            i, j = fixed[b].pairs(a_lo, a_hi)
            found_a.append(self._moving[a][i])
            found_b.append(self._still[b][j])
            i, j = fixed[a].pairs(b_lo, b_hi)
            found_a.append(self._still[a][j])
            found_b.append(self._moving[b][i])
        return np.concatenate(found_a), np.concatenate(found_b)

    def _self(self, kind, lo, hi, fixed):
        """Index arrays (i, j), i < j, of primitives of one kind whose boxes overlap, not both fixed."""
        pairs = _self_pairs(lo, hi)
        a, b = self._moving[kind][pairs[:, 0]], self._moving[kind][pairs[:, 1]]
        if fixed is None:
            return a, b
        i, j = fixed[kind].pairs(lo, hi)
        a, b = np.concatenate([a, self._moving[kind][i]]), np.concatenate([b, self._still[kind][j]])
        return np.minimum(a, b), np.maximum(a, b)

    def _boxes(self, X0, X1, name, below, above):
        """Boxes (lo, hi) of the moving primitives `name` over the step X0 -> X1, lo lowered by `below`, hi raised
        by `above`."""
        return _swept_boxes(X0, X1, self._moving_vertices[name], below, above)

    def _fixed(self, X0, X1, inflation):
        """The fixed primitives' boxes as ``FixedBoxes`` per kind ({"points", "targets", "edges"}), or None.

        Built once per inflation and reused while the fixed vertices stay where they were; rebuilt if
        they moved, and built afresh, uncached, for a step that moves them.
        """
        if not self._fixed_vertices.size:
            return None
        F0 = X0[self._fixed_vertices]
        still = X1 is X0 or np.array_equal(F0, X1[self._fixed_vertices])
        if still:
            cached = self._fixed_boxes.get(inflation)
            if cached is not None and np.array_equal(cached[0], F0):
                return cached[1]
        # points: degenerate boxes; targets: inflated on both sides; edges: raised by the inflation (one side
        # suffices for a pair of edges)
        sides = {"points": (0.0, 0.0), "targets": (inflation, inflation)}
        if self.dim == 3:
            sides["edges"] = (0.0, inflation)
        boxes = {name: FixedBoxes(*_swept_boxes(X0, X1, self._still_vertices[name], *sides[name])) for name in sides}
        if still:
            if len(self._fixed_boxes) >= 4:                     # a few inflations at most (d_hat, and 0 for steps)
                self._fixed_boxes.pop(next(iter(self._fixed_boxes)))
            self._fixed_boxes[inflation] = (F0.copy(), boxes)
        return boxes

    def _pair_count(self):
        return len(self.points) * len(self._targets) + (len(self.edges) ** 2 // 2 if self.dim == 3 else 0)

    def _every_pair(self):
        """A small scene's every candidate pair whatever the positions: point_target (k, 2), edge_edge (l, 2)."""
        p, t = (a.reshape(-1) for a in np.meshgrid(np.arange(len(self.points)), np.arange(len(self._targets)),
                                                   indexing="ij"))
        moving_p = np.zeros(len(self.points), dtype=bool)
        moving_p[self._moving["points"]] = True
        moving_t = np.zeros(len(self._targets), dtype=bool)
        moving_t[self._moving["targets"]] = True
        keep = moving_p[p] | moving_t[t]
        point_target = self._filter_point_target(p[keep], t[keep])
        a, b = np.triu_indices(len(self.edges), 1) if self.dim == 3 else (np.zeros(0, np.int64),) * 2
        moving_e = np.zeros(len(self.edges), dtype=bool)
        moving_e[self._moving["edges"]] = True
        keep = moving_e[a] | moving_e[b]
        edge_edge = self._filter_edge_edge(np.column_stack([a[keep], b[keep]]).astype(np.int64))
        return point_target, edge_edge

    def _small_pairs(self, X0, X1, inflation):
        """``_pairs`` of a small scene: its every pair's boxes tested at once."""
        return self._overlapping_pairs(X0, X1, inflation, *self._every)

    def _overlapping_pairs(self, X0, X1, inflation, point_target, edge_edge):
        """The pairs of point_target (k, 2) and edge_edge (l, 2) whose boxes over the step X0 -> X1 come within
        `inflation` (the boxes of ``_pairs``), in their order."""
        p_lo, p_hi = _corner_boxes(X0, X1, [self.points])
        t_lo, t_hi = _corner_boxes(X0, X1, self._columns["targets"])
        t_lo, t_hi = t_lo - inflation, t_hi + inflation
        point_target = point_target[_overlap(p_lo, p_hi, t_lo, t_hi, self._point_index[point_target[:, 0]],
                                             point_target[:, 1])]
        if self.dim == 2:
            return point_target, edge_edge
        e_lo, e_hi = _corner_boxes(X0, X1, self._columns["edges"])
        e_hi = e_hi + inflation
        return point_target, edge_edge[_overlap(e_lo, e_hi, e_lo, e_hi, edge_edge[:, 0], edge_edge[:, 1])]

    def _pairs(self, X0, X1, inflation):
        """Every candidate pair whose boxes over the step X0 -> X1 come within `inflation`, sorted (``candidates``)."""
        if self._every is not None:
            return self._small_pairs(X0, X1, inflation)
        fixed = self._fixed(X0, X1, inflation)
        p_lo, p_hi = self._boxes(X0, X1, "points", 0.0, 0.0)
        t_lo, t_hi = self._boxes(X0, X1, "targets", inflation, inflation)
        point_target = _sorted(self._filter_point_target(*self._cross("points", p_lo, p_hi, "targets", t_lo, t_hi,
                                                                      fixed)), len(self._targets))
        if self.dim == 2:
            return point_target, np.zeros((0, 2), dtype=np.int64)
        e_lo, e_hi = self._boxes(X0, X1, "edges", 0.0, inflation)
        edge_edge = self._filter_edge_edge(np.column_stack(self._self("edges", e_lo, e_hi, fixed)))
        return point_target, _sorted(edge_edge, len(self.edges))

    def _filter_point_target(self, p, t):
        """(vertex id, target id) of point-target pairs (p indexes ``points``), without adjacent or same-body pairs."""
        v = self.points[p]
        T = self._targets
        keep = np.ones(len(v), dtype=bool)
        for c in range(T.shape[1]):
            keep &= np.ascontiguousarray(T[:, c])[t] != v
        if self.bodies is not None:
            keep &= self.bodies[v] != self.bodies[np.ascontiguousarray(T[:, 0])[t]]
        return np.column_stack([v[keep], t[keep]])

    def _filter_edge_edge(self, pairs):
        a, b = pairs[:, 0], pairs[:, 1]
        E0, E1 = np.ascontiguousarray(self.edges[:, 0]), np.ascontiguousarray(self.edges[:, 1])
        a0, a1, b0, b1 = E0[a], E1[a], E0[b], E1[b]
        keep = (a0 != b0) & (a0 != b1) & (a1 != b0) & (a1 != b1)
        if self.bodies is not None:
            keep &= self.bodies[a0] != self.bodies[b0]
        return pairs[keep]


def _sorted(pairs, m):
    """Index pairs (k, 2), distinct, second index below m, sorted by the first, then the second: the order of the
    small scenes' pairs, whatever order the broad phase found them in (sums over them round alike)."""
    key = np.sort(pairs[:, 0] * m + pairs[:, 1])
    return np.column_stack([key // m, key % m])


def _inside(X0, X1, lo, hi):
    """Whether every coordinate of X0 and X1 (n, dim) lies in [lo, hi]."""
    return bool((X0 >= lo).all() and (X0 <= hi).all() and (X1 is X0 or ((X1 >= lo).all() and (X1 <= hi).all())))


def _overlap(lo_a, hi_a, lo_b, hi_b, i, j):
    """(k,) bool: whether box i[k] of (lo_a, hi_a) and box j[k] of (lo_b, hi_b) overlap (touching counts)."""
    keep = np.ones(len(i), dtype=bool)
    for k in range(lo_a.shape[1]):
        la, ha = np.ascontiguousarray(lo_a[:, k]), np.ascontiguousarray(hi_a[:, k])
        lb, hb = np.ascontiguousarray(lo_b[:, k]), np.ascontiguousarray(hi_b[:, k])
        keep &= (la[i] <= hb[j]) & (lb[j] <= ha[i])
    return keep


def _swept_boxes(X0, X1, V, below, above):
    """Boxes (lo, hi) (k, dim) of the primitives with vertices V ((k,) points or (k, q)) over the step X0 -> X1,
    lo lowered by `below` and hi raised by `above`."""
    lo, hi = _corner_boxes(X0, X1, [V] if V.ndim == 1 else [np.ascontiguousarray(c) for c in V.T])
    return (lo - below if below else lo), (hi + above if above else hi)


def _corner_boxes(X0, X1, columns):
    """Boxes (lo, hi) (k, dim) of primitives whose c-th vertices are columns[c] ((k,) int arrays), at X0 and X1
    (one state when X1 is X0): element-wise minima and maxima, several times faster than reducing a (k, q, dim)
    gather along its short axis."""
    lo = hi = None
    for X in ((X0,) if X1 is X0 else (X0, X1)):
        for c in columns:
            P = X[c]
            lo, hi = (P, P) if lo is None else (np.minimum(lo, P), np.maximum(hi, P))
    return lo, hi
