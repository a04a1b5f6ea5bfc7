"""2D vertex-segment barrier contact, MeshContact with segments: the three distance regions, FD, closed forms,
the candidate pairs, friction, errors, and the invariant that filtered Newton steps never pass through a segment."""
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sps
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import simkit
from simkit import energies as en
from simkit.solvers import newton_solver
from simkit.terms import Friction, HalfSpaceContact, MeshContact, Sum

import segment_contact_reference as reference

FD_STEP = 1e-7
GRAD_TOL = 1e-6
HESS_TOL = 1e-5
EXACT = 1e-12
D_HAT = 0.2
TIGHT = 0.98        # the CCD's time of impact: a lower bound, at least this fraction of the exact one here


def region_configurations(rng):
    """Vertex 0 against segment (1, 2): near endpoint a, over the interior, near endpoint b (each within d_hat)."""
    a, b = np.array([0.0, 0.0]), np.array([1.0, 0.3])
    e = (b - a) / np.linalg.norm(b - a)
    n = np.array([-e[1], e[0]])
    cases = {"a": a - 0.05 * e + 0.08 * n, "interior": a + 0.4 * (b - a) + 0.1 * n, "b": b + 0.07 * e - 0.06 * n}
    out = {}
    for name, p in cases.items():
        jitter = 1e-3 * rng.standard_normal((3, 2))
        out[name] = np.array([p, a, b]) + jitter
    return out


def test_distance_in_each_region_is_the_closed_form():
    """Vertices 0, 1, 2 face end point a, the interior and end point b of segment (3, 4): distances 0.5, 0.5, 1."""
    X = np.array([[-0.3, 0.4], [1.2, 0.5], [2.6, -0.8], [0.0, 0.0], [2.0, 0.0]])
    term = MeshContact(X, 1.5, 1.0, edges=[[3, 4]], points=[0, 1, 2])
    collisions = term.collisions(X)
    np.testing.assert_array_equal(collisions.group("point-point").nodes, [[0, 3], [2, 4]])
    np.testing.assert_allclose(collisions.group("point-point").distance, [0.5, 1.0], rtol=EXACT)
    np.testing.assert_array_equal(collisions.group("point-edge").nodes, [[1, 3, 4]])
    np.testing.assert_allclose(collisions.group("point-edge").distance, [0.5], rtol=EXACT)
    b = en.ipc_barrier_energy(np.array([0.5, 0.5, 1.0]), 1.5)
    np.testing.assert_allclose(term.energy(X.reshape(-1, 1)), b.sum(), rtol=EXACT)


@pytest.mark.parametrize("region", ["a", "interior", "b"])
def test_segment_gradient_and_exact_hessian_match_central_differences(region):
    rng = np.random.default_rng(["a", "interior", "b"].index(region))
    X = region_configurations(rng)[region]
    w = np.array([1.5, 1.0, 1.0])
    exact = MeshContact(X, D_HAT, 20.0, edges=[[1, 2]], points=[0], weight=w, psd=False)
    x = X.reshape(-1)
    g = exact.gradient(x)[:, 0]
    assert np.abs(g).max() > 1.0
    np.testing.assert_allclose(g, simkit.gradient_cfd(exact.energy, x, FD_STEP), rtol=GRAD_TOL,
                               atol=GRAD_TOL * np.abs(g).max())
    np.testing.assert_allclose(g.reshape(3, 2).sum(axis=0), 0.0, atol=EXACT * np.abs(g).max())  # action = reaction
    H = exact.hessian(x).toarray()
    fd = np.array([(exact.gradient(x + FD_STEP * e)[:, 0] - exact.gradient(x - FD_STEP * e)[:, 0]) / (2 * FD_STEP)
                   for e in np.eye(6)])
    np.testing.assert_allclose(H, fd, rtol=HESS_TOL, atol=HESS_TOL * np.abs(H).max())
    P = MeshContact(X, D_HAT, 20.0, edges=[[1, 2]], points=[0], weight=w).hessian(x).toarray()
    np.testing.assert_array_equal(P, P.T)
    assert np.linalg.eigvalsh(P).min() > -EXACT * np.abs(P).max()
    if region == "interior":
        assert np.linalg.eigvalsh(H).min() < 0, "the exact Hessian is indefinite here, so psd matters"


def test_energy_is_the_weighted_sum_and_inactive_pairs_do_not_count():
    X = np.array([[0.5, 0.1], [3.0, 0.1], [0.0, 0.0], [1.0, 0.0]])
    term = MeshContact(X, D_HAT, 7.0, edges=[[2, 3]], points=[0, 1], weight=[2.0, 1.0, 1.0, 1.0])
    np.testing.assert_allclose(term.energy(X.reshape(-1, 1)),
                               7.0 * 2.0 * en.ipc_barrier_energy(np.array([0.1]), D_HAT).item(), rtol=EXACT)


def test_pairs_skip_own_segments_and_own_body():
    X = np.array([[0.0, 0.0], [1.0, 0.2], [2.0, 0.0], [0.5, 1.0], [1.5, 1.0]])
    segments = np.array([[0, 1], [1, 2], [3, 4]])

    def pairs(**kw):
        point, edge = MeshContact(X, D_HAT, 1.0, edges=segments, **kw).mesh.candidates(X, 10.0)[0].T
        return sorted(map(tuple, np.column_stack([point, segments[edge]]).tolist()))

    everything = pairs()
    assert not any(p in (a, b) for p, a, b in everything)
    assert (0, 1, 2) in everything                                      # same body allowed by default
    assert pairs(bodies=np.array([0, 0, 0, 1, 1])) == [(0, 3, 4), (1, 3, 4), (2, 3, 4), (3, 0, 1), (3, 1, 2),
                                                       (4, 0, 1), (4, 1, 2)]
    assert pairs(points=[3]) == [(3, 0, 1), (3, 1, 2)]


def test_segment_errors():
    X = np.array([[0.5, 0.1], [0.0, 0.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="^d_hat: expected a finite value > 0"):
        MeshContact(X, 0.0, 1.0, edges=[[1, 2]])
    with pytest.raises(ValueError, match="^kappa: expected a finite value > 0"):
        MeshContact(X, D_HAT, 0.0, edges=[[1, 2]])
    with pytest.raises(ValueError, match=r"^edges: expected indices in \[0, 3\)"):
        MeshContact(X, D_HAT, 1.0, edges=[[1, 3]])
    with pytest.raises(ValueError, match="^edges: edge 0 joins vertex 1 to itself"):
        MeshContact(X, D_HAT, 1.0, edges=[[1, 1]])
    with pytest.raises(ValueError, match="^bodies: expected one integer label per vertex"):
        MeshContact(X, D_HAT, 1.0, edges=[[1, 2]], bodies=[0.0, 1.0, 1.0])
    with pytest.raises(TypeError, match="^psd: expected True or False"):
        MeshContact(X, D_HAT, 1.0, edges=[[1, 2]], psd=1)
    with pytest.raises(ValueError, match="^points: expected distinct vertex indices"):
        MeshContact(X, D_HAT, 1.0, edges=[[1, 2]], points=[0, 0])
    with pytest.raises(ValueError, match=r"^points: expected indices in \[0, 3\)"):
        MeshContact(X, D_HAT, 1.0, edges=[[1, 2]], points=[3])
    touching = np.array([[0.5, 0.0], [0.0, 0.0], [1.0, 0.0]]).reshape(-1, 1)
    assert MeshContact(X, D_HAT, 1.0, edges=[[1, 2]]).energy(touching) == 0.0     # vertex 0 is no point
    term = MeshContact(X, D_HAT, 1.0, edges=[[1, 2]], points=[0])
    assert term.energy(touching) == np.inf
    with pytest.raises(ValueError, match=r"^x: vertex and segment \(p, a, b\) \(0, 1, 2\) touch"):
        term.gradient(touching)
    with pytest.raises(ValueError, match=r"^x: vertex and segment \(p, a, b\) \(0, 1, 2\) touch"):
        term.max_step(touching, np.array([[0.0, -1.0], [0.0, 0.0], [0.0, 0.0]]).reshape(-1, 1))


# ---------------------------------------------------------------------------------------
# CCD, closed forms: the filter is safety times a lower bound on the time of impact, tight here
# ---------------------------------------------------------------------------------------

SEG = np.array([[1, 2]])


def fraction(X, dX, safety=0.9):
    """The filter of vertex 0 against segment (1, 2) on the step dX from X."""
    term = MeshContact(X, 0.01, 1.0, edges=SEG, points=[0], safety=safety)
    return term.max_step(X.reshape(-1, 1), dX.reshape(-1, 1))


def assert_filter(alpha, t_impact, safety=0.9):
    assert TIGHT * safety * t_impact <= alpha <= safety * t_impact * (1 + EXACT)


def test_vertex_falling_onto_a_static_segment():
    X = np.array([[0.3, 1.0], [0.0, 0.0], [1.0, 0.0]])
    dX = np.array([[0.2, -4.0], [0.0, 0.0], [0.0, 0.0]])               # crosses y = 0 at t = 1/4, at x = 0.35
    assert_filter(fraction(X, dX), 0.25)
    assert_filter(fraction(X, dX, safety=0.5), 0.25, safety=0.5)
    beside = np.array([[4.0, -4.0], [0.0, 0.0], [0.0, 0.0]])           # crosses y = 0 at x = 1.3: beside it
    assert fraction(X, beside) == 1.0


def test_moving_segment_hits_a_resting_vertex():
    X = np.array([[0.5, 0.0], [0.0, -1.0], [1.0, -1.0]])
    dX = np.array([[0.0, 0.0], [0.0, 2.0], [0.0, 2.0]])                # the segment rises through it at t = 1/2
    assert_filter(fraction(X, dX), 0.5)
    # rotating about a: b(t) = (1, -1 + 4t); the segment's height at x = 0.4 is -1 + 1.6 t: zero at t = 5/8
    X = np.array([[0.4, 0.0], [0.0, -1.0], [1.0, -1.0]])
    dX = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 4.0]])
    assert_filter(fraction(X, dX), 0.625)


def test_vertex_sliding_along_the_segment_line_into_an_endpoint():
    X = np.array([[-1.0, 0.0], [0.0, 0.0], [1.0, 0.0]])
    dX = np.array([[2.0, 0.0], [0.0, 0.0], [0.0, 0.0]])                # on the line: meets a at t = 1/2
    assert_filter(fraction(X, dX), 0.5)
    away = np.array([[-2.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    assert fraction(X, away) == 1.0


def test_the_sum_of_contact_terms_combines_their_filters():
    X = np.array([[0.3, 1.0], [0.0, 0.0], [1.0, 0.0]])
    ground = HalfSpaceContact(3, 2, [0.0, -0.5], [0.0, 1.0], D_HAT, 1.0)
    bodies = MeshContact(X, D_HAT, 1.0, edges=SEG, points=[0])
    dX = np.array([[0.2, -4.0], [0.0, -1.0], [0.0, -1.0]]).reshape(-1, 1)
    x = X.reshape(-1, 1)
    a, b = ground.max_step(x, dX), bodies.max_step(x, dX)
    assert (ground + bodies).max_step(x, dX) == Sum(bodies, ground).max_step(x, dX) == min(a, b) < 1 and a != b


def test_segment_contact_carries_friction():
    X = np.array([[0.5, 0.05], [0.0, 0.0], [1.0, 0.0], [3.0, 3.0]])
    term = MeshContact(X, D_HAT, 3.0, edges=[[1, 2]], points=[0, 3])
    x = X.reshape(-1, 1)
    frame = term.friction_frame(x)
    np.testing.assert_array_equal(frame.nodes, [[0, 1, 2]])
    np.testing.assert_allclose(frame.coefficients, [[1.0, -0.5, -0.5]], rtol=EXACT)
    np.testing.assert_allclose(np.abs(frame.tangents[0, :, 0]), [1.0, 0.0], atol=EXACT)
    np.testing.assert_allclose(frame.normal_force, -term.gradient(x)[1], rtol=EXACT)
    np.testing.assert_allclose(frame.normal_force, -3.0 * en.ipc_barrier_gradient(np.array([0.05]), D_HAT)[0],
                               rtol=EXACT)
    # the vertex sliding over a resting segment feels Coulomb friction mu lambda against its motion
    friction = Friction(term, 0.4, 0.01, 0.01).update(x)
    moved = x.copy()
    moved[0] += 0.01
    f = -friction.gradient(moved).reshape(4, 2)
    np.testing.assert_allclose(f[0], [-0.4 * frame.normal_force[0], 0.0], rtol=1e-12, atol=EXACT)
    np.testing.assert_allclose(f.sum(axis=0), 0.0, atol=EXACT)


# ---------------------------------------------------------------------------------------
# invariant: random large Newton steps never pass through a segment or a plane
# ---------------------------------------------------------------------------------------

def _orient(p, q, r):
    """Exact sign of cross(q - p, r - p) for float points (rational arithmetic)."""
    (px, py), (qx, qy), (rx, ry) = ([Fraction(float(c)) for c in v] for v in (p, q, r))
    value = (qx - px) * (ry - py) - (qy - py) * (rx - px)
    return (value > 0) - (value < 0)


def _crosses(p0, p1, a, b):
    """Exactly: does the closed segment p0-p1 meet the closed segment a-b?"""
    o1, o2, o3, o4 = _orient(a, b, p0), _orient(a, b, p1), _orient(p0, p1, a), _orient(p0, p1, b)
    if o1 != o2 and o3 != o4:
        return True
    def on(u, v, w):
        return min(u[0], v[0]) <= w[0] <= max(u[0], v[0]) and min(u[1], v[1]) <= w[1] <= max(u[1], v[1])
    return ((o1 == 0 and on(a, b, p0)) or (o2 == 0 and on(a, b, p1)) or (o3 == 0 and on(p0, p1, a))
            or (o4 == 0 and on(p0, p1, b)))


# a static zig-zag floor of segments (nodes 0..4) and a free triangle of three vertices (nodes 5..7)
FLOOR = np.array([[-2.0, 0.0], [-0.7, 0.3], [0.0, -0.1], [0.8, 0.25], [2.0, 0.0]])
FLOOR_SEGMENTS = np.array([[0, 1], [1, 2], [2, 3], [3, 4]])
coordinate = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start=st.lists(st.tuples(st.floats(-1.5, 1.5), st.floats(0.45, 1.5)), min_size=3, max_size=3),
       target=st.lists(st.tuples(coordinate, st.floats(-6.0, 0.0)), min_size=3, max_size=3),
       stiffness=st.floats(1.0, 1e4), wall=st.floats(-2.5, -1.0))
def test_filtered_newton_never_passes_through_segments_or_planes(start, target, stiffness, wall):
    """Newton pulls three vertices towards random targets under the floor and past a wall, with huge steps."""
    n = 8
    segments = FLOOR_SEGMENTS
    x = np.concatenate([FLOOR, np.array(start)]).reshape(-1, 1)
    floor = MeshContact(x.reshape(n, 2), 0.05, 1.0, edges=segments, points=[5, 6, 7])
    plane = HalfSpaceContact(n, 2, [wall, 0.0], [1.0, 0.0], 0.05, 1.0, vertices=[5, 6, 7])
    pairs = reference.pairs(segments, n, points=[5, 6, 7])
    free = np.zeros(2 * n, dtype=bool)
    free[10:] = True
    goal = np.concatenate([FLOOR, np.array(target)]).reshape(-1, 1)      # under the floor, some past the wall
    pin = 1e6
    Kdiag = np.where(free, stiffness, pin)
    K = sps.diags(Kdiag, format="csc")
    E = lambda x: floor.energy(x) + plane.energy(x) + 0.5 * (((x - goal) ** 2).T @ Kdiag[:, None]).item()
    G = lambda x: floor.gradient(x) + plane.gradient(x) + Kdiag[:, None] * (x - goal)
    Hs = lambda x: floor.hessian(x) + plane.hessian(x) + K
    # start strictly above the floor and right of the wall
    if reference.distances(x.reshape(n, 2), pairs).min() <= 1e-3 or plane.distances(x).min() <= 1e-3:
        return
    filt = (floor + plane).max_step
    for _ in range(4):
        x_new = newton_solver(x, E, G, Hs, max_iter=1, max_step=filt)
        X0, X1 = x.reshape(n, 2), x_new.reshape(n, 2)
        assert reference.distances(X1, pairs).min() > 0 and plane.distances(x_new).min() > 0
        for v in (5, 6, 7):
            for a, b in segments:
                assert not _crosses(X0[v], X1[v], X1[a], X1[b]), f"vertex {v} passed through segment ({a}, {b})"
        x = x_new


@settings(max_examples=60, deadline=None)
@given(p=st.tuples(coordinate, coordinate), dp=st.tuples(coordinate, coordinate),
       a=st.tuples(coordinate, coordinate), b=st.tuples(coordinate, coordinate),
       shift=st.tuples(coordinate, coordinate))
def test_ccd_against_a_translating_segment_never_allows_a_crossing(p, dp, a, b, shift):
    """A segment translating by `shift` while the vertex moves by dp: in the segment's frame, an exact test."""
    X = np.array([p, a, b])
    dX = np.array([np.add(dp, shift), shift, shift])
    if np.linalg.norm(np.subtract(b, a)) < 1e-3 or reference.distances(X, np.array([[0, 1, 2]]))[0] < 1e-6:
        return
    alpha = fraction(X, dX)
    assert 0 < alpha <= 1
    end = X + alpha * dX
    assert reference.distances(end, np.array([[0, 1, 2]]))[0] > 0
    # relative to the segment the vertex moves along a straight line by alpha (dX_p - dX_a)
    assert not _crosses(X[0], X[0] + alpha * (dX[0] - dX[1]), X[1], X[2])
