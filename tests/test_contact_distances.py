"""simkit.contact distances: closed forms, central differences, the fast path against the element tier, errors.

(The comparison with the IPC Toolkit is in test_contact_oracle.py.)
"""
import numpy as np
import pytest

import simkit
from simkit import contact
from simkit.contact.edge_edge_distance import _edge_edge
from simkit.contact.point_edge_distance import _point_edge
from simkit.contact.point_point_distance import _point_point
from simkit.contact.point_triangle_distance import _point_triangle

import contact_exact

FD_STEP = 1e-6
GRAD_TOL = 1e-7
HESS_TOL = 1e-6
EXACT = 1e-12

# family -> (public name, batched entry, number of stencil points, dims, number of kinds)
FAMILIES = {
    "point_point": ("point_point_distance", _point_point, 2, (2, 3), 1),
    "point_edge": ("point_edge_distance", _point_edge, 3, (2, 3), 3),
    "point_triangle": ("point_triangle_distance", _point_triangle, 4, (3,), 7),
    "edge_edge": ("edge_edge_distance", _edge_edge, 4, (3,), 9),
}
CASES = [(family, dim) for family, spec in FAMILIES.items() for dim in spec[3]]


def public(family, suffix=""):
    return getattr(contact, FAMILIES[family][0] + suffix)


def random_stencils(family, dim, k, seed):
    return np.random.default_rng(seed).standard_normal((k, FAMILIES[family][2], dim))


def call(f, X):
    return f(*X.transpose(1, 0, 2))


def stencils_inside_their_region(family, dim, per_kind, seed):
    """Random stencils, per_kind of every kind, whose kind does not change within +-FD_STEP of any coordinate."""
    entry, n_kinds = FAMILIES[family][1], FAMILIES[family][4]
    X = random_stencils(family, dim, 400 * n_kinds, seed)
    kind = entry(X, 0).kind
    chosen = []
    for target in range(n_kinds):
        for i in np.flatnonzero(kind == target):
            x = X[i].reshape(-1)
            moved = np.array([x + sign * 10 * FD_STEP * e for e in np.eye(x.size) for sign in (1, -1)])
            if (entry(moved.reshape(-1, *X.shape[1:]), 0).kind == target).all():
                chosen.append(X[i])
                if len(chosen) % per_kind == 0:
                    break
    assert len(chosen) == per_kind * n_kinds, f"not every region of {family} was sampled"
    return np.array(chosen)


# ---------------------------------------------------------------------------------------------
# closed forms
# ---------------------------------------------------------------------------------------------

def test_point_point_closed_form():
    p = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    q = np.array([[1.0, 2.0, 5.0], [3.0, 4.0, 0.0]])
    np.testing.assert_allclose(contact.point_point_distance(p, q), [2.0, 5.0], rtol=EXACT)
    u = np.array([0.0, 0.0, -1.0])
    np.testing.assert_allclose(contact.point_point_distance_gradient(p[:1], q[:1])[0], np.r_[u, -u], atol=EXACT)
    P = (np.eye(3) - np.outer(u, u)) / 2.0
    np.testing.assert_allclose(contact.point_point_distance_hessian(p[:1], q[:1])[0],
                               np.block([[P, -P], [-P, P]]), atol=EXACT)


@pytest.mark.parametrize("dim", [2, 3])
def test_point_edge_regions_closed_form(dim):
    a, b = np.zeros(dim), np.eye(dim)[0] * 2.0
    up = np.eye(dim)[1]
    p = np.array([-0.6 * np.eye(dim)[0] + 0.8 * up,        # beyond a: |p - a| = 1
                  0.7 * np.eye(dim)[0] + 0.5 * up,         # over the interior: the height 0.5
                  2.9 * np.eye(dim)[0],                    # on the edge's line beyond b: 0.9
                  1.5 * np.eye(dim)[0] - 0.25 * up])
    k = len(p)
    A, B = np.tile(a, (k, 1)), np.tile(b, (k, 1))
    np.testing.assert_allclose(contact.point_edge_distance(p, A, B), [1.0, 0.5, 0.9, 0.25], rtol=EXACT)
    np.testing.assert_array_equal(_point_edge(np.stack([p, A, B], axis=1), 0).kind, [0, 2, 1, 2])
    # over the interior the distance is linear in p along the normal: zero Hessian in p
    H = contact.point_edge_distance_hessian(p[1:2], A[1:2], B[1:2])[0]
    if dim == 2:
        np.testing.assert_allclose(H[:dim, :dim], 0.0, atol=EXACT)
    else:   # in 3D, moving p around the edge's axis curves the distance: (1/d) n n^T, n the third axis
        np.testing.assert_allclose(H[:dim, :dim], np.diag([0.0, 0.0, 1 / 0.5]), atol=EXACT)


def test_point_triangle_regions_closed_form():
    a, b, c = np.array([0.0, 0.0, 0.0]), np.array([2.0, 0.0, 0.0]), np.array([0.0, 2.0, 0.0])
    p = np.array([[0.5, 0.5, 0.3],      # over the face: the height
                  [0.0, 0.0, 0.4],      # straight above vertex a: the height, any region's formula
                  [1.5, 1.5, 0.0],      # in the plane, beyond edge bc: distance to the line x + y = 2
                  [-0.3, -0.4, 0.0],    # in the plane beyond a: |p - a|
                  [3.0, 0.0, 0.0],      # on edge ab's line beyond b: |p - b|
                  [1.0, -0.3, -0.4]])   # below edge ab
    k = len(p)
    d = contact.point_triangle_distance(p, *(np.tile(v, (k, 1)) for v in (a, b, c)))
    np.testing.assert_allclose(d, [0.3, 0.4, np.sqrt(0.5), 0.5, 1.0, 0.5], rtol=EXACT)
    kind = _point_triangle(np.stack([p, *(np.tile(v, (k, 1)) for v in (a, b, c))], axis=1), 0).kind
    assert kind[0] == 6 and kind[2] == 4 and kind[3] == 0 and kind[4] == 1 and kind[5] == 3
    # over the face the distance is linear in p: its p-block of the Hessian is exactly zero
    H = contact.point_triangle_distance_hessian(p[:1], a[None], b[None], c[None])[0]
    np.testing.assert_allclose(H[:3, :3], 0.0, atol=EXACT)
    g = contact.point_triangle_distance_gradient(p[:1], a[None], b[None], c[None])[0]
    lam = np.array([0.5, 0.25, 0.25])            # the foot (0.5, 0.5, 0) in barycentric coordinates
    np.testing.assert_allclose(g, np.r_[[0, 0, 1.0], -lam[0] * np.array([0, 0, 1.0]),
                                        -lam[1] * np.array([0, 0, 1.0]), -lam[2] * np.array([0, 0, 1.0])], atol=EXACT)


def test_edge_edge_closed_forms_including_parallel_edges():
    a0, a1 = np.array([0.0, 0.0, 0.0]), np.array([2.0, 0.0, 0.0])
    cases = {
        "perpendicular, over the interiors": ([0.5, -1.0, 0.3], [0.5, 1.0, 0.3], 0.3, 8),
        "parallel, overlapping": ([0.5, 0.0, 0.7], [3.0, 0.0, 0.7], 0.7, None),
        "parallel, disjoint along the line": ([3.0, 0.4, 0.0], [5.0, 0.4, 0.0], np.hypot(1.0, 0.4), 2),
        "collinear, apart": ([2.5, 0.0, 0.0], [4.0, 0.0, 0.0], 0.5, 2),
        "skew, end points closest": ([-1.0, 0.0, 1.0], [-1.0, 2.0, 3.0], np.sqrt(2.0), 0),
        "b0 over A's interior": ([1.2, 0.0, 0.6], [1.2, 1.0, 2.0], 0.6, 4),
    }
    b0 = np.array([c[0] for c in cases.values()])
    b1 = np.array([c[1] for c in cases.values()])
    k = len(cases)
    A0, A1 = np.tile(a0, (k, 1)), np.tile(a1, (k, 1))
    d = contact.edge_edge_distance(A0, A1, b0, b1)
    np.testing.assert_allclose(d, [c[2] for c in cases.values()], rtol=EXACT)
    kind = _edge_edge(np.stack([A0, A1, b0, b1], axis=1), 0).kind
    for i, c in enumerate(cases.values()):
        if c[3] is not None:
            assert kind[i] == c[3], list(cases)[i]
    assert kind[1] != 8                              # parallel edges never use the interior pair
    for f in (contact.edge_edge_distance_gradient, contact.edge_edge_distance_hessian):
        assert np.isfinite(f(A0, A1, b0, b1)).all()


@pytest.mark.parametrize("angle", [1e-2, 1e-5, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-13, 0.0])
def test_nearly_parallel_edges_are_exact_to_round_off(angle):
    """Over the interiors of two edges at a tiny angle, rotated and far from the origin: the exact distance."""
    rng = np.random.default_rng(int(-np.log10(angle)) if angle else 99)
    X = []
    for gap in (1e-1, 1e-3, 1e-6, 1e-9):
        for _ in range(6):
            R = np.linalg.qr(rng.standard_normal((3, 3)))[0]
            b0 = np.array([0.3 - 0.4 * rng.uniform(), 0.0, gap])
            b1 = b0 + 0.9 * np.array([np.cos(angle), np.sin(angle), 0.0])
            X.append(np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], b0, b1]) @ R.T + 3.0)
    X = np.array(X)
    d = call(contact.edge_edge_distance, X)
    exact = np.array([contact_exact.edge_edge(*x) for x in X])
    np.testing.assert_allclose(d, exact, rtol=0, atol=8 * np.finfo(float).eps * 4.0)
    assert np.isfinite(call(contact.edge_edge_distance_gradient, X)).all()
    assert np.isfinite(call(contact.edge_edge_distance_hessian, X)).all()


@pytest.mark.parametrize("family, dim", CASES)
def test_adversarial_stencils_are_exact_to_round_off(family, dim):
    """Parallel edges, points on lines, over vertices, nearly touching; tiny and far from the origin."""
    X = contact_exact.adversarial_stencils(family, dim, np.random.default_rng(2))
    exact = np.array([getattr(contact_exact, family)(*x) for x in X])
    size = np.abs(X).max(axis=(1, 2))
    d = call(public(family), X)
    assert (np.abs(d - exact) <= 8 * np.finfo(float).eps * size).all()
    assert np.isfinite(call(public(family, "_hessian"), X[d > 0])).all()


@pytest.mark.parametrize("family, dim", CASES)
def test_distance_is_invariant_under_rigid_motions_far_from_the_origin(family, dim):
    X = random_stencils(family, dim, 200, 7)
    R = np.linalg.qr(np.random.default_rng(8).standard_normal((dim, dim)))[0]
    moved = X @ R.T + 1e3
    d, dm = call(public(family), X), call(public(family), moved)
    np.testing.assert_allclose(dm, d, rtol=0, atol=50 * np.finfo(float).eps * 1e3)
    g, gm = call(public(family, "_gradient"), X), call(public(family, "_gradient"), moved)
    m = FAMILIES[family][2]
    np.testing.assert_allclose(gm.reshape(-1, m, dim), g.reshape(-1, m, dim) @ R.T, atol=1e-9)


# ---------------------------------------------------------------------------------------------
# central differences, in every region
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("family, dim", CASES)
def test_gradient_and_hessian_match_central_differences_in_every_region(family, dim):
    X = stencils_inside_their_region(family, dim, per_kind=3, seed=11)
    m = FAMILIES[family][2]
    for x in X:
        f = lambda y: call(public(family), y.reshape(1, m, dim))[0]
        grad = lambda y: call(public(family, "_gradient"), y.reshape(1, m, dim))[0]
        g, H = grad(x.reshape(-1)), call(public(family, "_hessian"), x[None])[0]
        np.testing.assert_allclose(g, simkit.gradient_cfd(f, x.reshape(-1), FD_STEP), rtol=GRAD_TOL,
                                   atol=GRAD_TOL * np.abs(g).max())
        np.testing.assert_allclose(H, simkit.gradient_cfd(grad, x.reshape(-1), FD_STEP), rtol=HESS_TOL,
                                   atol=HESS_TOL * np.abs(H).max())
        np.testing.assert_allclose(H, H.T, atol=EXACT * np.abs(H).max())
        np.testing.assert_allclose(g.reshape(m, dim).sum(axis=0), 0.0, atol=EXACT)      # translation invariance


@pytest.mark.parametrize("family, dim", CASES)
def test_fast_path_matches_the_element_tier(family, dim):
    X = random_stencils(family, dim, 300, 21)
    d, g, H = (call(public(family, s), X) for s in ("", "_gradient", "_hessian"))
    kinds = FAMILIES[family][1](X, 0).kind
    assert np.unique(kinds).size == FAMILIES[family][4]          # every region is exercised
    for i, x in enumerate(X):
        de, ge, He = public(family, "_element")(*x)
        assert de == pytest.approx(d[i], rel=EXACT)
        np.testing.assert_allclose(ge, g[i], atol=EXACT * 10)
        np.testing.assert_allclose(He, H[i], atol=1e-10 * np.abs(He).max())


def test_batched_entry_returns_everything_the_collision_set_needs_in_one_pass():
    X = random_stencils("point_triangle", 3, 50, 31)
    c = _point_triangle(X, 2)
    r = np.einsum("km,kmd->kd", c.weights, X)                   # the shortest vector from the weights
    np.testing.assert_allclose(np.linalg.norm(r, axis=1), c.distance, rtol=EXACT)
    np.testing.assert_allclose(c.normal, r / c.distance[:, None], rtol=EXACT)
    np.testing.assert_allclose(c.weights.sum(axis=1), 0.0, atol=EXACT)
    np.testing.assert_allclose(c.gradient, call(contact.point_triangle_distance_gradient, X), rtol=EXACT)
    np.testing.assert_allclose(c.hessian, call(contact.point_triangle_distance_hessian, X), rtol=EXACT)
    assert _point_triangle(X, 0).gradient is None and _point_triangle(X, 1).hessian is None
    Phi, K = c.factors                                          # the Hessian as a rank-4 product
    assert Phi.shape == (50, 12, 4) and K.shape == (50, 4, 4)
    np.testing.assert_array_equal(K, K.transpose(0, 2, 1))
    np.testing.assert_allclose(Phi @ K @ Phi.transpose(0, 2, 1), c.hessian, rtol=EXACT, atol=EXACT)
    light = _point_triangle(X, 2, dense=False)
    assert light.hessian is None and np.array_equal(light.factors[1], K)


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------

def test_errors_name_the_argument_and_the_stencils():
    P = np.zeros((2, 3))
    Q = np.ones((2, 3))
    T = [np.zeros((2, 3)), np.array([[1.0, 0, 0], [1, 0, 0]]), np.array([[0.0, 1, 0], [2, 0, 0]])]
    with pytest.raises(ValueError, match=r"^a, b, c: triangle of zero area at stencil\(s\) \[1\]"):
        contact.point_triangle_distance(Q, *T)
    with pytest.raises(ValueError, match=r"^b0, b1: edge of zero length at stencil\(s\) \[0, 1\]"):
        contact.edge_edge_distance(P, Q, Q, Q)
    with pytest.raises(ValueError, match=r"^a, b: edge of zero length"):
        contact.point_edge_distance(Q, P, P)
    with pytest.raises(ValueError, match=r"^q: expected the shape of p, \(2, 3\), got \(3, 3\)"):
        contact.point_point_distance(P, np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"^p: expected k points of shape \(k, dim\) with dim in \(3,\), got "
                                         r"shape \(3,\) \(one point: p\[None\]\)"):
        contact.point_triangle_distance(np.zeros(3), *T)
    with pytest.raises(ValueError, match=r"^a: expected k points .* dim in \(2, 3\)"):
        contact.point_edge_distance(np.zeros((2, 3)), np.zeros((2, 4)), np.ones((2, 4)))
    with pytest.raises(ValueError, match=r"^b: expected finite values, found nan"):
        contact.point_edge_distance(P, Q, np.full((2, 3), np.nan))
    with pytest.raises(TypeError, match=r"^p: expected a real numeric array"):
        contact.point_point_distance("ab", Q)
    with pytest.raises(ValueError, match=r"^p, q: the primitives touch \(distance 0\) at stencil\(s\) \[1\]"):
        contact.point_point_distance_gradient(np.array([[0.0, 1.0], [2.0, 2.0]]), np.array([[0.0, 0.0], [2.0, 2.0]]))
    with pytest.raises(ValueError, match=r"^p, a, b, c: the primitives touch"):
        contact.point_triangle_distance_hessian(np.array([[0.2, 0.2, 0.0]]), np.zeros((1, 3)),
                                                np.array([[1.0, 0, 0]]), np.array([[0.0, 1, 0]]))
    with pytest.raises(ValueError, match=r"^a0, a1, b0, b1: the primitives touch"):
        contact.edge_edge_distance_gradient(np.array([[-1.0, 0, 0]]), np.array([[1.0, 0, 0]]),
                                            np.array([[0.0, -1, 0]]), np.array([[0.0, 1, 0]]))
    with pytest.raises(ValueError, match=r"^b: expected one point of shape \(dim,\)"):
        contact.point_edge_distance_element(np.zeros(3), np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match=r"^p, a, b: the primitives touch"):
        contact.point_edge_distance_element(np.zeros(2), np.array([-1.0, 0]), np.array([1.0, 0]))
    # the distance itself is defined where the primitives touch
    assert contact.point_point_distance(P, P).tolist() == [0.0, 0.0]
