"""simkit.contact against the IPC Toolkit (ipctk 1.6.1, tests/requirements-oracle.lock), on random and adversarial stencils.

ipctk's distances are squared: d = sqrt(D), grad d = grad D / (2 d), and
hess d = hess D / (2 d) - grad D grad D^T / (4 d^3).
"""
import ipctk
import numpy as np
import pytest

from simkit import contact
from simkit.contact.edge_edge_distance import _edge_edge
from simkit.contact.point_edge_distance import _point_edge
from simkit.contact.point_triangle_distance import _point_triangle

import contact_exact

EXACT = 1e-12
ORACLE = {   # family -> (ours, batched entry, ipctk's name, stencil size, dims)
    "point_point": (contact.point_point_distance, None, "point_point_distance", 2, (2, 3)),
    "point_edge": (contact.point_edge_distance, _point_edge, "point_edge_distance", 3, (2, 3)),
    "point_triangle": (contact.point_triangle_distance, _point_triangle, "point_triangle_distance", 4, (3,)),
    "edge_edge": (contact.edge_edge_distance, _edge_edge, "edge_edge_distance", 4, (3,)),
}
CASES = [(family, dim) for family, spec in ORACLE.items() for dim in spec[4]]


def ipctk_unsquared(name, X):
    """ipctk's distance, type, gradient and Hessian of the unsquared distance, stencil by stencil."""
    D = np.array([getattr(ipctk, name)(*x) for x in X])
    gD = np.array([getattr(ipctk, name + "_gradient")(*x) for x in X])
    HD = np.array([getattr(ipctk, name + "_hessian")(*x) for x in X])
    d = np.sqrt(D)
    g = gD / (2 * d[:, None])
    H = HD / (2 * d[:, None, None]) - gD[:, :, None] * gD[:, None, :] / (4 * d[:, None, None] ** 3)
    kind = (np.array([int(getattr(ipctk, name + "_type")(*x).value) for x in X]) if name != "point_point_distance"
            else np.zeros(len(X), dtype=int))
    return d, kind, g, H


@pytest.mark.parametrize("family, dim", CASES)
def test_distances_types_and_derivatives_agree_with_ipctk_on_random_stencils(family, dim):
    ours, entry, name, m, _ = ORACLE[family]
    X = np.random.default_rng(1).standard_normal((600, m, dim))
    d, kind, g, H = ipctk_unsquared(name, X)
    args = X.transpose(1, 0, 2)
    np.testing.assert_allclose(ours(*args), d, rtol=1e-13)
    if entry is not None:
        np.testing.assert_array_equal(entry(X, 0).kind, kind)
    grad = getattr(contact, ORACLE[family][2] + "_gradient")(*args)
    hess = getattr(contact, ORACLE[family][2] + "_hessian")(*args)
    np.testing.assert_allclose(grad, g, atol=1e-11)
    scale = np.abs(H).max(axis=(1, 2))[:, None, None]
    assert (np.abs(hess - H) <= 1e-9 * scale + 1e-12).all()


@pytest.mark.parametrize("family, dim", CASES)
def test_distances_agree_with_ipctk_on_adversarial_stencils(family, dim):
    """Parallel edges, points on lines, over vertices, nearly touching; tiny and far from the origin.

    ipctk computes squared distances, with round-off of the order of eps times the stencil's size
    squared, and round-off in the coordinates, not in the differences (it is less accurate far from
    the origin): they are compared squared, relative to the coordinates' size;
    test_contact_distances checks ours against exact distances.
    """
    ours, entry, name, m, _ = ORACLE[family]
    X = contact_exact.adversarial_stencils(family, dim, np.random.default_rng(2))
    D = np.array([getattr(ipctk, name)(*x) for x in X])
    size = np.abs(X).max(axis=(1, 2))
    d = ours(*X.transpose(1, 0, 2))
    assert (np.abs(d ** 2 - D) <= 1e-13 * size ** 2).all()


def test_point_edge_and_point_triangle_regions_agree_with_ipctk_away_from_region_borders():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((2000, 4, 3))
    ours = _point_triangle(X, 0).kind
    theirs = np.array([int(ipctk.point_triangle_distance_type(*x).value) for x in X])
    np.testing.assert_array_equal(ours, theirs)
    X = rng.standard_normal((2000, 4, 3))
    ours = _edge_edge(X, 0).kind
    theirs = np.array([int(ipctk.edge_edge_distance_type(*x).value) for x in X])
    np.testing.assert_array_equal(ours, theirs)


def test_mollifier_and_its_threshold_agree_with_ipctk():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((400, 4, 3))
    X[:250, 3] = X[:250, 2] + (X[:250, 1] - X[:250, 0]) * rng.uniform(0.5, 2, (250, 1)) \
        + 0.03 * rng.standard_normal((250, 3))                  # nearly parallel: the mollifier acts
    rest = rng.standard_normal((400, 4, 3))
    eps = contact.edge_edge_mollifier_threshold(*rest.transpose(1, 0, 2))
    np.testing.assert_allclose(eps, [ipctk.edge_edge_mollifier_threshold(*x) for x in rest], rtol=1e-14)
    args = (*X.transpose(1, 0, 2), eps)
    m = contact.edge_edge_mollifier(*args)
    assert 100 < (m < 1).sum() < 400
    np.testing.assert_allclose(m, [ipctk.edge_edge_mollifier(*x, e) for x, e in zip(X, eps)], atol=1e-13)
    g = np.array([ipctk.edge_edge_mollifier_gradient(*x, e) for x, e in zip(X, eps)])
    np.testing.assert_allclose(contact.edge_edge_mollifier_gradient(*args), g, atol=1e-12 * np.abs(g).max())
    H = np.array([ipctk.edge_edge_mollifier_hessian(*x, e) for x, e in zip(X, eps)])
    np.testing.assert_allclose(contact.edge_edge_mollifier_hessian(*args), H, atol=1e-12 * np.abs(H).max())


CCD = {   # family -> (ours, TightInclusionCCD method, stencil size, dim)
    "point_triangle": (contact.point_triangle_ccd, "point_triangle_ccd", 4, 3),
    "edge_edge": (contact.edge_edge_ccd, "edge_edge_ccd", 4, 3),
    "point_edge": (contact.point_edge_ccd, "point_edge_ccd", 3, 2),
}


@pytest.mark.parametrize("family", CCD)
def test_ccd_is_a_tight_lower_bound_of_ipctks_tight_inclusion_ccd(family):
    """Random linear motions: never later than ipctk's time of impact (tolerance 1e-9), at least 0.8 of it."""
    ours, method, m, dim = CCD[family]
    rng = np.random.default_rng(5)
    X0 = rng.standard_normal((2000, m, dim))
    X1 = X0 + 1.5 * rng.standard_normal((2000, m, dim))
    t = ours(*X0.transpose(1, 0, 2), *X1.transpose(1, 0, 2))
    tight = ipctk.TightInclusionCCD(1e-9, 10 ** 7, 1.0)
    ref = np.array([(lambda hit, toi: toi if hit else np.inf)(*getattr(tight, method)(*x0, *x1))
                    for x0, x1 in zip(X0, X1)])
    hit = np.isfinite(ref)
    assert hit.sum() > 100
    assert np.isfinite(t[hit]).all(), "a collision ipctk finds is missed"
    assert (t[hit] <= ref[hit] + 1e-8).all()
    assert (t[hit] >= 0.8 * ref[hit]).all()
    assert np.median(t[hit] / ref[hit]) > 0.98


def test_ccd_is_tighter_than_ipctks_additive_ccd():
    rng = np.random.default_rng(6)
    X0 = rng.standard_normal((2000, 4, 3))
    X1 = X0 + 1.5 * rng.standard_normal((2000, 4, 3))
    t = contact.point_triangle_ccd(*X0.transpose(1, 0, 2), *X1.transpose(1, 0, 2))
    additive = ipctk.AdditiveCCD(10 ** 7, 0.9)
    ref = np.array([(lambda hit, toi: toi if hit else np.inf)(*additive.point_triangle_ccd(*x0, *x1))
                    for x0, x1 in zip(X0, X1)])
    hit = np.isfinite(ref) & np.isfinite(t)
    assert hit.sum() > 80
    assert np.median(t[hit] / ref[hit]) > 1.05


def test_edge_triangle_intersection_agrees_with_ipctk_including_near_ties():
    """Generic stencils, and stencils 1e-14 from touching (exact ties themselves differ: ipctk does not
    count every touching contact, ours does; test_contact_intersections checks those in exact arithmetic)."""
    rng = np.random.default_rng(7)
    ties = rng.integers(-2, 3, size=(3000, 5, 3)).astype(float) / 2.0
    X = np.concatenate([rng.standard_normal((3000, 5, 3)), ties + 1e-14 * rng.standard_normal(ties.shape)])
    area = np.linalg.norm(np.cross(X[:, 3] - X[:, 2], X[:, 4] - X[:, 2]), axis=1)
    X = X[area > 1e-6]
    ours = contact.edge_triangle_intersect(*X.transpose(1, 0, 2))
    theirs = np.array([ipctk.is_edge_intersecting_triangle(*x) for x in X])
    np.testing.assert_array_equal(ours, theirs)
    assert 300 < ours.sum() < len(X) - 300


def test_mesh_states_agree_with_ipctks_has_intersections():
    import simkit
    X, F = simkit.grid_sheet(12, 12)
    E = ipctk.edges(F)
    rng = np.random.default_rng(8)
    verdicts = []
    for noise in np.repeat([0.0, 0.01, 0.03, 0.06, 0.1], 6):
        Y = X + noise * rng.standard_normal(X.shape)
        Y[:, 1] += 0.3 * np.sin(4 * X[:, 0])
        theirs = ipctk.has_intersections(ipctk.CollisionMesh(Y, E, F), Y)
        assert contact.has_intersections(Y, F) == theirs
        verdicts.append(theirs)
    assert 3 <= sum(verdicts) <= len(verdicts) - 3
