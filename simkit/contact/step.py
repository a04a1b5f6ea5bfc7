r"""The line-search filter of a mesh: the largest fraction of a step that no pair of primitives crosses.

For positions X and a step dX, every vertex moves on ``X + t dX``, t in [0, 1]. The broad phase
of the swept primitives (``CollisionMesh.swept_candidates``) lists the point-triangle and
edge-edge pairs (point-segment pairs in 2D) whose boxes over the step overlap; continuous
collision detection (``point_triangle_ccd``, ``edge_edge_ccd``, ``point_edge_ccd``) gives each a
time of impact that is never later than the first contact; and the filter is

    alpha = min(1, safety * min_k t_k)

(Li et al. 2020's filtered line search), so every iterate of a Newton solve stays free of
contact and interpenetration.
"""
import numpy as np


def collision_free_step(mesh, X, dX, safety):
    r"""Largest fraction of the step dX from X that keeps every candidate pair of `mesh` apart, times safety.

    :math:`\alpha = \min(1, s \min_k t^*_k)` over the pairs whose swept boxes overlap

    Parameters
    ----------
    mesh : CollisionMesh
    X, dX : (n, dim) float arrays
        Positions (free of contact) and the step (unchecked: the contact term validates them).
    safety : float
        Fraction s in (0, 1).

    Returns
    -------
    alpha : float
        In (0, 1].
    """
    from .ccd import edge_edge_ccd, point_edge_ccd, point_triangle_ccd
    X1 = X + dX
    point_target, edge_edge = mesh.swept_candidates(X, X1)
    times = [np.inf]
    if mesh.dim == 3:
        pt = np.column_stack([point_target[:, 0], mesh.faces[point_target[:, 1]]])
        ee = np.column_stack([mesh.edges[edge_edge[:, 0]], mesh.edges[edge_edge[:, 1]]])
        if len(pt):
            times.append(point_triangle_ccd(*(X[pt[:, i]] for i in range(4)), *(X1[pt[:, i]] for i in range(4))).min())
        if len(ee):
            times.append(edge_edge_ccd(*(X[ee[:, i]] for i in range(4)), *(X1[ee[:, i]] for i in range(4))).min())
    elif len(point_target):
        pe = np.column_stack([point_target[:, 0], mesh.edges[point_target[:, 1]]])
        times.append(point_edge_ccd(*(X[pe[:, i]] for i in range(3)), *(X1[pe[:, i]] for i in range(3))).min())
    return min(1.0, safety * float(min(times)))
