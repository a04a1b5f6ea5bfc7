"""MeshContact refuses a start in which primitives already pass through each other, naming them (issue 27)."""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit
from simkit import contact, terms
from simkit.contact.collisions import build_collisions
from simkit.integrators import simulate
from simkit.terms.mesh_contact import MeshContact

from mesh_contact_scenes import D_HAT, folded_sheet, two_sheets

KAPPA = 5.0
# an edge (3, 4) of one triangle passes through the other, (0, 1, 2); the barrier sees nothing (the brief's case)
CROSSING = np.array([[0, 0, 0], [1, 0, 0], [0, 0, 1], [0.2, -0.5, 0.2], [0.2, 0.5, 0.2], [0.9, 0.5, 0.9]], float)
CROSSING_F = np.array([[0, 1, 2], [3, 4, 5]])


def crossing_term(**kw):
    return MeshContact(CROSSING, D_HAT, KAPPA, edges=simkit.edges(CROSSING_F), faces=CROSSING_F, **kw)


def test_the_barrier_cannot_see_an_edge_through_a_face():
    """Why the check exists: every distance of the crossing pair is far above d_hat, so the collision set is empty."""
    assert contact.has_intersections(CROSSING, CROSSING_F)
    term = crossing_term()
    assert len(build_collisions(term.mesh, CROSSING, D_HAT, term.weight)) == 0


def test_the_first_state_evaluated_is_checked_and_the_error_names_the_edge_and_the_face():
    x = CROSSING.reshape(-1, 1)
    for method in ("energy", "gradient", "hessian", "friction_frame"):
        term = crossing_term()
        with pytest.raises(ValueError, match=r"^x: edge 2 \(1, 2\) passes through face 1 \(3, 4, 5\); "
                                             r"edge 3 \(3, 4\) passes through face 0 \(0, 1, 2\): the barrier cannot"):
            getattr(term, method)(x)
    # the same pairs as the exact test of the states module
    np.testing.assert_array_equal(contact.edge_face_intersections(CROSSING, CROSSING_F), [[3, 4, 0], [1, 2, 1]])


def test_update_checks_every_step_start_and_a_time_loop_fails_before_newton():
    term = crossing_term()
    with pytest.raises(ValueError, match=r"^x_n: edge 2 \(1, 2\) passes through face 1"):
        term.update(CROSSING.reshape(-1, 1))
    free = CROSSING.copy()
    free[3:, 1] += 0.6                                         # the second triangle lifted clear of the first
    assert term.update(free.reshape(-1, 1)) is term and term.energy(free.reshape(-1, 1)) == 0.0
    with pytest.raises(ValueError, match=r"^x_n: edge 2 \(1, 2\) passes through face 1"):
        term.update(CROSSING.reshape(-1, 1))
    # simulate calls update(x0) first: the bad start is refused before any Newton iteration
    M = sps.identity(CROSSING.size, format="csc")
    with pytest.raises(ValueError, match="^x_n: edge"):
        simulate(term + terms.Gravity(np.zeros((CROSSING.size, 1))), M, CROSSING.reshape(-1, 1), 0.01, 3)


def test_the_check_runs_at_each_step_start_only(monkeypatch):
    """Newton's iterates come through max_step, free of intersections by construction: only update() pays."""
    X, F, E = two_sheets(m=4)
    term = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F)
    calls = []
    real = term.mesh.intersections
    monkeypatch.setattr(term.mesh, "intersections", lambda Y: calls.append(1) or real(Y))
    f = np.zeros((X.size, 1))
    f[X.size // 2 + 1::3] = -1e-3                              # the upper sheet pushed down onto the lower
    run = simulate(term + terms.Gravity(f), sps.identity(X.size, format="csc") * 1e-3, X.reshape(-1, 1), 0.01, 4,
                   max_iter=20, tolerance=1e-9)
    assert run.iterations.sum() > 8 and len(calls) == 4


def test_2d_crossing_segments_are_named():
    t = np.linspace(0.0, 2 * np.pi, 8, endpoint=False)
    ring = np.column_stack([np.cos(t), np.sin(t)])
    X = np.concatenate([ring, ring + [1.5, 0.0]])              # two rings overlapping: their segments cross
    loop = np.column_stack([np.arange(8), (np.arange(8) + 1) % 8])
    S = np.concatenate([loop, loop + 8])
    term = MeshContact(X, 0.01, KAPPA, edges=S, bodies=np.repeat([0, 1], 8))
    with pytest.raises(ValueError, match=r"^x: segments 0 \(0, 1\) and 11 \(11, 12\) cross; segments 7 \(7, 0\) "
                                         r"and 12 \(12, 13\) cross"):
        term.energy(X.reshape(-1, 1))
    apart = np.concatenate([ring, ring + [2.5, 0.0]])
    assert term.update(apart.reshape(-1, 1)).energy(apart.reshape(-1, 1)) == 0.0


def test_only_pairs_that_may_touch_are_checked():
    """Pairs the barrier never looks at (one body, or a static obstacle's parts) may overlap at the start."""
    free = CROSSING.copy()
    assert len(crossing_term(bodies=[0] * 6).mesh.intersections(free)) == 0
    assert len(crossing_term(fixed=np.arange(6)).mesh.intersections(free)) == 0
    assert crossing_term(bodies=[0] * 6).energy(free.reshape(-1, 1)) == 0.0
    # two fixed triangles overlap (an obstacle built of two meshes); a moving one far above is a fine start
    X = np.concatenate([CROSSING, CROSSING[:3] + [0.0, 2.0, 0.0]])
    F = np.concatenate([CROSSING_F, [[6, 7, 8]]])
    term = MeshContact(X, D_HAT, KAPPA, edges=simkit.edges(F), faces=F, fixed=np.arange(6))
    assert term.update(X.reshape(-1, 1)).energy(X.reshape(-1, 1)) == 0.0


@pytest.mark.parametrize("seed", range(4))
def test_the_mesh_finds_the_pairs_of_the_exact_state_test(seed):
    """On folded and crushed sheets the term's check and simkit.contact.edge_face_intersections agree pair by pair."""
    rng = np.random.default_rng(seed)
    X, F, E = folded_sheet(m=5) if seed % 2 else two_sheets(m=5)
    mesh = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F).mesh
    Y = X + 4e-3 * rng.standard_normal(X.shape)                # layers 2 mm apart pushed through each other
    pairs = mesh.intersections(Y)
    want = {(i, j, f) for i, j, f in contact.edge_face_intersections(Y, F).tolist()}
    assert len(want) > 0
    assert {(E[e, 0], E[e, 1], f) for e, f in pairs.tolist()} == want and len(pairs) == len(want)
