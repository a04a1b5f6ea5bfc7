"""Exact intersection tests: closed forms, exact degeneracies, an exact rational oracle, mesh states, the broad phase.

(The comparison with the IPC Toolkit is in test_contact_oracle.py.)
"""
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simkit
from simkit import contact
from simkit.contact import intersections
from simkit.contact._orient import orient2d, orient3d

TRI = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def meets(p, q, tri=TRI):
    return bool(contact.edge_triangle_intersect(np.array([p], float), np.array([q], float), *tri[:, None])[0])


def rational_edge_triangle(p, q, a, b, c):
    """Segment-triangle meeting in exact rational arithmetic when the segment is not parallel to the plane."""
    p, q, a, b, c = ([Fraction(float(v)) for v in x] for x in (p, q, a, b, c))
    sub = lambda u, v: [x - y for x, y in zip(u, v)]
    d, e1, e2, s = sub(q, p), sub(b, a), sub(c, a), sub(p, a)
    det3 = lambda u, v, w: (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0])
                            + u[2] * (v[0] * w[1] - v[1] * w[0]))
    D = det3([-x for x in d], e1, e2)
    if D == 0:
        return None
    t, u, v = det3(s, e1, e2) / D, det3([-x for x in d], s, e2) / D, det3([-x for x in d], e1, s) / D
    return 0 <= t <= 1 and u >= 0 and v >= 0 and u + v <= 1


# ---------------------------------------------------------------------------------------------
# the predicates
# ---------------------------------------------------------------------------------------------

def test_orientation_signs_are_exact_where_doubles_round():
    a, b, c = np.array([[0.1, 0.2, 0.3]]), np.array([[1.7, 0.4, 0.9]]), np.array([[0.3, 1.9, 0.2]])
    d = a + 0.3 * (b - a) + 0.6 * (c - a)               # on the plane, up to the rounding of these products
    exact = [Fraction(float(v)) for v in np.concatenate([a, b, c, d]).ravel()]
    A = [exact[3 * i:3 * i + 3] for i in range(4)]
    m = [[A[i][j] - A[3][j] for j in range(3)] for i in range(3)]
    det = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
           + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))
    assert orient3d(a, b, c, d)[0] == (det > 0) - (det < 0)
    assert orient3d(a, b, c, a)[0] == 0 and orient3d(a, b, c, c)[0] == 0
    assert orient2d(np.array([[0.1, 0.1]]), np.array([[0.3, 0.3]]), np.array([[0.7, 0.7]]))[0] == 0
    assert orient2d(np.array([[0.0, 0.0]]), np.array([[1.0, 0.0]]), np.array([[0.5, 1e-300]]))[0] == 1


@pytest.mark.parametrize("p, q, expected", [
    ([0.2, 0.2, -1.0], [0.2, 0.2, 1.0], True),          # through the face
    ([0.6, 0.6, -1.0], [0.6, 0.6, 1.0], False),         # beside it
    ([0.5, 0.5, -1.0], [0.5, 0.5, 1.0], True),          # through the edge bc exactly
    ([0.0, 0.0, 1.0], [0.0, 0.0, -1.0], True),          # through the vertex a
    ([0.2, 0.2, 0.0], [0.2, 0.2, 1.0], True),           # an end point on the face (touching counts)
    ([0.2, 0.2, 1e-300], [0.2, 0.2, 1.0], False),       # ... and just above it
    ([0.2, 0.2, 0.5], [0.3, 0.3, 1.0], False),          # above, not reaching
    ([-1.0, 0.2, 0.0], [2.0, 0.2, 0.0], True),          # in the plane, across the triangle
    ([-1.0, -0.1, 0.0], [2.0, -0.1, 0.0], False),       # in the plane, beside it
    ([0.1, 0.1, 0.0], [0.2, 0.2, 0.0], True),           # in the plane, inside
    ([-1.0, 0.0, 0.0], [-0.5, 0.0, 0.0], False),        # on edge ab's line, short of a
    ([-1.0, 0.0, 0.0], [0.0, 0.0, 0.0], True),          # on edge ab's line, reaching a
    ([-1.0, 1.0, 0.0], [1.0, -1.0, 0.0], True),         # in the plane, touching vertex a only
])
def test_edge_triangle_closed_forms_and_exact_degeneracies(p, q, expected):
    assert meets(p, q) is expected
    R = np.eye(3)[[1, 2, 0]]
    assert meets(R @ p, R @ q, TRI @ R.T) is expected          # an exact permutation of the axes


def test_edge_triangle_agrees_with_exact_rational_arithmetic_including_touching_cases():
    rng = np.random.default_rng(1)
    k = 4000
    X = rng.integers(-3, 4, size=(k, 5, 3)).astype(float) / 4.0     # small integers: many exact ties
    area = np.linalg.norm(np.cross(X[:, 3] - X[:, 2], X[:, 4] - X[:, 2]), axis=1)
    X = X[area > 0]
    expected = [rational_edge_triangle(*x) for x in X]
    keep = np.array([e is not None for e in expected])
    got = contact.edge_triangle_intersect(*X[keep].transpose(1, 0, 2))
    np.testing.assert_array_equal(got, np.array([e for e in expected if e is not None]))
    assert 200 < got.sum() < keep.sum() - 200


def test_triangle_triangle_closed_forms():
    up = TRI + [0.0, 0.0, 0.5]
    cases = {
        "parallel, apart": (TRI, up, False),
        "crossing": (TRI, np.array([[0.2, 0.2, -1.0], [0.2, 0.2, 1.0], [0.9, 0.9, 0.0]]), True),
        "sharing a vertex": (TRI, np.array([[0.0, 0.0, 0.0], [-1.0, 0.0, 1.0], [0.0, -1.0, 1.0]]), True),
        "coplanar, one inside the other": (TRI * 4 - [1.0, 1.0, 0.0], TRI, True),
        "coplanar, apart": (TRI, TRI + [2.0, 0.0, 0.0], False),
        "coplanar, overlapping edges": (TRI, TRI[[1, 2, 0]] + [0.5, 0.0, 0.0], True),
        "stabbing the interior only": (TRI * 2, np.array([[0.3, 0.3, -1.0], [0.4, 0.3, 1.0], [0.3, 0.4, 1.0]]), True),
    }
    A = np.array([c[0] for c in cases.values()])
    B = np.array([c[1] for c in cases.values()])
    got = contact.triangle_triangle_intersect(*A.transpose(1, 0, 2), *B.transpose(1, 0, 2))
    assert dict(zip(cases, got.tolist())) == {name: c[2] for name, c in cases.items()}


# ---------------------------------------------------------------------------------------------
# mesh states
# ---------------------------------------------------------------------------------------------

def folded_sheet(n=30, radius=0.03, dip=0.0):
    """A sheet folded over itself about x = 0.5: the top layer 2 radius above, optionally dipping by `dip` through."""
    X, F = simkit.grid_sheet(n, n)
    s = X[:, 0] - 0.5
    bend, back = (s > 0) & (s < np.pi * radius), s >= np.pi * radius
    Y = X.copy()
    Y[bend, 0], Y[bend, 1] = 0.5 + radius * np.sin(s[bend] / radius), radius - radius * np.cos(s[bend] / radius)
    Y[back, 0] = 0.5 - (s[back] - np.pi * radius)
    Y[back, 1] = 2 * radius + dip * np.sin(20 * X[back, 2])
    return Y, F


def test_flat_folded_and_self_intersecting_sheets():
    X, F = simkit.grid_sheet(30, 30)
    assert not contact.has_intersections(X, F)                 # flat: every pair coplanar, decided exactly
    Y, F = folded_sheet()
    assert not contact.has_intersections(Y, F)                 # two layers 6 cm apart
    Z, F = folded_sheet(dip=0.1)
    pairs = contact.edge_face_intersections(Z, F)
    assert len(pairs) > 50 and contact.has_intersections(Z, F)
    assert (pairs[:, 0] < pairs[:, 1]).all()
    f = F[pairs[:, 2]]
    assert not (f[:, :, None] == pairs[:, None, :2]).any()    # never a pair sharing a vertex
    p, q = Z[pairs[:, 0]], Z[pairs[:, 1]]
    assert contact.edge_triangle_intersect(p, q, *Z[f].transpose(1, 0, 2)).all()
    counts = contact.count_intersections(np.array([X, Y, Z, Y]), F)
    np.testing.assert_array_equal(counts, [0, 0, len(pairs), 0])


def test_bodies_rods_and_extra_edges():
    X, F = simkit.grid_sheet(8, 8)
    Y = X + [0.03, 0.0, 0.02]                                   # a second sheet 0 above: coplanar, overlapping
    Y[:, 1] = 0.01 * np.sin(9 * X[:, 0])                        # ... now weaving through the first
    both = np.concatenate([X, Y])
    faces = np.concatenate([F, F + len(X)])
    bodies = np.repeat([0, 1], len(X))
    assert contact.has_intersections(both, faces, bodies=bodies)
    assert not contact.has_intersections(both, faces, bodies=np.zeros(2 * len(X), dtype=int))   # one body: no pairs
    rod = np.array([[0.43, -0.5, 0.47], [0.43, 0.5, 0.47], [0.4, 0.2, 0.4], [0.6, 0.2, 0.4]])
    x = np.concatenate([X, rod])
    n = len(X)
    assert contact.has_intersections(x, F, [[n, n + 1]])          # a rod piercing the sheet
    assert not contact.has_intersections(x, F, [[n + 2, n + 3]])  # a rod above it
    assert len(contact.edge_face_intersections(x, F, [[n, n + 1], [n + 2, n + 3]])) == 1


def test_broad_phase_lists_every_overlapping_pair_once():
    rng = np.random.default_rng(2)
    lo_a = rng.uniform(0, 10, (300, 3))
    hi_a = lo_a + rng.exponential(0.5, (300, 3))
    lo_b = rng.uniform(0, 10, (400, 3))
    hi_b = lo_b + rng.exponential(0.5, (400, 3))
    lo_b[:5] -= 5.0
    hi_b[:5] += 5.0                                              # a few boxes spanning the scene
    lo_a[:2, 0] = hi_a[:2, 0] = 3.0                              # flat ones
    ga, gb = rng.integers(0, 3, 300), rng.integers(0, 3, 400)
    ia, ib = intersections._box_pairs(lo_a, hi_a, ga, lo_b, hi_b, gb)
    brute = ((lo_a[:, None] <= hi_b[None]) & (lo_b[None] <= hi_a[:, None])).all(axis=2) & (ga[:, None] == gb[None])
    assert sorted(zip(ia.tolist(), ib.tolist())) == sorted(zip(*np.nonzero(brute)))
    # within one set (each pair once), big boxes included
    ia, ib = intersections._box_pairs(lo_b, hi_b, gb)
    brute = ((lo_b[:, None] <= hi_b[None]) & (lo_b[None] <= hi_b[:, None])).all(axis=2) & (gb[:, None] == gb[None])
    assert (ia < ib).all() and sorted(zip(ia.tolist(), ib.tolist())) == sorted(zip(*np.nonzero(np.triu(brute, 1))))


@pytest.mark.parametrize("chunk", [10 ** 6, 5_000, 300])
def test_count_intersections_over_many_states_is_the_count_of_each_state(monkeypatch, chunk):
    """A sheet sinking through a ground of two big triangles (big boxes), frames batched or one at a time."""
    monkeypatch.setattr(intersections, "CHUNK_PRIMITIVES", chunk)
    X, F = simkit.grid_sheet(12, 9, 1.1, 0.8)
    ground = np.array([[-1.0, 0.0, -1.0], [2.0, 0.0, -1.0], [2.0, 0.0, 2.0], [-1.0, 0.0, 2.0]])
    x = np.concatenate([X, ground])
    faces = np.concatenate([F, len(X) + np.array([[0, 2, 1], [0, 3, 2]])])
    rng = np.random.default_rng(chunk)
    sink = np.linspace(0.01, -0.01, 23)
    states = np.repeat(x[None], len(sink), axis=0)
    states[:, :len(X), 1] = sink[:, None] + 0.003 * rng.standard_normal((len(sink), len(X)))
    counts = contact.count_intersections(states, faces)
    single = [len(contact.edge_face_intersections(y, faces)) for y in states]
    np.testing.assert_array_equal(counts, single)
    assert counts[0] == 0 < counts[len(sink) // 2] and len(set(counts.tolist())) > 10


def all_pairs(F, n):
    """Every point-triangle and edge-edge stencil of a mesh that shares no vertex (small meshes only)."""
    E = simkit.edges(F)
    pt = np.array([(v, *f) for v in range(n) for f in F if v not in f])
    ee = np.array([(*e, *g) for i, e in enumerate(E) for g in E[i + 1:] if not set(e) & set(g)])
    return pt, ee


def random_step(seed):
    """A sheet folded over itself takes a large random step: (state at 0.9 of the CCD's time, full step, time)."""
    rng = np.random.default_rng(seed)
    X, F = folded_sheet(n=5, radius=0.1)
    pt, ee = all_pairs(F, len(X))
    X1 = X + 0.4 * rng.standard_normal(X.shape)
    t = min(contact.point_triangle_ccd(*X[pt].transpose(1, 0, 2), *X1[pt].transpose(1, 0, 2)).min(),
            contact.edge_edge_ccd(*X[ee].transpose(1, 0, 2), *X1[ee].transpose(1, 0, 2)).min())
    return X + min(1.0, 0.9 * t) * (X1 - X), X1, t, F


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 31 - 1))
def test_steps_filtered_by_ccd_never_intersect(seed):
    filtered, _, _, F = random_step(seed)
    assert not contact.has_intersections(filtered, F)


def test_the_same_steps_unfiltered_pass_through_the_sheet():
    """The check above can fail: without the CCD filter most of these steps end intersecting."""
    outcomes = [random_step(seed) for seed in range(12)]
    cut = [contact.has_intersections(full, F) for _, full, t, F in outcomes if t < 1]
    assert len(cut) >= 8 and sum(cut) >= 0.5 * len(cut)


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------

def test_errors():
    X, F = simkit.grid_sheet(3, 3)
    with pytest.raises(ValueError, match=r"^x: face\(s\) \[0\] of zero area"):
        Y = X.copy()
        Y[F[0, 2]] = Y[F[0, 0]]
        contact.has_intersections(Y, F)
    with pytest.raises(ValueError, match=r"^x: expected \(n, 3\) positions, got \(9, 2\)"):
        contact.has_intersections(X[:, :2], F)
    with pytest.raises(ValueError, match=r"^faces: expected indices in \[0, 9\)"):
        contact.has_intersections(X, F + 1)
    with pytest.raises(ValueError, match=r"^bodies: face 0 joins nodes of different bodies"):
        contact.has_intersections(X, F, bodies=np.arange(9))
    with pytest.raises(ValueError, match=r"^states: expected \(N, n, 3\) positions"):
        contact.count_intersections(X, F)
    with pytest.raises(ValueError, match=r"^a, b, c: triangle\(s\) of zero area at \[0\]"):
        contact.edge_triangle_intersect(TRI[:1], TRI[1:2], TRI[:1], TRI[:1], TRI[2:])
