r"""Conservative CCD (additive CCD, Li et al. 2021, on exact certificates), batched over the stencils.

A stencil of m points moves linearly, :math:`x(t) = x^0 + t\,(x^1 - x^0)` for t in [0, 1]. The time
of impact is the first t at which its two primitives touch. The search advances a time t before
which contact is excluded, by two certificates that hold exactly for the floats given, up to an
explicit bound on their round-off:

- **Separating axes.** For any unit vector u the gap of the projections,
  :math:`g(t') = \min_{i \in A,\, j \in B} u \cdot (x_i(t') - x_j(t'))` (A, B the two primitives'
  points), is a lower bound on the distance, and the minimum of lines in t'. Where every line is
  positive at t, g stays positive until the first root of those that fall,
  :math:`t_u = \min_{ij} t + h_{ij} / (-\dot h_{ij})`, in closed form: :math:`[t, t_u)` is free of
  contact. An axis with a line that is not positive at t certifies nothing. The first axis is the
  shortest vector r between the closest points (``distance``); where it certifies less than
  ``STOP`` times t, r made orthogonal to each of the primitives' edges and the normal of the
  stencil's plane (the triangle's, or :math:`e_a \times e_b` of two edges) turned towards r are
  tried too, and the longest time is taken. Wherever the closest points lie (a vertex, inside an
  edge, a face or two edges), one of these is their exact direction to round-off in the
  positions; r alone is not: it is the difference of two nearby points, whose direction carries
  round-off over the distance,
  :math:`\epsilon |x| / d`: 5e-7 rad for chapter 019's edges, 0.5 m long and 3.3e-10 m apart,
  enough for gaps of -5e-8 at their far ends (issue 27: the search then took the falling lines of
  an axis that separated nothing, jumped past the crossing and returned ``inf``). With u the
  exact direction the gap is the distance d, and its lines fall at most at the rate
  :math:`l = \max_{i \in A,\, j \in B} |\Delta x_i - \Delta x_j|`: the axis certifies at least additive
  CCD's :math:`d / l`, and a point falling onto a face without turning up to the impact itself.
- **Coplanarity.** A point and a triangle, or two edges, can only touch when their four points are
  coplanar, i.e. when the cubic :math:`V(t) = \det[x_1 - x_0, x_2 - x_0, x_3 - x_0]` vanishes (in 2D,
  a point on an edge needs the quadratic :math:`\det[a - p, b - p] = 0`). On a window the Bernstein
  coefficients of V are sums of determinants of the edge vectors at the window's ends (V is
  multilinear in them); when all have one sign, beyond a bound on their round-off, V has no root
  there and the window is free of contact: a triangle tumbling past a point.

Each iteration, for every stencil still searching, finds the closest points at the certified time
t and advances t by the larger of ``AXIS_SCALE`` of the best axis' free time and a window certified
by coplanarity, whose width doubles after a success and halves after a failure (a bisection
towards the root of V). A stencil whose t passes 1 has no impact on [0, 1] (``inf``). A stencil
whose advance would fall below ``STOP`` times t first tries, at once, every halving of its window
down to that width (the bisection towards a root of V, in one batched test: edges turning as they
close, whose axes certify little, reach the root this way) unless V changes sign within that
width; failing that it returns its new t. Near an impact the advances shrink geometrically (a
point falling onto a face gets 0.99 of the remaining time per iteration), so that t is within
about 1% of the impact. ``MAX_ITERATIONS`` caps the work.

**Round-off and the minimum separation.** Positions are rounded to about
:math:`\epsilon (|x| + |\Delta x|)`, so a gap counts only beyond ``CERTIFICATE_SLACK`` (1e-13) times the
stencil's scale :math:`s = \max_i |x^0_i| + \max_i |\Delta x_i|` (absolute coordinates: a stencil far
from the origin rounds more), and a determinant beyond the same fraction of the product of its
rows' bounds. A stencil that no certificate separates at t (every axis' gap within the slack, and
:math:`|V(t)|` too) stops there: at t = 0 the time is 0, which callers read as touching
(``collision_free_step`` raises, naming the primitives). So no returned time is later than the
first contact. It is tight (at least 0.8 of the impact, tested against the exact first contact
in ``tests/test_contact_ccd_exact.py``) unless the primitives start, or pass after the returned
time, within :func:`minimum_separation` (``MIN_SEPARATION`` = 1e-7 times s) of each other: a near
miss that close can stop the search there.
"""
import numpy as np

from ._closest import cross, dot

AXIS_SCALE = 0.99      # fraction of the separating axis' free time taken
STOP = 0.01            # stop once an iteration advances t by less than STOP * t
MAX_ITERATIONS = 200   # then the current (certified) time is returned
CERTIFICATE_SLACK = 1e-13
MIN_SEPARATION = 1e-7  # times the stencil's scale: from farther apart, the time is tight (tested)


def stencil_scale(X0, X1):
    """``max_i |x0_i| + max_i |x1_i - x0_i|`` (k,) of stencils X0, X1 (k, m, dim): a bound on every position's size."""
    D = X1 - X0
    return np.sqrt(np.einsum("kmd,kmd->km", X0, X0)).max(axis=1) + np.sqrt(np.einsum("kmd,kmd->km", D, D)).max(axis=1)


def minimum_separation(x0, x1):
    """The distance (float) below which a start of the stencil x0 -> x1 (m, dim) may be answered 0, or loosely.

    ``MIN_SEPARATION`` times the stencil's scale (``stencil_scale``): closer than this, round-off in
    the positions may hide every certificate; the returned time is a lower bound all the same.
    """
    x0, x1 = np.asarray(x0, dtype=float)[None], np.asarray(x1, dtype=float)[None]
    return MIN_SEPARATION * float(stencil_scale(x0, x1)[0])


def _det3(a, b, c):
    return dot(a, cross(b, c))


def _det2(a, b):
    return a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]


def _root_free(E, R, t0, t1, slack):
    """Where V(t) has no root on [t0, t1], and where ``|V(t0)|`` exceeds the slack (both (k,) bool).

    Stencils' edge vectors E (k, q, dim) at t = 0, moving by R; q = dim: ``V = det(E(t))``,
    multilinear in its q rows, each linear in t. ``slack`` (k,) bounds the determinants' round-off.
    """
    E0 = E + t0[:, None, None] * R
    E1 = E + t1[:, None, None] * R
    if E.shape[1] == 3:
        e = ((E0[:, 0], E1[:, 0]), (E0[:, 1], E1[:, 1]), (E0[:, 2], E1[:, 2]))
        D = {(i, j, l): _det3(e[0][i], e[1][j], e[2][l]) for i in (0, 1) for j in (0, 1) for l in (0, 1)}
        b = np.stack([D[0, 0, 0], (D[1, 0, 0] + D[0, 1, 0] + D[0, 0, 1]) / 3.0,
                      (D[0, 1, 1] + D[1, 0, 1] + D[1, 1, 0]) / 3.0, D[1, 1, 1]], axis=1)
    else:
        b = np.stack([_det2(E0[:, 0], E0[:, 1]), (_det2(E1[:, 0], E0[:, 1]) + _det2(E0[:, 0], E1[:, 1])) / 2.0,
                      _det2(E1[:, 0], E1[:, 1])], axis=1)
    slack = slack[:, None]
    return (b > slack).all(axis=1) | (b < -slack).all(axis=1), np.abs(b[:, 0]) > slack[:, 0]


def _volume(E, R, t):
    """V(t) (k,): the determinant of the edge vectors E + t R (k, dim, dim)."""
    Et = E + t[:, None, None] * R
    return _det3(Et[:, 0], Et[:, 1], Et[:, 2]) if E.shape[1] == 3 else _det2(Et[:, 0], Et[:, 1])


def _never(E, R, t0, t1, slack):
    no = np.zeros(t0.shape, dtype=bool)
    return no, no


def determinant_slack(E, R, D0):
    """Round-off bound (k,) of the coplanarity determinants: E, R (k, q, dim) the edge vectors and their motion.

    D0 (k, dim) the first point's displacement. A row ``E_i + t R_i`` (t in [0, 1]) is at most
    ``|E_i| + |R_i|`` long, and off by round-off of ``|D_i| + |D_0| <= |R_i| + 2 |D_0|`` at most (R
    is a difference of the points' displacements, each rounded).
    """
    e, r = np.sqrt(np.einsum("kqd,kqd->kq", E, E)), np.sqrt(np.einsum("kqd,kqd->kq", R, R))
    return CERTIFICATE_SLACK * np.prod(e + 2.0 * r + 2.0 * np.sqrt(dot(D0, D0))[:, None], axis=1)


def axes_of(side_a, side_b, dim):
    """The edges (i, j) of the two primitives, and the plane ((i, j), (p, q)) whose normal is an axis (None in 2D).

    The plane is a triangle's face, or that of the two edges of an edge pair (3D): its normal is
    :math:`(x_j - x_i) \times (x_q - x_p)`.
    """
    edges = [(side[i], side[j]) for side in (side_a, side_b) for i in range(len(side)) for j in range(i + 1, len(side))]
    plane = None
    if dim == 3:
        for side in (side_a, side_b):
            if len(side) == 3:
                plane = (side[0], side[1]), (side[0], side[2])
        if len(side_a) == 2 and len(side_b) == 2:
            plane = (side_a[0], side_a[1]), (side_b[0], side_b[1])
    return edges, plane


def candidate_axes(X, r, edges, plane):
    """Unit axes as lists of coordinates, ``axes[c][d]`` (k,) each, zero where undefined.

    X (k, m, dim) the stencils, r (k, dim) their shortest vectors (from B's closest point to A's).
    The axes: r, r made orthogonal to each of the ``edges`` (i, j), and the normal of the
    ``plane`` ((i, j), (p, q)) turned towards r (3D). With every edge of the two primitives, one
    of them is the exact closest direction of the stencil's region, to round-off in the positions.
    """
    dim = X.shape[2]
    x = [[X[:, i, c] for c in range(dim)] for i in range(X.shape[1])]
    r = [r[:, c] for c in range(dim)]
    axes = [r]
    for i, j in edges:
        e = [b - a for a, b in zip(x[i], x[j])]
        ee = sum(c * c for c in e)
        f = sum(a * b for a, b in zip(r, e)) / np.where(ee > 0, ee, 1.0)
        axes.append([a - f * b for a, b in zip(r, e)])
    if plane is not None:
        (i, j), (p, q) = plane
        a, b = [v - u for u, v in zip(x[i], x[j])], [v - u for u, v in zip(x[p], x[q])]
        n = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
        sign = np.sign(sum(u * v for u, v in zip(n, r)))
        axes.append([sign * c for c in n])
    out = []
    for u in axes:
        norm = np.sqrt(sum(c * c for c in u))
        inverse = np.divide(1.0, norm, out=np.zeros_like(norm), where=norm > 0)
        out.append([c * inverse for c in u])
    return out


def axis_time(X, D, axes, side_a, side_b, slack):
    """How long (k,) the best of the axes keeps every gap ``u . (x_i - x_j)``, i in A, j in B, positive.

    Points X (k, m, dim) move by D; ``axes`` as ``candidate_axes`` returns them; a gap within
    ``slack`` (k,) of 0 certifies nothing.
    """
    m, dim = X.shape[1:]
    x = [[X[:, i, c] - X[:, 0, c] for c in range(dim)] for i in range(m)]
    dx = [[D[:, i, c] for c in range(dim)] for i in range(m)]
    best = np.zeros(X.shape[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        for u in axes:
            h = [sum(a * b for a, b in zip(u, xi)) for xi in x]          # projections on u
            v = [sum(a * b for a, b in zip(u, di)) for di in dx]         # and their rates
            until = np.full(X.shape[0], np.inf)
            for i in side_a:
                for j in side_b:
                    gap, rate = h[i] - h[j], v[i] - v[j]
                    until = np.minimum(until, np.where(gap > slack, np.where(rate < 0, (gap - slack) / -rate, np.inf),
                                                       0.0))
            np.maximum(best, until, out=best)
    return best


def widest_free_window(E, R, t, widest, narrowest, slack):
    """The widest ``w = widest / 2^j >= narrowest`` (k,) with V free of roots on [t, t + w]; 0 where none.

    E, R, slack as ``_root_free``; one batched call over every halving (the bisection towards a root
    of V, at once, for the stencils whose other certificates have stalled).
    """
    halvings = min(int(np.ceil(np.log2(max(1.0, float(np.max(widest / narrowest)))))) + 1, 64)
    w = widest[:, None] * 0.5 ** np.arange(halvings)
    repeat = lambda a: np.repeat(a, halvings, axis=0)                                    # noqa: E731
    free = _root_free(repeat(E), repeat(R), repeat(t), (t[:, None] + w).ravel(), repeat(slack))[0]
    free = free.reshape(w.shape) & (w >= narrowest[:, None])
    return np.where(free.any(axis=1), w[np.arange(len(w)), np.argmax(free, axis=1)], 0.0)


def lipschitz_bound(D, side_a, side_b):
    """``max_{i in A, j in B} |D_i - D_j|`` (k,) for displacements D (k, m, dim): the fastest a distance can shrink."""
    diff = D[:, side_a, None, :] - D[:, None, side_b, :]
    return np.sqrt(np.einsum("kijd,kijd->kij", diff, diff)).reshape(D.shape[0], -1).max(axis=1)


def additive_ccd(X0, X1, distance, side_a, side_b, coplanar=True, t_max=1.0, minimum=False):
    """Times of impact (k,) in [0, t_max] (lower bounds; inf where none) of stencils moving from X0 to X1.

    Parameters
    ----------
    X0, X1 : (k, m, dim) float arrays
        The stencils at t = 0 and t = 1.
    distance : callable
        ``distance(X)`` -> the ``Closest`` (order 0) of stencils X (k', m, dim); only its weights
        (the closest points) are used, to choose the axes.
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
    k, m, dim = X0.shape
    D = X1 - X0
    E, R = X0[:, 1:] - X0[:, :1], D[:, 1:] - D[:, :1]
    certify = _root_free if coplanar else _never
    toi = np.full(k, np.inf)
    result = (lambda: float(toi.min(initial=np.inf))) if minimum else (lambda: toi)
    slack_v = determinant_slack(E, R, D[:, 0])
    # most stencils of a step never come near coplanarity: certified at once, without a distance
    idx = np.flatnonzero(~certify(E, R, np.zeros(k), np.full(k, t_max), slack_v)[0])
    if not idx.size:
        return result()
    slack = CERTIFICATE_SLACK * stencil_scale(X0[idx], X1[idx])
    edges, plane = axes_of(side_a, side_b, dim)
    t = np.zeros(idx.size)
    window = np.full(idx.size, t_max)
    windowed = np.zeros(idx.size, dtype=bool)             # a window has been certified
    for iteration in range(MAX_ITERATIONS):
        if not idx.size:
            return result()
        X, Dk = X0[idx] + t[:, None, None] * D[idx], D[idx]
        weights = distance(X).weights
        r = sum(weights[:, i, None] * X[:, i] for i in range(m))
        # the axis r; where it stalls (its direction carries round-off / d), the others too
        step = AXIS_SCALE * axis_time(X, Dk, candidate_axes(X, r, [], None), side_a, side_b, slack)
        low = np.flatnonzero(step <= STOP * t)
        if low.size:
            axes = candidate_axes(X[low], r[low], edges, plane)[1:]
            others = axis_time(X[low], Dk[low], axes, side_a, side_b, slack[low])
            step[low] = np.maximum(step[low], AXIS_SCALE * others)
        window = np.minimum(window, t_max - t)
        free, separated = certify(E[idx], R[idx], t, t + window, slack_v[idx])
        advance = np.where(free, np.maximum(window, step), step)
        window = np.where(free, 2.0 * window, 0.5 * window)
        windowed |= free                                  # the coplanarity certificate works here
        if coplanar:
            # about to stop where windows have worked and V has no root just ahead: the widest window V
            # clears, every halving at once
            low = np.flatnonzero((advance < STOP * t) & separated & windowed)
            E_low, R_low = E[idx[low]], R[idx[low]]
            low = low[_volume(E_low, R_low, t[low]) * _volume(E_low, R_low, (1 + STOP) * t[low]) > 0]
            if low.size:
                wide = widest_free_window(E[idx[low]], R[idx[low]], t[low], window[low], STOP * t[low],
                                          slack_v[idx[low]])
                wider = np.flatnonzero(wide > advance[low])
                advance[low[wider]], window[low[wider]] = wide[wider], 2.0 * wide[wider]
        # stalled: advancing by less than STOP * t (near an impact), or separated by nothing at all
        stop = (advance < STOP * t) | (advance <= 0) & ~separated
        t = t + advance
        done = t >= t_max                                 # free up to t_max: toi stays inf
        stop &= ~done
        toi[idx[stop]] = t[stop]
        keep = ~(done | stop)
        if minimum:                                       # no later stencil can beat the best found
            keep &= t < toi.min(initial=np.inf)
        idx, t, window, slack, windowed = idx[keep], t[keep], window[keep], slack[keep], windowed[keep]
    toi[idx] = t
    return result()


def additive_ccd_element(x0, x1, distance, side_a, side_b, coplanar=True):
    """Element tier: the same search for one stencil x0, x1 (m, dim), written as plain loops."""
    x0, x1 = np.asarray(x0, dtype=float), np.asarray(x1, dtype=float)
    dx = x1 - x0
    m, dim = x0.shape
    E, R = (x0[1:] - x0[:1])[None], (dx[1:] - dx[:1])[None]
    slack_v = determinant_slack(E, R, dx[None, 0])
    slack = CERTIFICATE_SLACK * (max(np.linalg.norm(p) for p in x0) + max(np.linalg.norm(v) for v in dx))
    edges, plane = axes_of(side_a, side_b, dim)
    if coplanar and _root_free(E, R, np.zeros(1), np.ones(1), slack_v)[0][0]:
        return np.inf
    t, window, windowed = 0.0, 1.0, False
    for _ in range(MAX_ITERATIONS):
        x = x0 + t * dx
        r = distance(x[None]).weights[0] @ x              # from B's closest point to A's
        axes = [r]                                        # r, r orthogonal to each edge, the plane's normal
        for i, j in edges:
            e = x[j] - x[i]
            axes.append(r - (r @ e) / (e @ e) * e if e @ e > 0 else r)
        if plane is not None:
            (i, j), (p, q) = plane
            n = np.cross(x[j] - x[i], x[q] - x[p])
            axes.append(np.sign(n @ r) * n)
        step = AXIS_SCALE * _element_axis_time(x, dx, axes[:1], side_a, side_b, slack)
        if step <= STOP * t:                              # stalling: the other axes too
            step = max(step, AXIS_SCALE * _element_axis_time(x, dx, axes[1:], side_a, side_b, slack))
        window = min(window, 1.0 - t)
        if coplanar:
            free, separated = (bool(v[0]) for v in _root_free(E, R, np.array([t]), np.array([t + window]), slack_v))
        else:
            free, separated = False, False
        advance = max(window, step) if free else step     # V(t) keeps its sign on a free window
        window = 2.0 * window if free else 0.5 * window
        windowed = windowed or free
        if (coplanar and advance < STOP * t and separated and windowed   # about to stop where windows work
                and _volume(E, R, np.array([t]))[0] * _volume(E, R, np.array([(1 + STOP) * t]))[0] > 0):
            w = window                                    # the widest window V clears
            while w >= STOP * t:
                if _root_free(E, R, np.array([t]), np.array([t + w]), slack_v)[0][0]:
                    if w > advance:
                        advance, window = w, 2.0 * w
                    break
                w *= 0.5
        stop = advance < STOP * t or (advance <= 0 and not separated)
        t = t + advance
        if t >= 1.0:
            return np.inf
        if stop:
            return t                                      # close to the impact (or stalled): certified
    return t


def _element_axis_time(x, dx, axes, side_a, side_b, slack):
    """The longest time one of the axes keeps every gap of stencil x (m, dim), moving by dx, positive."""
    best = 0.0
    for u in axes:
        length = np.linalg.norm(u)
        if length == 0:
            continue
        u = u / length
        h, v = (x - x[0]) @ u, dx @ u                     # projections on u and their rates
        until = np.inf
        for i in side_a:
            for j in side_b:
                gap, rate = h[i] - h[j], v[i] - v[j]
                if gap <= slack:
                    until = 0.0
                elif rate < 0:
                    until = min(until, (gap - slack) / -rate)
        best = max(best, until)
    return best
