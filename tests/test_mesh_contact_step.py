"""MeshContact.max_step: the collision-free step size against ipctk's, and the invariant that filtered steps never intersect.

ipctk's ``compute_collision_free_stepsize`` scales its time of impact by 0.8 by default
(``TightInclusionCCD``'s ``conservative_rescaling``), and Tight Inclusion's default tolerance
(1e-6, a distance) leaves its time up to 1e-4 early on these scenes. With rescaling 1 and
tolerance 1e-10 it is the time of impact to about 1e-8 (checked against the closed form of a
point through a face, 1/3; on the two sheets it is 1.1e-8 early, where ours is within 2e-11 of
the exact first contact), the reference here: ours (``max_step / safety``) must not be later
than it by more than that, and be at least 0.8 of it. On the scenes with few pairs, ours is
also checked against the exact first contact of every pair (``contact_exact.first_contact``).
"""
import ipctk
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import simkit
from simkit import contact
from simkit.contact.collision_mesh import CollisionMesh
from simkit.terms.mesh_contact import MeshContact

import contact_exact
import segment_contact_reference as reference
from mesh_contact_scenes import D_HAT, crossing_rods, folded_sheet, point_over_face, two_sheets

TOLERANCE = 3e-8          # Tight Inclusion's time, early by up to its tolerance over the closing speeds
REFERENCE_CCD = ipctk.TightInclusionCCD(1e-10, 100_000_000, 1.0)


def through(X, F, E, rng, down=4e-3, noise=1e-3, layer=None):
    """A step that moves the upper layer `down` through the lower one, plus noise on every vertex."""
    dX = noise * rng.uniform(-1.0, 1.0, X.shape)
    upper = X[:, 1] > X[:, 1].mean() if layer is None else layer
    dX[upper, 1] -= down
    return dX


def steps():
    rng = np.random.default_rng(11)
    X, F, E = two_sheets(m=6)
    yield "sheets through each other", X, F, E, through(X, F, E, rng)
    X, F, E = two_sheets(m=6, shift=0.0, seed=3)
    yield "vertex over vertex, sliding and sinking", X, F, E, through(X, F, E, rng, noise=3e-3)
    X, F, E = folded_sheet(m=6)
    yield "folded sheet, upper layer pushed down", X, F, E, through(X, F, E, rng, down=5e-3, noise=5e-4)
    X, F, E = folded_sheet(m=6, seed=4)
    yield "folded sheet, random large step", X, F, E, 8e-3 * rng.standard_normal(X.shape)
    X, E = crossing_rods(angle=1.0)
    dX = np.zeros_like(X)
    dX[2:, 1] = -5e-3
    dX[2:, 0] = 2e-3
    yield "rod through rod", X, np.zeros((0, 3), dtype=np.int64), E, dX
    X, F, E = point_over_face()
    dX = np.zeros_like(X)
    dX[[0, 4, 5]] = [1e-3, 6e-3, 5e-4]                    # the point lies 2 mm below the face (normal -y)
    yield "point through face", X, F, E, dX


STEPS = {name: (X, F, E, dX) for name, X, F, E, dX in steps()}


@pytest.mark.parametrize("name", STEPS)
def test_time_of_impact_is_a_tight_lower_bound_of_ipctks(name):
    X, F, E, dX = STEPS[name]
    term = MeshContact(X, D_HAT, 1.0, edges=E, faces=F if len(F) else None)
    alpha = term.max_step(X.reshape(-1, 1), dX.reshape(-1, 1))
    ours = min(alpha / term.safety, 1.0)
    theirs = ipctk.compute_collision_free_stepsize(ipctk.CollisionMesh(X, E, F), X, X + dX,
                                                   narrow_phase_ccd=REFERENCE_CCD)
    assert theirs < 1.0, "the step must hit something"
    if name == "point through face":                          # 2 mm below the face, rising at 6 mm per step
        np.testing.assert_allclose(theirs, 1 / 3, rtol=0, atol=TOLERANCE)
    assert ours <= theirs + TOLERANCE
    assert ours >= 0.8 * theirs
    assert not ipctk.has_intersections(ipctk.CollisionMesh(X, E, F), X + alpha * dX)


@pytest.mark.parametrize("name", ["rod through rod", "point through face"])
def test_time_of_impact_is_a_tight_lower_bound_of_the_exact_first_contact(name):
    X, F, E, dX = STEPS[name]
    term = MeshContact(X, D_HAT, 1.0, edges=E, faces=F if len(F) else None)
    ours = min(term.max_step(X.reshape(-1, 1), dX.reshape(-1, 1)) / term.safety, 1.0)
    point_face, edge_edge = term.mesh.swept_candidates(X, X + dX)
    stencils = [("point_triangle", np.column_stack([point_face[:, 0], term.mesh.faces[point_face[:, 1]]])),
                ("edge_edge", np.column_stack([term.mesh.edges[edge_edge[:, 0]], term.mesh.edges[edge_edge[:, 1]]]))]
    first = min((contact_exact.first_contact(family, X[s], X[s] + dX[s]) or (1.0, 1.0))[0]
                for family, S in stencils for s in S)
    assert first < 1.0
    assert ours <= first and ours >= 0.99 * first


def test_edges_crossing_from_a_start_1e_10_apart_are_caught():
    """Issue 27: two edges of chapter 019's blocks, 3.3e-10 apart, cross at t = 1.07e-7; max_step let them through."""
    from test_contact_ccd_exact import CH019_A, CH019_B
    term = MeshContact(CH019_A, D_HAT, 1.0, edges=np.array([[0, 1], [2, 3]]))
    alpha = term.max_step(CH019_A.reshape(-1, 1), (CH019_B - CH019_A).reshape(-1, 1))
    first = contact_exact.first_contact("edge_edge", CH019_A, CH019_B)[0]
    assert 0.8 * first <= alpha / term.safety <= first


def test_a_start_within_round_off_of_touching_is_named():
    """A point 1e-15 over a face (round-off of the coordinates' size), sliding along it: no step is certified safe."""
    turn = np.linalg.qr(np.random.default_rng(3).standard_normal((3, 3)))[0]   # boxes of the face and point overlap
    for height, safe in ((1e-15, False), (1e-9, True)):
        X, F, E = point_over_face(height=height)
        X = X @ turn.T
        term = MeshContact(X, D_HAT, 1.0, edges=E, faces=F)
        dX = np.zeros_like(X)
        dX[[0, 4, 5]] = 1e-3 * (X[2] - X[1])                 # sliding along the face, parallel to it
        x, dx = X.reshape(-1, 1), dX.reshape(-1, 1)
        if safe:
            assert term.max_step(x, dx) == 1.0
        else:
            with pytest.raises(ValueError, match=r"^x: vertex and triangle \(p, a, b, c\) \(0, 1, 2, 3\) touch at the "
                                                 r"start of the step \(distance [0-9.e-]+: zero, or too small"):
                term.max_step(x, dx)


def test_a_free_step_is_taken_whole_and_a_touching_start_is_named():
    X, F, E = two_sheets(m=4)
    term = MeshContact(X, D_HAT, 1.0, edges=E, faces=F)
    dX = np.zeros_like(X)
    dX[:, 0] = 0.5                                         # both sheets together: no relative motion
    assert term.max_step(X.reshape(-1, 1), dX.reshape(-1, 1)) == 1.0
    X = np.array([[0.25, 0.0, 0.25], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.25, 1.0, 0.25],
                  [0.5, 1.0, 0.25]])
    F = np.array([[1, 2, 3], [0, 4, 5]])
    term = MeshContact(X, D_HAT, 1.0, edges=simkit.edges(F), faces=F)
    dX = np.zeros_like(X)
    dX[0, 1] = -0.1
    with pytest.raises(ValueError, match=r"^x: vertex and triangle \(p, a, b, c\) \(0, 1, 2, 3\) touch"):
        term.max_step(X.reshape(-1, 1), dX.reshape(-1, 1))
    with pytest.raises(ValueError, match=r"^dx: expected 18 stacked coordinates"):
        term.max_step(X.reshape(-1, 1), np.zeros(17))


# -----------------------------------------------------------------------------------------------
# the invariant: large random Newton-like steps, filtered, never intersect; unfiltered, they do
# (simkit.contact.has_intersections: exact edge-triangle tests)
# -----------------------------------------------------------------------------------------------

SCENES = {"two sheets": lambda seed: two_sheets(m=5, seed=seed), "folded": lambda seed: folded_sheet(m=5, seed=seed)}


def random_steps(X, rng, count, scale):
    """Newton-like steps: a smooth field (random affine map) plus per-vertex noise, the upper layer pushed down."""
    upper = X[:, 1] > X[:, 1].mean()
    for _ in range(count):
        A = rng.standard_normal((3, 3)) * scale * 20
        dX = (X - X.mean(axis=0)) @ A.T + scale * rng.standard_normal(X.shape)
        dX[upper, 1] -= scale * rng.uniform(0.5, 3.0)
        yield dX


def intersecting_states(scene, seed, scale, filtered, count=4):
    """How many of `count` random steps end in a state where an edge passes through a face (exact test)."""
    X, F, E = SCENES[scene](seed)
    term = MeshContact(X, D_HAT, 1.0, edges=E, faces=F)
    bad = 0
    rng = np.random.default_rng(seed)
    for dX in random_steps(X, rng, count, scale):
        alpha = term.max_step(X.reshape(-1, 1), dX.reshape(-1, 1)) if filtered else 1.0
        X_new = X + alpha * dX
        if contact.has_intersections(X_new, F):
            bad += 1
        elif filtered:
            X = X_new                                          # walk on from the filtered state
    return bad


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scene=st.sampled_from(sorted(SCENES)), seed=st.integers(0, 2 ** 16), scale=st.floats(1e-3, 1e-2))
def test_filtered_steps_never_intersect(scene, seed, scale):
    assert intersecting_states(scene, seed, scale, filtered=True) == 0


def test_the_same_steps_unfiltered_do_intersect():
    """The invariant above is not vacuous: without the filter, the same generator intersects."""
    bad = sum(intersecting_states(scene, seed, 5e-3, filtered=False) for scene in SCENES for seed in range(3))
    assert bad >= 6


def test_2d_time_of_impact_is_a_tight_lower_bound_of_the_exact_segment_roots():
    """In 2D the filter agrees with the exact quadratic roots of every vertex-segment pair (the all-pairs reference)."""
    rng = np.random.default_rng(8)
    k = 12
    t = np.linspace(0.0, 2 * np.pi, k, endpoint=False)
    ring = np.column_stack([np.cos(t), np.sin(t)])
    X = np.concatenate([ring, ring + [2.1, 0.05]])
    loop = np.column_stack([np.arange(k), (np.arange(k) + 1) % k])
    S = np.concatenate([loop, loop + k])
    bodies = np.repeat([0, 1], k)
    term = MeshContact(X, 0.05, 1.0, edges=S, bodies=bodies)
    for _ in range(5):
        dX = 0.05 * rng.standard_normal(X.shape)
        dX[k:, 0] -= rng.uniform(0.2, 0.6)                    # the right ring into the left one
        exact = min(reference.impact_times(X, dX, reference.pairs(S, len(X), bodies=bodies)).min(), 1.0)
        ours = min(term.max_step(X.reshape(-1, 1), dX.reshape(-1, 1)) / term.safety, 1.0)
        assert exact < 1.0
        assert 0.8 * exact <= ours <= exact * (1 + 1e-9)


# -----------------------------------------------------------------------------------------------
# the pairs a step keeps (swept_candidates' keep): a line search's distance queries and the next
# Newton steps inside their region pick from them, and must find exactly the broad phase's pairs
# -----------------------------------------------------------------------------------------------

def kept_scenes():
    for m, lower_fixed in ((3, False), (12, False), (12, True)):              # every-pair path, then the trees
        X, F, E = two_sheets(m=m, seed=m)
        fixed = np.flatnonzero(X[:, 1] < X[:, 1].mean()) if lower_fixed else None
        yield f"{m}x{m} sheets{', lower one fixed' if lower_fixed else ''}", X, F, E, fixed


KEPT = {name: rest for name, *rest in kept_scenes()}


def assert_same_pairs(got, want):
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def kept_queries(X, F, E, fixed, seed):
    """Compare, along a few Newton-like steps, the kept pairs' answers with a fresh mesh's broad phase."""
    term = MeshContact(X, D_HAT, 1.0, edges=E, faces=F, fixed=fixed)
    mesh = term.mesh
    fresh = lambda: CollisionMesh(X, E, F, fixed=fixed)                # no kept pairs: the broad phase
    rng = np.random.default_rng(seed)
    moving = np.ones(len(X), bool) if fixed is None else ~np.isin(np.arange(len(X)), fixed)
    Y = X
    for scale in (3e-3, 3e-4, 3e-4, 2e-2):                   # a step, two inside its region, one that leaves it
        dY = scale * rng.standard_normal(X.shape) * moving[:, None]
        assert_same_pairs(mesh.swept_candidates(Y, Y + dY, keep=D_HAT), fresh().swept_candidates(Y, Y + dY))
        for alpha in (0.0, 0.37, 1.0):                       # a line search's points along it
            Z = Y + alpha * dY
            assert_same_pairs(mesh.candidates(Z, D_HAT), fresh().candidates(Z, D_HAT))
        Y = Y + 0.5 * dY
    far = Y + 5 * D_HAT * rng.standard_normal(X.shape) * moving[:, None]       # outside every region kept
    assert_same_pairs(mesh.candidates(far, D_HAT), fresh().candidates(far, D_HAT))


@pytest.mark.parametrize("name", KEPT)
def test_kept_pairs_give_the_broad_phase_of_every_point_and_step_inside_their_region(name):
    kept_queries(*KEPT[name], seed=5)


def test_kept_pairs_used_outside_their_region_would_miss_pairs(monkeypatch):
    """The comparison above can fail: kept pairs trusted everywhere (no region check) miss pairs of later steps."""
    from simkit.contact import collision_mesh
    monkeypatch.setattr(collision_mesh, "_inside", lambda *args: True)
    with pytest.raises(AssertionError):
        kept_queries(*KEPT["12x12 sheets"], seed=5)
