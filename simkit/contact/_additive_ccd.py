r"""Additive CCD (Li et al. 2021) with a coplanarity certificate, batched over the stencils.

A stencil of m points moves linearly, :math:`x(t) = x^0 + t\,(x^1 - x^0)` for t in [0, 1]. The time
of impact is the first t at which its two primitives touch. Two facts give safe lower bounds:

- **Distance (additive CCD).** The shortest vector between the primitives moves, at any fixed
  closest-point parameters, with a velocity that is an affine combination of the points'
  relative displacements, so its length changes at most at the rate
  :math:`l = \max_{i \in A,\ j \in B} |\Delta x_i - \Delta x_j|` (A, B the two primitives'
  points): from a state at distance d no contact happens within :math:`d / l`. The step taken is
  :math:`\tau = s\, d / l` with :math:`s = 0.9`.
- **A separating axis (first certificate).** With u the unit vector between the closest points
  at time t, the gap of the projections on u,
  :math:`g(t') = \min_{i \in A} u \cdot x_i(t') - \max_{j \in B} u \cdot x_j(t')`, is a lower bound on the
  distance, equal to it at t, and concave in t' (a minimum of linear functions minus a maximum
  of linear functions). So :math:`g > 0` at both ends of a window :math:`[t, t_1]` proves the
  window free of contact: a point sliding above a face, parallel edges sliding along each other.
- **Coplanarity (second certificate).** A point and a triangle, or two edges, can only touch when
  their four points are coplanar, i.e. when the cubic :math:`V(t) = \det[x_1 - x_0, x_2 - x_0, x_3 - x_0]`
  vanishes (in 2D, a point on an edge needs the quadratic :math:`\det[a - p, b - p] = 0`). On a
  window the Bernstein coefficients of V are sums of determinants of the edge vectors at the
  window's ends (V is multilinear in them); when all have one sign, beyond a bound on their
  round-off, V has no root there and the window is free of contact: a triangle tumbling past a
  point.

Each iteration, for every stencil still searching, evaluates the distance at the certified time
t, stops if it has fallen below ``GAP`` times the starting distance (returning t: tight, since t is
then within about ``GAP`` of the impact on a transversal approach), and otherwise advances t by
the larger of the additive step :math:`\tau` and a certified window, whose width doubles after a
success and halves after a failure (a bisection towards the contact). A stencil whose t passes
1 has no impact on [0, 1] (``inf``). A motion that defeats both certificates and the additive
step (one primitive sliding along the other at a tiny distance while turning) stops after
``MAX_ITERATIONS`` at its current t, still a lower bound. Where the primitives touch at t = 0 the
time is 0.

Everything is exact up to round-off in the positions (the certificates allow 1e-13 of their
operands, far above it).
"""
import numpy as np

from ._closest import cross, dot

SCALE = 0.9            # fraction of the certified additive step d / l taken
GAP = 0.01             # stop once the distance falls below GAP times the starting distance
MAX_ITERATIONS = 200   # then the current (certified) time is returned
CERTIFICATE_SLACK = 1e-13


def _det3(a, b, c):
    return dot(a, cross(b, c))


def _det2(a, b):
    return a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]


def _root_free(E, R, t0, t1):
    """True where V(t) has no root on [t0, t1]: stencils' edge vectors E (k, q, dim) at t = 0, moving by R.

    q = dim: ``V = det(E(t))``, multilinear in its q rows, each linear in t.
    """
    E0 = E + t0[:, None, None] * R
    E1 = E + t1[:, None, None] * R
    # each determinant's operands are at most |E_i| + |R_i| (t <= 1) long
    scale = np.prod(np.sqrt(np.einsum("kqd,kqd->kq", E, E)) + np.sqrt(np.einsum("kqd,kqd->kq", R, R)), axis=1)
    if E.shape[1] == 3:
        e = ((E0[:, 0], E1[:, 0]), (E0[:, 1], E1[:, 1]), (E0[:, 2], E1[:, 2]))
        D = {(i, j, l): _det3(e[0][i], e[1][j], e[2][l]) for i in (0, 1) for j in (0, 1) for l in (0, 1)}
        b = np.stack([D[0, 0, 0], (D[1, 0, 0] + D[0, 1, 0] + D[0, 0, 1]) / 3.0,
                      (D[0, 1, 1] + D[1, 0, 1] + D[1, 1, 0]) / 3.0, D[1, 1, 1]], axis=1)
    else:
        b = np.stack([_det2(E0[:, 0], E0[:, 1]), (_det2(E1[:, 0], E0[:, 1]) + _det2(E0[:, 0], E1[:, 1])) / 2.0,
                      _det2(E1[:, 0], E1[:, 1])], axis=1)
    slack = CERTIFICATE_SLACK * scale[:, None]
    return (b > slack).all(axis=1) | (b < -slack).all(axis=1)


def _never(E, R, t0, t1):
    return np.zeros(t0.shape, dtype=bool)


def _separated(X, u, side_a, side_b):
    """True where the points X (k, m, dim) keep a positive gap along the axes u (k, dim): A above, B below."""
    X = X - X[:, :1]
    h = np.einsum("kmd,kd->km", X, u)
    slack = CERTIFICATE_SLACK * np.sqrt(np.einsum("kmd,kmd->km", X, X)).max(axis=1)
    return h[:, side_a].min(axis=1) - h[:, side_b].max(axis=1) > slack


def lipschitz_bound(D, side_a, side_b):
    """``max_{i in A, j in B} |D_i - D_j|`` (k,) for displacements D (k, m, dim)."""
    diff = D[:, side_a, None, :] - D[:, None, side_b, :]
    return np.sqrt(np.einsum("kijd,kijd->kij", diff, diff)).reshape(D.shape[0], -1).max(axis=1)


def additive_ccd(X0, X1, distance, side_a, side_b, coplanar=True):
    """Times of impact (k,) in [0, 1] (lower bounds; inf where none) of stencils moving from X0 to X1.

    Parameters
    ----------
    X0, X1 : (k, m, dim) float arrays
        The stencils at t = 0 and t = 1.
    distance : callable
        ``distance(X)`` -> the ``Closest`` (order 0) of stencils X (k', m, dim).
    side_a, side_b : lists of int
        The points of each primitive in the stencil.
    coplanar : bool
        Whether contact needs the stencil's m = dim + 1 points on one hyperplane (point-triangle,
        edge-edge, 2D point-edge): then the coplanarity certificate is used.
    """
    k = X0.shape[0]
    D = X1 - X0
    E, R = X0[:, 1:] - X0[:, :1], D[:, 1:] - D[:, :1]
    certify = _root_free if coplanar else _never
    toi = np.full(k, np.inf)
    # most stencils of a step never come near coplanarity: certified at once, without a distance
    idx = np.flatnonzero(~certify(E, R, np.zeros(k), np.ones(k)))
    if not idx.size:
        return toi
    speed = lipschitz_bound(D[idx], side_a, side_b)
    X = X0[idx]
    closest = distance(X)
    d_start = closest.distance
    toi[idx[d_start <= 0]] = 0.0
    moving = (d_start > 0) & (speed > 0)
    idx, speed, d_start, X, d, weights = (idx[moving], speed[moving], d_start[moving], X[moving],
                                           d_start[moving], closest.weights[moving])
    t = np.zeros(idx.size)
    window = np.ones(idx.size)
    for iteration in range(MAX_ITERATIONS):
        if not idx.size:
            return toi
        if iteration:
            X = X0[idx] + t[:, None, None] * D[idx]
            closest = distance(X)
            d, weights = closest.distance, closest.weights
        close = d < GAP * d_start
        toi[idx[close]] = t[close]
        keep = ~close
        idx, t, window, X, d, weights, speed, d_start = (idx[keep], t[keep], window[keep], X[keep], d[keep],
                                                         weights[keep], speed[keep], d_start[keep])
        u = np.einsum("km,kmd->kd", weights, X) / d[:, None]
        step = SCALE * d / speed
        window = np.minimum(window, 1.0 - t)
        end = X + window[:, None, None] * D[idx]
        free = (_separated(X, u, side_a, side_b) & _separated(end, u, side_a, side_b)) \
            | certify(E[idx], R[idx], t, t + window)
        t = t + np.where(free, np.maximum(window, step), step)
        window = np.where(free, 2.0 * window, 0.5 * window)
        done = t >= 1.0
        idx, t, window, speed, d_start = idx[~done], t[~done], window[~done], speed[~done], d_start[~done]
    toi[idx] = t
    return toi


def additive_ccd_element(x0, x1, distance, side_a, side_b, coplanar=True):
    """Element tier: the same search for one stencil x0, x1 (m, dim), written as a plain loop."""
    x0, x1 = np.asarray(x0, dtype=float), np.asarray(x1, dtype=float)
    dx = x1 - x0
    d_start = distance(x0[None]).distance[0]
    if d_start <= 0:
        return 0.0
    speed = max(np.linalg.norm(dx[i] - dx[j]) for i in side_a for j in side_b)
    if speed == 0:
        return np.inf
    E, R = (x0[1:] - x0[:1])[None], (dx[1:] - dx[:1])[None]
    t, window = 0.0, 1.0
    for _ in range(MAX_ITERATIONS):
        x = x0 + t * dx
        closest = distance(x[None])
        d = closest.distance[0]
        if d < GAP * d_start:
            return t                                      # close to the impact: t is certified and tight
        u = closest.weights[0] @ x / d                    # from B's closest point to A's
        step = SCALE * d / speed                          # no contact within d / speed
        window = min(window, 1.0 - t)
        end = x + window * dx
        gap = min(u @ (end[i] - end[0]) for i in side_a) - max(u @ (end[j] - end[0]) for j in side_b)
        free = gap > CERTIFICATE_SLACK * np.linalg.norm(end - end[0], axis=1).max()   # the gap stays > 0
        if coplanar and not free:                         # V(t) keeps its sign on [t, t + window]
            free = _root_free(E, R, np.array([t]), np.array([t + window]))[0]
        if free:
            t, window = t + max(window, step), 2.0 * window
        else:
            t, window = t + step, 0.5 * window
        if t >= 1.0:
            return np.inf
    return t
