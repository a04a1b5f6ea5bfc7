r"""The collision set of one iterate: every pair of primitives closer than d_hat, in the fewest stencils.

The original IPC energy (Li et al. 2020) sums a barrier over every point-triangle and every
edge-edge pair of a 3D mesh (every point-segment pair in 2D) closer than ``d_hat``::

    E = kappa ( sum_(p, t) w_p b(d_pt) + sum_(e, e') w_ee' m_ee' b(d_ee') + sum_(p, e) w_p b(d_pe) )

The last sum is for rods, the free edges (on no face): each end point p of a free edge a against
every free edge e that shares no vertex with a. The mollifier m fades an edge pair out as the edges turn
parallel; on a surface the point-triangle pairs hold the contact there, but two parallel rods
have no faces, and their end points' point-edge pairs are what keeps them apart.

Many of those pairs measure the same distance: a point whose closest point on a triangle is
the triangle's vertex v measures ``|p - v|``, exactly like every other triangle around v and
every edge pair whose closest points are p and v. So, as the IPC Toolkit does, each active
pair is reduced to the stencil of its closest-point region (``simkit.contact``'s distance
kinds) and equal stencils are merged, their weights summed:

=====================  ======  =====================================================
group                  nodes   from
=====================  ======  =====================================================
point-point            2       vertex regions of point-triangle / point-segment pairs;
                               end point pairs of edge-edge pairs
point-edge             3       edge regions of point-triangle pairs; an end point against
                               the other edge's interior (edge-edge); a rod's end point over
                               another rod's interior; 2D interiors
point-triangle         4       face regions
edge-edge              4       both interiors
edge-edge (mollified)  4       edge pairs closer to parallel than the mollifier's threshold,
                               whatever their region (their energy is m b(d): not merged)
=====================  ======  =====================================================

The energy, its derivatives and the friction frame are unchanged by the reduction (the
distance of a region does not depend on the stencil's other vertices), and a point-point
stencil's 6x6 block replaces up to dozens of 12x12 ones.

Weights: a point-triangle (point-segment, rod point-edge) pair weighs ``w_p``, its point's weight; an edge-edge
pair the mean of its four end points' weights, ``w_ee' = (w_a0 + w_a1 + w_b0 + w_b1) / 4``.
Mollifier: ``m = edge_edge_mollifier(a0, a1, b0, b1, eps_x)`` with
``eps_x = 1e-3 |a1 - a0|^2 |b1 - b0|^2`` of the rest edges; a pair is mollified when
``|(a1 - a0) x (b1 - b0)|^2 < eps_x``.
"""
import numpy as np

from ._segment_distance import segment_distance2
from .edge_edge_distance import _edge_edge
from .edge_edge_mollifier import THRESHOLD, _edge_edge_mollifier
from .point_edge_distance import _point_edge
from .point_point_distance import _point_point
from .point_triangle_distance import _point_triangle

CULL_SLACK = 1.0 + 1e-6     # the cull keeps pairs up to d_hat^2 times this (round-off of the two methods)

# point-triangle kinds 0-2 (vertex a, b, c) and 3-5 (edge ab, bc, ca): the triangle's local nodes
_PT_VERTEX = np.array([1, 2, 3])
_PT_EDGE = np.array([[1, 2], [2, 3], [3, 1]])
# edge-edge kinds 0-3 (end point pairs) and 4-7 (an end point against the other edge): local nodes
_EE_VERTEX = np.array([[0, 2], [0, 3], [1, 2], [1, 3]])
_EE_EDGE = np.array([[2, 0, 1], [3, 0, 1], [0, 2, 3], [1, 2, 3]])


class CollisionGroup:
    """Collisions of one stencil shape, each at its closest points.

    Attributes
    ----------
    name : str
        ``"point-point"``, ``"point-edge"``, ``"point-triangle"``, ``"edge-edge"`` or
        ``"edge-edge (mollified)"``.
    nodes : (k, q) int array
        Vertex indices of each stencil: (p, q), (p, a, b), (p, a, b, c) or (a0, a1, b0, b1).
    coefficients : (k, q) float array
        Closest-point weights: the shortest vector is ``r = sum_a coefficients[:, a] x[nodes[:, a]]``.
    distance : (k,) float array
        ``|r|``.
    normal : (k, dim) float array
        ``r / |r|`` (NaN where the distance is 0).
    weight : (k,) float array
        Contact weight, summed over the merged pairs.
    eps_x : (k,) float array or None
        The mollifier's threshold (mollified edge-edge pairs only).
    """

    def __init__(self, name, nodes, coefficients, distance, normal, weight, eps_x=None):
        self.name, self.nodes, self.coefficients = name, nodes, coefficients
        self.distance, self.normal, self.weight, self.eps_x = distance, normal, weight, eps_x

    def __len__(self):
        return len(self.distance)

    def __repr__(self):
        return f"CollisionGroup({self.name!r}, {len(self)} collisions)"


class Collisions:
    """The active collision set of positions X: its groups, and the positions they were built at.

    Attributes
    ----------
    groups : tuple of CollisionGroup
        Only the non-empty groups (``None`` entries of the argument, empty groups not built, are dropped).
    X : (n, dim) float array
        The positions (a private copy).
    touching : str or None
        When two primitives touch (distance 0): which, and the set holds no group. The energy
        is then ``+inf`` and its derivatives undefined (``require_free`` raises).
    """

    def __init__(self, groups, X, touching=None):
        self.groups = tuple(g for g in groups if g is not None and len(g))
        self.X = X
        self.touching = touching

    def require_free(self):
        """Raise ValueError naming the touching primitives, if any."""
        if self.touching is not None:
            raise ValueError(self.touching)

    def __len__(self):
        return sum(len(g) for g in self.groups)

    def __repr__(self):
        return f"Collisions({', '.join(f'{len(g)} {g.name}' for g in self.groups) or 'none'})"

    def group(self, name):
        """The group called `name` (an empty one when there is none)."""
        for g in self.groups:
            if g.name == name:
                return g
        dim = self.X.shape[1]
        q = {"point-point": 2, "point-edge": 3}.get(name, 4)
        return CollisionGroup(name, np.zeros((0, q), dtype=np.int64), np.zeros((0, q)), np.zeros(0),
                              np.zeros((0, dim)), np.zeros(0), np.zeros(0) if "mollified" in name else None)


class _Touching(Exception):
    """Two primitives at distance 0: carries the message that names them."""


def _require_apart(closest, stencils, what):
    """Raise _Touching naming the stencils at distance 0 (the barrier is infinite there)."""
    d = closest.distance
    if d.size and not np.minimum.reduce(d) > 0:
        bad = np.flatnonzero(d <= 0)
        names = [tuple(int(v) for v in stencils[i]) for i in bad[:3]]
        raise _Touching(f"x: {what} {', '.join(map(str, names))}{' and more' if bad.size > 3 else ''} touch "
                        "(distance 0); barrier contact needs positions free of contact and interpenetration")


def _merge(nodes, weight, n):
    """Equal stencils (rows of nodes) merged: unique rows and their summed weights."""
    if not len(nodes):
        return nodes, weight
    q = nodes.shape[1]
    if float(n) ** q < 2.0 ** 62:
        key = nodes[:, 0].copy()
        for c in range(1, q):
            key = key * n + nodes[:, c]
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        merged = nodes[first]
    else:
        merged, inverse = np.unique(nodes, axis=0, return_inverse=True)
    return merged, np.bincount(inverse.reshape(-1), weights=weight, minlength=len(merged))


def _group(name, X, nodes, coefficients, distance, weight, eps_x=None):
    """A CollisionGroup, its normals r / |r| from the closest-point coefficients (None when empty)."""
    if not len(nodes):
        return None
    r = np.einsum("km,kmd->kd", coefficients, X[nodes])
    return CollisionGroup(name, nodes, coefficients, distance, r / distance[:, None], weight, eps_x)


def _point_point_group(X, nodes, weight):
    if not len(nodes):
        return None
    nodes, weight = _merge(np.sort(nodes, axis=1), weight, len(X))
    closest = _point_point(X[nodes], 0)
    return _group("point-point", X, nodes, closest.weights, closest.distance, weight)


def _point_edge_group(X, nodes, weight):
    if not len(nodes):
        return None
    nodes, weight = _merge(np.column_stack([nodes[:, 0], np.sort(nodes[:, 1:], axis=1)]), weight, len(X))
    closest = _point_edge(X[nodes], 0)
    return _group("point-edge", X, nodes, closest.weights, closest.distance, weight)


def _rod_point_edge(mesh, edge_edge):
    """Stencils (k, 3) (p, a, b), each once: every end point p of a free edge in a candidate pair (edge_edge (l, 2))
    against the pair's other edge (a, b), when both edges are free, p is one of the mesh's points and not every
    vertex is fixed.

    A point's distance to an edge is at least its edge's, so every pair of a rod's end point and another rod's
    edge closer than d_hat comes from an edge pair closer than d_hat (but for edges that share a vertex, which
    form no pair).
    """
    free = mesh.free_edges
    pairs = edge_edge[free[edge_edge[:, 0]] & free[edge_edge[:, 1]]]
    E = mesh.edges
    A, B = E[pairs[:, 0]], E[pairs[:, 1]]
    p = np.concatenate([A[:, 0], A[:, 1], B[:, 0], B[:, 1]])
    target = np.concatenate([pairs[:, 1], pairs[:, 1], pairs[:, 0], pairs[:, 0]])
    keep = mesh.is_point[p] & ~(mesh.fixed[p] & mesh.fixed[E[target]].all(axis=1))
    m = max(len(E), 1)
    key = np.unique(p[keep] * m + target[keep])
    return np.column_stack([key // m, E[key % m]])


def build_collisions(mesh, X, d_hat, weight):
    r"""The collision set of positions X: every candidate pair of `mesh` closer than d_hat, reduced and merged.

    :math:`\{(p, t) : d(p, t) < \hat d\} \cup \{(e, e') : d(e, e') < \hat d\}` (3D), :math:`\{(p, s) : d(p, s) < \hat d\}` (2D), grouped by closest-point region

    Parameters
    ----------
    mesh : CollisionMesh
        The primitives and the pairs that may touch.
    X : (n, dim) float array
        Positions (unchecked: the contact term validates them).
    d_hat : float
        Activation distance, > 0.
    weight : (n,) float array
        Per-vertex contact weight (module docstring).

    Returns
    -------
    collisions : Collisions
        Where two primitives touch (distance 0) its ``touching`` names them and it holds no group.
    """
    point_target, edge_edge = mesh.candidates(X, d_hat)
    try:
        if mesh.dim == 2:
            return _build_2d(mesh, X, d_hat, weight, point_target)
        return _build_3d(mesh, X, d_hat, weight, point_target, edge_edge)
    except _Touching as touching:
        return Collisions([], X.copy(), str(touching))


def _build_2d(mesh, X, d_hat, weight, point_edge):
    if not len(point_edge):
        return Collisions([], X.copy())
    nodes = np.column_stack([point_edge[:, 0], mesh.edges[point_edge[:, 1]]])
    closest = _point_edge(X[nodes], 0)
    _require_apart(closest, nodes, "vertex and segment (p, a, b)")
    on = np.flatnonzero(closest.distance < d_hat)
    if not on.size:
        return Collisions([], X.copy())
    nodes, kind = nodes[on], closest.kind[on]
    w = weight[nodes[:, 0]]
    interior = kind == 2
    groups = []
    if not interior.all():
        ends = ~interior
        vertex = np.column_stack([nodes[ends, 0], np.where(kind[ends] == 0, nodes[ends, 1], nodes[ends, 2])])
        groups.append(_point_point_group(X, vertex, w[ends]))
    inside = on[interior]                                # interiors: one pair per stencil, measured already
    groups.append(_group("point-edge", X, nodes[interior], closest.weights[inside], closest.distance[inside],
                         w[interior]))
    return Collisions(groups, X.copy())


def _build_3d(mesh, X, d_hat, weight, point_face, edge_edge):
    pt_nodes = np.column_stack([point_face[:, 0], mesh.faces[point_face[:, 1]]])
    pt = _point_triangle(X[pt_nodes], 0)
    _require_apart(pt, pt_nodes, "vertex and triangle (p, a, b, c)")
    on = pt.distance < d_hat
    pt_nodes, pt_kind, pt_w = pt_nodes[on], pt.kind[on], weight[pt_nodes[on, 0]]
    pt_dist, pt_coef = pt.distance[on], pt.weights[on]

    E = mesh.edges
    ee_nodes = np.column_stack([E[edge_edge[:, 0]], E[edge_edge[:, 1]]])
    d2, parallel = segment_distance2(X, ee_nodes)
    near = (d2 < d_hat * d_hat * CULL_SLACK) | parallel
    edge_edge, ee_nodes = edge_edge[near], ee_nodes[near]

    # rods: the end points of free edges against the free edges they pair with
    rod_nodes = _rod_point_edge(mesh, edge_edge)
    rod = _point_edge(X[rod_nodes], 0)
    _require_apart(rod, rod_nodes, "vertex and rod edge (p, a, b)")
    on = rod.distance < d_hat
    rod_nodes, rod_kind, rod_w = rod_nodes[on], rod.kind[on], weight[rod_nodes[on, 0]]
    ee_X = X[ee_nodes]
    ee = _edge_edge(ee_X, 0)
    _require_apart(ee, ee_nodes, "edges (a0, a1, b0, b1)")
    on = ee.distance < d_hat
    ee_pairs, ee_nodes, ee_kind = edge_edge[on], ee_nodes[on], ee.kind[on]
    ee_dist, ee_coef = ee.distance[on], ee.weights[on]
    ee_w = weight[ee_nodes].mean(axis=1)
    eps_x = THRESHOLD * mesh.rest_length2[ee_pairs[:, 0]] * mesh.rest_length2[ee_pairs[:, 1]]
    mollified = _edge_edge_mollifier(ee_X[on], eps_x, 0)[0] < 1

    # point-triangle pairs by region: a vertex of the face, one of its edges, the face
    vertex, edge, face = pt_kind <= 2, (pt_kind >= 3) & (pt_kind <= 5), pt_kind == 6
    vv = [np.column_stack([pt_nodes[vertex, 0],
                           np.take_along_axis(pt_nodes[vertex], _PT_VERTEX[pt_kind[vertex], None], axis=1)])]
    pe = [np.column_stack([pt_nodes[edge, 0], np.take_along_axis(pt_nodes[edge], _PT_EDGE[pt_kind[edge] - 3], axis=1)])]
    vv_w, pe_w = [pt_w[vertex]], [pt_w[edge]]
    # edge pairs not mollified by region: two end points, an end point and an edge, the interiors
    plain = ~mollified
    vertex, edge, interior = plain & (ee_kind <= 3), plain & (ee_kind >= 4) & (ee_kind <= 7), plain & (ee_kind == 8)
    vv.append(np.take_along_axis(ee_nodes[vertex], _EE_VERTEX[ee_kind[vertex]], axis=1))
    pe.append(np.take_along_axis(ee_nodes[edge], _EE_EDGE[ee_kind[edge] - 4], axis=1))
    vv_w.append(ee_w[vertex])
    pe_w.append(ee_w[edge])
    # rod point-edge pairs by region: an end point of the edge, its interior
    end, inside = rod_kind <= 1, rod_kind == 2
    vv.append(np.column_stack([rod_nodes[end, 0], np.where(rod_kind[end] == 0, rod_nodes[end, 1], rod_nodes[end, 2])]))
    pe.append(rod_nodes[inside])
    vv_w.append(rod_w[end])
    pe_w.append(rod_w[inside])
    return Collisions([
        _point_point_group(X, np.concatenate(vv), np.concatenate(vv_w)),
        _point_edge_group(X, np.concatenate(pe), np.concatenate(pe_w)),
        _group("point-triangle", X, pt_nodes[face], pt_coef[face], pt_dist[face], pt_w[face]),
        _group("edge-edge", X, ee_nodes[interior], ee_coef[interior], ee_dist[interior], ee_w[interior]),
        _group("edge-edge (mollified)", X, ee_nodes[mollified], ee_coef[mollified], ee_dist[mollified],
               ee_w[mollified], eps_x[mollified])], X.copy())
