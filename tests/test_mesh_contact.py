"""MeshContact: derivatives against central differences, the Gauss-Newton Hessian, weights, parallel rods, caching,
2D, errors."""
import numpy as np
import pytest
import scipy.sparse as sps
from scipy.optimize import brentq

import simkit
from simkit import contact
from simkit import energies as en
from simkit.contact import collisions as collision_sets
from simkit.integrators import simulate
from simkit.terms import Held, SpringBody, Sum
from simkit.terms.mesh_contact import MeshContact

import segment_contact_reference as reference
from mesh_contact_scenes import D_HAT, crossing_rods, folded_sheet, parallel_rods, point_over_face, two_sheets

FD_STEP = 1e-8          # positions are ~1e-2, distances ~1e-3
GRAD_TOL = 1e-6
HESS_TOL = 1e-5
EXACT = 1e-12
KAPPA = 7.0

SCENES = {
    "sheets": lambda: two_sheets(m=3),
    "sheets vertex over vertex": lambda: two_sheets(m=3, shift=0.0, seed=1),
    "folded": lambda: folded_sheet(m=3),
}


def scene_term(name, **kw):
    X, F, E = SCENES[name]()
    w = np.random.default_rng(3).uniform(0.5, 2.0, len(X))
    return X, MeshContact(X, D_HAT, KAPPA, edges=E, faces=F, weight=w, **kw)


def away_from_region_borders(collisions, margin=1e-4):
    """No closest point within `margin` (in barycentric terms) of its region's border, where the Hessian jumps."""
    c = np.concatenate([np.abs(g.coefficients).reshape(-1) for g in collisions.groups])
    return not ((c > 0) & (c < margin)).any()


def central_gradient(f, x, h=FD_STEP):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)])


@pytest.mark.parametrize("name", SCENES)
def test_gradient_and_exact_hessian_match_central_differences(name):
    X, term = scene_term(name, psd=False)
    x = X.reshape(-1)
    groups = {g.name for g in term.collisions(x).groups}
    assert away_from_region_borders(term.collisions(x)), "central differences would straddle a region border"
    g = term.gradient(x)[:, 0]
    np.testing.assert_allclose(g, central_gradient(term.energy, x), rtol=GRAD_TOL, atol=GRAD_TOL * np.abs(g).max())
    H = term.hessian(x).toarray()
    fd = central_gradient(lambda y: term.gradient(y)[:, 0], x)
    np.testing.assert_allclose(H, fd, rtol=HESS_TOL, atol=HESS_TOL * np.abs(H).max())
    np.testing.assert_array_equal(H, H.T)
    assert np.linalg.eigvalsh(H).min() < -1e-3 * np.abs(H).max(), "the exact Hessian is indefinite here"
    expected = {"point-edge", "point-triangle", "edge-edge", "edge-edge (mollified)"}
    assert expected <= groups and ("point-point" in groups) == (name != "sheets")


def test_every_collision_group_is_exercised():
    groups = set()
    for name in SCENES:
        groups |= {g.name for g in scene_term(name)[1].collisions(scene_term(name)[0]).groups}
    assert groups == {"point-point", "point-edge", "point-triangle", "edge-edge", "edge-edge (mollified)"}


@pytest.mark.parametrize("name", SCENES)
def test_gauss_newton_hessian_is_psd_and_symmetric(name):
    X, term = scene_term(name)
    P = term.hessian(X.reshape(-1, 1))
    assert sps.isspmatrix_csc(P) and P.has_sorted_indices
    P = P.toarray()
    np.testing.assert_allclose(P, P.T, rtol=0, atol=EXACT * np.abs(P).max())
    assert np.linalg.eigvalsh(P).min() > -1e-10 * np.abs(P).max()


def test_both_assemblies_of_the_gauss_newton_hessian_agree(monkeypatch):
    """Small sets go through a cached pattern of dense blocks, large ones through the product W W^T."""
    from simkit.contact import barrier_potential
    X, F, E = two_sheets(m=5)
    term = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F)
    x = X.reshape(-1, 1)
    assert len(term.collisions(x)) > 100 and len(term.collisions(x).groups) == 4
    monkeypatch.setattr(barrier_potential, "FEW_COLLISIONS", 0)
    product = term.hessian(x)
    monkeypatch.setattr(barrier_potential, "FEW_COLLISIONS", 10 ** 6)
    blocks = term.hessian(x)
    assert product.has_sorted_indices and blocks.has_sorted_indices
    np.testing.assert_allclose(product.toarray(), blocks.toarray(), rtol=0, atol=1e-12 * abs(blocks).max())


def test_gauss_newton_of_a_point_point_pair_is_the_eigenvalue_clamp_of_the_exact_block():
    X = np.array([[0.0, 0.0, 0.0], [0.3, 0.0, 0.1], [0.1, 0.0, 0.4],
                  [-1e-3, 2e-3, -1e-3], [-0.3, 0.2, 0.1], [0.05, 0.3, -0.4]])
    F = np.array([[0, 1, 2], [3, 4, 5]])
    kw = dict(edges=simkit.edges(F), faces=F, weight=1.5)
    x = X.reshape(-1, 1)
    term = MeshContact(X, D_HAT, KAPPA, **kw)
    assert [g.name for g in term.collisions(x).groups] == ["point-point"]
    H = MeshContact(X, D_HAT, KAPPA, psd=False, **kw).hessian(x).toarray()
    lam, Q = np.linalg.eigh(H)
    clamp = (Q * np.maximum(lam, 0.0)) @ Q.T
    np.testing.assert_allclose(term.hessian(x).toarray(), clamp, atol=1e-9 * np.abs(clamp).max())


def test_gauss_newton_keeps_the_exact_block_of_a_point_over_a_face():
    X, F, E = point_over_face()
    x = X.reshape(-1, 1)
    P = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F).hessian(x).toarray()[:3, :3]
    H = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F, psd=False).hessian(x).toarray()[:3, :3]
    np.testing.assert_allclose(P, H, rtol=1e-12, atol=1e-12 * np.abs(H).max())     # d is linear in p there


def test_weights_point_triangle_by_its_point_edge_edge_by_the_mean_of_four():
    X, F, E = point_over_face(height=1.5e-3)
    w = np.array([2.5, 1.0, 1.0, 1.0, 7.0, 7.0])
    term = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F, weight=w)
    b = en.ipc_barrier_energy(np.array([1.5e-3]), D_HAT).item()
    np.testing.assert_allclose(term.energy(X.reshape(-1, 1)), KAPPA * 2.5 * b, rtol=EXACT)
    X, E = crossing_rods(gap=1e-3)
    w = np.array([1.0, 2.0, 3.0, 6.0])
    term = MeshContact(X, D_HAT, KAPPA, edges=E, weight=w)
    b = en.ipc_barrier_energy(np.array([1e-3]), D_HAT).item()
    np.testing.assert_allclose(term.energy(X.reshape(-1, 1)), KAPPA * 3.0 * b, rtol=1e-10)
    # a scalar weight is every vertex's
    np.testing.assert_allclose(MeshContact(X, D_HAT, KAPPA, edges=E, weight=2.0).energy(X.reshape(-1, 1)),
                               KAPPA * 2.0 * b, rtol=1e-10)


def test_near_parallel_edges_are_mollified():
    angle = 0.01                                                   # c = (0.8 sin)^2 ~ 6.4e-5 < eps_x = 6.4e-4
    X, E = crossing_rods(angle=angle, gap=1e-3)
    term = MeshContact(X, D_HAT, KAPPA, edges=E)
    collisions = term.collisions(X.reshape(-1, 1))
    assert [g.name for g in collisions.groups] == ["edge-edge (mollified)"]
    eps_x = contact.edge_edge_mollifier_threshold(*X[:, None])
    m = contact.edge_edge_mollifier(*X[:, None], eps_x).item()
    d = contact.edge_edge_distance(*X[:, None]).item()
    assert 0.0 < m < 1.0
    np.testing.assert_allclose(term.energy(X.reshape(-1, 1)),
                               KAPPA * m * en.ipc_barrier_energy(np.array([d]), D_HAT).item(), rtol=EXACT)


def without_rod_points(monkeypatch):
    """The bug the rods' point-edge pairs guard against: edge pairs only, as for a surface."""
    monkeypatch.setattr(collision_sets, "_rod_point_edge", lambda mesh, edge_edge: np.zeros((0, 3), dtype=np.int64))


def test_parallel_rods_keep_their_barrier_through_their_end_points(monkeypatch):
    """Exactly parallel rods: the mollifier is 0 on every edge pair, and each end point over the other rod's
    interior (B's 0.3 and 0.8 over A, A's 0.5 and 1.0 over B) is a point-edge pair at the gap, of its own weight."""
    gap = 1e-3
    X, E = parallel_rods(gap=gap, shift=0.3, n=3)
    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    term = MeshContact(X, D_HAT, KAPPA, edges=E, weight=w)
    x = X.reshape(-1, 1)
    collisions = term.collisions(x)
    assert {g.name for g in collisions.groups} == {"point-edge", "edge-edge (mollified)"}
    over = [1, 2, 3, 4]                                             # A's 0.5, 1.0 and B's 0.3, 0.8
    np.testing.assert_array_equal(np.sort(collisions.group("point-edge").nodes[:, 0]), over)
    b = en.ipc_barrier_energy(np.array([gap]), D_HAT).item()
    np.testing.assert_allclose(term.energy(x), KAPPA * w[over].sum() * b, rtol=EXACT)
    push = -KAPPA * en.ipc_barrier_gradient(np.array([gap]), D_HAT).item()    # per unit weight, > 0
    force = -term.gradient(x).reshape(-1, 3)
    np.testing.assert_allclose(force[3:, 1].sum(), push * w[over].sum(), rtol=1e-10)   # B pushed up ...
    np.testing.assert_allclose(force[:3, 1].sum(), -push * w[over].sum(), rtol=1e-10)  # ... and A down
    with monkeypatch.context() as patch:
        without_rod_points(patch)
        bare = MeshContact(X, D_HAT, KAPPA, edges=E, weight=w)
        assert bare.energy(x) == 0.0 and not bare.gradient(x).any()    # the mollified edge pairs alone fade to 0


def test_rod_pairs_come_only_from_free_edges_and_listed_points():
    X, E = parallel_rods(gap=1e-3, shift=0.3, n=3)
    listed = MeshContact(X, D_HAT, KAPPA, edges=E, points=[0, 1, 2])       # B's vertices do not touch as points
    np.testing.assert_array_equal(np.sort(listed.collisions(X.reshape(-1, 1)).group("point-edge").nodes[:, 0]), [1, 2])
    fixed = MeshContact(X, D_HAT, KAPPA, edges=E, fixed=np.arange(6))     # nothing moves: no pair at all
    assert len(fixed.collisions(X.reshape(-1, 1))) == 0
    # a sheet's edges are on faces: its collision set is the plain IPC one (compared with ipctk in its oracle test)
    Xs, F, Es = two_sheets(m=3)
    assert not MeshContact(Xs, D_HAT, KAPPA, edges=Es, faces=F).mesh.free_edges.any()


def test_nearly_parallel_rods_gradient_and_exact_hessian_match_central_differences():
    X, E = parallel_rods(gap=1.2e-3, shift=0.3, n=3, tilt=2e-3)
    X = X + 1e-5 * np.random.default_rng(5).standard_normal(X.shape)
    w = np.random.default_rng(6).uniform(0.5, 2.0, len(X))
    term = MeshContact(X, D_HAT, KAPPA, edges=E, weight=w, psd=False)
    x = X.reshape(-1)
    assert {g.name for g in term.collisions(x).groups} == {"point-edge", "edge-edge (mollified)"}
    g = term.gradient(x)[:, 0]
    np.testing.assert_allclose(g, central_gradient(term.energy, x), rtol=GRAD_TOL, atol=GRAD_TOL * np.abs(g).max())
    H = term.hessian(x).toarray()
    fd = central_gradient(lambda y: term.gradient(y)[:, 0], x)
    np.testing.assert_allclose(H, fd, rtol=HESS_TOL, atol=HESS_TOL * np.abs(H).max())


def rod_on_a_parallel_rod(kappa=1000.0, gravity=9.8, rho=1.5, steps=6):
    """A 0.6 m rod (one edge, a stiff spring) lying on a fixed 1 m rod, parallel and centred over it, settled by
    long backward Euler steps from rest: (its nodes' heights above the support, unconverged steps, its end mass).
    The rod is held in its vertical plane (z): balanced on a single rod it would roll off sideways."""
    X = np.array([[0.2, 2e-3, 0.0], [0.8, 2e-3, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    E = np.array([[0, 1], [2, 3]])
    body = SpringBody(X, E[:1], ym=1e5, rho=rho, a=-gravity)
    weight = np.where(body.mass > 0, body.mass, body.mass.max())
    barrier = MeshContact(X, D_HAT, kappa, edges=E, weight=weight, fixed=[2, 3], psd="project")
    held = Held(Sum(body, barrier), X, [2, 5, *range(6, 12)])
    M = held.project(sps.diags(np.repeat(body.mass, 3)).tocsc())
    run = simulate(held, M, X.reshape(-1, 1)[held.free], 1.0, steps, tolerance=1e-10, max_iter=40,
                   step_norm=lambda dx: np.abs(dx).max())
    return run.states[-1].reshape(-1, 3)[:2, 1], run.unconverged, body.mass[0]


def test_a_rod_rests_on_a_parallel_rod_at_the_gap_its_end_points_hold(monkeypatch):
    """Each end of the rod is a point over the support's interior carrying its own weight, w g = -kappa w b'(d):
    the rest gap solves -b'(d) = g / kappa. Without the rods' point-edge pairs the rod sinks onto the support."""
    kappa, gravity = 1000.0, 9.8
    closed = brentq(lambda d: -en.ipc_barrier_gradient(np.array([d]), D_HAT).item() - gravity / kappa,
                    1e-12 * D_HAT, D_HAT * (1 - 1e-12), xtol=1e-16, rtol=1e-15)
    heights, unconverged, _ = rod_on_a_parallel_rod(kappa, gravity)
    assert unconverged == 0
    np.testing.assert_allclose(heights, closed, rtol=1e-6)
    with monkeypatch.context() as patch:
        without_rod_points(patch)
        try:                                  # the CCD alone stops it, within round-off of touching, or fails to
            heights, unconverged, _ = rod_on_a_parallel_rod(kappa, gravity)
            sank = unconverged > 0 or np.abs(heights / closed - 1).max() > 1e-2
        except ValueError as error:
            sank = "touch at the start of the step" in str(error)
    assert sank


def test_the_reduction_merges_equal_stencils_and_keeps_the_original_sum():
    """Vertex over vertex: a pair measured by six triangles and many edge pairs is one point-point stencil."""
    X, F, E = two_sheets(m=4, shift=0.0, noise=0.0)
    term = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F)
    collisions = term.collisions(X.reshape(-1, 1))
    vv = collisions.group("point-point")
    assert len(np.unique(np.sort(vv.nodes, axis=1), axis=0)) == len(vv) > 0
    # the original sum, pair by pair, from the mesh's candidates
    pf, ee = term.mesh.candidates(X, D_HAT)
    d_pt = contact.point_triangle_distance(X[pf[:, 0]], *(X[F[pf[:, 1], i]] for i in range(3)))
    a, b = E[ee[:, 0]], E[ee[:, 1]]
    d_ee = contact.edge_edge_distance(X[a[:, 0]], X[a[:, 1]], X[b[:, 0]], X[b[:, 1]])
    eps_x = contact.edge_edge_mollifier_threshold(X[a[:, 0]], X[a[:, 1]], X[b[:, 0]], X[b[:, 1]])
    m = contact.edge_edge_mollifier(X[a[:, 0]], X[a[:, 1]], X[b[:, 0]], X[b[:, 1]], eps_x)
    total = KAPPA * (en.ipc_barrier_energy(d_pt, D_HAT).sum() + (m * en.ipc_barrier_energy(d_ee, D_HAT)[:, 0]).sum())
    np.testing.assert_allclose(term.energy(X.reshape(-1, 1)), total, rtol=1e-12)
    assert len(collisions) < (d_pt < D_HAT).sum() + (d_ee < D_HAT).sum() / 3


def test_the_collision_set_is_built_once_per_iterate_and_never_stale(monkeypatch):
    X, term = scene_term("sheets")
    built = []
    real = simkit.terms.mesh_contact.build_collisions
    monkeypatch.setattr(simkit.terms.mesh_contact, "build_collisions", lambda *a: built.append(1) or real(*a))
    x = X.reshape(-1, 1).copy()
    e, g = term.energy(x), term.gradient(x)
    term.hessian(x)
    term.friction_frame(x)
    assert len(built) == 1
    x[5, 0] += 1e-4                                               # the same array, changed in place
    e2 = term.energy(x)
    assert len(built) == 2 and e2 != e
    term.gradient(x.copy())
    assert len(built) == 2
    np.testing.assert_array_equal(term.gradient(X.reshape(-1, 1)), g)
    assert len(built) == 3


def test_touching_primitives_give_infinite_energy_and_errors_that_name_them():
    X = np.array([[0.25, 0.0, 0.25], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.25, 1.0, 0.25],
                  [0.5, 1.0, 0.25]])                         # vertex 0 exactly on the face (1, 2, 3)
    F = np.array([[1, 2, 3], [0, 4, 5]])
    E = simkit.edges(F)
    term = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F)
    x = X.reshape(-1, 1)
    assert term.energy(x) == np.inf
    for method in (term.gradient, term.hessian, term.friction_frame):
        with pytest.raises(ValueError, match=r"^x: vertex and triangle \(p, a, b, c\) \(0, 1, 2, 3\) touch"):
            method(x)
    X, E = np.array([[0.0, 0, 0], [1, 0, 0], [0.5, 0, -0.5], [0.5, 0, 0.5]]), np.array([[0, 1], [2, 3]])
    with pytest.raises(ValueError, match=r"^x: edges \(a0, a1, b0, b1\) \(0, 1, 2, 3\) touch"):
        MeshContact(X, D_HAT, KAPPA, edges=E).gradient(X.reshape(-1, 1))


def test_no_collision_gives_exact_zeros():
    X, E = crossing_rods(gap=0.1)
    term = MeshContact(X, D_HAT, KAPPA, edges=E)
    x = X.reshape(-1, 1)
    assert term.energy(x) == 0.0 and len(term.collisions(x)) == 0
    g = term.gradient(x)
    assert g.shape == (12, 1) and g.dtype == np.float64 and not g.any()
    for psd in (True, False):
        H = MeshContact(X, D_HAT, KAPPA, edges=E, psd=psd).hessian(x)
        assert H.shape == (12, 12) and H.nnz == 0
    assert len(term.friction_frame(x).normal_force) == 0


def test_2d_segments_are_the_all_pairs_sum():
    """In 2D, the merged collision set gives the energy, gradient and exact Hessian of the plain sum over every
    vertex-segment pair (tests/segment_contact_reference.py), where a vertex near a shared end counts per segment."""
    rng = np.random.default_rng(4)
    k = 10
    t = np.linspace(0.0, 2 * np.pi, k, endpoint=False)
    ring = np.column_stack([np.cos(t), np.sin(t)])
    X = np.concatenate([ring, ring + [2.05, 0.02]]) + 1e-3 * rng.standard_normal((2 * k, 2))
    loop = np.column_stack([np.arange(k), (np.arange(k) + 1) % k])
    S = np.concatenate([loop, loop + k])
    bodies = np.repeat([0, 1], k)
    w = rng.uniform(0.5, 2.0, 2 * k)
    x = X.reshape(-1, 1)
    pairs = reference.pairs(S, len(X), bodies=bodies)
    ours = MeshContact(X, 0.2, KAPPA, edges=S, weight=w, bodies=bodies, psd=False)
    groups = ours.collisions(x).groups
    assert {g.name for g in groups} == {"point-point", "point-edge"}
    assert len(ours.collisions(x)) < (reference.distances(X, pairs) < 0.2).sum()     # merged: near shared ends
    np.testing.assert_allclose(ours.energy(x), reference.energy(X, pairs, 0.2, KAPPA, w), rtol=EXACT)
    g = reference.gradient(X, pairs, 0.2, KAPPA, w)
    np.testing.assert_allclose(ours.gradient(x), g, rtol=0, atol=EXACT * np.abs(g).max())
    H = reference.hessian(X, pairs, 0.2, KAPPA, w)
    np.testing.assert_allclose(ours.hessian(x).toarray(), H, rtol=0, atol=EXACT * np.abs(H).max())
    P = MeshContact(X, 0.2, KAPPA, edges=S, weight=w, bodies=bodies).hessian(x).toarray()
    assert np.linalg.eigvalsh(P).min() > -1e-10 * np.abs(P).max()


def test_friction_frame_lags_the_barrier_force_along_the_normal():
    X, F, E = point_over_face(height=1e-3, where=(0.3, 0.2))
    term = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F, weight=2.0)
    frame = term.friction_frame(X.reshape(-1, 1))
    np.testing.assert_array_equal(frame.nodes, [[0, 1, 2, 3]])
    np.testing.assert_allclose(frame.coefficients, [[1.0, -0.5, -0.3, -0.2]], rtol=1e-12)
    force = -KAPPA * 2.0 * en.ipc_barrier_gradient(np.array([1e-3]), D_HAT).item()
    np.testing.assert_allclose(frame.normal_force, [force], rtol=1e-10)
    n = np.cross(X[2] - X[1], X[3] - X[1])
    np.testing.assert_allclose(frame.tangents[0].T @ n / np.linalg.norm(n), 0.0, atol=1e-13)
    np.testing.assert_allclose(frame.tangents[0].T @ frame.tangents[0], np.eye(2), atol=1e-14)
    # stencils of mixed sizes are padded with a zero coefficient
    X, term = scene_term("sheets vertex over vertex")
    frame = term.friction_frame(X.reshape(-1, 1))
    assert frame.nodes.shape[1] == 4 and (frame.coefficients[:, 2:] == 0).any(axis=1).any()
    np.testing.assert_allclose(frame.coefficients.sum(axis=1), 0.0, atol=1e-12)


def test_constructor_and_call_errors():
    X, F, E = point_over_face()
    kw = dict(edges=E, faces=F)
    with pytest.raises(ValueError, match="^d_hat: expected a finite value > 0"):
        MeshContact(X, 0.0, KAPPA, **kw)
    with pytest.raises(ValueError, match="^kappa: expected a finite value > 0"):
        MeshContact(X, D_HAT, -1.0, **kw)
    with pytest.raises(ValueError, match="^weight: expected strictly positive values"):
        MeshContact(X, D_HAT, KAPPA, weight=np.zeros(6), **kw)
    with pytest.raises(ValueError, match=r"^weight: expected a scalar or one value per vertex"):
        MeshContact(X, D_HAT, KAPPA, weight=np.ones(4), **kw)
    with pytest.raises(TypeError, match="^psd: expected True or False"):
        MeshContact(X, D_HAT, KAPPA, psd=1, **kw)
    with pytest.raises(ValueError, match=r"^safety: expected a factor in \(0, 1\)"):
        MeshContact(X, D_HAT, KAPPA, safety=1.0, **kw)
    with pytest.raises(ValueError, match=r"^faces: expected indices in \[0, 6\)"):
        MeshContact(X, D_HAT, KAPPA, edges=E, faces=F + 1)
    with pytest.raises(TypeError, match="edges"):
        MeshContact(X, D_HAT, KAPPA, faces=F)
    term = MeshContact(X, D_HAT, KAPPA, **kw)
    with pytest.raises(ValueError, match=r"^x: expected 18 stacked coordinates \(6 vertices in 3D\)"):
        term.energy(np.zeros(17))
