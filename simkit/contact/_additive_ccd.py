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
  :math:`g(t') = \min_{i \in A,\, j \in B} u \cdot (x_i(t') - x_j(t'))`, is a lower bound on the
  distance, equal to it at t, and the minimum of linear functions of t'. So it stays positive
  until the first root of those lines, :math:`t_u = \min_{ij} t + h_{ij} / (-\dot h_{ij})` over the
  pairs whose gap :math:`h_{ij}` shrinks, computed in closed form: :math:`[t, t_u)` is free of
  contact. A point falling onto a face without turning is certified up to the impact itself in
  one step; a point sliding above a face, or parallel edges sliding along each other, up to 1.
- **Coplanarity (second certificate).** A point and a triangle, or two edges, can only touch when
  their four points are coplanar, i.e. when the cubic :math:`V(t) = \det[x_1 - x_0, x_2 - x_0, x_3 - x_0]`
  vanishes (in 2D, a point on an edge needs the quadratic :math:`\det[a - p, b - p] = 0`). On a
  window the Bernstein coefficients of V are sums of determinants of the edge vectors at the
  window's ends (V is multilinear in them); when all have one sign, beyond a bound on their
  round-off, V has no root there and the window is free of contact: a triangle tumbling past a
  point.

Each iteration, for every stencil still searching, evaluates the distance at the certified time
t and advances t by the largest of the additive step :math:`\tau`, ``AXIS_SCALE`` of the axis'
free time :math:`t_u - t`, and a window certified by coplanarity, whose width doubles after a
success and halves after a failure (a bisection towards the root of V). A stencil whose t passes
1 has no impact on [0, 1] (``inf``). A stencil whose advance falls below ``STOP`` times t returns
its new t: near an impact the advances shrink geometrically (a point falling onto a face gets 0.99
of the remaining time per iteration from the axis), so that t is within about 1% of the impact;
a motion that defeats both certificates and keeps the additive steps tiny (one primitive sliding
along the other at a tiny distance while turning) stops there too, after about 1 / ``STOP``
iterations, with a lower bound that is not tight. ``MAX_ITERATIONS`` caps the rest. Where the
primitives touch at t = 0 the time is 0.

Everything is exact up to round-off in the positions (the certificates allow 1e-13 of their
operands, far above it).
"""
import numpy as np

from ._closest import cross, dot

SCALE = 0.9            # fraction of the certified additive step d / l taken
AXIS_SCALE = 0.99      # fraction of the separating axis' free time taken
STOP = 0.01            # stop once an iteration advances t by less than STOP * t
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


def _axis_time(X, D, u, side_a, side_b):
    """How long (k,) the gaps ``u . (x_i - x_j)``, i in A, j in B, of points X moving by D all stay positive."""
    X = X - X[:, :1]
    h = np.einsum("kmd,kd->km", X, u)
    v = np.einsum("kmd,kd->km", D, u)
    gap = h[:, side_a, None] - h[:, None, side_b]
    rate = v[:, side_a, None] - v[:, None, side_b]
    slack = CERTIFICATE_SLACK * (np.sqrt(np.einsum("kmd,kmd->km", X, X)).max(axis=1)
                                 + np.sqrt(np.einsum("kmd,kmd->km", D, D)).max(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        until = np.where(rate < 0, (gap - slack[:, None, None]) / -rate, np.inf)
    return np.maximum(until.reshape(len(X), len(side_a) * len(side_b)).min(axis=1), 0.0)


def lipschitz_bound(D, side_a, side_b):
    """``max_{i in A, j in B} |D_i - D_j|`` (k,) for displacements D (k, m, dim)."""
    diff = D[:, side_a, None, :] - D[:, None, side_b, :]
    return np.sqrt(np.einsum("kijd,kijd->kij", diff, diff)).reshape(D.shape[0], -1).max(axis=1)


def additive_ccd(X0, X1, distance, side_a, side_b, coplanar=True, t_max=1.0, minimum=False):
    """Times of impact (k,) in [0, t_max] (lower bounds; inf where none) of stencils moving from X0 to X1.

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
    t_max : float
        Search [0, t_max] only (t_max <= 1): a stencil free until t_max gets ``inf``.
    minimum : bool
        Return only the smallest time (a float, ``inf`` if none before t_max), dropping every
        stencil whose certified time has passed the smallest one found so far (a step filter
        needs no more).
    """
    k = X0.shape[0]
    D = X1 - X0
    E, R = X0[:, 1:] - X0[:, :1], D[:, 1:] - D[:, :1]
    certify = _root_free if coplanar else _never
    toi = np.full(k, np.inf)
    result = (lambda: float(toi.min(initial=np.inf))) if minimum else (lambda: toi)
    # most stencils of a step never come near coplanarity: certified at once, without a distance
    idx = np.flatnonzero(~certify(E, R, np.zeros(k), np.full(k, t_max)))
    if not idx.size:
        return result()
    speed = lipschitz_bound(D[idx], side_a, side_b)
    X = X0[idx]
    closest = distance(X)
    d = closest.distance
    toi[idx[d <= 0]] = 0.0
    moving = (d > 0) & (speed > 0)
    idx, speed, X, d, weights = idx[moving], speed[moving], X[moving], d[moving], closest.weights[moving]
    t = np.zeros(idx.size)
    window = np.full(idx.size, t_max)
    for iteration in range(MAX_ITERATIONS):
        if not idx.size:
            return result()
        if iteration:
            X = X0[idx] + t[:, None, None] * D[idx]
            closest = distance(X)
            d, weights = closest.distance, closest.weights
        u = np.einsum("km,kmd->kd", weights, X) / d[:, None]
        step = np.maximum(SCALE * d / speed, AXIS_SCALE * _axis_time(X, D[idx], u, side_a, side_b))
        window = np.minimum(window, t_max - t)
        free = certify(E[idx], R[idx], t, t + window)
        advance = np.where(free, np.maximum(window, step), step)
        window = np.where(free, 2.0 * window, 0.5 * window)
        stop = advance < STOP * t
        t = t + advance
        done = t >= t_max                                 # free up to t_max: toi stays inf
        stop &= ~done
        toi[idx[stop]] = t[stop]
        keep = ~(done | stop)
        if minimum:                                       # no later stencil can beat the best found
            keep &= t < toi.min(initial=np.inf)
        idx, t, window, speed = idx[keep], t[keep], window[keep], speed[keep]
    toi[idx] = t
    return result()


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
        u = closest.weights[0] @ x / d                    # from B's closest point to A's
        xr = x - x[0]
        h, v = xr @ u, dx @ u                             # projections on u and their rates
        slack = CERTIFICATE_SLACK * (np.linalg.norm(xr, axis=1).max() + np.linalg.norm(dx, axis=1).max())
        until = np.inf                                    # every gap along u stays positive until then
        for i in side_a:
            for j in side_b:
                if v[i] - v[j] < 0:
                    until = min(until, max((h[i] - h[j] - slack) / (v[j] - v[i]), 0.0))
        step = max(SCALE * d / speed, AXIS_SCALE * until)   # no contact within d / speed, nor before until
        window = min(window, 1.0 - t)
        free = coplanar and _root_free(E, R, np.array([t]), np.array([t + window]))[0]
        advance = max(window, step) if free else step     # V(t) keeps its sign on a free window
        window = 2.0 * window if free else 0.5 * window
        stop = advance < STOP * t
        t = t + advance
        if t >= 1.0:
            return np.inf
        if stop:
            return t                                      # close to the impact (or stalled): certified
    return t
