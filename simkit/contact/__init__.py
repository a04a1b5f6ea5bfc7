"""simkit.contact: the layers of 3D (and 2D) contact, after the IPC Toolkit.

- Distances, batched over k stencils of (k, dim) arrays, with gradients and Hessians (stencil in
  argument order) and a readable element tier: ``point_point_distance``, ``point_edge_distance``
  (2D and 3D), ``point_triangle_distance``, ``edge_edge_distance``.
- The edge-edge mollifier of IPC, ``edge_edge_mollifier`` (and its threshold from the rest
  positions, ``edge_edge_mollifier_threshold``), with gradient, Hessian and element tier.
- Continuous collision detection of linear motions: ``point_triangle_ccd``, ``edge_edge_ccd``
  (3D) and ``point_edge_ccd`` (2D and 3D), each a lower bound on the time of impact in [0, 1]
  (``inf`` if none), tight to about 1% on transversal approaches.
- Exact intersection tests: ``edge_triangle_intersect``, ``triangle_triangle_intersect`` on
  stencils, and for mesh states ``edge_face_intersections``, ``has_intersections`` and, over the
  frames of a run, ``count_intersections``; for 2D bodies bounded by segments, ``intersections_2d``
  (crossing segments, vertices inside another body) and ``count_intersections_2d``.

Each distance module also has a private batched entry (``_point_triangle(X, order)`` and so on)
that takes the stacked stencil ``X = x[stencils]`` (k, m, dim), skips the checks, classifies the
regions once and returns a ``_closest.Closest`` with the region, distance, closest-point weights,
normal, gradient and Hessian (dense and as rank-4 factors) together: the collision set's fast
path. Likewise ``_point_triangle_ccd(X0, X1, t_max=1.0, minimum=False)``, ``_edge_edge_ccd`` and
``_point_edge_ccd`` take the stacked stencils at t = 0 and t = 1 (``minimum=True``: the smallest
time only, for a step filter).
"""
from .edge_edge_ccd import edge_edge_ccd
from .edge_edge_distance import (edge_edge_distance, edge_edge_distance_element, edge_edge_distance_gradient,
                                 edge_edge_distance_hessian)
from .edge_edge_mollifier import (edge_edge_mollifier, edge_edge_mollifier_element, edge_edge_mollifier_gradient,
                                  edge_edge_mollifier_hessian, edge_edge_mollifier_threshold)
from .intersections import (count_intersections, edge_face_intersections, edge_triangle_intersect, has_intersections,
                            triangle_triangle_intersect)
from .intersections_2d import count_intersections_2d, intersections_2d
from .point_edge_ccd import point_edge_ccd
from .point_edge_distance import (point_edge_distance, point_edge_distance_element, point_edge_distance_gradient,
                                  point_edge_distance_hessian)
from .point_point_distance import (point_point_distance, point_point_distance_element,
                                   point_point_distance_gradient, point_point_distance_hessian)
from .point_triangle_ccd import point_triangle_ccd
from .point_triangle_distance import (point_triangle_distance, point_triangle_distance_element,
                                      point_triangle_distance_gradient, point_triangle_distance_hessian)

__all__ = [
    "point_point_distance", "point_point_distance_gradient", "point_point_distance_hessian",
    "point_point_distance_element",
    "point_edge_distance", "point_edge_distance_gradient", "point_edge_distance_hessian",
    "point_edge_distance_element",
    "point_triangle_distance", "point_triangle_distance_gradient", "point_triangle_distance_hessian",
    "point_triangle_distance_element",
    "edge_edge_distance", "edge_edge_distance_gradient", "edge_edge_distance_hessian",
    "edge_edge_distance_element",
    "edge_edge_mollifier", "edge_edge_mollifier_gradient", "edge_edge_mollifier_hessian",
    "edge_edge_mollifier_threshold", "edge_edge_mollifier_element",
    "point_triangle_ccd", "edge_edge_ccd", "point_edge_ccd",
    "edge_triangle_intersect", "triangle_triangle_intersect", "edge_face_intersections", "has_intersections",
    "count_intersections", "intersections_2d", "count_intersections_2d",
]
