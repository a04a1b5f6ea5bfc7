"""Exact distances for tests: the floats' exact rational values, arithmetic in fractions, one rounding at the end."""
from fractions import Fraction

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
