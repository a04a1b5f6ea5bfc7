r"""The element tier of the distances: one stencil, the definitions written plainly.

The distance between two simplices (a point, an edge, a triangle) is the smallest
:math:`|\sum_i \alpha_i a_i - \sum_j \beta_j b_j|` over barycentric coordinates
:math:`\alpha, \beta \ge 0` that sum to 1. The closest pair lies in the relative interior of one
face of each simplex (a vertex, an edge or the triangle itself), so enumerating every pair of
faces, minimizing over each pair's affine hulls by least squares and keeping the feasible
minimizers gives it. A pair of faces whose free directions are (nearly) linearly dependent
(parallel edges, a sliver triangle) is skipped: a lower-dimensional face attains the same
distance.

Its derivatives follow from :math:`d(x) = \min_y f(x, y)`, :math:`f = |r(x, y)|`, with the
closest parameters y free: the envelope theorem and the implicit function theorem give

.. math::

    \nabla d = f_x, \qquad \nabla^2 d = f_{xx} - f_{xy} f_{yy}^{-1} f_{yx}.

The batched fast path (``_closest.evaluate``) is this formula simplified by hand and is tested
against it.
"""
import itertools

import numpy as np

from .. import _validate


def _faces(n):
    """Non-empty subsets of range(n): the vertices, edges (and the triangle) of a simplex."""
    return [s for size in range(1, n + 1) for s in itertools.combinations(range(n), size)]


def closest_element(A, B, singular):
    """Closest points of the simplices with vertices A (na, dim) and B (nb, dim).

    Returns ``(w, W)``: weights (na+nb,) with ``r = w @ [A; B]`` the shortest vector from B to A,
    and the free directions W (na+nb, ny) of the faces holding the closest points. A pair of faces
    whose free directions' Gram matrix has ``det <= singular * prod(diag)`` is skipped.
    """
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    na, nb = len(A), len(B)
    X = np.vstack([A, B])
    unit = np.eye(na + nb)
    best = None
    for fa in _faces(na):
        for fb in _faces(nb):
            base = unit[fa[0]] - unit[na + fb[0]]
            directions = [unit[i] - unit[fa[0]] for i in fa[1:]] + [unit[na + fb[0]] - unit[na + j] for j in fb[1:]]
            W = np.array(directions).reshape(-1, na + nb).T
            R = X.T @ W
            gram = R.T @ R
            if W.shape[1] and np.linalg.det(gram) <= singular * np.prod(np.diag(gram)):
                continue
            y = np.linalg.solve(gram, -R.T @ (X.T @ base)) if W.shape[1] else np.zeros(0)
            w = base + W @ y
            if (w[list(fa)] < 0).any() or (w[[na + j for j in fb]] > 0).any():
                continue                                    # the minimizer leaves the faces
            d = np.linalg.norm(X.T @ w)
            if best is None or (d, W.shape[1]) < best[0]:
                best = ((d, W.shape[1]), w, W)
    return best[1], best[2]


def distance_element(X, w, W):
    """Distance, gradient (m*dim,) and Hessian (m*dim, m*dim) of stencil X (m, dim) at closest weights (w, W)."""
    X = np.asarray(X, dtype=float)
    dim = X.shape[1]
    r = X.T @ w
    d = np.linalg.norm(r)
    u = r / d
    P = np.eye(dim) - np.outer(u, u)
    f_x = np.kron(w, u)
    f_xx = np.kron(np.outer(w, w), P) / d
    if not W.shape[1]:
        return d, f_x, f_xx
    R = X.T @ W
    f_xy = np.kron(W, u[:, None]) + np.kron(w[:, None], P @ R) / d
    f_yy = R.T @ P @ R / d
    return d, f_x, f_xx - f_xy @ np.linalg.solve(f_yy, f_xy.T)


def element(named_a, named_b, singular):
    """``(d, gradient, Hessian)`` of the distance between simplices A and B (stencil [A; B]).

    ``named_a``, ``named_b``: {name: (dim,) point}; the points are checked first (finite, one
    dim in (2, 3); the distance positive).
    """
    X = []
    for name, value in {**named_a, **named_b}.items():
        arr = _validate.finite_array(value, name)
        if arr.ndim != 1 or arr.shape[0] not in (2, 3) or (X and arr.shape != X[0].shape):
            raise ValueError(f"{name}: expected one point of shape (dim,) with dim 2 or 3, like the others, "
                             f"got {arr.shape}")
        X.append(arr)
    na = len(named_a)
    w, W = closest_element(X[:na], X[na:], singular)
    if not np.linalg.norm(np.vstack(X).T @ w) > 0:
        raise ValueError(f"{', '.join({**named_a, **named_b})}: the primitives touch (distance 0), where the "
                         "distance has no derivative")
    return distance_element(np.vstack(X), w, W)
