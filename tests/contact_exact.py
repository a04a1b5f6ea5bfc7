"""Exact distances for tests: the floats' exact rational values, arithmetic in fractions, one rounding at the end.

The rationals are GMP's (gmpy2.mpq: the fractions.Fraction interface, 4x faster here).
"""
from gmpy2 import mpq as Fraction

import numpy as np


def _rational(*points):
    return [[Fraction(float(v)) for v in p] for p in points]


def _sub(u, v):
    return [x - y for x, y in zip(u, v)]


def _dot(u, v):
    return sum(x * y for x, y in zip(u, v))


def _cross(u, v):
    return [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]


def _point_segment_squared(p, a, b):
    e, q = _sub(b, a), _sub(p, a)
    s = min(max(_dot(q, e) / _dot(e, e), Fraction(0)), Fraction(1))
    r = [qi - s * ei for qi, ei in zip(q, e)]
    return _dot(r, r)


def point_point(p, q):
    p, q = _rational(p, q)
    return float(_dot(_sub(p, q), _sub(p, q))) ** 0.5


def point_edge(p, a, b):
    return float(_point_segment_squared(*_rational(p, a, b))) ** 0.5


def point_triangle(p, a, b, c):
    p, a, b, c = _rational(p, a, b, c)
    squared = [_point_segment_squared(p, a, b), _point_segment_squared(p, b, c), _point_segment_squared(p, c, a)]
    e0, e1, q = _sub(b, a), _sub(c, a), _sub(p, a)
    n = _cross(e0, e1)
    u, v = _dot(_cross(q, e1), n) / _dot(n, n), _dot(_cross(e0, q), n) / _dot(n, n)
    if u >= 0 and v >= 0 and u + v <= 1:
        squared.append(_dot(q, n) ** 2 / _dot(n, n))
    return float(min(squared)) ** 0.5


def edge_edge(a0, a1, b0, b1):
    a0, a1, b0, b1 = _rational(a0, a1, b0, b1)
    squared = [_point_segment_squared(a0, b0, b1), _point_segment_squared(a1, b0, b1),
               _point_segment_squared(b0, a0, a1), _point_segment_squared(b1, a0, a1)]
    ea, eb, w = _sub(a1, a0), _sub(b1, b0), _sub(b0, a0)
    n = _cross(ea, eb)
    if _dot(n, n):
        s, t = _dot(n, _cross(w, eb)) / _dot(n, n), _dot(n, _cross(w, ea)) / _dot(n, n)
        if 0 <= s <= 1 and 0 <= t <= 1:
            squared.append(_dot(w, n) ** 2 / _dot(n, n))
    return float(min(squared)) ** 0.5


def adversarial_stencils(family, dim, rng):
    """Stencils at the hard spots: parallel and nearly parallel edges, points on lines and over vertices."""
    e = np.eye(dim)
    out = []
    for scale, offset in ((1.0, 0.0), (1e-3, 0.0), (1.0, 1e3)):
        R = np.linalg.qr(rng.standard_normal((dim, dim)))[0]
        if family == "point_edge":
            a, b = np.zeros(dim), 2 * e[0]
            for p in (3 * e[0], -0.5 * e[0], 0.7 * e[0] + 1e-9 * e[1], b + 0.3 * e[1], a + 1e-8 * e[1]):
                out.append([p, a, b])
        elif family == "point_triangle":
            a, b, c = np.zeros(3), 2 * e[0], 2 * e[1]
            for p in (a + 0.3 * e[2], b + 1e-7 * e[2], 3 * e[0], np.array([1.5, 1.5, 0.0]), np.array([-1, -1, 0.0]),
                      np.array([0.5, 0.5, 1e-9]), np.array([1.0, -0.5, 1e-3]), np.array([1.0, 1.0, 0.2])):
                out.append([p, a, b, c])
        elif family == "edge_edge":
            a0, a1 = np.zeros(3), 2 * e[0]
            for angle in (0.0, 1e-12, 1e-9, 1e-6, 1e-3, np.pi / 2):
                for gap in (1e-6, 0.3):
                    b0 = np.array([0.5, 0.0, gap])
                    out.append([a0, a1, b0, b0 + 1.2 * np.array([np.cos(angle), np.sin(angle), 0.0])])
            out.append([a0, a1, 3 * e[0], 4 * e[0]])                                    # collinear
            out.append([a0, a1, np.array([1.0, -1.0, 1e-9]), np.array([1.0, 1.0, 1e-9])])  # nearly crossing
        else:
            out.append([np.zeros(dim), 1e-9 * e[-1]])
            out.append([np.zeros(dim), e[0] + e[-1]])
        out = [[(v @ R.T) * scale + offset for v in s] for s in out]
    return np.array(out)


# ---------------------------------------------------------------------------------------------
# the exact first time of contact of linear motions (for the CCD tests)
# ---------------------------------------------------------------------------------------------
#
# Contact of a point and a triangle, or of two edges (in 2D, of a point and an edge), needs their
# points coplanar (collinear): a root of V(t) = det[x1 - x0, x2 - x0, x3 - x0] (2D: det[a - p, b - p]),
# a polynomial in t with rational coefficients once the floats are read as the rationals they are.
# At each real root tau, in increasing order, the primitives touch when polynomial inequalities
# g(tau) >= 0 hold (barycentric coordinates, edge parameters, scaled to stay polynomial). Roots are
# isolated by Sturm sequences and bisection in rationals; the sign of g at an algebraic tau is read
# off an interval around it on which g has no root, or is 0 when gcd(V, g) vanishes there. No
# rounding anywhere: the answer is the exact first contact of the exact linear motions.

def _trim(f):
    while f and f[-1] == 0:
        f = f[:-1]
    return f


def _padd(f, g):
    n = max(len(f), len(g))
    return _trim([(f[i] if i < len(f) else 0) + (g[i] if i < len(g) else 0) for i in range(n)])


def _psub(f, g):
    return _padd(f, [-c for c in g])


def _pmul(f, g):
    if not f or not g:
        return []
    out = [Fraction(0)] * (len(f) + len(g) - 1)
    for i, a in enumerate(f):
        for j, b in enumerate(g):
            out[i + j] += a * b
    return _trim(out)


def _prem(f, g):
    """Remainder of f / g (g nonzero)."""
    f = list(f)
    while len(f) >= len(g):
        q = f[-1] / g[-1]
        shift = len(f) - len(g)
        for i, c in enumerate(g):
            f[shift + i] -= q * c
        f = _trim(f[:-1])
    return f


def _pgcd(f, g):
    while g:
        f, g = g, _prem(f, g)
    return [c / f[-1] for c in f]


def _pdiv(f, g):
    """Quotient of f / g (exact division)."""
    f, q = list(f), [Fraction(0)] * (len(f) - len(g) + 1)
    while len(f) >= len(g) and f:
        c = f[-1] / g[-1]
        shift = len(f) - len(g)
        q[shift] = c
        for i, gi in enumerate(g):
            f[shift + i] -= c * gi
        f = _trim(f[:-1])
    return _trim(q)


def _peval(f, t):
    out = Fraction(0)
    for c in reversed(f):
        out = out * t + c
    return out


def _sign(x):
    return (x > 0) - (x < 0)


def _sturm(f):
    seq = [f, _trim([i * c for i, c in enumerate(f)][1:])]
    while seq[-1]:
        seq.append([-c for c in _prem(seq[-2], seq[-1])])
    return seq[:-1]


def _changes(seq, t):
    signs = [s for s in (_sign(_peval(f, t)) for f in seq) if s]
    return sum(a != b for a, b in zip(signs, signs[1:]))


def _roots_in(seq, lo, hi):
    """Number of distinct roots of seq[0] in (lo, hi]."""
    return _changes(seq, lo) - _changes(seq, hi)


def _isolate(f, lo=Fraction(0), hi=Fraction(1)):
    """Disjoint intervals [a, b] in increasing order, each holding one root of f in [lo, hi] (a == b: exact)."""
    f = _pdiv(f, _pgcd(f, _trim([i * c for i, c in enumerate(f)][1:]))) if len(f) > 2 else f
    seq = _sturm(f)
    out = [(lo, lo)] if _peval(f, lo) == 0 else []
    stack = [(lo, hi)]
    while stack:
        a, b = stack.pop()
        n = _roots_in(seq, a, b)
        if n == 0:
            continue
        if n == 1:
            out.append((b, b) if _peval(f, b) == 0 else (a, b))
            continue
        m = (a + b) / 2
        stack += [(m, b), (a, m)]
    return f, seq, sorted(out)


def _refine(f, a, b):
    """Halve [a, b] keeping the one root of squarefree f in it (f(a), f(b) nonzero, opposite signs)."""
    m = (a + b) / 2
    fm = _peval(f, m)
    if fm == 0:
        return m, m
    return (a, m) if _sign(fm) != _sign(_peval(f, a)) else (m, b)


def _sign_at_root(g, f, a, b):
    """Sign of g at the root of squarefree f isolated in [a, b]."""
    if a == b:
        return _sign(_peval(g, a)), a, b
    if not g:
        return 0, a, b
    common = _pgcd(f, g)
    if len(common) > 1 and _roots_in(_sturm(common), a, b) > 0:
        return 0, a, b
    sg = _sturm(_pdiv(g, _pgcd(g, _trim([i * c for i, c in enumerate(g)][1:]))) if len(g) > 2 else g)
    while True:
        ga, gb = _peval(g, a), _peval(g, b)
        if ga and gb and _sign(ga) == _sign(gb) and _roots_in(sg, a, b) == 0:
            return _sign(ga), a, b
        a, b = _refine(f, a, b)
        if a == b:
            return _sign(_peval(g, a)), a, b


def _motion(x0, x1):
    """Each coordinate of each point as a linear polynomial [x0, x1 - x0] in rationals."""
    out = []
    for p, q in zip(x0, x1):
        p, q = [Fraction(float(v)) for v in p], [Fraction(float(v)) for v in q]
        out.append([_trim([a, b - a]) for a, b in zip(p, q)])
    return out


def _vsub(u, v):
    return [_psub(a, b) for a, b in zip(u, v)]


def _vdot(u, v):
    out = []
    for a, b in zip(u, v):
        out = _padd(out, _pmul(a, b))
    return out


def _vcross(u, v):
    return [_psub(_pmul(u[1], v[2]), _pmul(u[2], v[1])), _psub(_pmul(u[2], v[0]), _pmul(u[0], v[2])),
            _psub(_pmul(u[0], v[1]), _pmul(u[1], v[0]))]


class Degenerate(Exception):
    """The exact contact test is undecided here (a zero-area triangle or parallel edges at a coplanar time)."""


def _plane_coordinates(q, e0, e1):
    """(V, u, v, D) for q = x - o and edges e0, e1 from o: V = q . n and, with q in the plane, q = (u e0 + v e1) / D.

    n = e0 x e1 and D = n . n: u = (q x e1) . n and v = (e0 x q) . n (Cramer's rule), polynomials in t.
    """
    n = _vcross(e0, e1)
    return _vdot(q, n), _vdot(_vcross(q, e1), n), _vdot(_vcross(e0, q), n), _vdot(n, n)


def _conditions(family, P):
    """(V, [g, ...], D): contact at a root tau of V where every g(tau) >= 0, D(tau) > 0 required."""
    if family == "point_triangle":                                   # p - a = (u (b - a) + v (c - a)) / D
        p, a, b, c = P
        V, u, v, D = _plane_coordinates(_vsub(p, a), _vsub(b, a), _vsub(c, a))
        return V, [u, v, _psub(_psub(D, u), v)], D
    if family == "edge_edge":                                        # b0 - a0 = (s e_a - t e_b) / D
        a0, a1, b0, b1 = P
        V, s, minus_t, D = _plane_coordinates(_vsub(b0, a0), _vsub(a1, a0), _vsub(b1, b0))
        return V, [s, _psub(D, s), [-c for c in minus_t], _padd(D, minus_t)], D
    p, a, b = P                                                      # point_edge, 2D
    e, q = _vsub(b, a), _vsub(p, a)
    D = _vdot(e, e)
    s = _vdot(q, e)
    return _psub(_pmul(e[0], q[1]), _pmul(e[1], q[0])), [s, _psub(D, s)], D


def first_contact(family, x0, x1):
    """The exact first time of contact in [0, 1] of a stencil moving linearly from x0 to x1 (m, dim).

    Returns ``None`` if the primitives never touch on [0, 1], else ``(lo, hi)``, two Fractions
    with lo <= t* <= hi and hi - lo < 2**-60 (lo == hi when t* is rational). Families:
    ``point_triangle`` and ``edge_edge`` (3D), ``point_edge`` (2D). Raises ``Degenerate`` where the
    points stay coplanar throughout, or are coplanar with a zero-area triangle or parallel edges.
    """
    V, gs, D = _conditions(family, _motion(x0, x1))
    if not V:
        raise Degenerate("coplanar throughout")
    f, _, roots = _isolate(V)
    for a, b in roots:
        sd, a, b = _sign_at_root(D, f, a, b)
        if sd == 0:
            raise Degenerate("zero-area triangle or parallel edges at a coplanar time")
        touching = True
        for g in gs:
            s, a, b = _sign_at_root(g, f, a, b)
            if s < 0:
                touching = False
                break
        if touching:
            while b - a >= Fraction(1, 2 ** 60):
                a, b = _refine(f, a, b)
            return a, b
    return None


def coplanar_first_contact(family, x0, x1):
    """The exact first contact of a stencil moving in the plane z = 0 (every z zero), as ``first_contact``.

    In a plane a point enters a triangle, and two edges first meet, where a point crosses an edge:
    the first of the 2D point-edge contacts (each point of one primitive against each edge of the
    other); a start inside the triangle, or on it, is a contact at 0.
    """
    x0, x1 = np.asarray(x0)[:, :2], np.asarray(x1)[:, :2]
    if family == "point_triangle":
        pairs = [(0, 1, 2), (0, 2, 3), (0, 3, 1)]
        inside = all(_sign(_orient2(x0[i], x0[j], x0[0])) * _sign(_orient2(x0[1], x0[2], x0[3])) >= 0
                     for _, i, j in pairs)
        if inside:
            return Fraction(0), Fraction(0)
    else:
        pairs = [(0, 2, 3), (1, 2, 3), (2, 0, 1), (3, 0, 1)]
    best = None
    for p, i, j in pairs:
        hit = first_contact("point_edge", x0[[p, i, j]], x1[[p, i, j]])
        if hit is not None and (best is None or hit[1] < best[1]):
            best = hit
    return best


def _orient2(a, b, c):
    a, b, c = ([Fraction(float(v)) for v in x] for x in (a, b, c))
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
