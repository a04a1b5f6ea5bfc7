r"""The contact topology of a mesh, checked once: its points, edges and faces, and which pairs may touch.

A ``CollisionMesh`` is what the contact term keeps between calls. From it, each Newton iterate
asks for the candidate pairs near positions X (``candidates``) or swept by a step
(``swept_candidates``): in 3D point-face pairs (a vertex and a triangle) and edge-edge pairs, in
2D point-edge pairs (a vertex and a boundary segment). A pair is never a candidate when

- its primitives share a vertex (adjacent: their distance is 0 by construction);
- ``bodies`` is given and both primitives belong to the same body (no self-contact there);
- every vertex of both primitives is ``fixed`` (two parts of a static obstacle: they never
  move, so their distance never changes; the broad phase does not even look at such pairs).

The broad phase is ``box_pairs`` over axis-aligned boxes: for the distance query, each face or
edge box inflated by the activation distance and each point as a degenerate box; for a step,
the boxes of each primitive at the start and end of the step together (linear motion stays in
them).
"""
import numpy as np

from .. import _validate
from .broad_phase import box_pairs

# A rest triangle whose |(b - a) x (c - a)|^2 is at most this times |b - a|^2 |c - a|^2 has zero area.
ZERO_AREA = 1e-28


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
        self.bodies = None if bodies is None else _labels(bodies, self.n)
        if self.bodies is not None:
            for name, T in (("edges", self.edges), ("faces", self.faces)):
                mixed = (self.bodies[T] != self.bodies[T[:, :1]]).any(axis=1)
                if mixed.any():
                    raise ValueError(f"bodies: {name[:-1]} {int(np.argmax(mixed))} joins vertices of different bodies "
                                     f"{sorted(set(self.bodies[T[np.argmax(mixed)]].tolist()))}")
        self._point_moving = ~self.fixed[self.points]
        self._edge_moving = ~self.fixed[self.edges].all(axis=1)
        self._face_moving = ~self.fixed[self.faces].all(axis=1)
        # the primitives each candidate is tested against: faces in 3D, segments in 2D
        self._targets = self.faces if self.dim == 3 else self.edges
        self._target_moving = self._face_moving if self.dim == 3 else self._edge_moving

    def __repr__(self):
        return (f"CollisionMesh({self.n} vertices in {self.dim}D, {len(self.points)} points, {len(self.edges)} edges, "
                f"{len(self.faces)} faces, {int(self.fixed.sum())} fixed)")

    def candidates(self, X, inflation):
        """Candidate pairs near positions X (n, dim): primitives whose boxes come within `inflation`.

        Returns
        -------
        point_target : (k, 2) int array
            (vertex index, face index) in 3D, (vertex index, edge index) in 2D.
        edge_edge : (l, 2) int array
            (edge index, edge index), first < second; empty in 2D.
        """
        P = X[self.points]
        T = X[self._targets]
        return self._pairs(P, P, T.min(axis=1) - inflation, T.max(axis=1) + inflation,
                           X[self.edges], inflation)

    def swept_candidates(self, X0, X1):
        """Candidate pairs of a linear step from X0 to X1 (n, dim): primitives whose swept boxes overlap.

        Returns
        -------
        point_target, edge_edge : as ``candidates``.
        """
        P0, P1 = X0[self.points], X1[self.points]
        T = np.concatenate([X0[self._targets], X1[self._targets]], axis=1)
        E = np.concatenate([X0[self.edges], X1[self.edges]], axis=1)
        return self._pairs(np.minimum(P0, P1), np.maximum(P0, P1), T.min(axis=1), T.max(axis=1), E, 0.0)

    def _pairs(self, p_lo, p_hi, t_lo, t_hi, E, inflation):
        point_target = self._filter_point_target(self._split_query(p_lo, p_hi, self._point_moving,
                                                                   t_lo, t_hi, self._target_moving))
        if self.dim == 2:
            return point_target, np.zeros((0, 2), dtype=np.int64)
        e_lo, e_hi = E.min(axis=1), E.max(axis=1) + inflation
        return point_target, self._filter_edge_edge(self._split_self_query(e_lo, e_hi, self._edge_moving))

    @staticmethod
    def _split_query(a_lo, a_hi, a_moving, b_lo, b_hi, b_moving):
        """Pairs (i, j) of overlapping boxes of set a and set b, skipping static-static pairs."""
        ia, ib = np.flatnonzero(a_moving), np.flatnonzero(~a_moving)
        found = [_reindex(box_pairs(a_lo[ia], a_hi[ia], b_lo, b_hi), ia, None)]
        jb = np.flatnonzero(b_moving)
        if ib.size and jb.size:
            found.append(_reindex(box_pairs(a_lo[ib], a_hi[ib], b_lo[jb], b_hi[jb]), ib, jb))
        return np.concatenate(found)

    @staticmethod
    def _split_self_query(lo, hi, moving):
        """Pairs (i, j), i < j, of overlapping boxes of one set, skipping static-static pairs."""
        im, ist = np.flatnonzero(moving), np.flatnonzero(~moving)
        found = [_reindex(box_pairs(lo[im], hi[im]), im, im)]
        if im.size and ist.size:
            found.append(_reindex(box_pairs(lo[im], hi[im], lo[ist], hi[ist]), im, ist))
        pairs = np.concatenate(found)
        return np.column_stack([pairs.min(axis=1), pairs.max(axis=1)]) if len(found) > 1 else pairs

    def _filter_point_target(self, pairs):
        """Vertex ids and target ids of point-target pairs, without adjacent or same-body pairs."""
        v, t = self.points[pairs[:, 0]], pairs[:, 1]
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


def _reindex(pairs, ia, ib):
    """Map local pair indices back through index arrays ia (first column) and ib (second; None: as is)."""
    out = np.empty_like(pairs)
    out[:, 0] = ia[pairs[:, 0]]
    out[:, 1] = pairs[:, 1] if ib is None else ib[pairs[:, 1]]
    return out
