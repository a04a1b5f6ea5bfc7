r"""The line-search filter of a mesh: the largest fraction of a step that no pair of primitives crosses.

For positions X and a step dX, every vertex moves on ``X + t dX``, t in [0, 1]. The broad phase
of the swept primitives (``CollisionMesh.swept_candidates``) lists the point-triangle and
edge-edge pairs (point-segment pairs in 2D) whose boxes over the step overlap; continuous
collision detection (``point_triangle_ccd``, ``edge_edge_ccd``, ``point_edge_ccd``) gives each a
time of impact that is never later than its first contact; and the filter is

    alpha = min(1, safety * min_k t_k)

(Li et al. 2020's filtered line search), so every iterate of a Newton solve stays free of
contact and interpenetration. Two primitives that touch at X, or are too close for the CCD to
tell them apart from touching in floating point (within about 1e-13 of the coordinates' size),
have time 0: no step is safe, and ``collision_free_step`` raises ``ValueError`` naming them
rather than return a step that may cross.

Only the minimum matters, so not every pair goes through the CCD. A pair's distance d0 at t = 0
can shrink at most at the rate ``l = max |dx_i - dx_j|`` over a point i of one primitive and a
point j of the other (the CCD's own Lipschitz bound), so it cannot touch before ``d0 / l`` (d0
less ``DISTANCE_ROUNDOFF`` of the coordinates' size: Ericson's distance of two edges at a small
angle is off by up to a few 1e-12 of their length). Pairs
go through the CCD in increasing order of that bound, in batches, and the search stops once the
next bound is no earlier than the smallest time found: the result is a lower bound on the first
contact of every pair, as tight as running the CCD on all of them. A pair that cannot touch
before the end of the step (``d0 / l >= 1``) never reaches the CCD. On a sheet passing through
another, about a tenth of the broad phase's pairs reach the CCD.
"""
import numpy as np

from ._additive_ccd import lipschitz_bound
from ._segment_distance import segment_distance2
from .edge_edge_ccd import _edge_edge_ccd
from .edge_edge_distance import _edge_edge
from .point_edge_ccd import _point_edge_ccd
from .point_edge_distance import _point_edge
from .point_triangle_ccd import _point_triangle_ccd
from .point_triangle_distance import _point_triangle

FIRST_BATCH = 1024      # pairs with the earliest bounds that go through the CCD first
DISTANCE_ROUNDOFF = 1e-10   # a bound on the distances' round-off, relative to the coordinates' size
WHAT = {3: ("vertex and triangle (p, a, b, c)", "edges (a0, a1, b0, b1)"), 2: ("vertex and segment (p, a, b)",)}


def _edge_edge_lower_distance(X, nodes):
    """A lower bound (k,) on the distances of edge pairs nodes (k, 4) at X: 0 where nearly parallel."""
    d2, parallel = segment_distance2(X, nodes)
    return np.where(parallel, 0.0, np.sqrt(d2))


def collision_free_step(mesh, X, dX, safety, keep=None):
    r"""Largest fraction of the step dX from X that keeps every candidate pair of `mesh` apart, times safety.

    :math:`\alpha = \min(1, s \min_k t^*_k)` over the pairs whose swept boxes overlap

    Parameters
    ----------
    mesh : CollisionMesh
    X, dX : (n, dim) float arrays
        Positions (free of contact) and the step (unchecked: the contact term validates them).
    safety : float
        Fraction s in (0, 1).
    keep : float, optional
        The activation distance: the mesh keeps the step's pairs within it, so that the distance
        queries of a line search along the step need no broad phase of their own
        (``CollisionMesh.swept_candidates``).

    Returns
    -------
    alpha : float
        In (0, 1].

    Raises
    ------
    ValueError
        Two primitives touch at X (distance 0, or within round-off of it): the message names them.
    """
    X1 = X + dX
    return min(1.0, safety * earliest_contact(mesh, X, X1, *mesh.swept_candidates(X, X1, keep)))


def earliest_contact(mesh, X, X1, point_target, edge_edge):
    """A lower bound on the first contact time in [0, 1] of the candidate pairs (``inf`` if none).

    ``point_target`` and ``edge_edge`` as ``CollisionMesh.swept_candidates`` returns them; the
    pairs go through the CCD in order of their earliest possible contact (module docstring).
    """
    dX = X1 - X
    if mesh.dim == 3:
        families = [(np.column_stack([point_target[:, 0], mesh.faces[point_target[:, 1]]]), _point_triangle_ccd,
                     lambda X, nodes: _point_triangle(X[nodes], 0).distance, [0], [1, 2, 3]),
                    (np.column_stack([mesh.edges[edge_edge[:, 0]], mesh.edges[edge_edge[:, 1]]]), _edge_edge_ccd,
                     _edge_edge_lower_distance, [0, 1], [2, 3])]
    else:
        families = [(np.column_stack([point_target[:, 0], mesh.edges[point_target[:, 1]]]), _point_edge_ccd,
                     lambda X, nodes: _point_edge(X[nodes], 0).distance, [0], [1, 2])]
    # every pair's earliest possible contact, d0 / l, and which family it belongs to; the distances
    # are trusted to DISTANCE_ROUNDOFF of the positions' size (Ericson's near-parallel edges included)
    margin = DISTANCE_ROUNDOFF * (np.abs(X).max(initial=0.0) + np.abs(dX).max(initial=0.0))
    bounds, family, row = [], [], []
    for f, (nodes, _, distance, side_a, side_b) in enumerate(families):
        if len(nodes):
            speed = lipschitz_bound(dX[nodes], side_a, side_b)
            with np.errstate(divide="ignore", invalid="ignore"):
                bounds.append(np.where(speed > 0, np.maximum(distance(X, nodes) - margin, 0.0) / speed, np.inf))
            family.append(np.full(len(nodes), f))
            row.append(np.arange(len(nodes)))
    if not bounds:
        return np.inf
    bounds, family, row = np.concatenate(bounds), np.concatenate(family), np.concatenate(row)
    order = np.argsort(bounds, kind="stable")
    earliest, start, batch = np.inf, 0, FIRST_BATCH
    # only contacts before the step's end and before the earliest one found matter
    while start < order.size and bounds[order[start]] < min(1.0, earliest):
        chosen = order[start:start + batch]
        chosen = chosen[bounds[chosen] < min(1.0, earliest)]
        for f, (nodes, ccd, _, _, _) in enumerate(families):
            stencils = nodes[row[chosen[family[chosen] == f]]]
            if len(stencils):
                # search [0, min(1, earliest)], the smallest time only
                t = ccd(X[stencils], X1[stencils], t_max=min(1.0, earliest), minimum=True)
                if not t > 0:                 # 0 only where two primitives touch at the start, to round-off
                    _name_touching(mesh, f, stencils, X, X1, ccd)
                earliest = min(earliest, t)
        start += batch
        batch *= 4
    return earliest


def _name_touching(mesh, family, stencils, X, X1, ccd):
    """Raise ValueError naming the stencils of `family` that touch at X, to round-off (their CCD time is 0)."""
    bad = stencils[ccd(X[stencils], X1[stencils]) == 0][:3]
    distance = (_point_triangle if mesh.dim == 3 and family == 0 else _edge_edge if mesh.dim == 3 else _point_edge)
    d = distance(X[bad], 0).distance
    raise ValueError(f"x: {WHAT[mesh.dim][family]} {', '.join(str(tuple(int(v) for v in b)) for b in bad)} touch "
                     f"at the start of the step (distance {', '.join(f'{v:.3g}' for v in d)}: zero, or too small for "
                     "the CCD to separate from contact in floating point); barrier contact needs positions free of "
                     "contact")
